"""How search uses a cross-encoder (models/reranker.py) when the user installed one: the top
RERANK_TOP hits are reordered by it, and a hit's highlight becomes the sentence it scores best.
`scores_of(query, passages)` returns the model's scores, or None when no reranker is in use."""

from __future__ import annotations

import json

from .highlight import caption_segments, segment_highlight, segment_texts

RERANK_TOP = 20  # candidates the cross-encoder reorders (the rest keep their fused order)


def passage_of(text: str, section: str = "") -> str:
    """The passage a chunk shows the cross-encoder: the same text the embedder read (the last two
    levels of its section path, a newline, the chunk text), so a heading counts as context."""
    tail = " > ".join(section.split(" > ")[-2:])[:80] if section else ""
    return f"{tail}\n{text}" if tail else text


def rerank_top(scores_of, query: str, kept: list[int], rows: dict,
               scored: dict) -> dict[int, tuple[int, float]]:
    """Reorder the first RERANK_TOP hits of `kept` (best first) by the user's cross-encoder, when
    one is configured; returns {chunk id: (1-based cross-encoder rank, its score)} ({} when no
    reranker is in use; then nothing changes).

    Rule: the top N keep their set of scores, but the scores are handed out again in the
    cross-encoder's order (its best passage gets the highest of the N scores, and so on). A
    cross-encoder's raw scores have a model-specific scale (logits, or probabilities), so mixing
    them with the fused score would need per-model tuning that cannot be done without the model;
    reassigning ranks is scale-free, trusts the stronger model within the short list only, and
    leaves everything below the N-th hit (and MMR's inputs' scale) exactly as it was.
    Changes `kept` and `scored` in place.
    """
    top = kept[:RERANK_TOP]
    if len(top) < 2:
        return {}
    scores = scores_of(query, [passage_of(rows[c]["text"], rows[c]["section"] or "") for c in top])
    if scores is None:
        return {}
    by_model = sorted(range(len(top)), key=lambda i: (-float(scores[i]), i))  # ties keep the fused order
    slots = sorted((scored[c] for c in top), reverse=True)
    for slot, i in zip(slots, by_model, strict=True):
        scored[top[i]] = slot
    kept[: len(top)] = [top[i] for i in by_model]
    return {top[i]: (rank, float(scores[i])) for rank, i in enumerate(by_model, start=1)}


def rerank_sentences(scores_of, query: str, chosen: list[int], rows: dict,
                     highlights: dict) -> None:
    """With a cross-encoder in use, a text or table hit's highlight is the sentence (row) of its
    page that the cross-encoder scores best against the query — sentence-level reranking; the
    MiniLM segment vectors only approximate it. One batched call for all hits' sentences
    (captions a table repeats are left out). Changes `highlights` in place."""
    items: list[tuple[int, int, str]] = []  # (chunk id, segment, text)
    page_lines: dict[int, list[dict]] = {}  # chunk id -> its boxed lines on the hit's page
    for c in chosen:
        hl = highlights[c]
        if rows[c]["kind"] not in ("text", "table") or hl.bbox is None:
            continue
        on_page = page_lines[c] = [ln for ln in json.loads(rows[c]["lines"]) if ln.get("b") and ln["p"] == hl.page]
        n = max((s for ln in on_page for s in ln.get("s") or []), default=-1) + 1
        skip = caption_segments(on_page) if rows[c]["kind"] == "table" else set()
        items += [(c, i, t.strip()) for i, t in enumerate(segment_texts(on_page, n)) if t.strip() and i not in skip]
    if not items:
        return
    scores = scores_of(query, [t for _, _, t in items])
    if scores is None:
        return
    best: dict[int, tuple[int, float]] = {}
    for (c, i, _), sc in zip(items, scores, strict=True):
        if c not in best or float(sc) > best[c][1]:
            best[c] = (i, float(sc))
    for c, (i, _) in best.items():
        hl = segment_highlight(page_lines[c], i, highlights[c].score)
        if hl is not None:
            highlights[c] = hl
