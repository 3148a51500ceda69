"""How the GUI presents errors: a non-blocking banner, a dialog with a copyable report,
and a global excepthook that logs to a rotating file in the platformdirs log dir."""

from __future__ import annotations

import logging
import logging.handlers
import sys
import traceback

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..engine.errors import EngineError
from ..engine.settings import log_dir

log = logging.getLogger("mmrag_desktop.ui")


def setup_logging() -> str:
    """Send log records to `log_dir()/mmrag-desktop.log` (rotating, 3 × 1 MB); returns the path."""
    d = log_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / "mmrag-desktop.log"
    root = logging.getLogger()
    if not any(isinstance(h, logging.handlers.RotatingFileHandler) and h.baseFilename == str(path)
               for h in root.handlers):
        h = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
        h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(h)
    root.setLevel(min(root.level or logging.INFO, logging.INFO))
    return str(path)


def install_excepthook(on_error=None) -> None:
    """Log every uncaught exception (GUI thread or Python threads); call `on_error(summary, details)`."""

    def hook(exc_type, exc, tb) -> None:
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("uncaught exception:\n%s", details)
        if on_error is not None:
            try:
                on_error(f"{exc_type.__name__}: {exc}", details)
            except Exception:  # never recurse from the hook itself
                log.exception("error handler failed")

    sys.excepthook = hook


def describe(exc: BaseException) -> str:
    """Return a plain-words one-liner for an engine or unexpected exception."""
    if isinstance(exc, EngineError):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}): {exc}"


class ErrorDialog(QDialog):
    """A dialog with the message, and the full report in a read-only box with a Copy button."""

    def __init__(self, summary: str, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Something went wrong")
        msg = QLabel(summary, self)
        msg.setWordWrap(True)
        msg.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QPlainTextEdit(details, self)
        self.details.setReadOnly(True)
        self.details.setAccessibleName("Error report")
        copy = QPushButton("Copy report", self)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(f"{summary}\n\n{details}"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(copy)
        row.addStretch(1)
        row.addWidget(buttons)
        lay = QVBoxLayout(self)
        lay.addWidget(msg)
        lay.addWidget(self.details, 1)
        lay.addLayout(row)
        self.resize(640, 360)


class Banner(QWidget):
    """A non-blocking notification strip at the top of the window, with a Details… button."""

    detailsRequested = Signal(str, str)  # noqa: N815 (Qt naming)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_btn = QPushButton("Details…", self)
        self.close_btn = QPushButton("✕", self)
        self.close_btn.setAccessibleName("Dismiss notification")
        self.close_btn.setFlat(True)
        self.close_btn.clicked.connect(self.hide)
        self.details_btn.clicked.connect(lambda: self.detailsRequested.emit(self._summary, self._details))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.details_btn)
        lay.addWidget(self.close_btn)
        self._summary = self._details = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.hide()

    def notify(self, summary: str, details: str = "", level: str = "error", timeout_ms: int = 0) -> None:
        """Show `summary`; Details… opens the copyable report when `details` is given."""
        self._summary, self._details = summary, details
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.label.setText(summary)
        self.details_btn.setVisible(bool(details))
        self.show()
        if timeout_ms:
            self._timer.start(timeout_ms)
        else:
            self._timer.stop()
