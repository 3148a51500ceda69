"""Opening a real main window in tests (pytest-qt), shared by the window's and the reranker's tests."""

from __future__ import annotations

from mmrag_desktop.engine.settings import Settings
from mmrag_desktop.ui.main_window import MainWindow


def open_window(qtbot, lib_dir, **settings_kw) -> MainWindow:
    settings = Settings(library_dir=str(lib_dir), answer_mode="extractive", **settings_kw)
    w = MainWindow(settings=settings, confirm_close=False)
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.libraryReady, timeout=60000):
        w.show()
    qtbot.waitUntil(lambda: w.models_loaded, timeout=180000)
    return w
