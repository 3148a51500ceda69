"""Settings: library folder, threads, context size, answer model, answer mode, theme."""

from __future__ import annotations

from copy import deepcopy

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from ..engine.errors import LibraryError
from ..engine.location import library_location
from ..engine.settings import Settings, default_library_dir

ANSWER_MODES = (("auto", "Automatic (the best style for the answer model's size)"),
                ("quote", "Quote first (the model picks sentences to quote, adds a short answer)"),
                ("pick", "Cited sentences, the answer model choosing which one answers"),
                ("generative", "Free text from the answer model (checked sentence by sentence)"),
                ("extractive", "Extractive only (no model; best cited sentences)"))
THEMES = (("light", "Light"), ("dark", "Dark"), ("system", "Follow the system"))


def _path_row(parent: QWidget, edit: QLineEdit, pick) -> QWidget:
    w = QWidget(parent)
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    b = QPushButton("Browse…", w)
    b.clicked.connect(pick)
    lay.addWidget(edit, 1)
    lay.addWidget(b)
    return w


class SettingsDialog(QDialog):
    """Edits a copy of `settings`; `result_settings()` returns it after Accept."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._s = deepcopy(settings)
        self.library = QLineEdit(settings.library_dir, self)
        self.library.setPlaceholderText(str(default_library_dir()))
        self.library.setAccessibleName("Library location")
        self.library.setToolTip("A folder on this computer, or a team library on a PostgreSQL server:\n"
                                "postgresql://user@host/database (the password from ~/.pgpass or PGPASSWORD)")
        self.threads = QSpinBox(self)
        self.threads.setRange(1, 64)
        self.threads.setValue(settings.threads)
        self.threads.setAccessibleName("Threads")
        self.n_ctx = QSpinBox(self)
        self.n_ctx.setRange(512, 131072)
        self.n_ctx.setSingleStep(512)
        self.n_ctx.setValue(settings.n_ctx)
        self.n_ctx.setAccessibleName("Context size")
        self.model = QLineEdit(settings.models.get("answer_llm", ""), self)
        self.model.setPlaceholderText("automatic (bundled or installed model)")
        self.model.setAccessibleName("Answer model file")
        self.mode = QComboBox(self)
        for key, label in ANSWER_MODES:
            self.mode.addItem(label, key)
        self.mode.setCurrentIndex(max(0, self.mode.findData(settings.answer_mode)))
        self.mode.setAccessibleName("Answer mode")
        self.theme = QComboBox(self)
        for key, label in THEMES:
            self.theme.addItem(label, key)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self.theme.setAccessibleName("Theme")
        form = QFormLayout(self)
        form.addRow("Library location", _path_row(self, self.library, self._pick_library))
        self.library_error = QLabel("", self)
        self.library_error.setObjectName("libraryError")
        self.library_error.setWordWrap(True)
        self.library_error.setStyleSheet("color: #b00020;")
        self.library_error.hide()
        form.addRow("", self.library_error)
        form.addRow("Threads", self.threads)
        form.addRow("Context size (tokens)", self.n_ctx)
        form.addRow("Answer model (GGUF)", _path_row(self, self.model, self._pick_model))
        form.addRow("Answer mode", self.mode)
        form.addRow("Theme", self.theme)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(560, 0)

    def _accept(self) -> None:
        """Accept unless the library location is a URL the app cannot open (said under the field)."""
        try:
            library_location(self.library.text().strip() or str(default_library_dir()))
        except LibraryError as e:
            self.library_error.setText(str(e))
            self.library_error.show()
            self.library.setFocus()
            return
        self.accept()

    def _pick_library(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Library folder", self.library.text() or str(default_library_dir()))
        if d:
            self.library.setText(d)

    def _pick_model(self) -> None:
        f, _ = QFileDialog.getOpenFileName(self, "Answer model", "", "GGUF models (*.gguf);;All files (*)")
        if f:
            self.model.setText(f)

    def result_settings(self) -> Settings:
        """Return the edited settings (not saved; the caller saves)."""
        s = self._s
        s.library_dir = self.library.text().strip()
        s.threads = self.threads.value()
        s.n_ctx = self.n_ctx.value()
        s.answer_mode = self.mode.currentData()
        s.theme = self.theme.currentData()
        models = dict(s.models)
        if self.model.text().strip():
            models["answer_llm"] = self.model.text().strip()
        else:
            models.pop("answer_llm", None)
        s.models = models
        return s
