"""The table-row list of the fusion: table chunks ranked by their best-matching row.

A table chunk's text is a linearised grid ("Name: TEMPERATURE | Type: double | Description: …"
for every row), and one vector for all of it matches a question about one row poorly: on the
development set the gold table of "code model macro that gives the current analysis temperature"
was not among the 40 nearest chunks. Each row is a segment with its own vector (pooled at ingest,
mixed with the row encoded on its own once the background pass ran, sentences.py), so the rows
of every table are matched directly: one matrix product over all rows, kept in memory.

The matrix is rebuilt when chunks were added or removed, and after other writes (the background
pass improving row vectors batch by batch, seen through this connection's changes or SQLite's
data_version for another process) at most every REFRESH_SECONDS: a rebuild reads every table row
(about 0.5 s for 10,000 tables of 8 rows). Measured: 2,788 rows for the 6,135 chunks of two real
manuals (4 MB, ~0.2 ms a query); 80,000 rows in the 200,000-chunk scale run (123 MB, ~6 ms).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..models.active import ActiveModels
    from ..store import Chunks, Vectors


def _best(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest values, largest first."""
    if k < len(values):
        part = np.argpartition(-values, k - 1)[:k]
        return part[np.argsort(-values[part])]
    return np.argsort(-values)


REFRESH_SECONDS = 30.0


class TableRows:
    """Row vectors of every table chunk of one library (see module doc)."""

    def __init__(self, chunks: Chunks, vectors: Vectors, models: ActiveModels) -> None:
        self.chunks = chunks
        self.vectors = vectors
        self.models = models
        self._shape: tuple | None = None
        self._version: tuple | None = None
        self._built = 0.0
        self._owners = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._lock = threading.Lock()

    def ranked(self, qvec: np.ndarray, n: int, allowed: set[int] | None = None) -> list[int]:
        """Up to `n` table chunk ids, best row match first (only ids in `allowed` when given)."""
        owners, matrix = self._current()
        if not len(owners):
            return []
        sims = matrix @ np.asarray(qvec, dtype=np.float32)
        # the best rows first; a full sort only when the best 8n rows hold fewer than n tables
        top = min(len(sims), 8 * n)
        for order in (_best(sims, top), _best(sims, len(sims))):
            out: list[int] = []
            seen: set[int] = set()
            for i in order:
                cid = int(owners[i])
                if cid in seen or (allowed is not None and cid not in allowed):
                    continue
                seen.add(cid)
                out.append(cid)
                if len(out) >= n:
                    return out
            if top == len(sims):
                break
        return out

    def _current(self) -> tuple[np.ndarray, np.ndarray]:
        shape = (self.models.embedder.model_id, self.chunks.count())
        version = self.vectors.db.version()
        with self._lock:
            # chunks added or removed: rebuild now; other writes (the background sentence pass
            # improving row vectors, batch by batch) at most every REFRESH_SECONDS
            if shape != self._shape or (version != self._version
                                        and time.monotonic() - self._built >= REFRESH_SECONDS):
                self._build()
                self._shape, self._version, self._built = shape, version, time.monotonic()
            return self._owners, self._matrix

    def _build(self) -> None:
        model = self.models.embedder.model_id
        rows = self.vectors.table_segments(model)
        total = sum(n for _, n in rows)
        owners = np.zeros(total, dtype=np.int64)
        matrix = None
        at = 0
        for start in range(0, len(rows), 900):  # one batch of vectors in memory besides the matrix
            part = [cid for cid, _ in rows[start : start + 900]]
            vecs = self.vectors.match_vectors(part, model)
            for cid in part:
                m = vecs.get(cid)
                if m is None:
                    continue
                if matrix is None:
                    matrix = np.zeros((total, m.shape[1]), dtype=np.float32)
                owners[at : at + len(m)] = cid
                matrix[at : at + len(m)] = m
                at += len(m)
        self._owners = owners[:at]
        self._matrix = matrix[:at] if matrix is not None else np.zeros((0, 0), dtype=np.float32)
