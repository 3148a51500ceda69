"""One hnswlib index per vector space, derived from the `vectors` table (the source of truth).

Files: `index/<space>.hnsw` and `index/<space>.json` (manifest: model, dim, count, format).
On open the index is checked against its manifest and against SQLite: a different model
or dimension, an unreadable file or a missing manifest means a rebuild; ids present in
SQLite but not in the index are added, ids in the index but gone from SQLite are marked
deleted. Nothing on disk is trusted blindly.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import numpy as np

FORMAT = 1


class VectorIndex:
    """Cosine (inner product on normalised vectors) hnswlib index labelled by chunk id."""

    def __init__(self, folder: Path, space: str, model: str, dim: int, *, threads: int = 2):
        self.folder = folder
        self.space = space
        self.model = model
        self.dim = dim
        self.threads = threads
        self._index = None
        self._live: set[int] = set()
        self._dirty = False
        self._lock = threading.RLock()
        self.rebuilt_reason: str | None = None

    @property
    def path(self) -> Path:
        return self.folder / f"{self.space}.hnsw"

    @property
    def manifest_path(self) -> Path:
        return self.folder / f"{self.space}.json"

    def __len__(self) -> int:
        return len(self._live)

    # ---- lifecycle ----------------------------------------------------------------------
    def open(self, conn: sqlite3.Connection) -> None:
        """Load the index from disk if it matches its manifest, then reconcile with SQLite."""
        import hnswlib

        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            reason = self._check_manifest()
            if reason is None:
                try:
                    index = hnswlib.Index(space="ip", dim=self.dim)
                    index.load_index(str(self.path), allow_replace_deleted=False)
                    self._index = index
                    self._live = set(index.get_ids_list()) - self._deleted_labels()
                except (RuntimeError, OSError, ValueError) as e:
                    reason = f"index file unreadable ({e})"
            if reason is not None:
                self.rebuild(conn, reason=reason)
                return
            self._reconcile(conn)

    def _check_manifest(self) -> str | None:
        if not self.path.exists():
            return "no index file"
        try:
            manifest = json.loads(self.manifest_path.read_text())
        except (OSError, json.JSONDecodeError):
            return "manifest missing or unreadable"
        if manifest.get("format") != FORMAT:
            return "index format changed"
        if manifest.get("model") != self.model or manifest.get("dim") != self.dim:
            return f"model changed ({manifest.get('model')}/{manifest.get('dim')} -> {self.model}/{self.dim})"
        return None

    def _sqlite_ids(self, conn: sqlite3.Connection) -> set[int]:
        rows = conn.execute(
            "SELECT chunk_id FROM vectors WHERE space = ? AND model = ?", (self.space, self.model)
        ).fetchall()
        return {r[0] for r in rows}

    def reconcile(self, conn: sqlite3.Connection) -> None:
        """Bring the in-memory index in line with SQLite (after another process wrote to it)."""
        with self._lock:
            if self._index is None:
                self.rebuild(conn, reason="no index in memory")
            else:
                self._reconcile(conn)

    def _reconcile(self, conn: sqlite3.Connection) -> None:
        assert self._index is not None
        live_index = set(self._live)
        wanted = self._sqlite_ids(conn)
        missing = wanted - live_index
        extra = live_index - wanted
        for label in extra:
            _mark_deleted(self._index, label)
        self._live = live_index - extra
        if missing:
            self._add_from_sqlite(conn, sorted(missing))
        if extra or missing:
            self._dirty = True
            self.rebuilt_reason = f"repaired: +{len(missing)} -{len(extra)}"

    @property
    def deleted_path(self) -> Path:
        return self.folder / f"{self.space}.deleted.npy"

    def _deleted_labels(self) -> set[int]:
        """Labels marked deleted in a loaded index (hnswlib keeps them in get_ids_list).

        Read from the sidecar written by `save`; probed label by label when it is missing.
        """
        assert self._index is not None
        try:
            return {int(x) for x in np.load(self.deleted_path)}
        except (OSError, ValueError):
            pass
        deleted = set()
        for label in self._index.get_ids_list():
            try:
                self._index.get_items([label])
            except RuntimeError:
                deleted.add(label)
        return deleted

    def rebuild(self, conn: sqlite3.Connection, *, reason: str = "requested", batch: int = 20000) -> int:
        """Rebuild from every vector of this space/model in SQLite; returns the count."""
        import hnswlib

        with self._lock:
            n = conn.execute(
                "SELECT COUNT(*) FROM vectors WHERE space = ? AND model = ?", (self.space, self.model)
            ).fetchone()[0]
            index = hnswlib.Index(space="ip", dim=self.dim)
            index.init_index(max_elements=max(1024, int(n * 1.3)), ef_construction=200, M=16)
            index.set_num_threads(self.threads)
            self._index = index
            self._live = set()
            cur = conn.execute(
                "SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? ORDER BY chunk_id",
                (self.space, self.model),
            )
            while True:
                rows = cur.fetchmany(batch)
                if not rows:
                    break
                self._add_rows(rows)
            self._dirty = True
            self.rebuilt_reason = reason
            self.save()
            return n

    def _add_from_sqlite(self, conn: sqlite3.Connection, ids: list[int]) -> None:
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            rows = conn.execute(
                f"SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? "
                f"AND chunk_id IN ({','.join('?' * len(part))})",
                (self.space, self.model, *part),
            ).fetchall()
            self._add_rows(rows)

    def _add_rows(self, rows: list) -> None:
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        vecs = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), self.dim)
        self.add(ids, vecs)

    # ---- updates ------------------------------------------------------------------------
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add (or replace) vectors labelled by chunk ids."""
        if len(ids) == 0:
            return
        import hnswlib

        with self._lock:
            if self._index is None:
                index = hnswlib.Index(space="ip", dim=self.dim)
                index.init_index(max_elements=max(1024, len(ids) * 2), ef_construction=200, M=16)
                self._index = index
            need = self._index.element_count + len(ids)
            if need > self._index.get_max_elements():
                self._index.resize_index(int(need * 1.5))
            self._index.set_num_threads(self.threads)
            self._index.add_items(np.ascontiguousarray(vectors, dtype=np.float32), ids)
            self._live.update(int(i) for i in ids)
            self._dirty = True

    def remove(self, ids) -> None:
        """Mark chunk ids deleted (ignored when absent)."""
        with self._lock:
            if self._index is None:
                return
            for i in ids:
                i = int(i)
                if i in self._live:
                    _mark_deleted(self._index, i)
                    self._live.discard(i)
                    self._dirty = True

    def save(self) -> None:
        """Write the index then its manifest (atomically each), when changed."""
        with self._lock:
            if not self._dirty or self._index is None:
                return
            tmp = self.path.with_suffix(".hnsw.tmp")
            self._index.save_index(str(tmp))
            tmp.replace(self.path)
            all_ids = np.asarray(self._index.get_ids_list(), dtype=np.int64)
            dead = np.setdiff1d(all_ids, np.fromiter(self._live, dtype=np.int64, count=len(self._live)))
            with open(self.deleted_path.with_suffix(".tmp"), "wb") as f:
                np.save(f, dead)
            self.deleted_path.with_suffix(".tmp").replace(self.deleted_path)
            manifest = {"format": FORMAT, "space": self.space, "model": self.model, "dim": self.dim,
                        "count": len(self._live)}
            mtmp = self.manifest_path.with_suffix(".json.tmp")
            mtmp.write_text(json.dumps(manifest))
            mtmp.replace(self.manifest_path)
            self._dirty = False

    # ---- queries ------------------------------------------------------------------------
    def query(self, vector: np.ndarray, k: int, *, filter_ids: set[int] | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk id, cosine similarity), best first; `filter_ids` restricts candidates."""
        with self._lock:
            if self._index is None or not self._live:
                return []
            k = min(k, len(self._live) if filter_ids is None else len(filter_ids & self._live))
            if k <= 0:
                return []
            self._index.set_ef(max(64, k * 2))
            flt = (lambda label: label in filter_ids) if filter_ids is not None else None
            try:
                labels, dists = self._index.knn_query(np.asarray(vector, dtype=np.float32).reshape(1, -1), k=k,
                                                      filter=flt)
            except RuntimeError:
                # hnswlib raises when fewer than k results satisfy the filter; retry smaller
                if k <= 1:
                    return []
                return self.query(vector, max(1, k // 2), filter_ids=filter_ids)
            return [(int(label), float(1.0 - d)) for label, d in zip(labels[0], dists[0], strict=True)]


def _mark_deleted(index, label: int) -> None:
    try:
        index.mark_deleted(label)
    except RuntimeError as e:  # already deleted (a stale sidecar after a crash) is fine
        if "already" not in str(e).lower() and "not found" not in str(e).lower():
            raise
