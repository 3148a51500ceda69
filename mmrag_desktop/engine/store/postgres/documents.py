"""Documents in PostgreSQL: store/documents.py's repository, with `register` as one statement."""

from __future__ import annotations

import functools
from pathlib import Path

from ..documents import Documents

INDEXING_LOCKS = 73_166  # classid of the session advisory locks that say "this client indexes document N"


class _IndexingClaims:
    """Which documents this connection is indexing, as session advisory locks (class
    INDEXING_LOCKS, object = document id): PostgreSQL drops them when the client's connection
    ends, so a document whose indexing started and whose lock no session holds was interrupted."""

    def __init__(self, db):
        self.db = db
        self.held: set[int] = set()

    def claim(self, doc_id: int) -> None:
        if doc_id not in self.held:
            self.db.one("SELECT pg_advisory_lock(?, ?)", (INDEXING_LOCKS, int(doc_id)))
            self.held.add(doc_id)

    def release(self, doc_id: int) -> None:
        if doc_id in self.held:
            self.held.discard(doc_id)
            self.db.one("SELECT pg_advisory_unlock(?, ?)", (INDEXING_LOCKS, int(doc_id)))

    def claimed_elsewhere(self) -> set[int]:
        """Documents some other live session is indexing now."""
        return {int(r[0]) for r in self.db.all(
            "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = ? AND objsubid = 2 "
            "AND granted AND pid != pg_backend_pid()", (INDEXING_LOCKS,))}


class PgDocuments(Documents):
    """`Documents` over a PgDatabase. Several clients may register the same path at once, so
    registering is one upsert (the SQLite library has a single writer and reads first). Several
    clients may index at once, so an unfinished indexing is "interrupted" only when the client
    doing it is gone (`_IndexingClaims`), not merely unfinished."""

    def __init__(self, db):
        super().__init__(db)
        self._claims = _IndexingClaims(db)

    def start_indexing(self, doc_id: int, sha: str) -> None:
        """As Documents.start_indexing, and this client claims the document until the attempt ends."""
        self._claims.claim(doc_id)
        super().start_indexing(doc_id, sha)

    def interrupted(self) -> list[dict]:
        """Documents whose indexing started and never ended, leaving out those another live client
        is indexing now (as in a folder library, this client's own unfinished work is listed)."""
        busy = self._claims.claimed_elsewhere()
        return [r for r in super().interrupted() if r["id"] not in busy]

    def register(self, path: Path, sha: str, size: int, mtime: float, status: str) -> int:
        """Insert (or reset) the row for `path`; returns its id. A ready document stays ready.
        One statement, so two clients registering the same path get the same row."""
        with self.db.lock:
            row = self.db.run(
                "INSERT INTO documents AS d (path, name, sha256, size, mtime, status) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (path) DO UPDATE SET sha256 = EXCLUDED.sha256, size = EXCLUDED.size, "
                "mtime = EXCLUDED.mtime, status = CASE d.status WHEN 'ready' THEN 'ready' ELSE ? END, error = NULL, "
                f"updated = {self.db.now} RETURNING id",
                (str(path), path.name, sha, size, mtime, status if status != "unknown" else "pending", status),
            ).fetchone()
            self._names = None
            return row[0]


def _ends_indexing(name: str):
    """Documents' method `name`, which ends an indexing attempt, also releasing this client's claim."""
    base = getattr(Documents, name)

    @functools.wraps(base)
    def method(self, doc_id, *args, **kwargs):
        base(self, doc_id, *args, **kwargs)
        self._claims.release(doc_id)

    return method


for _name in ("set_status", "set_failed", "set_error", "mark_ready", "mark_crashed"):
    setattr(PgDocuments, _name, _ends_indexing(_name))
