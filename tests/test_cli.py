"""The CLI contract (DESIGN.md): verbs, JSON shapes, exit codes; and every verb is documented."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_pdf

from mmrag_desktop import cli

ROOT = Path(__file__).parent.parent
PAGES = [
    [(72, 100, "Installation"), (72, 130, "Unpack the archive and run the installer as administrator.")],
    [(72, 100, "Wiring"), (72, 130, "Connect the shield of cable W3 to terminal PE on the left rail.")],
]


@pytest.fixture
def shared_embedder(monkeypatch, embedder):
    """Make the CLI's Library reuse the session's loaded embedder (saves a model load per call)."""
    from mmrag_desktop.engine import library as library_mod

    real_open = library_mod.Library.open

    def open_with_embedder(folder=None, settings=None, embedder_=None):
        return real_open(folder, settings, embedder)

    monkeypatch.setattr(library_mod.Library, "open", staticmethod(open_with_embedder))


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
    assert code == 0
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
