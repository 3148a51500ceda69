"""The library on disk. Each repository is the only code that writes SQL for its tables and takes
the database lock for them; services receive the repositories they need.

    documents  Documents  documents, pages
    chunks     Chunks     chunks (+ chunks_fts by trigger), links
    vectors    Vectors    vectors, segment_vectors, sentence_vectors, index/<space>.hnsw + manifests
    figures    Figures    figures, captions
    state      State      settings_kv
    folders    Folders    watched_folders
    files      LocalFiles (nothing: a folder library reads its source files where they are)

`open_store(location, ...)` gives this store for a folder and store/postgres' PgStore for a
PostgreSQL URL.
"""

from __future__ import annotations

from pathlib import Path

from .chunks import Chunks, Filters
from .db import Database
from .documents import Documents
from .figures import Figures
from .files import LocalFiles
from .folders import Folders, WatchedFolder
from .state import State
from .vectors import Vectors


class Store:
    """The repositories of one library folder over one database."""

    def __init__(self, folder: Path, threads: int = 2, *, read_only_reason: str | None = None):
        self.folder = folder
        self.db = Database(folder / "library.sqlite", read_only_reason=read_only_reason)
        self.documents = Documents(self.db)
        self.chunks = Chunks(self.db)
        self.vectors = Vectors(self.db, folder / "index", threads, read_only=read_only_reason is not None)
        self.figures = Figures(self.db)
        self.state = State(self.db)
        self.folders = Folders(self.db)
        self.files = LocalFiles()
        self._seen_version = self.db.version()[1]

    @property
    def read_only(self) -> bool:
        return self.db.read_only_reason is not None

    def changed_elsewhere(self) -> bool:
        """True when another process committed since the last call (SQLite's data_version)."""
        version = self.db.version()[1]
        changed, self._seen_version = version != self._seen_version, version
        return changed

    def refresh(self) -> None:
        """Catch up with changes another process committed: caches dropped, held indices
        reconciled with SQLite."""
        self.documents.invalidate()
        self.chunks.invalidate()
        self.vectors.reconcile_indices()

    def close(self) -> None:
        """Save the indices and close the database."""
        self.vectors.save_indices()
        self.db.close()


def open_store(location: Path | str, folder: Path, threads: int = 2, *, read_only_reason: str | None = None):
    """The store of a library: `Store` over `folder` for a folder library, store/postgres'
    `PgStore` (its local copies under `folder`) for a PostgreSQL URL. Raises LibraryError when
    the database cannot be opened."""
    from ..location import is_database_uri

    if is_database_uri(location):
        from .postgres import PgStore

        return PgStore(str(location), threads, read_only_reason=read_only_reason, folder=folder)
    return Store(folder, threads, read_only_reason=read_only_reason)


__all__ = ["open_store", "Store", "LocalFiles", "Database", "Documents", "Chunks", "Vectors", "Figures", "State", "Filters", "Folders", "WatchedFolder"]
