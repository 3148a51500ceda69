"""The model manager dialog: one row per model role with its status; "Add…" verifies a file or
folder (it must load and produce output of the right shape) before saving it as the user's choice.

Verification runs on a worker thread (loading can take seconds; llama.cpp models are checked in a
child process by the engine). `modelsChanged(role)` fires after a choice is saved or cleared, so
the main window can re-embed the library when the text or image embedder changed.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..engine.errors import ModelError
from ..engine.models.registry import ROLE_TITLES, ROLES, resolve_all
from ..engine.settings import Settings

FILE_ROLES = {"answer_llm": "GGUF model (*.gguf)", "vlm": "GGUF model (*.gguf)"}
STATUS_COLOURS = {"ok": "#2e7d32", "missing": "#757575", "failed": "#c62828", "verifying": "#1565c0"}
COLUMNS = ("Role", "Status", "Model", "Source", "Size", "")


def _human_size(n: int) -> str:
    from ..engine.models.files import human_size

    return human_size(n) if n else "-"


class ModelManagerDialog(QDialog):
    """Rows of roles with status; Add… (verify, then save) and Reset (back to automatic)."""

    modelsChanged = Signal(str)
    _verified = Signal(object)  # engine Verified or ModelError, delivered on the GUI thread

    def __init__(self, parent: QWidget | None, settings: Settings, settings_path: Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("Models")
        self.settings = settings
        self.settings_path = settings_path
        self._thread: threading.Thread | None = None
        self._busy_role: str | None = None
        self.last_error = ""
        self.table = QTableWidget(len(ROLES), len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.detail = QLabel("Nothing is downloaded: add model files you copied to this computer.", self)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.detail)
        layout.addWidget(buttons)
        self._verified.connect(self._on_verified)
        self.resize(860, 330)
        self.refresh()

    # ---- rows -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-resolve every role and redraw the rows."""
        self.resolved = {r.role: r for r in resolve_all(self.settings)}
        for row, role in enumerate(ROLES):
            r = self.resolved[role]
            status = "verifying" if role == self._busy_role else r.status
            cells = (ROLE_TITLES[role], status, r.model_id or "-", r.source, _human_size(r.size))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                tip = "\n".join(x for x in (str(r.path or ""), str(r.extra.get("mmproj", "")), r.message) if x)
                item.setToolTip(tip)
                if col == 1:
                    item.setForeground(QColor(STATUS_COLOURS.get(status, "#000000")))
                self.table.setItem(row, col, item)
            self.table.setCellWidget(row, len(COLUMNS) - 1, self._buttons(role))
        self.table.resizeColumnsToContents()

    def _buttons(self, role: str) -> QWidget:
        box = QWidget(self.table)
        lay = QHBoxLayout(box)
        lay.setContentsMargins(2, 0, 2, 0)
        add = QPushButton("Add…", box)
        add.setObjectName(f"add_{role}")
        add.clicked.connect(lambda _=False, r=role: self.add_model(r))
        reset = QPushButton("Automatic", box)
        reset.setObjectName(f"reset_{role}")
        reset.setToolTip("Forget your choice; use the models folder, bundled or installed model")
        reset.setEnabled(bool(self.settings.models.get(role)))
        reset.clicked.connect(lambda _=False, r=role: self.clear_model(r))
        add.setEnabled(self._busy_role is None)
        lay.addWidget(add)
        lay.addWidget(reset)
        return box

    def status_of(self, role: str) -> str:
        """The status text shown in `role`'s row (for tests and accessibility)."""
        return self.table.item(ROLES.index(role), 1).text()

    # ---- actions ----------------------------------------------------------------------------
    def add_model(self, role: str) -> None:
        """Ask for a file/folder (and a VLM's mmproj when none sits next to it), then verify it."""
        if role in FILE_ROLES:
            path, _ = QFileDialog.getOpenFileName(self, f"Choose the {ROLE_TITLES[role]}", "", FILE_ROLES[role])
        else:
            path = QFileDialog.getExistingDirectory(self, f"Choose the {ROLE_TITLES[role]} folder")
        if not path:
            return
        mmproj = None
        if role == "vlm":
            from ..engine.models.files import is_mmproj

            if not any(is_mmproj(p) for p in Path(path).parent.glob("*.gguf")):
                proj, _ = QFileDialog.getOpenFileName(self, "Choose the vision projector (mmproj)", "",
                                                      "GGUF projector (*.gguf)")
                if not proj:
                    return
                mmproj = Path(proj)
        self.verify_and_save(role, Path(path), mmproj)

    def verify_and_save(self, role: str, path: Path, mmproj: Path | None = None) -> None:
        """Verify on a worker thread; on success save the choice, on failure show the reason."""
        if self._busy_role is not None:
            return
        self._busy_role = role
        self.detail.setText(f"Verifying {path.name}: loading it and checking its output…")
        self.refresh()

        def work() -> None:
            from ..engine.models.verify import verify_model

            try:
                result = verify_model(role, path, mmproj=mmproj, settings=self.settings)
            except ModelError as e:
                result = e
            self._verified.emit(result)

        self._thread = threading.Thread(target=work, name=f"verify-{role}", daemon=True)
        self._thread.start()

    def _on_verified(self, result) -> None:
        from ..engine.models.verify import save_choice

        role = self._busy_role or ""
        self._busy_role = None
        if isinstance(result, ModelError):
            self.last_error = result.reason
            self.detail.setText(f"Not saved: {result.reason}")
            self.refresh()
            if self.isVisible():
                QMessageBox.warning(self, "This model cannot be used", result.reason)
            return
        save_choice(result, self.settings, self.settings_path)
        known = f" — known-good: {result.known_as}" if result.known_as else ""
        sha = f"\nsha256 {result.sha256}" if result.sha256 else ""
        details = ", ".join(f"{k} {v}" for k, v in result.details.items())
        self.detail.setText(f"Saved {result.model_id} for {ROLE_TITLES[role]} ({details}){known}{sha}")
        self.last_error = ""
        self.refresh()
        self.modelsChanged.emit(role)

    def clear_model(self, role: str) -> None:
        """Forget the explicit choice for `role`."""
        from ..engine.models.verify import clear_choice

        clear_choice(role, self.settings, self.settings_path)
        self.detail.setText(f"{ROLE_TITLES[role]}: back to automatic selection")
        self.refresh()
        self.modelsChanged.emit(role)

    def wait_for_verification(self, timeout: float = 300.0) -> None:
        """Block until a running verification thread ends (tests; the GUI never calls this)."""
        if self._thread is not None:
            self._thread.join(timeout)
