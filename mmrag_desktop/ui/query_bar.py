"""The ask/search box: text questions, Answer/Search mode, filters, and image drops."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}
KINDS = ("all kinds", "text", "table", "figure", "caption", "code", "formula")


def image_path_from_mime(mime) -> str | None:
    """Return the first local image file among the mime data's URLs, or None."""
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        p = Path(url.toLocalFile())
        if url.isLocalFile() and p.suffix.lower() in IMAGE_SUFFIXES and p.is_file():
            return str(p)
    return None


class QueryEdit(QLineEdit):
    """A line edit that accepts an image file drop (search by image)."""

    imageDropped = Signal(str)  # noqa: N815 (Qt naming)

    def dragEnterEvent(self, e: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if image_path_from_mime(e.mimeData()):
            e.acceptProposedAction()
        else:
            super().dragEnterEvent(e)

    def dragMoveEvent(self, e) -> None:  # noqa: N802
        if image_path_from_mime(e.mimeData()):
            e.acceptProposedAction()
        else:
            super().dragMoveEvent(e)

    def dropEvent(self, e: QDropEvent) -> None:  # noqa: N802
        path = image_path_from_mime(e.mimeData())
        if path:
            e.acceptProposedAction()
            self.imageDropped.emit(path)
        else:
            super().dropEvent(e)


class QueryBar(QWidget):
    """Emits `submitted(text, mode)` (mode "answer" | "search"), `imageDropped(path)`, `cancelRequested`."""

    submitted = Signal(str, str)
    imageDropped = Signal(str)  # noqa: N815
    cancelRequested = Signal()  # noqa: N815

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = QComboBox(self)
        self.mode.addItems(["Answer", "Search"])
        self.mode.setAccessibleName("Answer or search")
        self.mode.setToolTip("Answer: a cited answer. Search: ranked passages only (no model).")
        self.edit = QueryEdit(self)
        self.edit.setObjectName("queryEdit")
        self.edit.setPlaceholderText("Ask a question about your manuals… (or drop an image here to search by image)")
        self.edit.setAccessibleName("Question")
        self.edit.setClearButtonEnabled(True)
        self.edit.setMinimumWidth(120)
        self.edit.returnPressed.connect(self.submit)
        self.edit.imageDropped.connect(self.imageDropped)
        self.doc_filter = QComboBox(self)
        self.doc_filter.setAccessibleName("Filter by document")
        self.doc_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.doc_filter.setMinimumContentsLength(10)
        self.doc_filter.addItem("all documents", None)
        self.kind_filter = QComboBox(self)
        self.kind_filter.setAccessibleName("Filter by kind")
        self.kind_filter.addItems(list(KINDS))
        self.go = QPushButton("Ask", self)
        self.go.setObjectName("askButton")
        self.go.setDefault(True)
        self.go.clicked.connect(self.submit)
        # as wide as its widest label: switching Answer/Search neither moves the row nor changes
        # the panel's minimum width (which would override splitter sizes the user chose)
        self.go.setText("Search")
        self.go.setMinimumWidth(self.go.sizeHint().width())
        self.go.setText("Ask")
        self.stop = QPushButton("Stop", self)
        self.stop.setAccessibleName("Stop answering")
        self.stop.setEnabled(False)
        self.stop.clicked.connect(self.cancelRequested)
        self.mode.currentTextChanged.connect(lambda t: self.go.setText("Ask" if t == "Answer" else "Search"))
        row = QHBoxLayout()
        row.addWidget(self.mode)
        row.addWidget(self.edit, 1)
        row.addWidget(self.go)
        row.addWidget(self.stop)
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Only in:", self))
        filters.addWidget(self.doc_filter, 1)
        filters.addWidget(self.kind_filter)
        filters.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        lay.addLayout(row)
        lay.addLayout(filters)

    def current_mode(self) -> str:
        return "answer" if self.mode.currentText() == "Answer" else "search"

    def set_mode(self, mode: str) -> None:
        self.mode.setCurrentText("Answer" if mode == "answer" else "Search")

    def submit(self) -> None:
        text = self.edit.text().strip()
        if text:
            self.submitted.emit(text, self.current_mode())

    def filters(self) -> tuple[list[int] | None, list[str] | None]:
        """Return (document ids or None, kinds or None) chosen in the filter boxes."""
        doc = self.doc_filter.currentData()
        kind = self.kind_filter.currentText()
        return ([doc] if doc is not None else None, None if kind == KINDS[0] else [kind])

    def set_documents(self, docs: list[tuple[int, str]]) -> None:
        """Refill the document filter with (id, name), keeping the current choice when possible."""
        cur = self.doc_filter.currentData()
        self.doc_filter.blockSignals(True)
        self.doc_filter.clear()
        self.doc_filter.addItem("all documents", None)
        for doc_id, name in docs:
            self.doc_filter.addItem(name, doc_id)
        i = self.doc_filter.findData(cur)
        self.doc_filter.setCurrentIndex(max(0, i))
        self.doc_filter.blockSignals(False)

    def set_busy(self, busy: bool) -> None:
        self.stop.setEnabled(busy)
        self.go.setEnabled(not busy)
