"""Documents in PostgreSQL: store/documents.py's repository, with `register` as one statement."""

from __future__ import annotations

from pathlib import Path

from ..documents import Documents


class PgDocuments(Documents):
    """`Documents` over a PgDatabase. Several clients may register the same path at once, so
    registering is one upsert (the SQLite library has a single writer and reads first)."""

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
