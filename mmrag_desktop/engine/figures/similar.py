"""Find figures that look the same: pHash comparisons over the stored hashes (store/figures.py
`Figures.hashes()` rows: chunk id, doc id, page, bbox JSON, pHash)."""

from __future__ import annotations

from dataclasses import dataclass

from .phash import DUPLICATE_DISTANCE, dhash, hamming_many, phash


@dataclass
class SimilarFigure:
    """A figure whose pHash is within the distance limit; `distance` in bits (0 = identical)."""

    chunk_id: int
    doc_id: int
    page: int
    bbox: str
    distance: int


def similar_figures(rows: list[tuple], image_or_hash, max_distance: int = DUPLICATE_DISTANCE,
                    exclude_chunk: int | None = None) -> list[SimilarFigure]:
    """Figures whose pHash is within `max_distance` bits of a PIL image or a hex pHash, nearest first.

    `rows` are the stored hashes (fast enough for tens of thousands of figures).
    """
    query = image_or_hash if isinstance(image_or_hash, str) else phash(image_or_hash)
    if exclude_chunk is not None:
        rows = [r for r in rows if r[0] != exclude_chunk]
    dist = hamming_many(query, [r[4] for r in rows])
    out = [SimilarFigure(r[0], r[1], r[2], r[3], int(d)) for r, d in zip(rows, dist, strict=True)
           if d <= max_distance]
    out.sort(key=lambda s: (s.distance, s.chunk_id))
    return out


def duplicate_groups(hash_rows: list[tuple], max_distance: int = DUPLICATE_DISTANCE) -> list[list[int]]:
    """Groups (lists of figure chunk ids, size ≥ 2) of figures that are the same image, across
    documents; `hash_rows` as `similar_figures` takes them, ordered by chunk id."""
    rows = [(r[0], r[4]) for r in hash_rows]
    parent = {cid: cid for cid, _ in rows}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    hashes = [h for _, h in rows]
    for i, (cid, h) in enumerate(rows):
        if i + 1 >= len(rows):
            break
        dist = hamming_many(h, hashes[i + 1:])
        for j in (dist <= max_distance).nonzero()[0]:
            a, b = find(cid), find(rows[i + 1 + int(j)][0])
            if a != b:
                parent[b] = a
    groups: dict[int, list[int]] = {}
    for cid, _ in rows:
        groups.setdefault(find(cid), []).append(cid)
    return [g for g in groups.values() if len(g) > 1]


__all__ = ["SimilarFigure", "similar_figures", "duplicate_groups", "phash", "dhash"]
