"""Documents and their pages: status, sha256, paths, errors, page sizes."""

from __future__ import annotations

import os
from pathlib import Path

from .db import Database  # or postgres.PgDatabase: the SQL here is written for both


class Documents:
    """The only code that writes `documents` and `pages`. Caches names and kinds (search needs
    them per hit) until `invalidate()` or a write through this repository."""

    def __init__(self, db: Database):
        self.db = db
        self._names: dict[int, tuple[str, str]] | None = None
        self._titles: dict[int, tuple[str, str]] = {}  # filled with _names (_read_names)
        self._kinds: dict[int, str] = {}
        db.on_rollback(self.invalidate)

    def invalidate(self) -> None:
        """Forget cached names and kinds (another process may have changed the table)."""
        with self.db.lock:
            self._names = None
            self._kinds.clear()

    # ---- reads -----------------------------------------------------------------------------
    def all(self) -> list[dict]:
        """Every document row, oldest first, with `n_chunks`."""
        return self.db.dicts("SELECT d.*, (SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.id) AS n_chunks "
                             "FROM documents d ORDER BY d.id")

    def by_path(self, path: Path) -> dict | None:
        """The row of the document at `path`, or None."""
        rows = self.db.dicts("SELECT * FROM documents WHERE path = ?", (str(path),))
        return rows[0] if rows else None

    def under(self, folder: Path) -> list[dict]:
        """Rows of the documents whose path lies inside `folder` (at any depth)."""
        prefix = os.path.join(str(folder), "")
        return self.db.dicts("SELECT * FROM documents WHERE substr(path, 1, ?) = ? ORDER BY id", (len(prefix), prefix))

    def ready_by_sha(self, sha: str) -> dict | None:
        """A ready document with this content hash, or None."""
        rows = self.db.dicts("SELECT * FROM documents WHERE sha256 = ? AND status = 'ready' ORDER BY id LIMIT 1",
                             (sha,))
        return rows[0] if rows else None

    def names(self) -> dict[int, tuple[str, str]]:
        """{document id: (file name, path)}."""
        with self.db.lock:
            self._read_names()
            return self._names

    def titles(self) -> dict[int, tuple[str, str]]:
        """{document id: (file name, title)} of every document ("" when it has no title yet)."""
        with self.db.lock:
            self._read_names()
            return self._titles

    def _read_names(self) -> None:
        """Fill the names and titles caches together, in one query: every write that resets
        `_names` (a new, moved or finished document) makes both stale."""
        if self._names is None:
            rows = self.db.all("SELECT id, name, path, title FROM documents")
            self._names = {r[0]: (r[1], r[2]) for r in rows}
            self._titles = {r[0]: (r[1], r[3] or "") for r in rows}

    def kind(self, doc_id: int) -> str:
        """The document's kind (pdf | image | markdown | docling); 'pdf' when unknown."""
        if doc_id not in self._kinds:
            row = self.db.one("SELECT kind FROM documents WHERE id = ?", (doc_id,))
            self._kinds[doc_id] = row[0] if row else "pdf"
        return self._kinds[doc_id]

    def page_size(self, doc_id: int, page: int) -> tuple[float, float] | None:
        """(width, height) of a page as stored at ingest, or None."""
        row = self.db.one("SELECT width, height FROM pages WHERE doc_id = ? AND page = ?", (doc_id, page))
        return tuple(row) if row else None

    def enrichment_pending(self) -> list[int]:
        """Ready documents whose background figure work is not done."""
        return [r[0] for r in self.db.all("SELECT id FROM documents WHERE enrichment = 'pending' AND status = 'ready' ORDER BY id")]

    # ---- writes ----------------------------------------------------------------------------
    def register(self, path: Path, sha: str, size: int, mtime: float, status: str) -> int:
        """Insert (or reset) the row for `path`; returns its id. A ready document stays ready."""
        with self.db.lock:
            existing = self.by_path(path)
            if existing:
                self.db.run(
                    f"UPDATE documents SET sha256 = ?, size = ?, mtime = ?, status = ?, error = NULL, updated = {self.db.now} "
                    "WHERE id = ?",
                    (sha, size, mtime, status if existing["status"] != "ready" else "ready", existing["id"]),
                )
                return existing["id"]
            cur = self.db.run(
                "INSERT INTO documents (path, name, sha256, size, mtime, status) VALUES (?, ?, ?, ?, ?, ?)",
                (str(path), path.name, sha, size, mtime, status if status != "unknown" else "pending"),
            )
            self._names = None
            return cur.lastrowid

    def repoint(self, doc_id: int, path: Path, size: int, mtime: float) -> None:
        """The document's file moved to `path` (same content): record the new path and name."""
        with self.db.lock:
            self.db.run(f"UPDATE documents SET path = ?, name = ?, size = ?, mtime = ?, updated = {self.db.now} WHERE id = ?",
                        (str(path), path.name, size, mtime, doc_id))
            self._names = None

    def set_status(self, doc_id: int, status: str, error: str | None = None) -> None:
        """Set status and error (None clears it); ends an indexing attempt."""
        self.db.run(f"UPDATE documents SET status = ?, error = ?, indexing_sha = NULL, updated = {self.db.now} WHERE id = ?",
                    (status, error, doc_id))

    def start_indexing(self, doc_id: int, sha: str) -> None:
        """Record that the content `sha` of this document is being parsed now (status 'indexing'
        unless an indexed version is ready and stays searchable meanwhile)."""
        self.db.run(f"UPDATE documents SET indexing_sha = ?, status = CASE status WHEN 'ready' THEN 'ready' "
                    f"ELSE 'indexing' END, updated = {self.db.now} WHERE id = ?", (sha, doc_id))

    def crashed_paths(self) -> set[str]:
        """Paths of documents whose content once stopped the indexer (and was not indexed since)."""
        return {r[0] for r in self.db.all("SELECT path FROM documents WHERE crashed_sha IS NOT NULL")}

    def interrupted(self) -> list[dict]:
        """Documents whose indexing started and never ended (its process died)."""
        return self.db.dicts("SELECT * FROM documents WHERE indexing_sha IS NOT NULL ORDER BY id")

    def mark_crashed(self, doc_id: int, reason: str) -> None:
        """The indexing of this document killed its process: a ready document keeps its indexed
        version with `reason` as its error, any other becomes failed; the content is remembered."""
        self.db.run(
            "UPDATE documents SET crashed_sha = indexing_sha, indexing_sha = NULL, error = ?, "
            f"status = CASE status WHEN 'ready' THEN 'ready' ELSE 'failed' END, updated = {self.db.now} WHERE id = ?",
            (reason, doc_id))

    def set_failed(self, doc_id: int, reason: str) -> None:
        """Status 'failed' with the reason a user reads."""
        self.set_status(doc_id, "failed", reason)

    def set_error(self, doc_id: int, reason: str) -> None:
        """Record a problem without changing the status (a changed file that no longer parses)."""
        self.db.run("UPDATE documents SET error = ?, indexing_sha = NULL WHERE id = ?", (reason, doc_id))

    def mark_ready(self, doc_id: int, *, sha: str, size: int, mtime: float, kind: str, title: str, pages: int,
                   warning: str | None, enrichment: str) -> None:
        """The document's content was committed: record what it is (call inside the commit's
        transaction)."""
        with self.db.lock:
            self.db.run(
                "UPDATE documents SET sha256 = ?, size = ?, mtime = ?, kind = ?, title = ?, pages = ?, status = 'ready',"
                f" error = ?, enrichment = ?, indexing_sha = NULL, crashed_sha = NULL, updated = {self.db.now} WHERE id = ?",
                (sha, size, mtime, kind, title, pages, warning, enrichment, doc_id),
            )
            self._kinds[doc_id] = kind
            self._names = None

    def replace_pages(self, doc_id: int, pages: list[tuple]) -> None:
        """The document's pages: (page, width, height, rotation, has_text_layer, ocr_used) each."""
        with self.db.lock:
            self.db.run("DELETE FROM pages WHERE doc_id = ?", (doc_id,))
            self.db.run_many(
                "INSERT INTO pages (doc_id, page, width, height, rotation, has_text_layer, ocr_used) "
                "VALUES (?,?,?,?,?,?,?)", [(doc_id, *p) for p in pages])

    def mark_pending(self, paths: list[Path]) -> None:
        """Ready documents at these paths become pending (to be ingested again)."""
        if paths:
            test, values = self.db.in_list(str(p) for p in paths)
            self.db.run(f"UPDATE documents SET status = 'pending' WHERE status = 'ready' AND path {test}", values)

    def mark_enrichment_done(self, doc_ids: list[int]) -> None:
        """These documents' figures need nothing more from the available models."""
        if doc_ids:
            test, values = self.db.in_list(doc_ids)
            self.db.run(f"UPDATE documents SET enrichment = 'done' WHERE id {test}", values)

    def delete(self, doc_id: int) -> None:
        """Delete the document; its pages, chunks, vectors and figures go with it (foreign keys)."""
        with self.db.transaction():
            self.db.run("DELETE FROM documents WHERE id = ?", (doc_id,))
        self.invalidate()
