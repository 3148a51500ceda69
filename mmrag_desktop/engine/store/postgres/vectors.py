"""Vectors in PostgreSQL: store/vectors.py's `Vectors` with pgvector in place of the hnswlib files.
Chunk vectors live in `vectors.vec` (pgvector `vector`); each (space, model) has a partial HNSW
index (cosine) over `vec::vector(dim)`, made when the space is first used by a writing client and
listed in `vector_indexes`. PostgreSQL keeps it up to date as rows are written, so a vector is
searchable by every client once its transaction commits: the index objects' add/remove/save are
no-ops, so `Vectors`' index bookkeeping runs unchanged over them."""

from __future__ import annotations

import hashlib

import numpy as np

from ..vector_index import search_breadth
from ..vectors import Vectors
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

    def __init__(self, db: PgDatabase, space: str, model: str, dim: int, *, read_only: bool = False):
        self.db = db
        self.read_only = read_only
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

    def open(self, _conn=None) -> None:
        """Make sure the index exists (a writing client creates it; `rebuilt_reason` "created")."""
        if not self.read_only and self.ensure():
            self.rebuilt_reason = "created"

    def rebuild(self, _conn=None, *, reason: str = "requested") -> int:
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
                self.db.one("SELECT set_config('hnsw.ef_search', ?, false)", (str(search_breadth(k)),))
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


class PgVectors(Vectors):
    """`Vectors` over a PgDatabase: the indices are pgvector's in the database (no files), a vector
    is a pgvector value, and dropping a model's vectors drops its index too."""

    def __init__(self, db: PgDatabase, threads: int = 2, *, read_only: bool = False):
        super().__init__(db, None, threads, read_only=read_only)  # the server decides its own parallelism

    REPLACE_VECTOR = ("INSERT INTO vectors (chunk_id, space, model, dim, vec) VALUES (?, ?, ?, ?, ?) "
                      "ON CONFLICT (chunk_id, space, model) DO UPDATE SET dim = EXCLUDED.dim, vec = EXCLUDED.vec")

    def _new_index(self, space: str, model: str, dim: int) -> PgVectorIndex:
        return PgVectorIndex(self.db, space, model, dim, read_only=self.read_only)

    @staticmethod
    def _encode(vector) -> np.ndarray:
        return np.asarray(vector, dtype=np.float32)

    @staticmethod
    def _decode(value) -> np.ndarray:
        return _array(value)

    def _drop_indices_except(self, space: str, model: str) -> None:
        for (name,) in self.db.all("SELECT name FROM vector_indexes WHERE space = ? AND model != ?", (space, model)):
            self.db.run(f"DROP INDEX IF EXISTS {name}")
        self.db.run("DELETE FROM vector_indexes WHERE space = ? AND model != ?", (space, model))

    def keep_only_text_model(self, model: str) -> None:
        """Delete every text, segment and sentence vector of another model than `model`, and the
        other models' text indices."""
        with self.db.transaction():
            super().keep_only_text_model(model)
            self._drop_indices_except("text", model)

    def keep_only_image_model(self, model: str) -> None:
        """Delete every image vector of another model than `model`, and their index."""
        with self.db.transaction():
            super().keep_only_image_model(model)
            self._drop_indices_except("image", model)
