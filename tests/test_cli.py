"""The CLI contract (DESIGN.md): verbs, JSON shapes, exit codes; and every verb is documented."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_pdf

from mmrag_desktop import cli

ROOT = Path(__file__).parent.parent
PAGES = [
    [(72, 100, "Installation"), (72, 130, "Unpack the archive and run the installer as administrator.")],
    [(72, 100, "Wiring"), (72, 130, "Connect the shield of cable W3 to terminal PE on the left rail.")],
]


def run(capsys, *argv):
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_search_json_batch_list_remove(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    pdf = write_pdf(tmp_path / "cabinet.pdf", PAGES)
    code, out, err = run(capsys, "--library", lib, "add", str(tmp_path))
    assert code == 0, err
    assert "added   cabinet.pdf" in err

    code, out, err = run(capsys, "--library", lib, "search", "where does the cable shield go", "--json", "-k", "3")
    assert code == 0, err
    data = json.loads(out)
    hit = data["hits"][0]
    assert hit["doc"] == "cabinet.pdf" and hit["page"] == 2
    assert isinstance(hit["bbox"], list) and len(hit["bbox"]) == 4
    assert set(hit) >= {"doc", "page", "bbox", "kind", "score", "chunk_id", "text"}
    assert hit["kind"] in ("text", "table", "figure", "caption")

    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "a", "query": "installer administrator"}) + "\n"
                       + json.dumps({"id": 7, "query": "terminal PE shield"}) + "\n"
                       + json.dumps({"id": "empty", "query": "   "}) + "\n")
    code, out, err = run(capsys, "--library", lib, "search", "--batch", str(queries), "-k", "2")
    assert code == 3  # one query failed (its line says why); the others are answered
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["id"] for x in lines] == ["a", 7, "empty"]
    assert lines[0]["hits"][0]["page"] == 1 and lines[1]["hits"][0]["page"] == 2
    assert lines[2]["hits"] == [] and "empty" in lines[2]["error"]
    assert "1 query failed" in err

    code, out, err = run(capsys, "--library", lib, "list", "--json")
    docs = json.loads(out)
    assert docs[0]["name"] == "cabinet.pdf" and docs[0]["status"] == "ready" and docs[0]["pages"] == 2

    code, out, err = run(capsys, "--library", lib, "remove", "cabinet.pdf")
    assert code == 0 and "removed cabinet.pdf" in out
    code, out, err = run(capsys, "--library", lib, "list")
    assert "empty" in out
    assert pdf.exists(), "remove must never touch the user's file"


def test_errors_are_one_line_with_exit_codes(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    code, out, err = run(capsys, "--library", lib, "search", "   ")
    assert code == 2 and err.strip().startswith("mmrag: error:") and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "--library", lib, "remove", "nope.pdf")
    assert code == 1 and "no document" in err
    (tmp_path / "broken.pdf").write_text("not a pdf")
    code, out, err = run(capsys, "--library", lib, "add", str(tmp_path / "broken.pdf"))
    assert code == cli.EXIT_FILES_FAILED and "FAILED  broken.pdf" in err
    code, out, err = run(capsys, "--library", lib, "search", "x", "--pages", "ten")
    assert code == 1 and "--pages" in err


def test_reindex_rebuilds(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    write_pdf(tmp_path / "m.pdf", PAGES)
    assert run(capsys, "--library", lib, "add", str(tmp_path / "m.pdf"))[0] == 0
    code, out, err = run(capsys, "--library", lib, "reindex")
    assert code == 0, err
    assert "text index rebuilt" in err
    code, out, err = run(capsys, "--library", lib, "search", "shield terminal", "--json")
    assert json.loads(out)["hits"][0]["page"] == 2


def test_console_script_runs(tmp_path):
    """The installed `mmrag` entry point starts and answers --help (a real subprocess)."""
    exe = Path(sys.executable).parent / "mmrag"
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "search" in out.stdout


def test_every_cli_verb_is_documented():
    parser = cli.build_parser()
    verbs = set(parser._subparsers._group_actions[0].choices)  # noqa: SLF001 - argparse has no public API
    assert {"add", "search", "list", "remove", "reindex"} <= verbs
    docs = (ROOT / "docs" / "cli.md").read_text() + (ROOT / "README.md").read_text()
    for verb in verbs:
        assert re.search(rf"mmrag( --library \S+)? {verb}\b", docs), f"verb {verb!r} is not documented"


# ---- common options: -q / -v / --library on every verb, before or after it ----------------
def _verb_parsers(parser, prefix=()):
    """(verb path, parser) for every verb and sub-verb (argparse has no public API for this)."""
    sub = parser._subparsers  # noqa: SLF001
    if sub is None:
        return
    for action in sub._group_actions:  # noqa: SLF001
        for name, p in action.choices.items():
            yield (*prefix, name), p
            yield from _verb_parsers(p, (*prefix, name))


def test_every_verb_takes_quiet_verbose_and_library():
    verbs = dict(_verb_parsers(cli.build_parser()))
    assert {("add",), ("search",), ("list",), ("ask",), ("models",), ("models", "verify")} <= set(verbs)
    for path, p in verbs.items():
        options = set(p._option_string_actions)  # noqa: SLF001
        assert {"-q", "--quiet", "-v", "--verbose", "--library"} <= options, path


@pytest.mark.parametrize("argv, quiet, verbose, library", [
    (["list"], False, 0, None),
    (["-q", "list"], True, 0, None),
    (["list", "-q"], True, 0, None),
    (["-v", "search", "x"], False, 1, None),
    (["search", "x", "-vv"], False, 2, None),
    (["--library", "L", "ask", "why?", "-v"], False, 1, "L"),
    (["ask", "why?", "--library", "L", "-q"], True, 0, "L"),
    (["add", "a.pdf", "-q"], True, 0, None),
    (["enrich", "--verbose"], False, 1, None),
    (["remove", "d", "--quiet"], True, 0, None),
    (["reindex", "-v", "--library", "L"], False, 1, "L"),
    (["models", "-q"], True, 0, None),
    (["models", "verify", "m.gguf", "--role", "answer_llm", "-vv"], False, 2, None),
])
def test_common_options_parse_before_and_after_the_verb(argv, quiet, verbose, library):
    args = cli.build_parser().parse_args(argv)
    assert bool(getattr(args, "quiet", False)) is quiet
    assert int(getattr(args, "verbose", 0)) == verbose
    assert getattr(args, "library", None) == library


def test_quiet_and_verbose_output(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    write_pdf(tmp_path / "ok.pdf", PAGES)
    (tmp_path / "broken.pdf").write_text("not a pdf")
    code, out, err = run(capsys, "add", str(tmp_path / "ok.pdf"), str(tmp_path / "broken.pdf"), "--library", lib, "-q")
    assert code == cli.EXIT_FILES_FAILED
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("FAILED  broken.pdf")] != []
    code, out, err = run(capsys, "list", "-q", "--library", lib)
    assert code == 0 and "ok.pdf" in out and err == ""
    code, out, err = run(capsys, "-v", "list", "--library", lib)
    assert code == 0 and "ok.pdf" in out
    assert "INFO mmrag_desktop.cli: library" in err and "list finished" in err
    assert "DEBUG" not in err
    code, out, err = run(capsys, "list", "-vv", "--library", lib)
    assert "DEBUG mmrag_desktop.cli: mmrag " in err
    with pytest.raises(SystemExit):
        cli.run(["list", "-q", "-v"])
    assert "cannot be used together" in capsys.readouterr().err


# ---- Ctrl+C: one line, exit 130, never a traceback --------------------------------------
def _interrupt(*_a, **_k):
    raise KeyboardInterrupt


def test_ctrl_c_in_search_list_add_is_one_line_and_130(tmp_path, capsys, monkeypatch):
    from mmrag_desktop.engine import library as library_mod
    from mmrag_desktop.engine.jobs import Progress

    lib = str(tmp_path / "lib")
    monkeypatch.setattr(library_mod.Library, "search", _interrupt)
    monkeypatch.setattr(library_mod.Library, "documents", _interrupt)

    def add_then_interrupt(self, paths, cancel=None, **_kw):
        yield Progress(stage="done", doc="first.pdf", message="1 pages, 3 chunks")
        raise KeyboardInterrupt

    monkeypatch.setattr(library_mod.Library, "add", add_then_interrupt)
    for argv in (["search", "anything"], ["search", "--batch", str(tmp_path / "q.jsonl")], ["list"]):
        (tmp_path / "q.jsonl").write_text(json.dumps({"id": 1, "query": "x"}) + "\n")
        code, out, err = run(capsys, "--library", lib, *argv)
        assert (code, err) == (130, "mmrag: interrupted\n"), argv
    code, out, err = run(capsys, "--library", lib, "add", str(tmp_path))
    assert code == 130
    assert err.splitlines() == ["added   first.pdf: 1 pages, 3 chunks",
                                "mmrag: interrupted: documents finished so far are kept; run add again to resume"]


def test_ctrl_c_in_ask_stops_the_answer_with_130(tmp_path, capsys, monkeypatch):
    """A real SIGINT during the answer: the verb's handler cancels it, what was written is
    printed, one line says so on stderr, exit 130."""
    import os
    import signal

    from mmrag_desktop.engine import answer as answer_mod
    from mmrag_desktop.engine.answer.events import Answer, DoneEvent, NoticeEvent

    def answer_events(lib, question, *, cancel, **_kw):
        yield NoticeEvent(message="no answer model; extractive answer")
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C
        for _ in range(100):
            if cancel.cancelled:
                break
            time.sleep(0.01)
        yield DoneEvent(answer=Answer(question=question, text="The shield goes to PE.", mode="extractive",
                                      stopped="cancelled"))

    monkeypatch.setattr(answer_mod, "answer_events", answer_events)
    before = signal.getsignal(signal.SIGINT)  # default_int_handler, or SIG_IGN under nohup / a background job
    code, out, err = run(capsys, "--library", str(tmp_path / "lib"), "ask", "where does the shield go?")
    assert code == 130
    assert out.splitlines()[:2] == ["The shield goes to PE.", "(stopped)"]
    assert err.splitlines() == ["note: no answer model; extractive answer", "mmrag: interrupted: the answer was stopped"]
    assert signal.getsignal(signal.SIGINT) is before  # put back

    def interrupted_early(lib, question, **_kw):
        raise KeyboardInterrupt  # e.g. while the models load, before the answer's own handler
        yield

    monkeypatch.setattr(answer_mod, "answer_events", interrupted_early)
    code, out, err = run(capsys, "--library", str(tmp_path / "lib"), "ask", "why?", "-q")
    assert (code, out, err) == (130, "", "mmrag: interrupted\n")


def test_ctrl_c_in_a_real_process(tmp_path):
    """`mmrag search --batch -` waiting on stdin gets a real SIGINT: one line, exit 130."""
    import signal

    exe = Path(sys.executable).parent / "mmrag"
    # as in a terminal: a test run started in the background (nohup, `&`) hands SIGINT down ignored
    p = subprocess.Popen([str(exe), "--library", str(tmp_path / "lib"), "search", "--batch", "-", "-v"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = []
        for line in p.stderr:  # the library is open, the batch is reading stdin
            seen.append(line)
            if "opened in" in line:
                break
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, "".join(seen) + err
    assert err.strip().splitlines()[-1] == "mmrag: interrupted"
    assert "Traceback" not in err


# ---- a broken settings file: one warning line, defaults, the file kept --------------------
def test_broken_settings_file_is_a_warning_not_a_crash(tmp_path, capsys):
    from mmrag_desktop.engine.settings import config_dir

    cfg = config_dir() / "settings.json"
    cfg.write_text('{"threads": 4,, "theme": "dark"}')
    code, out, err = run(capsys, "--library", str(tmp_path / "lib"), "list")
    assert code == 0 and "the library is empty" in out
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmrag: warning: settings file ")
    assert "is not valid JSON" in lines[0] and "using the defaults" in lines[0]
    assert "kept as settings.json.broken" in lines[0]
    assert (cfg.parent / "settings.json.broken").read_text() == cfg.read_text()

    cfg.write_text(json.dumps({"threads": "four", "theme": "dark"}))
    exe = Path(sys.executable).parent / "mmrag"
    res = subprocess.run([str(exe), "--library", str(tmp_path / "lib"), "list"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        f"mmrag: warning: settings file {cfg} has values of the wrong type: threads=\"four\" (wants a whole "
        f"number); using their defaults; the file is kept as {sorted(cfg.parent.glob('settings.json.broken-*'))[0].name}"]


def test_settings_load_checks_types_and_keeps_the_rest(tmp_path, caplog):
    from mmrag_desktop.engine.settings import Settings

    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"threads": True, "theme": "dark", "models": {"ocr": 1}, "n_ctx": 2048,
                                "ocr_enabled": "no", "future_key": [1]}))
    s = Settings.load(path)
    assert (s.threads, s.theme, s.models, s.n_ctx, s.ocr_enabled) == (2, "dark", {}, 2048, True)
    assert s.extra == {"future_key": [1]}
    assert len(s.load_warnings) == 1 and "threads=true" in s.load_warnings[0]
    assert "ocr_enabled=\"no\"" in s.load_warnings[0] and "models=" in s.load_warnings[0]
    for text in ("[1, 2]", "", "\xff"):
        path.write_text(text, encoding="latin-1")
        s = Settings.load(path)
        assert s == Settings() and len(s.load_warnings) == 1
    assert Settings.load(tmp_path / "missing.json").load_warnings == ()
    assert len(list(tmp_path.glob("settings.json.broken*"))) == 4  # one copy per distinct broken content
    Settings(theme="dark").save(path)
    assert Settings.load(path).theme == "dark" and Settings.load(path).load_warnings == ()


# ---- the progress bar (tqdm) ------------------------------------------------------------
def _events():
    from mmrag_desktop.engine.jobs import Progress

    name = "a-manual-with-a-very-long-file-name-that-does-not-fit-anywhere.pdf"
    yield Progress(stage="scan", unit="documents", total=2, docs_total=2)
    for done in range(0, 31, 5):
        yield Progress(stage="parse", doc=name, done=done, total=30, docs_total=2, eta=95.0)
    yield Progress(stage="embed", doc=name, done=10, total=240, unit="chunks", docs_total=2)


def test_progress_bar_is_off_when_stderr_is_not_a_terminal():
    import io

    stream = io.StringIO()
    bar = cli.ProgressBar(stream=stream)
    for ev in _events():
        bar.update(ev)
    bar.line("added   x.pdf: 1 pages")
    bar.close()
    assert stream.getvalue() == "added   x.pdf: 1 pages\n"


def test_progress_bar_fits_the_terminal_width():
    import fcntl
    import os
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 50, 0, 0))
    with os.fdopen(slave, "w", encoding="utf-8") as tty:
        bar = cli.ProgressBar(stream=tty)
        for ev in _events():
            bar.update(ev)
            time.sleep(0.25)  # past tqdm's mininterval, so each update draws
        bar.line("added   a-manual.pdf: 30 pages")
        bar.close()
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    frames = [f for f in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", data.decode())) if f.strip()]
    assert any("parse" in f and "%" in f for f in frames), frames
    assert any("/30" in f for f in frames) and any("a-manual-…" in f for f in frames)
    assert "added   a-manual.pdf: 30 pages" in frames
    assert all(len(f) <= 50 for f in frames if not f.startswith("added")), [f for f in frames if len(f) > 50]


def test_quiet_progress_bar_draws_nothing():
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = cli.ProgressBar(enabled=False, stream=stream)
    for ev in _events():
        bar.update(ev)
    bar.close()
    assert stream.getvalue() == ""
