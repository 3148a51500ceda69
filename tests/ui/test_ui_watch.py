"""Watched folders in the real window (real QFileSystemWatcher, real library, real files): a folder
is watched and brought in; a copied file is picked up through Qt's notification; a deleted file is
removed; a folder that disappears keeps its documents until the user answers; the folder and a
change made while the window was closed are found at the next start; the dialog lists the folder."""

from __future__ import annotations

import os
import shutil
import time

import pytest

pytest.importorskip("PySide6")

from conftest import write_pdf  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402
from window_helpers import open_window  # noqa: E402

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def _pdf(path, words: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    write_pdf(path, [[(72, 100, f"The {words} chapter explains how to service the {words}."),
                      (72, 130, f"Check the {words} seal every 200 hours.")]])
    t = time.time() - 60
    os.utime(path, (t, t))
    return path


def _ready(w) -> set[str]:
    return {r.name for r in w.library_model.rows if r.status == "ready"}


def test_watch_pick_up_remove_and_missing_folder(qtbot, tmp_path):
    shelf = tmp_path / "shelf"
    _pdf(shelf / "pump.pdf", "pump")
    w = open_window(qtbot, tmp_path / "lib")
    w.folder_sync.debounce.setInterval(300)
    w.folder_sync.auto_ask = False
    w.folder_sync.watch(shelf)
    qtbot.waitUntil(lambda: _ready(w) == {"pump.pdf"}, timeout=120000)
    qtbot.waitUntil(lambda: str(shelf.resolve()) in w.folder_sync.watcher.directories(), timeout=30000)

    # a file copied in: Qt reports the change, the debounce fires, the file is read
    source = _pdf(tmp_path / "incoming" / "valve.pdf", "valve")
    shutil.copy2(source, shelf / "valve.pdf")
    qtbot.waitUntil(lambda: _ready(w) == {"pump.pdf", "valve.pdf"}, timeout=120000)

    # a file deleted from the folder leaves the library
    (shelf / "pump.pdf").unlink()
    qtbot.waitUntil(lambda: _ready(w) == {"valve.pdf"}, timeout=120000)

    # the dialog lists the folder with its document
    dlg = w.folder_sync.folders_dialog()
    qtbot.waitUntil(lambda: dlg.table.rowCount() == 1 and dlg.table.item(0, 1).text() == "1", timeout=30000)
    assert dlg.table.item(0, 0).text() == str(shelf.resolve()) and dlg.table.item(0, 2).text() == "watching"

    # the drive is unplugged: documents are kept and the user is asked
    with qtbot.waitSignal(w.folder_sync.missingFolder, timeout=60000) as missing:
        shelf.rename(tmp_path / "unplugged")
        w.folder_sync.sync()
    assert missing.args == [str(shelf.resolve()), 1]
    qtbot.waitUntil(lambda: dlg.table.item(0, 2).text().startswith("not available since"), timeout=30000)
    assert _ready(w) == {"valve.pdf"}
    box = w.folder_sync.ask_missing(*missing.args)
    remove = next(b for b in box.buttons() if b.text() == "Remove its documents")
    assert box.buttonRole(remove) == QMessageBox.ButtonRole.DestructiveRole
    remove.click()
    qtbot.waitUntil(lambda: _ready(w) == set() and dlg.table.rowCount() == 0, timeout=60000)
    dlg.close()
    w.close()


def test_changes_while_closed_are_found_at_start(qtbot, tmp_path):
    shelf = tmp_path / "shelf"
    _pdf(shelf / "pump.pdf", "pump")
    w = open_window(qtbot, tmp_path / "lib")
    w.folder_sync.watch(shelf)
    qtbot.waitUntil(lambda: _ready(w) == {"pump.pdf"}, timeout=120000)
    w.close()
    qtbot.waitUntil(lambda: w.engine is None, timeout=60000)

    _pdf(shelf / "valve.pdf", "valve")  # while the window was closed
    w2 = open_window(qtbot, tmp_path / "lib")
    qtbot.waitUntil(lambda: _ready(w2) == {"pump.pdf", "valve.pdf"}, timeout=120000)
    w2.close()
