"""Vectors: chunk vectors per space and model (`vectors`), a chunk's sentence vectors pooled at
ingest (`segment_vectors`) and encoded on their own (`sentence_vectors`), and the hnswlib index
of each space derived from them (vector_index.py: files, manifests, sync with SQLite).

The SQL is the store's portable dialect, so the PostgreSQL store's `PgVectors` (postgres/vectors.py)
is this class with another index (pgvector's HNSW in the database), another encoding of a vector
and the other models' indices dropped with their vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .db import Database
from .vector_index import VectorIndex

BATCH = 900
SEGMENT_TABLES = ("segment_vectors", "sentence_vectors")


def match_vectors(pooled: dict[int, np.ndarray], own: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Per chunk, the vectors search matches a query against: pooled + own, L2-normalised, where
    the chunk has own vectors of the same shape; the pooled ones alone otherwise."""
    out = {}
    for cid, p in pooled.items():
        o = own.get(cid)
        if o is None or o.shape != p.shape:
            out[cid] = p
            continue
        m = p.astype(np.float32) + o.astype(np.float32)
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        out[cid] = m / np.where(norms > 0, norms, 1.0)
    return out


class Vectors:
    """The only code that writes the three vector tables and the index files (index/)."""

    def __init__(self, db: Database, index_dir: Path, threads: int = 2, *, read_only: bool = False):
        self.db = db
        self.index_dir = index_dir
        self.threads = threads
        self.read_only = read_only  # indices are kept in memory only (another process writes the files)
        self._indices: dict[str, VectorIndex] = {}

    # ---- indices ---------------------------------------------------------------------------
    def index(self, space: str, model: str, dim: int) -> VectorIndex:
        """The open index of `space` for `model`, opened (and repaired from SQLite) on first use;
        a different model or dimension replaces the one held."""
        with self.db.lock:
            idx = self._indices.get(space)
            if idx is None or idx.model != model or idx.dim != dim:
                idx = self._new_index(space, model, dim)
                idx.open(self.db.conn)
                self._indices[space] = idx
            return idx

    def _new_index(self, space: str, model: str, dim: int) -> VectorIndex:
        return VectorIndex(self.index_dir, space, model, dim, threads=self.threads, read_only=self.read_only)

    @staticmethod
    def _encode(vector) -> bytes:
        """A vector as the `vectors.vec` column stores it (float32 bytes)."""
        return np.asarray(vector, dtype=np.float32).tobytes()

    @staticmethod
    def _decode(value) -> np.ndarray:
        """A `vectors.vec` value as a float32 array."""
        return np.frombuffer(value, dtype=np.float32)

    def held_index(self, space: str) -> VectorIndex | None:
        """The index of `space` held open now, or None."""
        return self._indices.get(space)

    def rebuild_index(self, space: str, model: str, dim: int, *, reason: str) -> VectorIndex:
        """Build the index of `space` for `model` from SQLite, hold it and return it."""
        with self.db.lock:
            idx = self._new_index(space, model, dim)
            idx.rebuild(self.db.conn, reason=reason)
            self._indices[space] = idx
            return idx

    def drop_index(self, space: str) -> None:
        """Stop holding the index of `space` (it is never saved again)."""
        with self.db.lock:
            self._indices.pop(space, None)

    def remove_from_indices(self, ids: list[int]) -> None:
        """Mark chunk ids deleted in every held index and save."""
        with self.db.lock:
            for idx in self._indices.values():
                idx.remove(ids)
                idx.save(self.db.conn)

    def save_indices(self) -> None:
        """Write every changed held index to disk (after catching up with SQLite)."""
        with self.db.lock:
            for idx in self._indices.values():
                idx.save(self.db.conn)

    def compact_indices(self, dead_share: float = 0.2) -> list[str]:
        """Rebuild every held index whose deleted labels exceed `dead_share` of its elements, and
        delete index files no manifest names. Returns what was done, in words."""
        done = []
        with self.db.lock:
            for space, idx in list(self._indices.items()):
                dead, live = idx.dead, len(idx)
                if dead and dead > dead_share * (dead + live):
                    self.rebuild_index(space, idx.model, idx.dim, reason="compacted")
                    done.append(f"{space} index rebuilt without its {dead} deleted entries")
                self._indices[space].remove_leftovers()
        return done

    def reconcile_indices(self) -> None:
        """Bring every held index in line with SQLite (after another process wrote)."""
        with self.db.lock:
            for idx in self._indices.values():
                idx.reconcile(self.db.conn)

    # ---- reads -----------------------------------------------------------------------------
    def count(self, model: str, space: str = "text") -> int:
        """Vectors of `model` in `space`."""
        return self.db.one("SELECT COUNT(*) FROM vectors WHERE space = ? AND model = ?", (space, model))[0]

    def has_any(self, space: str, model: str | None = None) -> bool:
        """True when `space` holds a vector (of `model`, when given)."""
        if model is None:
            return self.db.one("SELECT 1 FROM vectors WHERE space = ? LIMIT 1", (space,)) is not None
        return self.db.one("SELECT 1 FROM vectors WHERE space = ? AND model = ? LIMIT 1", (space, model)) is not None

    def has_other_models(self, space: str, model: str) -> bool:
        """True when `space` holds a vector of another model than `model`."""
        return self.db.one("SELECT 1 FROM vectors WHERE space = ? AND model != ? LIMIT 1", (space, model)) is not None

    def dim(self, space: str, model: str) -> int | None:
        """The dimension of `model`'s vectors in `space`, or None when it has none."""
        row = self.db.one("SELECT dim FROM vectors WHERE space = ? AND model = ? LIMIT 1", (space, model))
        return int(row[0]) if row else None

    def chunk_vectors(self, ids: list[int], model: str, space: str = "text") -> dict[int, np.ndarray]:
        """{chunk id: float32 vector} of `model` in `space`."""
        out: dict[int, np.ndarray] = {}
        ids = [int(i) for i in ids]
        for start in range(0, len(ids), BATCH):
            test, values = self.db.in_list(ids[start : start + BATCH])
            rows = self.db.all(f"SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? AND chunk_id {test}",
                               [space, model, *values])
            out.update({cid: self._decode(vec) for cid, vec in rows})
        return out

    def segment_vectors(self, ids: list[int], model: str, table: str = "segment_vectors") -> dict[int, np.ndarray]:
        """Per chunk, its float16 [n_segments, dim] vectors of `model` from `table`
        (`segment_vectors`: pooled at ingest; `sentence_vectors`: encoded on their own)."""
        if table not in SEGMENT_TABLES:
            raise ValueError(f"unknown segment table {table!r}")
        out: dict[int, np.ndarray] = {}
        ids = [int(i) for i in ids]
        for start in range(0, len(ids), BATCH):
            test, values = self.db.in_list(ids[start : start + BATCH])
            rows = self.db.all(f"SELECT chunk_id, n, dim, vecs FROM {table} WHERE model = ? AND chunk_id {test}",
                               [model, *values])
            out.update({cid: np.frombuffer(bytes(blob), dtype=np.float16).reshape(n, dim)
                        for cid, n, dim, blob in rows})
        return out

    def match_vectors(self, ids: list[int], model: str) -> dict[int, np.ndarray]:
        """The segment vectors search matches queries against: pooled, mixed with each segment's
        own vector once the background pass has encoded it (`match_vectors`)."""
        pooled = self.segment_vectors(ids, model)
        own = self.segment_vectors(list(pooled), model, "sentence_vectors") if pooled else {}
        return match_vectors(pooled, own)

    def table_segments(self, model: str) -> list[tuple[int, int]]:
        """(chunk id, number of rows) of every table chunk with segment vectors of `model`."""
        return self.db.all("SELECT c.id, s.n FROM chunks c JOIN segment_vectors s ON s.chunk_id = c.id AND s.model = ? "
                           "WHERE c.kind = 'table' ORDER BY c.id", (model,))

    def _pending_sql(self, doc_ids: list[int] | None, kinds: tuple[str, ...] | None = None) -> tuple[str, list]:
        sql = ("FROM segment_vectors s JOIN chunks c ON c.id = s.chunk_id WHERE s.model = ? AND NOT EXISTS "
               "(SELECT 1 FROM sentence_vectors t WHERE t.chunk_id = s.chunk_id AND t.model = s.model)")
        args: list = []
        for column, values in (("c.doc_id", doc_ids), ("c.kind", kinds)):
            if values:
                test, params = self.db.in_list(list(values))
                sql += f" AND {column} {test}"
                args.extend(params)
        return sql, args

    def count_sentence_pending(self, model: str, doc_ids: list[int] | None = None,
                               kinds: tuple[str, ...] | None = None) -> int:
        """Chunks of `model` (of `kinds`, when given) whose segments are not encoded on their own yet."""
        sql, args = self._pending_sql(doc_ids, kinds)
        return self.db.one(f"SELECT COUNT(*) {sql}", [model, *args])[0]

    def sentence_pending(self, model: str, doc_ids: list[int] | None, limit: int,
                         kinds: tuple[str, ...] | None = None) -> list[tuple]:
        """(chunk id, segments, pooled blob, lines JSON) of up to `limit` pending chunks (of `kinds`,
        when given), by id."""
        sql, args = self._pending_sql(doc_ids, kinds)
        return [(cid, n, bytes(blob), lines) for cid, n, blob, lines in self.db.all(
            f"SELECT s.chunk_id, s.n, s.vecs, c.lines {sql} ORDER BY s.chunk_id LIMIT ?", [model, *args, limit])]

    # ---- writes ----------------------------------------------------------------------------
    def put_text(self, ids: list[int], model: str, vectors, segments) -> None:
        """Text vectors and pooled segment vectors of new or re-embedded chunks (replacing any of
        the same model), in one transaction (or the caller's)."""
        if not len(ids):
            return
        dim = int(np.asarray(vectors[0]).shape[0])
        with self.db.transaction():
            self._replace_vectors("text", model, [(int(cid), dim, self._encode(v))
                                                  for cid, v in zip(ids, vectors, strict=True)])
            self.db.run_many(
                "INSERT INTO segment_vectors (chunk_id, model, n, dim, vecs) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (chunk_id, model) DO UPDATE SET n = excluded.n, dim = excluded.dim, vecs = excluded.vecs",
                [(int(cid), model, int(s.shape[0]), dim, np.asarray(s, dtype=np.float16).tobytes())
                 for cid, s in zip(ids, segments, strict=True)])

    def replace_chunk_text(self, chunk_id: int, model: str, vector: np.ndarray, segments: np.ndarray) -> None:
        """A chunk whose text changed: its `model` vectors replaced, other models' text vectors and
        every sentence vector dropped (they are computed again later)."""
        with self.db.transaction():
            self.db.run("DELETE FROM vectors WHERE chunk_id = ? AND space = 'text' AND model != ?", (chunk_id, model))
            self.db.run("DELETE FROM segment_vectors WHERE chunk_id = ? AND model != ?", (chunk_id, model))
            self.db.run("DELETE FROM sentence_vectors WHERE chunk_id = ?", (chunk_id,))
            self.put_text([chunk_id], model, [vector], [segments])

    def put_sentences(self, rows: list[tuple]) -> None:
        """Own sentence vectors: (chunk id, model, n, dim, blob, pooled blob) each, written only
        where the chunk's pooled vectors are still `pooled blob` (the chunk may have changed)."""
        with self.db.transaction():
            self.db.run_many(
                "INSERT INTO sentence_vectors (chunk_id, model, n, dim, vecs) SELECT ?, ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM segment_vectors WHERE chunk_id = ? AND model = ? AND vecs = ?) "
                "ON CONFLICT (chunk_id, model) DO UPDATE SET n = excluded.n, dim = excluded.dim, vecs = excluded.vecs",
                [(cid, model, n, dim, blob, cid, model, pooled) for cid, model, n, dim, blob, pooled in rows])

    def put_image(self, chunk_id: int, model: str, vector) -> None:
        """The image vector of a figure chunk for `model`."""
        v = np.asarray(vector, dtype=np.float32)
        with self.db.transaction():
            self._replace_vectors("image", model, [(chunk_id, int(v.shape[0]), self._encode(v))])

    # INSERT OR REPLACE deletes the old row and gives the new one a new, larger rowid: the mark by
    # which other processes' indices find a rewritten vector (vector_index.py). PgVectors
    # overrides it (its index does not read rowids).
    REPLACE_VECTOR = "INSERT OR REPLACE INTO vectors (chunk_id, space, model, dim, vec) VALUES (?, ?, ?, ?, ?)"

    def _replace_vectors(self, space: str, model: str, rows: list[tuple]) -> None:
        """(chunk id, dim, encoded vector) rows written to `space`, replacing any of the same model."""
        self.db.run_many(self.REPLACE_VECTOR, [(cid, space, model, dim, vec) for cid, dim, vec in rows])

    def keep_only_text_model(self, model: str) -> None:
        """Delete every text, segment and sentence vector of another model than `model`."""
        with self.db.transaction():
            self.db.run("DELETE FROM vectors WHERE space = 'text' AND model != ?", (model,))
            self.db.run("DELETE FROM segment_vectors WHERE model != ?", (model,))
            self.db.run("DELETE FROM sentence_vectors WHERE model != ?", (model,))

    def keep_only_image_model(self, model: str) -> None:
        """Delete every image vector of another model than `model`."""
        self.db.run("DELETE FROM vectors WHERE space = 'image' AND model != ?", (model,))
