"""One hnswlib index per vector space, derived from the `vectors` table (the source of truth).

Files in `index/`: the manifest `<space>.json` names everything else and is the commit point:
{"format", "space", "model", "dim", "count", "generation", "high_water"}; the index of that
generation is `<space>.<generation>.hnsw`, with the labels it marks deleted in
`<space>.<generation>.deleted.npy`. A save writes a new generation's files (fsync), then replaces
the manifest atomically (fsync of the file and the folder), then deletes older generations. A
kill at any moment leaves a manifest naming a complete index of its own model: index and
manifest cannot disagree.

`high_water` is the largest `vectors` rowid the index has seen. Writing a vector (new, or replaced
under the same chunk id: figure enrichment rewrites a chunk's vector in another process) gives its
row a new, larger rowid, so on open and on `reconcile` every row above the mark is (re-)added;
labels whose rows are gone are marked deleted. A save never replaces a manifest whose
`high_water` is larger than this index's own: that index is newer (another process wrote it),
and this one is stale. Nothing on disk is trusted blindly: a different model or dimension, an
unreadable file or a missing manifest means a rebuild from SQLite.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from pathlib import Path

import numpy as np

FORMAT = 2
# the search's breadth (hnswlib's ef) for k results: max(EF_MIN, k * EF_PER_RESULT)
EF_MIN = 200
EF_PER_RESULT = 2


def search_breadth(k: int) -> int:
    """hnswlib's ef (pgvector's hnsw.ef_search) for a query of `k` results."""
    return max(EF_MIN, k * EF_PER_RESULT)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms that cannot open a folder (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


class VectorIndex:
    """Cosine (inner product on normalised vectors) hnswlib index labelled by chunk id.
    `read_only` indices never write files (a process that does not hold the writer lock)."""

    def __init__(self, folder: Path, space: str, model: str, dim: int, *, threads: int = 2,
                 read_only: bool = False):
        self.folder = folder
        self.space = space
        self.model = model
        self.dim = dim
        self.threads = threads
        self.read_only = read_only
        self._index = None
        self._live: set[int] = set()
        self._dirty = False
        self._high_water = 0
        self._generation: str | None = None
        self._lock = threading.RLock()
        self.rebuilt_reason: str | None = None

    @property
    def manifest_path(self) -> Path:
        return self.folder / f"{self.space}.json"

    def file_of(self, generation: str) -> Path:
        """The index file of a generation."""
        return self.folder / f"{self.space}.{generation}.hnsw"

    def deleted_file_of(self, generation: str) -> Path:
        """The deleted-labels sidecar of a generation."""
        return self.folder / f"{self.space}.{generation}.deleted.npy"

    @property
    def path(self) -> Path | None:
        """The index file this index was loaded from or last saved to (None before either)."""
        return self.file_of(self._generation) if self._generation else None

    def __len__(self) -> int:
        return len(self._live)

    @property
    def dead(self) -> int:
        """Labels marked deleted that still take room in the index (a rebuild reclaims them)."""
        return (self._index.element_count - len(self._live)) if self._index is not None else 0

    def remove_leftovers(self) -> None:
        """Delete files of other generations and unfinished saves (safe for the writer to call)."""
        if not self.read_only and self._generation:
            self._remove_other_generations(self._generation)

    # ---- lifecycle ----------------------------------------------------------------------
    def open(self, conn: sqlite3.Connection) -> None:
        """Load the index named by the manifest if it matches, then reconcile with SQLite."""
        import hnswlib

        with self._lock:
            manifest, reason = self._read_manifest()
            if reason is None:
                try:
                    generation = manifest["generation"]
                    index = hnswlib.Index(space="ip", dim=self.dim)
                    index.load_index(str(self.file_of(generation)), allow_replace_deleted=False)
                    self._index = index
                    self._generation = generation
                    self._high_water = int(manifest.get("high_water", 0))
                    self._live = set(index.get_ids_list()) - self._deleted_labels(generation)
                except (RuntimeError, OSError, ValueError, KeyError) as e:
                    reason = f"index file unreadable ({e})"
            if reason is not None:
                self.rebuild(conn, reason=reason)
                return
            self._reconcile(conn)

    def _read_manifest(self) -> tuple[dict, str | None]:
        """(manifest, None) when it describes a usable index of this model, else ({}, why not)."""
        try:
            manifest = json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            return {}, "no index file"
        except (OSError, json.JSONDecodeError):
            return {}, "manifest missing or unreadable"
        if manifest.get("format") != FORMAT:
            return {}, "index format changed"
        if manifest.get("model") != self.model or manifest.get("dim") != self.dim:
            return {}, f"model changed ({manifest.get('model')}/{manifest.get('dim')} -> {self.model}/{self.dim})"
        if not self.file_of(manifest.get("generation", "")).exists():
            return {}, "no index file"
        return manifest, None

    def reconcile(self, conn: sqlite3.Connection) -> None:
        """Bring the in-memory index in line with SQLite (after another process wrote to it)."""
        with self._lock:
            if self._index is None:
                self.rebuild(conn, reason="no index in memory")
            else:
                self._reconcile(conn)

    def _reconcile(self, conn: sqlite3.Connection) -> None:
        assert self._index is not None
        wanted = {r[0] for r in conn.execute(
            "SELECT chunk_id FROM vectors WHERE space = ? AND model = ?", (self.space, self.model))}
        extra = self._live - wanted
        for label in extra:
            _mark_deleted(self._index, label)
        self._live -= extra
        missing = wanted - self._live
        # rows written since this index last looked: new vectors, and vectors replaced under the
        # same chunk id (their rows get new rowids), plus any id the index lacks whatever its rowid
        newer = conn.execute(
            "SELECT rowid, chunk_id, vec FROM vectors WHERE space = ? AND model = ? AND rowid > ?",
            (self.space, self.model, self._high_water)).fetchall()
        newer_ids = {r[1] for r in newer}
        changed = {cid for cid, vec in self._differing([(r[1], r[2]) for r in newer if r[1] in self._live])}
        rows = [(r[1], r[2]) for r in newer if r[1] in missing or r[1] in changed]
        if missing - newer_ids:
            rows += self._rows_of(conn, sorted(missing - newer_ids))
        if rows:
            self._add_rows(rows)
        if newer:
            self._high_water = max(self._high_water, max(r[0] for r in newer))
        if extra or missing or changed:
            self._dirty = True
            self.rebuilt_reason = f"repaired: +{len(missing)} -{len(extra)} ~{len(changed)}"

    def _differing(self, rows: list[tuple]) -> list[tuple]:
        """The (chunk id, blob) rows whose vector differs from the one the index holds for that id
        (this process's own writes are already in the index and are not added twice)."""
        if not rows:
            return []
        held = self._index.get_items([r[0] for r in rows], return_type="numpy")
        stored = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), self.dim)
        return [r for r, same in zip(rows, np.all(held == stored, axis=1), strict=True) if not same]

    def _rows_of(self, conn: sqlite3.Connection, ids: list[int]) -> list[tuple]:
        out = []
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            out += conn.execute(
                f"SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? "
                f"AND chunk_id IN ({','.join('?' * len(part))})", (self.space, self.model, *part)).fetchall()
        return out

    def _deleted_labels(self, generation: str) -> set[int]:
        """Labels marked deleted in a loaded index (hnswlib keeps them in get_ids_list).

        Read from the generation's sidecar; probed label by label when it is missing.
        """
        assert self._index is not None
        try:
            return {int(x) for x in np.load(self.deleted_file_of(generation))}
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
        """Rebuild from every vector of this space/model in SQLite and save; returns the count."""
        import hnswlib

        with self._lock:
            n, high = conn.execute(
                "SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM vectors WHERE space = ? AND model = ?",
                (self.space, self.model)).fetchone()
            index = hnswlib.Index(space="ip", dim=self.dim)
            index.init_index(max_elements=max(1024, int(n * 1.3)), ef_construction=200, M=16)
            index.set_num_threads(self.threads)
            self._index = index
            self._live = set()
            cur = conn.execute(
                "SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? AND rowid <= ? ORDER BY chunk_id",
                (self.space, self.model, high))
            while True:
                rows = cur.fetchmany(batch)
                if not rows:
                    break
                self._add_rows(rows)
            self._high_water = int(high)
            self._dirty = True
            self.rebuilt_reason = reason
            self.save(force=True)
            return n

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

    def save(self, conn: sqlite3.Connection | None = None, *, force: bool = False) -> bool:
        """Write a new generation and commit it through the manifest (module doc), when changed;
        with `conn`, first catch up with SQLite (so the saved high-water mark is true). Returns
        False when nothing was written: unchanged, read-only, or the manifest on disk belongs to a
        newer index of the same model (then this stale one is not saved over it)."""
        with self._lock:
            if self.read_only or self._index is None or not (self._dirty or force):
                return False
            if conn is not None:
                self._reconcile(conn)
            on_disk, reason = self._read_manifest()
            if not force and reason is None and int(on_disk.get("high_water", 0)) > self._high_water:
                return False
            self.folder.mkdir(parents=True, exist_ok=True)
            generation = uuid.uuid4().hex[:12]
            path, deleted_path = self.file_of(generation), self.deleted_file_of(generation)
            self._index.save_index(str(path))
            all_ids = np.asarray(self._index.get_ids_list(), dtype=np.int64)
            dead = np.setdiff1d(all_ids, np.fromiter(self._live, dtype=np.int64, count=len(self._live)))
            with open(deleted_path, "wb") as f:
                np.save(f, dead)
            _fsync_file(path)
            _fsync_file(deleted_path)
            manifest = {"format": FORMAT, "space": self.space, "model": self.model, "dim": self.dim,
                        "count": len(self._live), "generation": generation, "high_water": self._high_water}
            tmp = self.folder / f"{self.space}.json.{os.getpid()}.{generation}.tmp"
            tmp.write_text(json.dumps(manifest))
            _fsync_file(tmp)
            tmp.replace(self.manifest_path)
            _fsync_dir(self.folder)
            self._generation = generation
            self._dirty = False
            self._remove_other_generations(generation)
            return True

    def _remove_other_generations(self, keep: str) -> None:
        """Older generations' files and leftovers of saves that never committed (this space)."""
        for f in self.folder.glob(f"{self.space}.*"):
            if f.name == self.manifest_path.name or f".{keep}." in f.name:
                continue
            if f.suffix in (".hnsw", ".npy", ".tmp") or f.name == f"{self.space}.deleted.npy":
                try:
                    f.unlink()
                except OSError:
                    pass

    # ---- queries ------------------------------------------------------------------------
    def query(self, vector: np.ndarray, k: int, *, filter_ids: set[int] | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk id, cosine similarity), best first; `filter_ids` restricts candidates."""
        with self._lock:
            if self._index is None or not self._live:
                return []
            k = min(k, len(self._live) if filter_ids is None else len(filter_ids & self._live))
            if k <= 0:
                return []
            self._index.set_ef(search_breadth(k))
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
