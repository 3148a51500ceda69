"""Weighted reciprocal rank fusion and maximal marginal relevance."""

from __future__ import annotations

import numpy as np

RRF_K = 10


def weighted_rrf(lists: dict[str, list[int]], weights: dict[str, float], k: int = RRF_K) -> dict[int, float]:
    """Fuse ranked id lists: score(id) = sum over lists of weight / (k + rank), rank from 1."""
    scores: dict[int, float] = {}
    for name, ids in lists.items():
        w = weights.get(name, 1.0)
        if w <= 0:
            continue
        for rank, cid in enumerate(ids, start=1):
            scores[cid] = scores.get(cid, 0.0) + w / (k + rank)
    return scores


def mmr(ids: list[int], relevance: np.ndarray, vectors: np.ndarray, k: int, lam: float = 0.7) -> list[int]:
    """Select up to k ids greedily maximising lam*relevance - (1-lam)*max similarity to the chosen.

    `relevance` is divided by its maximum first (differences keep their proportion); `vectors` are L2-normalised rows aligned with `ids`.
    """
    if not ids:
        return []
    rel = np.asarray(relevance, dtype=np.float32)
    top = float(rel.max())
    rel = rel / top if top > 0 else np.ones_like(rel)
    sims = vectors @ vectors.T
    chosen: list[int] = []
    remaining = list(range(len(ids)))
    while remaining and len(chosen) < k:
        if chosen:
            penalty = sims[np.ix_(remaining, chosen)].max(axis=1)
        else:
            penalty = np.zeros(len(remaining), dtype=np.float32)
        score = lam * rel[remaining] - (1 - lam) * penalty
        best = remaining[int(np.argmax(score))]
        chosen.append(best)
        remaining.remove(best)
    return [ids[i] for i in chosen]
