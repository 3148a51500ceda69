"""A Qt list model over search hits / answer sources, with figure thumbnails."""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QImage, QPixmap

from .results import ResultItem

ItemRole = Qt.ItemDataRole.UserRole + 10


def snippet(text: str, n: int = 180) -> str:
    """Return `text` on one line, cut to about `n` characters."""
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1].rsplit(" ", 1)[0] + "…"


class HitsModel(QAbstractListModel):
    """Rows = ResultItems; DisplayRole = "[n] doc · p. N · kind" + snippet; DecorationRole = thumbnail."""

    THUMB = QSize(72, 72)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.items: list[ResultItem] = []
        self._thumbs: dict[int, QPixmap] = {}

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        it = self.items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            head = f"[{it.number}] {it.doc} · p. {it.page} · {it.kind}"
            if it.section:
                head += f" · {snippet(it.section, 60)}"
            return f"{head}\n{snippet(it.text)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{it.doc}, page {it.page}\n\n{snippet(it.text, 600)}"
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"Source {it.number}: {it.doc}, page {it.page}, {it.kind}"
        if role == Qt.ItemDataRole.DecorationRole and it.thumbnail_png:
            pm = self._thumbs.get(index.row())
            if pm is None:
                img = QImage.fromData(it.thumbnail_png, "PNG")
                pm = QPixmap.fromImage(img).scaled(self.THUMB, Qt.AspectRatioMode.KeepAspectRatio,
                                                   Qt.TransformationMode.SmoothTransformation)
                self._thumbs[index.row()] = pm
            return pm
        if role == ItemRole:
            return it
        return None

    def set_items(self, items: list[ResultItem]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self.items, self._thumbs = list(items), {}
        self.endResetModel()

    def append(self, item: ResultItem) -> None:
        """Add one row (answer citations arrive one at a time); replaces a row with the same number."""
        for i, old in enumerate(self.items):
            if old.number == item.number and item.number:
                self.items[i] = item
                self._thumbs.pop(i, None)
                self.dataChanged.emit(self.index(i), self.index(i))
                return
        self.beginInsertRows(QModelIndex(), len(self.items), len(self.items))
        self.items.append(item)
        self.endInsertRows()

    def by_number(self, number: int) -> ResultItem | None:
        return next((it for it in self.items if it.number == number), None)
