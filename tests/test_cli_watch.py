"""`mmrag watch`: --once, --list, --forget, and the foreground watcher in a real subprocess that
picks up a file copied into the folder and stops cleanly on Ctrl+C."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import write_pdf
from test_cli import run

PAGES = [[(72, 100, "Pump maintenance"), (72, 130, "Grease the pump bearing every 500 operating hours.")]]
OTHER = [[(72, 100, "Valve settings"), (72, 130, "Set the relief valve to 6 bar before the first start.")]]


def _old_pdf(path: Path, pages) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_pdf(path, pages)
    t = time.time() - 60
    os.utime(path, (t, t))
    return path


def test_watch_once_list_and_forget(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    shelf = tmp_path / "shelf"
    _old_pdf(shelf / "pump.pdf", PAGES)
    code, out, err = run(capsys, "--library", lib, "watch", "--once", str(shelf))
    assert code == 0, err
    assert f"watching {shelf.resolve()}" in err and "added   pump.pdf" in err

    code, out, err = run(capsys, "--library", lib, "watch", "--list")
    assert code == 0 and out.strip() == f"{shelf.resolve()}\t1 document(s)\tpresent"

    _old_pdf(shelf / "valve.pdf", OTHER)
    (shelf / "pump.pdf").unlink()
    code, out, err = run(capsys, "--library", lib, "watch", "--once")  # the remembered folder
    assert code == 0, err
    assert "added   valve.pdf" in err and "removed pump.pdf" in err
    code, out, _ = run(capsys, "--library", lib, "list", "--json")
    assert [d["name"] for d in json.loads(out)] == ["valve.pdf"]

    code, out, err = run(capsys, "--library", lib, "watch", "--forget", str(shelf), "--remove-documents")
    assert code == 0 and "1 document(s) removed" in err
    code, out, _ = run(capsys, "--library", lib, "list", "--json")
    assert json.loads(out) == []
    code, out, err = run(capsys, "--library", lib, "watch", "--once")
    assert code == 1 and err.strip() == "mmrag: error: no folder is watched yet; give one: mmrag watch FOLDER"


def test_watch_errors_are_one_line(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    code, _, err = run(capsys, "--library", lib, "watch", "--once", str(tmp_path / "nope"))
    assert code == 1 and err.strip() == f"mmrag: error: no folder {tmp_path / 'nope'}"
    code, _, err = run(capsys, "--library", lib, "watch", "--forget", str(tmp_path))
    assert code == 1 and "is not a watched folder" in err and "Traceback" not in err
    code, _, err = run(capsys, "--library", lib, "watch", "--remove-documents")
    assert code == 1 and "--remove-documents goes with --forget" in err


def test_missing_folder_is_reported_and_kept(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    drive = tmp_path / "usb"
    _old_pdf(drive / "pump.pdf", PAGES)
    assert run(capsys, "--library", lib, "watch", "--once", str(drive))[0] == 0
    drive.rename(tmp_path / "elsewhere")
    code, out, err = run(capsys, "--library", lib, "watch", "--once")
    assert code == 0
    assert f"missing the watched folder {drive.resolve()} is not available" in err and "1 document(s) are kept" in err
    code, out, _ = run(capsys, "--library", lib, "list", "--json")
    assert [d["name"] for d in json.loads(out)] == ["pump.pdf"]


def test_foreground_watcher_picks_up_a_copy_and_stops_on_ctrl_c(tmp_path):
    lib = tmp_path / "lib"
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    exe = Path(sys.executable).parent / "mmrag"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([str(exe), "--library", str(lib), "watch", str(shelf), "--interval", "0.3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        lines = []
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line, f"the watcher ended early: {''.join(lines)}"
            lines.append(line)
            if "for changes; Ctrl+C stops" in line:
                break
        source = _old_pdf(tmp_path / "incoming" / "pump.pdf", PAGES)
        shutil.copy2(source, shelf / "pump.pdf")  # keeps the old mtime: nothing waits for it to settle
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line, f"the watcher ended early: {''.join(lines)}"
            lines.append(line)
            if "added   pump.pdf" in line:
                break
        else:
            raise AssertionError("the copied file was not added: " + "".join(lines))
        # another process reads the library while the watcher holds the writer lock
        found = subprocess.run([str(exe), "--library", str(lib), "search", "bearing grease interval", "--json"],
                               capture_output=True, text=True, timeout=180)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["hits"][0]["doc"] == "pump.pdf"
        os.killpg(proc.pid, signal.SIGINT)
        rest = proc.communicate(timeout=60)[1]
        assert proc.returncode == 0, "".join(lines) + rest
        assert "stopped watching" in rest and "Traceback" not in "".join(lines) + rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_file_landing_just_after_a_look_is_picked_up(tmp_path, capsys, shared_embedder, monkeypatch):
    """A copy that keeps its old mtime and lands between the watcher's look and its next snapshot
    was never seen (clean-clone CI hung on the subprocess test above): the next poll compares with
    the state the look started from."""
    import threading

    from mmrag_desktop.engine.library import Library

    shelf = tmp_path / "shelf"
    shelf.mkdir()
    source = _old_pdf(tmp_path / "incoming" / "pump.pdf", PAGES)
    real, looks = Library.reconcile, []

    def reconcile(self, *args, **kwargs):
        yield from real(self, *args, **kwargs)
        looks.append(1)
        if len(looks) == 1:
            shutil.copy2(source, shelf / "pump.pdf")  # right after the first look, with its old mtime
        else:
            os.kill(os.getpid(), signal.SIGINT)  # the second look happened: stop watching

    monkeypatch.setattr(Library, "reconcile", reconcile)
    stop = threading.Timer(60, lambda: os.kill(os.getpid(), signal.SIGINT))  # the bug: nothing ever changes
    stop.start()
    try:
        code, _, err = run(capsys, "--library", str(tmp_path / "lib"), "watch", str(shelf), "--interval", "0.05")
    finally:
        stop.cancel()
    assert len(looks) == 2 and "added   pump.pdf" in err and code == 0, err
