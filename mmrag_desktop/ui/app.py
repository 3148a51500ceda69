"""Start the GUI: QApplication, theme, icon, logging, excepthook, main window; then add the files
given on the command line ("Open with", `mmrag-desktop FILE...`) once the library is open."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

log = logging.getLogger(__name__)


def add_when_ready(win, paths: list[Path]) -> None:
    """Add `paths` to the library as soon as `win` has opened it and listed its documents
    (before that, there is no engine to submit to, and the listing would replace the new rows).
    A library that cannot be opened never gets ready; its banner already says why."""
    if not paths:
        return
    paths = list(paths)

    def add() -> None:
        win.libraryReady.disconnect(add)
        log.info("adding %d path(s) from the command line", len(paths))
        win.add_paths(paths)

    win.libraryReady.connect(add)


def run_gui(library_dir: Path | None = None, argv: list[str] | None = None,
            paths: list[Path] | None = None, notices: list[str] | None = None) -> int:
    """Show the main window and run the event loop; returns the exit code.

    `argv` is for QApplication (program name and Qt's own options); `paths` are added to the
    library once it is open; `notices` (e.g. a path that does not exist) are shown in the banner."""
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
    settings = Settings.load()  # a broken file gives defaults and a warning (load_warnings), never raises
    apply_theme(app, settings.theme)

    from .main_window import MainWindow

    win = MainWindow(settings=settings, library_dir=library_dir)

    def on_error(summary: str, details: str) -> None:
        win.banner.notify(f"Internal error: {summary} (logged to {log_path})", details)

    install_excepthook(on_error)
    win.show()
    add_when_ready(win, paths or [])
    problems = [*settings.load_warnings, *(notices or [])]
    if problems:
        win.banner.notify(problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)",
                          "\n".join(problems), level="warning")
    QTimer.singleShot(0, lambda: log.info("window shown in %.0f ms", (time.perf_counter() - t0) * 1000))
    rc = app.exec()
    _ = ErrorDialog  # keeps the import explicit for PyInstaller's analysis
    return rc
