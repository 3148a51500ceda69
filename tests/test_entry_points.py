"""The two installed commands: `--version` from one source, and `mmrag-desktop FILE...` ("Open with"
in a file manager, the .desktop file's %F) adding the files in a real window."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import write_pdf

import mmrag_desktop
from mmrag_desktop import __main__ as desktop_main

ROOT = Path(__file__).parent.parent
BIN = Path(sys.executable).parent


def test_version_has_one_source():
    """pyproject's [project] version is the only place it is written; the package and both commands
    read the installed metadata (a stale editable install fails here: pip install -e . again)."""
    written = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert importlib.metadata.version("mmrag-desktop") == written
    assert mmrag_desktop.__version__ == written
    assert f'"{written}"' not in (ROOT / "mmrag_desktop" / "__init__.py").read_text()


@pytest.mark.parametrize("command", ["mmrag", "mmrag-desktop"])
def test_both_commands_print_the_version(command):
    out = subprocess.run([str(BIN / command), "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{command} {importlib.metadata.version('mmrag-desktop')}"


def test_desktop_file_passes_files():
    desktop = (ROOT / "resources" / "mmrag-desktop.desktop").read_text()
    assert "Exec=mmrag-desktop %F" in desktop and "MimeType=application/pdf;" in desktop


def test_desktop_arguments_paths_urls_and_qt_options():
    args = desktop_main.parse_args(["a.pdf", "-style", "fusion", "--library", "/lib", "-reverse", "dir",
                                    "--platform=offscreen", "file:///tmp/My%20Manual.pdf"])
    assert args.paths == ["a.pdf", "dir", "file:///tmp/My%20Manual.pdf"]
    assert args.library == Path("/lib")
    assert args.qt_args == ["-style", "fusion", "--platform=offscreen", "-reverse"]
    assert desktop_main.as_path("file:///tmp/My%20Manual.pdf") == Path("/tmp/My Manual.pdf")
    assert desktop_main.parse_args([]).paths == []


def test_missing_paths_are_one_line_each_and_the_rest_is_opened(tmp_path, capsys, monkeypatch):
    from mmrag_desktop.ui import app as app_mod

    pdf = write_pdf(tmp_path / "m.pdf", [[(72, 100, "Hello")]])
    calls = []
    monkeypatch.setattr(app_mod, "run_gui", lambda **kw: calls.append(kw) or 0)
    code = desktop_main.main([str(pdf), str(tmp_path / "nope.pdf"), "--library", str(tmp_path / "lib")])
    assert code == 0
    err = capsys.readouterr().err
    assert err == f"mmrag-desktop: no such file or folder: {tmp_path / 'nope.pdf'}\n"
    (kw,) = calls
    assert kw["paths"] == [pdf] and kw["library_dir"] == tmp_path / "lib"
    assert kw["notices"] == [f"no such file or folder: {tmp_path / 'nope.pdf'}"]


@pytest.mark.gui
@pytest.mark.slow
def test_run_gui_adds_the_files_and_shows_what_it_could_not_use(qtbot, tmp_path, monkeypatch):
    """run_gui with files, as `mmrag-desktop FILE...` calls it: a real window, a real library;
    the file is ingested once the library is open; a broken settings file and a missing path are
    shown in the banner instead of stopping the app."""
    pytest.importorskip("PySide6")
    from PySide6.QtWidgets import QApplication

    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.settings import config_dir
    from mmrag_desktop.ui import app as app_mod
    from mmrag_desktop.ui import app_resources
    from mmrag_desktop.ui.main_window import MainWindow

    (config_dir() / "settings.json").write_text('{"answer_mode": "extractive",}')
    pdf = write_pdf(tmp_path / "manual.pdf", [[(72, 100, "Wiring"), (72, 130, "Connect the shield to PE.")]])
    lib_dir = tmp_path / "lib"
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # run_gui installs its own
    monkeypatch.setattr(app_resources, "apply_theme", lambda *_a: None)  # keep the test app's look
    seen = {}

    def fake_exec(app):
        # the window run_gui just showed (windows of earlier tests may linger closed, not deleted)
        (win,) = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        qtbot.addWidget(win)
        seen["banner"] = win.banner.label.text()
        seen["details"] = win.banner._details  # noqa: SLF001
        qtbot.waitUntil(lambda: any(r.name == "manual.pdf" and r.status == "ready"
                                    for r in win.library_model.rows) and not win.ingest_jobs, timeout=240000)
        seen["rows"] = [(r.name, r.status) for r in win.library_model.rows]
        win.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    rc = app_mod.run_gui(library_dir=lib_dir, paths=[pdf], notices=["no such file or folder: gone.pdf"])
    assert rc == 0
    assert seen["rows"] == [("manual.pdf", "ready")]
    assert seen["banner"].startswith(f"settings file {config_dir() / 'settings.json'} is not valid JSON")
    assert seen["banner"].endswith("(and 1 more)")
    assert "no such file or folder: gone.pdf" in seen["details"]
    assert (config_dir() / "settings.json.broken").exists()
    lib = Library.open(lib_dir)
    try:
        assert [(d.name, d.status) for d in lib.documents()] == [("manual.pdf", "ready")]
    finally:
        lib.close()


@pytest.mark.gui
def test_add_when_ready_waits_for_the_library(qtbot, tmp_path):
    """Files given before the library is open are added once it is (not lost, not overwritten by
    the first listing), and only once."""
    pytest.importorskip("PySide6")
    from mmrag_desktop.engine.settings import Settings
    from mmrag_desktop.ui.app import add_when_ready
    from mmrag_desktop.ui.main_window import MainWindow

    calls = []
    win = MainWindow(settings=Settings(library_dir=str(tmp_path / "lib")), confirm_close=False)
    qtbot.addWidget(win)
    win.add_paths = lambda paths: calls.append(list(paths)) or []
    add_when_ready(win, [tmp_path / "a.pdf"])
    assert calls == []
    with qtbot.waitSignal(win.libraryReady, timeout=60000):
        win.show()
    assert calls == [[tmp_path / "a.pdf"]]
    win.libraryReady.emit()
    assert calls == [[tmp_path / "a.pdf"]]
    win.stop_engine()
