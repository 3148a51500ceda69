"""Vectors in PostgreSQL: the same interface as store/vectors.py, with pgvector in place of the
hnswlib files. Chunk vectors live in `vectors.vec` (pgvector `vector`); each (space, model) has
a partial HNSW index (cosine) over `vec::vector(dim)`, made when the space is first used by a
writing client and listed in `vector_indexes`. PostgreSQL keeps it up to date as rows are
written, so a vector is searchable by every client once its transaction commits: the index
objects' add/remove/save are no-ops, kept so services call both backends alike."""

from __future__ import annotations

import hashlib

import numpy as np

from ..vectors import SEGMENT_TABLES, match_vectors
from .db import PgDatabase

HNSW_M = 16  # as the hnswlib index (store/vector_index.py)
HNSW_EF_CONSTRUCTION = 200


def index_name(space: str, model: str, dim: int) -> str:
    """The name of the HNSW index of (space, model, dim): a fixed prefix and a hash (PostgreSQL
    names are at most 63 bytes; model ids are paths)."""
    return "vectors_hnsw_" + hashlib.sha1(f"{space}\0{model}\0{dim}".encode()).hexdigest()[:16]


def _array(vec) -> np.ndarray:
    """A float32 array of a `vector` value as pgvector's loader gives it (an array, or a Vector)."""
    return np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)


class PgVectorIndex:
    """The HNSW index of one (space, model) in PostgreSQL, with the query interface of
    store/vector_index.py's `VectorIndex`: `query(vector, k, filter_ids=)` gives (chunk id,
    cosine similarity) best first."""

    def __init__(self, db: PgDatabase, space: str, model: str, dim: int):
        self.db = db
        self.space = space
        self.model = model
        self.dim = dim
        self.name = index_name(space, model, dim)
        self.rebuilt_reason: str | None = None
        self.path = None  # no file: the index lives in the database
        self.dead = 0  # PostgreSQL's VACUUM reclaims deleted entries

    def __len__(self) -> int:
        return self.db.one("SELECT COUNT(*) FROM vectors WHERE space = ? AND model = ?",
                           (self.space, self.model))[0]

    def _where(self) -> str:
        return f"space = {self.db.literal(self.space)} AND model = {self.db.literal(self.model)}"

    def ensure(self) -> bool:
        """Create the index unless it exists; True when this call created it. Concurrent clients
        wait for one another (advisory lock); the build locks out writes to `vectors` meanwhile."""
        with self.db.lock:
            if self.exists():
                return False
            with self.db.transaction():
                self.db.run("SELECT pg_advisory_xact_lock(hashtext(?))", (self.name,))
                self.db.run(
                    f"CREATE INDEX IF NOT EXISTS {self.name} ON vectors USING hnsw ((vec::vector({int(self.dim)})) "
                    f"vector_cosine_ops) WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) "
                    f"WHERE {self._where()}")
                self.db.run("INSERT INTO vector_indexes (space, model, dim, name) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT (space, model) DO UPDATE SET dim = EXCLUDED.dim, name = EXCLUDED.name",
                            (self.space, self.model, self.dim, self.name))
            return True

    def exists(self) -> bool:
        """True when the index exists in the database."""
        return self.db.one("SELECT to_regclass(?) IS NOT NULL", (self.name,))[0]

    def rebuild(self, *, reason: str = "requested") -> int:
        """Build the index again from the rows (REINDEX; created if missing); returns the count."""
        if not self.ensure():
            self.db.run(f"REINDEX INDEX {self.name}")
        self.rebuilt_reason = reason
        return len(self)

    def query(self, vector: np.ndarray, k: int, *, filter_ids: set[int] | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk id, cosine similarity), best first; `filter_ids` restricts candidates
        (then the candidates are compared exactly, without the index: pgvector 0.6 filters after
        its index scan and would return fewer than k)."""
        if k <= 0 or (filter_ids is not None and not filter_ids):
            return []
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        cast = f"vector({int(self.dim)})"
        with self.db.lock:
            if filter_ids is not None:
                rows = self.db.all(
                    f"WITH c AS MATERIALIZED (SELECT chunk_id, vec FROM vectors WHERE {self._where()} "
                    "AND chunk_id = ANY(?)) "
                    f"SELECT chunk_id, 1 - (vec::{cast} <=> ?::{cast}) AS sim FROM c ORDER BY sim DESC, chunk_id "
                    "LIMIT ?", (sorted(filter_ids), vec, k))
            else:
                self.db.one("SELECT set_config('hnsw.ef_search', ?, false)", (str(max(64, k * 2)),))
                rows = self.db.all(
                    f"SELECT chunk_id, 1 - (vec::{cast} <=> ?::{cast}) FROM vectors WHERE {self._where()} "
                    f"ORDER BY vec::{cast} <=> ?::{cast} LIMIT ?", (vec, vec, k))
        return [(int(cid), float(sim)) for cid, sim in rows]

    # the database keeps the index: nothing to add, remove, save or reconcile from here
    def add(self, ids, vectors) -> None:
        """No-op: rows written through PgVectors are indexed by PostgreSQL."""

    def remove(self, ids) -> None:
        """No-op: deleted rows leave the index with them."""

    def save(self, *_args, **_kwargs) -> bool:
        """No-op (returns False: nothing written)."""
        return False

    def reconcile(self, *_args) -> None:
        """No-op: the index is always the rows'."""

    def remove_leftovers(self) -> None:
        """No-op: there are no files."""


