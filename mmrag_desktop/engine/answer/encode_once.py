"""The text embedder as one answer uses it: each distinct text is encoded once.

Confidence, attribution, citation boxes and an extractive fallback each embed the evidence
sentences of the same answer; this wrapper keeps their vectors for the answer's lifetime.
"""

from __future__ import annotations

import numpy as np


class EncodeOnce:
    """Wraps a text embedder: `encode` reuses vectors already computed for this answer; every other
    attribute (count_tokens, model_id, ...) is the wrapped embedder's."""

    def __init__(self, embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        """L2-normalised vectors, shape [len(texts), dim], as the wrapped embedder's `encode`."""
        if not texts:
            return self._embedder.encode([])
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, self._embedder.encode(new), strict=True))
        return np.stack([self._vectors[t] for t in texts])

    def __getattr__(self, name: str):
        return getattr(self._embedder, name)
