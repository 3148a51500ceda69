"""The library list: one row per document with status, pages, live progress and error."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from ..engine.hits import DocumentInfo

COLUMNS = ("Document", "Status", "Pages", "Progress", "Problem")
NAME, STATUS, PAGES, PROGRESS, ERROR = range(5)
ProgressRole = Qt.ItemDataRole.UserRole + 1  # float 0..1, or None when no bar applies
DocIdRole = Qt.ItemDataRole.UserRole + 2
PathRole = Qt.ItemDataRole.UserRole + 3

STAGE_WORDS = {"scan": "scanning", "parse": "reading", "embed": "embedding", "commit": "saving",
               "enrich": "enriching", "ocr": "OCR"}


@dataclass
class DocRow:
    """What the list shows for one document (known to the library or still queued)."""

    name: str
    path: str
    status: str = "queued"  # queued | reading | embedding | saving | ready | failed | cancelled | skipped | ...
    doc_id: int | None = None
    pages: int = 0
    progress: float | None = None
    error: str = ""
    job: object | None = None  # the EngineJob that ingests it (for cancel)

    @property
    def busy(self) -> bool:
        return self.status not in ("ready", "failed", "cancelled", "skipped")


class LibraryModel(QAbstractTableModel):
    """Rows = documents; fed by `set_documents()` (library state) and `apply_progress()` (live)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[DocRow] = []

    # ---- Qt API -------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return {NAME: r.name, STATUS: r.status, PAGES: str(r.pages) if r.pages else "",
                    PROGRESS: "" if r.progress is None else f"{round(r.progress * 100)}%",
                    ERROR: r.error}[c]
        if role == Qt.ItemDataRole.ToolTipRole:
            return r.error or r.path
        if role == Qt.ItemDataRole.ForegroundRole and c in (STATUS, ERROR) and r.status == "failed":
            return QColor("#c62828")
        if role == Qt.ItemDataRole.ForegroundRole and c == ERROR and r.error:
            return QColor("#b26a00")  # a note on a searchable document (e.g. a damaged file read in part)
        if role == ProgressRole:
            return r.progress
        if role == DocIdRole:
            return r.doc_id
        if role == PathRole:
            return r.path
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{r.name}, {r.status}" + (f", {r.error}" if r.error else "")
        return None

    # ---- feeding ------------------------------------------------------------------
    def row_for(self, doc_id: int | None = None, name: str | None = None, path: str | None = None) -> int:
        """Return the row index matching doc_id, else path, else name (busy rows first), or -1."""
        if doc_id is not None:
            for i, r in enumerate(self.rows):
                if r.doc_id == doc_id:
                    return i
        if path:
            for i, r in enumerate(self.rows):
                if r.path == path:
                    return i
        if name:
            busy = [i for i, r in enumerate(self.rows) if r.name == name and r.busy]
            if busy:
                return busy[0]
            for i, r in enumerate(self.rows):
                if r.name == name:
                    return i
        return -1

    def add_pending(self, paths: list[Path], job=None) -> None:
        """Show files about to be ingested at once, as "queued" rows tied to `job`."""
        new = []
        for p in paths:
            i = self.row_for(path=str(p))
            if i >= 0:
                r = self.rows[i]
                r.status, r.progress, r.error, r.job = "queued", 0.0, "", job
                self._changed(i)
            else:
                new.append(DocRow(name=p.name, path=str(p), progress=0.0, job=job))
        if new:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(new) - 1)
            self.rows.extend(new)
            self.endInsertRows()

    def apply_progress(self, ev, job=None) -> int:
        """Apply one engine `Progress` event; returns the row it changed or -1."""
        if not getattr(ev, "doc", "") and ev.doc_id is None:
            return -1
        i = self.row_for(ev.doc_id, ev.doc, ev.extra.get("path") if ev.extra else None)
        if i < 0:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows))
            self.rows.append(DocRow(name=ev.doc, path=(ev.extra or {}).get("path", ""), job=job))
            self.endInsertRows()
            i = len(self.rows) - 1
        r = self.rows[i]
        if ev.doc_id is not None:
            r.doc_id = ev.doc_id
        if ev.stage == "done":
            r.status, r.progress, r.error = "ready", None, ""
            r.pages = ev.total if ev.unit == "pages" and ev.total else r.pages
        elif ev.stage == "failed":
            r.status, r.progress, r.error = "failed", None, ev.message or "failed"
        elif ev.stage == "cancelled":
            r.status, r.progress = "cancelled", None
        elif ev.stage == "skipped":
            r.status, r.progress = "skipped" if not r.doc_id else "ready", None
            r.error = ev.message if r.status == "skipped" else ""
        else:
            word = STAGE_WORDS.get(ev.stage, ev.stage)
            r.status = f"{word} {ev.done}/{ev.total} {ev.unit}" if ev.total else word
            if ev.unit == "pages" and ev.total:
                r.pages = ev.total
            if ev.total:
                # parse is the long stage; embed/commit finish the bar
                frac = ev.done / ev.total
                r.progress = {"parse": 0.75 * frac, "embed": 0.75 + 0.2 * frac}.get(ev.stage, r.progress or 0.0)
            if ev.stage == "commit":
                r.progress = 0.97
        self._changed(i)
        return i

    def mark_job_ended(self, job, status: str) -> None:
        """Rows of `job` still busy when it ended get `status` (e.g. cancelled)."""
        for i, r in enumerate(self.rows):
            if r.job is job and r.busy:
                r.status, r.progress = status, None
                self._changed(i)

    def set_documents(self, docs: list[DocumentInfo]) -> None:
        """Replace the rows with the library's documents, keeping rows still being ingested."""
        self.beginResetModel()
        keep = [r for r in self.rows if r.busy and r.job is not None and getattr(r.job, "state", "") in
                ("queued", "running")]
        keep += [r for r in self.rows if r.status in ("failed", "cancelled", "skipped") and r.doc_id is None]
        rows = []
        for d in docs:
            prior = next((r for r in keep if r.doc_id == d.id or r.path == d.path), None)
            if prior is not None and prior.busy:
                prior.doc_id = d.id
                rows.append(prior)
                keep.remove(prior)
                continue
            if prior is not None:
                keep.remove(prior)
            status = d.status if d.status != "indexing" else "interrupted"
            rows.append(DocRow(name=d.name, path=d.path, status=status, doc_id=d.id, pages=d.pages,
                               error=d.error or ""))
        self.rows = rows + keep
        self.endResetModel()

    def remove_row(self, i: int) -> None:
        self.beginRemoveRows(QModelIndex(), i, i)
        del self.rows[i]
        self.endRemoveRows()

    def _changed(self, i: int) -> None:
        self.dataChanged.emit(self.index(i, 0), self.index(i, len(COLUMNS) - 1))
