"""The library's store on a PostgreSQL server (+ pgvector), with the same repositories as the
SQLite store (store/), so services use either. `PgDatabase` takes the store's SQL (`?`, `db.now`,
`db.in_list`), so only what needs PostgreSQL's own SQL is implemented here:

    documents  PgDocuments  documents, pages (store's Documents; `register` is one upsert)
    chunks     PgChunks     chunks (+ the generated `fts` tsvector, GIN), links
    vectors    PgVectors    vectors (pgvector, an HNSW index per space and model), segment_vectors,
                            sentence_vectors, vector_indexes
    figures    Figures      figures, captions (store's own)
    state      State        settings_kv (store's own)
    folders    Folders      watched_folders (store's own)
    files      PgFiles      file_parts: each source file once, by sha256 (a folder library reads
                            its files in place: store/files.py)

`Library.open("postgresql://...")` opens one (engine/location.py tells a URL from a folder).
"""

from __future__ import annotations

from pathlib import Path

from ...location import is_database_uri, local_folder, redact
from ..figures import Figures
from ..folders import Folders
from ..state import State
from .chunks import PgChunks
from .db import PgDatabase
from .documents import PgDocuments
from .files import PgFiles
from .vectors import PgVectorIndex, PgVectors


class PgStore:
    """The repositories of one PostgreSQL library over one connection: the attributes and methods
    of store's `Store` (`db`, `documents`, `chunks`, `vectors`, `figures`, `state`, `folders`,
    `read_only`, `changed_elsewhere`, `refresh`, `close`) and `files`, whose copies of the source
    files go under `folder` (default: this machine's folder for the database, engine/location.py).

    Raises LibraryError when the server cannot be reached, the database cannot be used or the
    `server` extra is not installed."""

    def __init__(self, uri: str, threads: int = 2, *, read_only_reason: str | None = None,
                 folder: Path | None = None):
        self.uri = uri
        self.location = redact(uri)
        self.folder = Path(folder) if folder is not None else local_folder(uri)
        self.db = PgDatabase(uri, read_only_reason=read_only_reason)
        self.documents = PgDocuments(self.db)
        self.chunks = PgChunks(self.db)
        self.vectors = PgVectors(self.db, threads, read_only=read_only_reason is not None)
        self.figures = Figures(self.db)
        self.state = State(self.db)
        self.folders = Folders(self.db)
        self.files = PgFiles(self.db, self.folder)
        self._seen_version = self.db.version()[1]

    @property
    def read_only(self) -> bool:
        return self.db.read_only_reason is not None

    def changed_elsewhere(self) -> bool:
        """True when some client of the server may have committed a write since the last call
        (may be true without a change to this library; never false after one)."""
        version = self.db.version()[1]
        changed, self._seen_version = version != self._seen_version, version
        return changed

    def refresh(self) -> None:
        """Drop what the repositories cache (another client may have changed it)."""
        self.documents.invalidate()
        self.chunks.invalidate()

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


__all__ = ["PgStore", "PgDatabase", "PgDocuments", "PgChunks", "PgFiles", "PgVectors", "PgVectorIndex",
           "is_database_uri", "redact"]
