"""Start the GUI: QApplication, theme, icon, logging, excepthook, main window."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

log = logging.getLogger(__name__)


def run_gui(library_dir: Path | None = None, argv: list[str] | None = None) -> int:
    """Show the main window and run the event loop; returns the exit code."""
    t0 = time.perf_counter()
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ..engine.settings import Settings
    from .app_resources import app_icon, apply_theme
    from .error_report import ErrorDialog, install_excepthook, setup_logging

    log_path = setup_logging()
    QApplication.setApplicationName("mmrag-desktop")
    QApplication.setOrganizationName("mmrag-desktop")
    QApplication.setDesktopFileName("mmrag-desktop")
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setWindowIcon(app_icon())
    try:
        settings = Settings.load()
    except ValueError as e:
        log.error("%s; using defaults", e)
        settings = Settings()
    apply_theme(app, settings.theme)

    from .main_window import MainWindow

    win = MainWindow(settings=settings, library_dir=library_dir)

    def on_error(summary: str, details: str) -> None:
        win.banner.notify(f"Internal error: {summary} (logged to {log_path})", details)

    install_excepthook(on_error)
    win.show()
    QTimer.singleShot(0, lambda: log.info("window shown in %.0f ms", (time.perf_counter() - t0) * 1000))
    rc = app.exec()
    _ = ErrorDialog  # keeps the import explicit for PyInstaller's analysis
    return rc