class PgVectors:
    """The only code that writes the three vector tables and the HNSW indices of a PostgreSQL
    library."""

    def __init__(self, db: PgDatabase, threads: int = 2, *, read_only: bool = False):
        self.db = db
        self.threads = threads  # kept for the interface; the server decides its own parallelism
        self.read_only = read_only
        self._indices: dict[str, PgVectorIndex] = {}

    # ---- indices ---------------------------------------------------------------------------
    def index(self, space: str, model: str, dim: int) -> PgVectorIndex:
        """The index of `space` for `model`, created in the database on first use by a writing
        client; a different model or dimension replaces the one held."""
        with self.db.lock:
            idx = self._indices.get(space)
            if idx is None or idx.model != model or idx.dim != dim:
                idx = PgVectorIndex(self.db, space, model, dim)
                if not self.read_only and idx.ensure():
                    idx.rebuilt_reason = "created"
                self._indices[space] = idx
            return idx

    def held_index(self, space: str) -> PgVectorIndex | None:
        """The index of `space` held now, or None."""
        return self._indices.get(space)

    def rebuild_index(self, space: str, model: str, dim: int, *, reason: str) -> PgVectorIndex:
        """Build the index of `space` for `model` again (REINDEX), hold it and return it."""
        with self.db.lock:
            idx = PgVectorIndex(self.db, space, model, dim)
            idx.rebuild(reason=reason)
            self._indices[space] = idx
            return idx

    def drop_index(self, space: str) -> None:
        """Stop holding the index of `space` (its rows and index stay in the database until
        `keep_only_*_model` deletes them)."""
        with self.db.lock:
            self._indices.pop(space, None)

    def remove_from_indices(self, ids: list[int]) -> None:
        """No-op: deleted rows leave the database's indices with them."""

    def save_indices(self) -> None:
        """No-op: the database's indices are always saved."""

    def compact_indices(self, dead_share: float = 0.2) -> list[str]:
        """Nothing to do here (PostgreSQL's autovacuum reclaims deleted entries); returns []."""
        return []

    def reconcile_indices(self) -> None:
        """No-op: every client reads the same indices."""

    # ---- reads -----------------------------------------------------------------------------
    def count(self, model: str, space: str = "text") -> int:
        """Vectors of `model` in `space`."""
        return self.db.one("SELECT COUNT(*) FROM vectors WHERE space = ? AND model = ?", (space, model))[0]

    def has_any(self, space: str, model: str | None = None) -> bool:
        """True when `space` holds a vector (of `model`, when given)."""
        if model is None:
            return self.db.one("SELECT 1 FROM vectors WHERE space = ? LIMIT 1", (space,)) is not None
        return self.db.one("SELECT 1 FROM vectors WHERE space = ? AND model = ? LIMIT 1",
                           (space, model)) is not None

    def has_other_models(self, space: str, model: str) -> bool:
        """True when `space` holds a vector of another model than `model`."""
        return self.db.one("SELECT 1 FROM vectors WHERE space = ? AND model != ? LIMIT 1",
                           (space, model)) is not None

    def dim(self, space: str, model: str) -> int | None:
        """The dimension of `model`'s vectors in `space`, or None when it has none."""
        row = self.db.one("SELECT dim FROM vectors WHERE space = ? AND model = ? LIMIT 1", (space, model))
        return int(row[0]) if row else None

    def chunk_vectors(self, ids: list[int], model: str, space: str = "text") -> dict[int, np.ndarray]:
        """{chunk id: float32 vector} of `model` in `space`."""
        if not len(ids):
            return {}
        rows = self.db.all("SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? AND chunk_id = ANY(?)",
                           (space, model, [int(i) for i in ids]))
        return {cid: _array(vec) for cid, vec in rows}

    def segment_vectors(self, ids: list[int], model: str, table: str = "segment_vectors") -> dict[int, np.ndarray]:
        """Per chunk, its float16 [n_segments, dim] vectors of `model` from `table`
        (`segment_vectors`: pooled at ingest; `sentence_vectors`: encoded on their own)."""
        if table not in SEGMENT_TABLES:
            raise ValueError(f"unknown segment table {table!r}")
        if not len(ids):
            return {}
        rows = self.db.all(f"SELECT chunk_id, n, dim, vecs FROM {table} WHERE model = ? AND chunk_id = ANY(?)",
                           (model, [int(i) for i in ids]))
        return {cid: np.frombuffer(bytes(blob), dtype=np.float16).reshape(n, dim) for cid, n, dim, blob in rows}

    def match_vectors(self, ids: list[int], model: str) -> dict[int, np.ndarray]:
        """The segment vectors search matches queries against: pooled, mixed with each segment's
        own vector once the background pass has encoded it (store/vectors.py `match_vectors`)."""
        pooled = self.segment_vectors(ids, model)
        own = self.segment_vectors(list(pooled), model, "sentence_vectors") if pooled else {}
        return match_vectors(pooled, own)

    def table_segments(self, model: str) -> list[tuple[int, int]]:
        """(chunk id, number of rows) of every table chunk with segment vectors of `model`."""
        return self.db.all("SELECT c.id, s.n FROM chunks c JOIN segment_vectors s ON s.chunk_id = c.id "
                           "AND s.model = ? WHERE c.kind = 'table' ORDER BY c.id", (model,))

    @staticmethod
    def _pending_sql(doc_ids: list[int] | None) -> tuple[str, list]:
        sql = ("FROM segment_vectors s JOIN chunks c ON c.id = s.chunk_id WHERE s.model = ? AND NOT EXISTS "
               "(SELECT 1 FROM sentence_vectors t WHERE t.chunk_id = s.chunk_id AND t.model = s.model)")
        args: list = []
        if doc_ids:
            sql += " AND c.doc_id = ANY(?)"
            args.append(list(doc_ids))
        return sql, args

    def count_sentence_pending(self, model: str, doc_ids: list[int] | None = None) -> int:
        """Chunks of `model` whose segments are not encoded on their own yet."""
        sql, args = self._pending_sql(doc_ids)
        return self.db.one(f"SELECT COUNT(*) {sql}", [model, *args])[0]

    def sentence_pending(self, model: str, doc_ids: list[int] | None, limit: int) -> list[tuple]:
        """(chunk id, segments, pooled blob, lines JSON) of up to `limit` pending chunks, by id."""
        sql, args = self._pending_sql(doc_ids)
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
            self.db.run_many(
                "INSERT INTO vectors (chunk_id, space, model, dim, vec) VALUES (?, 'text', ?, ?, ?) "
                "ON CONFLICT (chunk_id, space, model) DO UPDATE SET dim = EXCLUDED.dim, vec = EXCLUDED.vec",
                [(int(cid), model, dim, np.asarray(v, dtype=np.float32)) for cid, v in zip(ids, vectors, strict=True)])
            self.db.run_many(
                "INSERT INTO segment_vectors (chunk_id, model, n, dim, vecs) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (chunk_id, model) DO UPDATE SET n = EXCLUDED.n, dim = EXCLUDED.dim, vecs = EXCLUDED.vecs",
                [(int(cid), model, int(s.shape[0]), dim, np.asarray(s, dtype=np.float16).tobytes())
                 for cid, s in zip(ids, segments, strict=True)])

    def replace_chunk_text(self, chunk_id: int, model: str, vector: np.ndarray, segments: np.ndarray) -> None:
        """A chunk whose text changed: its `model` vectors replaced, other models' text vectors and
        every sentence vector dropped (they are computed again later)."""
        with self.db.transaction():
            self.db.run("DELETE FROM vectors WHERE chunk_id = ? AND space = 'text' AND model != ?",
                        (chunk_id, model))
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
                "ON CONFLICT (chunk_id, model) DO UPDATE SET n = EXCLUDED.n, dim = EXCLUDED.dim, vecs = EXCLUDED.vecs",
                [(cid, model, n, dim, blob, cid, model, pooled) for cid, model, n, dim, blob, pooled in rows])

    def put_image(self, chunk_id: int, model: str, vector) -> None:
        """The image vector of a figure chunk for `model`."""
        v = np.asarray(vector, dtype=np.float32)
        self.db.run("INSERT INTO vectors (chunk_id, space, model, dim, vec) VALUES (?, 'image', ?, ?, ?) "
                    "ON CONFLICT (chunk_id, space, model) DO UPDATE SET dim = EXCLUDED.dim, vec = EXCLUDED.vec",
                    (chunk_id, model, int(v.shape[0]), v))

    def _drop_indices_except(self, space: str, model: str) -> None:
        for (name,) in self.db.all("SELECT name FROM vector_indexes WHERE space = ? AND model != ?", (space, model)):
            self.db.run(f"DROP INDEX IF EXISTS {name}")
        self.db.run("DELETE FROM vector_indexes WHERE space = ? AND model != ?", (space, model))

    def keep_only_text_model(self, model: str) -> None:
        """Delete every text, segment and sentence vector of another model than `model` (and the
        other models' text indices)."""
        with self.db.transaction():
            self.db.run("DELETE FROM vectors WHERE space = 'text' AND model != ?", (model,))
            self.db.run("DELETE FROM segment_vectors WHERE model != ?", (model,))
            self.db.run("DELETE FROM sentence_vectors WHERE model != ?", (model,))
            self._drop_indices_except("text", model)

    def keep_only_image_model(self, model: str) -> None:
        """Delete every image vector of another model than `model` (and their index)."""
        with self.db.transaction():
            self.db.run("DELETE FROM vectors WHERE space = 'image' AND model != ?", (model,))
            self._drop_indices_except("image", model)
