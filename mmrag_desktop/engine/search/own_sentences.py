"""The vectors search matches sentences against, complete even before the background pass.

Each segment of a chunk has a vector pooled at ingest and, once encoded on its own, a second one;
search mixes the two (`store.vectors.match_vectors`, ingest/sentences.py says why). Search needs
the mixed vectors only for the few dozen passages it ranks, so when the background pass has not
reached one of them, `OwnSentences` encodes that passage's segments on the spot and keeps them
in memory (not in the library: search never writes). A search therefore returns the same hits
and highlights right after ingest as after the pass; it is only slower the first time a passage
is ranked (measured in bench/README.md, session 15). The pass still stores every chunk's vectors
ahead, so later searches encode nothing.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from ..store.vectors import match_vectors
from .highlight import segment_texts

if TYPE_CHECKING:
    from ..models.active import ActiveModels
    from ..store import Chunks, Vectors

MAX_CHUNKS = 4096  # chunks whose own vectors are kept in memory (~14 MB at 384 dimensions)


def encode_segments(embedder, lines_json: list[str | None], counts: list[int]) -> list[np.ndarray]:
    """Each chunk's segments encoded on their own: one float16 [n, dim] array per chunk (from its
    stored lines JSON and segment count). A segment without text gets zeros (its pooled vector
    alone decides); segments sharing their lines have the same text and are encoded once."""
    texts = [segment_texts(json.loads(lines or "[]"), n) for lines, n in zip(lines_json, counts, strict=True)]
    flat = [t.strip() for ts in texts for t in ts]
    unique = list(dict.fromkeys(t for t in flat if t))
    encoded = embedder.encode(unique) if unique else np.zeros((0, embedder.dim), np.float32)
    where = {t: i for i, t in enumerate(unique)}
    enc = np.zeros((len(flat), embedder.dim), np.float32)
    for i, t in enumerate(flat):
        if t:
            enc[i] = encoded[where[t]]
    out, at = [], 0
    for ts in texts:
        out.append(enc[at : at + len(ts)].astype(np.float16))
        at += len(ts)
    return out


class OwnSentences:
    """Segment vectors for search: stored ones, completed on demand (see module doc)."""

    def __init__(self, chunks: Chunks, vectors: Vectors, models: ActiveModels) -> None:
        self.chunks = chunks
        self.vectors = vectors
        self.models = models
        self.encoded = 0  # chunks encoded on demand so far (tests and benchmarks read it)
        self._cache: OrderedDict[tuple[int, str], tuple[bytes, np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def match_vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """{chunk id: [segments, dim] vectors} search matches a query against, for chunks of `ids`
        with segment vectors of the active text model: pooled mixed with own, the own ones from the
        library or, where the background pass has not stored them yet, encoded now."""
        embedder = self.models.embedder
        model = embedder.model_id
        pooled = self.vectors.segment_vectors(ids, model)
        if not pooled:
            return {}
        own = self.vectors.segment_vectors(list(pooled), model, "sentence_vectors")
        missing = [c for c in pooled if c not in own]
        if missing:
            own.update(self._own(missing, pooled, model, embedder))
        return match_vectors(pooled, own)

    def _own(self, ids: list[int], pooled: dict[int, np.ndarray], model: str, embedder) -> dict[int, np.ndarray]:
        # a cached entry holds for the pooled vectors it was made with (figure work or a re-embed
        # changes a chunk's text and its pooled vectors together)
        keys = {c: hashlib.blake2b(pooled[c].tobytes(), digest_size=16).digest() for c in ids}
        out: dict[int, np.ndarray] = {}
        with self._lock:
            for c in ids:
                hit = self._cache.get((c, model))
                if hit is not None and hit[0] == keys[c]:
                    self._cache.move_to_end((c, model))
                    out[c] = hit[1]
        todo = [c for c in ids if c not in out]
        if not todo:
            return out
        rows = self.chunks.rows(todo)
        todo = [c for c in todo if c in rows]
        vecs = encode_segments(embedder, [rows[c]["lines"] for c in todo], [pooled[c].shape[0] for c in todo])
        with self._lock:
            for c, v in zip(todo, vecs, strict=True):
                out[c] = v
                self._cache[(c, model)] = (keys[c], v)
                self._cache.move_to_end((c, model))
            while len(self._cache) > MAX_CHUNKS:
                self._cache.popitem(last=False)
            self.encoded += len(todo)
        return out
