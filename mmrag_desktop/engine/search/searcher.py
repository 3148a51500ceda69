"""The retrieval pipeline (DESIGN.md "Retrieval").

query -> dense (hnswlib) + keyword (FTS5 BM25) + exact identifiers / "Figure N" references
+ table chunks by their best row (table_rows.py) (+ CLIP image list when available) -> weighted
RRF with intent weights -> highlight boxes -> one hit per (doc, page) -> cross-encoder rerank of
the top RERANK_TOP (only when the user installed a reranker; search/rerank.py) -> MMR -> group
enrichment -> hits.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..hits import Hit
from .fusion import mmr, weighted_rrf
from .highlight import Highlight, choose_highlight
from .query import QueryPlan, plan_query, quote_term
from .rerank import RERANK_TOP, passage_of

if TYPE_CHECKING:
    from ..library import Library

KIND_BOOST = {
    "visual": {"figure": 1.35, "caption": 1.2},
    "table": {"table": 1.3},
    "text": {},
}
# "rows": table chunks by their best row (table_rows.py); 0.45 chosen on the development set by
# MRR@10 among 0.2-1.0 (0.3-0.6 all lift R@5 from 0.89 to 0.92)
LIST_WEIGHTS = {"dense": 1.0, "keyword": 0.9, "exact": 1.2, "image": 0.6, "rows": 0.45}
MMR_LAMBDA = 0.7
NAV_PENALTY = 0.6
PAGE_HIGHLIGHT_RATIO = 0.7
SEGMENT_WEIGHT = 0.5  # weight of the best sentence's match in the final score
COMMON_DF = 0.05  # a keyword in more than this share of chunks is left out of a large library's query
PRUNE_MIN_CHUNKS = 50_000


@dataclass
class Filters:
    """Optional restrictions: document ids, an inclusive 1-based page range, chunk kinds."""

    doc_ids: list[int] | None = None
    pages: tuple[int, int] | None = None
    kinds: list[str] | None = None

    @property
    def active(self) -> bool:
        return bool(self.doc_ids is not None or self.pages or self.kinds)

    def sql(self, alias: str = "c") -> tuple[str, list]:
        clauses, args = [], []
        if self.doc_ids is not None:
            clauses.append(f"{alias}.doc_id IN ({','.join('?' * len(self.doc_ids))})")
            args.extend(self.doc_ids)
        if self.pages:
            clauses.append(f"{alias}.page_end >= ? AND {alias}.page <= ?")
            args.extend(self.pages)
        if self.kinds:
            clauses.append(f"{alias}.kind IN ({','.join('?' * len(self.kinds))})")
            args.extend(self.kinds)
        return (" AND ".join(clauses) or "1"), args


def keyword_ids(conn: sqlite3.Connection, fts: str, limit: int, filters: Filters) -> list[int]:
    """Chunk ids matching an FTS5 expression, best BM25 first (text weighted over section)."""
    if not fts:
        return []
    where, args = filters.sql("c")
    sql = (
        "SELECT f.rowid FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
        f"WHERE chunks_fts MATCH ? AND {where} ORDER BY bm25(chunks_fts, 1.0, 0.4) LIMIT ?"
    ) if filters.active else (
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, 1.0, 0.4) LIMIT ?"
    )
    params = [fts, *args, limit] if filters.active else [fts, limit]
    return [r[0] for r in conn.execute(sql, params)]


def _keyword_query(plan: QueryPlan, idf: dict[str, float], n_chunks: int) -> str:
    """The FTS5 expression for the keyword list.

    In a large library a term found in more than COMMON_DF of all chunks adds almost nothing to
    BM25 but makes FTS5 score most of the table; such terms are left out (all of them common: they
    must all appear, AND). Small libraries use every term.
    """
    if n_chunks < PRUNE_MIN_CHUNKS or not plan.terms:
        return plan.fts
    limit = math.log((n_chunks + 1) / (COMMON_DF * n_chunks + 0.5))
    terms = list(dict.fromkeys(plan.terms))
    rare = [t for t in terms if idf.get(t, limit + 1) > limit]
    if len(rare) == len(terms):
        return plan.fts
    if rare:
        return " OR ".join(quote_term(t) for t in rare)
    return " AND ".join(quote_term(t) for t in terms)


def search(library: Library, query: str, k: int = 10, filters: Filters | None = None) -> list[Hit]:
    """Ranked hits for `query` (see module doc). Raises QueryError for unusable queries."""
    plan = plan_query(query)
    filters = filters or Filters()
    k = max(1, min(int(k), 200))
    conn = library.conn
    n_cand = max(40, k * 4)
    qvec = library.embedder.encode([plan.text])[0]
    allowed = library._allowed_ids(filters) if filters.active else None
    lists: dict[str, list[int]] = {}
    dense = library.text_index().query(qvec, n_cand, filter_ids=allowed)
    lists["dense"] = [cid for cid, _ in dense]
    similarity = dict(dense)
    idf = library.term_idf(plan.terms)
    with library.lock:
        lists["keyword"] = keyword_ids(conn, _keyword_query(plan, idf, library._chunk_count()), n_cand, filters)
        exact = keyword_ids(conn, plan.exact_fts, 20, filters) if plan.exact_fts else []
        if plan.ref_keys:
            where, args = filters.sql("c")
            rows = conn.execute(
                f"SELECT c.id FROM chunks c WHERE c.group_key IN ({','.join('?' * len(plan.ref_keys))}) AND {where}"
                " ORDER BY c.kind = 'text', c.id LIMIT 20",
                [*plan.ref_keys, *args],
            ).fetchall()
            exact = [r[0] for r in rows] + [c for c in exact if c not in {r[0] for r in rows}]
    if exact:
        lists["exact"] = exact
    if not filters.kinds or "table" in filters.kinds:
        table_rows = library.table_rows.ranked(library, qvec, n_cand, allowed)
        if table_rows:
            lists["rows"] = table_rows
    image = library.image_list(plan.text, n_cand, filters) if not filters.kinds or "figure" in filters.kinds else []
    if image:
        lists["image"] = image
    weights = dict(LIST_WEIGHTS)
    if plan.intent == "visual":
        weights["image"] = 1.0
    fused = weighted_rrf(lists, weights)
    if not fused:
        return []
    ranks = {name: {cid: r for r, cid in enumerate(ids, start=1)} for name, ids in lists.items()}
    pool = sorted(fused, key=fused.get, reverse=True)[: max(k * 3, 30)]
    rows = library._chunk_rows(pool)
    boost = KIND_BOOST.get(plan.intent, {})
    scored = {
        cid: fused[cid] * boost.get(rows[cid]["kind"], 1.0) * (NAV_PENALTY if '"nav": true' in rows[cid]["meta"] else 1.0)
        for cid in pool if cid in rows
    }
    order = sorted(scored, key=scored.get, reverse=True)
    segs = library._match_vectors(order)
    candidate_hl = {cid: _row_highlight(rows[cid], segs.get(cid), qvec, plan, filters, idf) for cid in order}
    # rerank: fused rank evidence plus how well the best sentence of the chunk matches (max-sim)
    top = max(scored.values())
    for cid in order:
        best = candidate_hl[cid].score
        scored[cid] = scored[cid] / top + SEGMENT_WEIGHT * (best if np.isfinite(best) else 0.0)
    order.sort(key=scored.get, reverse=True)
    highlights: dict[int, Highlight] = {}
    kept: list[int] = []
    for cid in order:
        row = rows[cid]
        hl = candidate_hl[cid]
        same = next((o for o in kept if _same_region(row, hl, rows[o], highlights[o])), None)
        if same is not None:
            # the page is already a hit: keep its rank, but show the passage of the page whose
            # sentence matches best (the hit becomes that chunk, so its text, passage shading and
            # highlight agree)
            if (row["kind"] == rows[same]["kind"] and hl.score > highlights[same].score
                    and scored[cid] >= PAGE_HIGHLIGHT_RATIO * scored[same]):
                kept[kept.index(same)] = cid
                highlights[cid] = hl
                scored[cid] = scored[same]
                del highlights[same]
            continue
        highlights[cid] = hl
        kept.append(cid)
    if plan.intent in ("visual", "table"):
        _prefer_page_regions(library, plan, qvec, idf, kept, rows, highlights, scored, filters)
    reranked = _cross_encoder_rerank(library, plan.text, kept, rows, scored)
    vecs = library._chunk_vectors(kept)
    # chunks without a vector of the active model (a re-embed in progress) are ranked by fusion only
    missing = [c for c in kept if c not in vecs]
    kept_mmr = [c for c in kept if c in vecs]
    chosen = mmr(kept_mmr, np.array([scored[c] for c in kept_mmr]),
                 np.stack([vecs[c] for c in kept_mmr]) if kept_mmr else np.zeros((0, 1)), k, MMR_LAMBDA)
    chosen += missing[: max(0, k - len(chosen))]
    # ties in score keep the cross-encoder's order
    chosen.sort(key=lambda c: (scored[c], -reranked[c][0] if c in reranked else -RERANK_TOP - 1), reverse=True)
    if reranked:
        _cross_encoder_sentences(library, plan.text, chosen, rows, highlights)
    hits = [
        _hit(library, rows[c], highlights[c], scored[c], {n: r[c] for n, r in ranks.items() if c in r},
             similarity.get(c), library.doc_kind(rows[c]["doc_id"]), rerank=reranked.get(c))
        for c in chosen
    ]
    hits.extend(_enrich(library, hits, plan, qvec, idf, filters))
    return hits


def _row_highlight(row: dict, seg_vecs, qvec: np.ndarray, plan: QueryPlan, filters: Filters,
                   idf: dict[str, float]) -> Highlight:
    """The highlight of one stored chunk row for this query (see highlight.choose_highlight)."""
    meta = json.loads(row["meta"] or "{}")
    return choose_highlight(row["kind"], json.loads(row["lines"]), meta.get("region"), seg_vecs, qvec,
                            plan.terms, row["page"], filters.pages, idf)


def _prefer_page_regions(library: Library, plan: QueryPlan, qvec: np.ndarray, idf: dict[str, float],
                         kept: list[int], rows: dict, highlights: dict, scored: dict, filters: Filters) -> None:
    """For a visual (table) question, a text hit on a page that holds a figure (table) becomes that
    figure (table): the page was found by its words, the region is what the user asked to see."""
    want = {"visual": ("figure",), "table": ("table",)}[plan.intent]
    if filters.kinds and not set(want) & set(filters.kinds):
        return
    for i, cid in enumerate(kept):
        row = rows[cid]
        if row["kind"] in want:
            continue
        page = highlights[cid].page
        with library.lock:
            cands = library.conn.execute(
                f"SELECT id FROM chunks WHERE doc_id = ? AND kind IN ({','.join('?' * len(want))}) "
                "AND page <= ? AND page_end >= ?", (row["doc_id"], *want, page, page)).fetchall()
        cands = [c[0] for c in cands if c[0] not in kept]
        if not cands:
            continue
        new_rows = library._chunk_rows(cands)
        segs = library._match_vectors(cands)
        best = None
        for c in cands:
            hl = _row_highlight(new_rows[c], segs.get(c), qvec, plan, filters, idf)
            if hl.page == page and (best is None or hl.score > best[1].score):
                best = (c, hl)
        if best is None:
            continue
        c, hl = best
        rows[c] = new_rows[c]
        highlights[c] = hl
        scored[c] = scored[cid]
        kept[i] = c


def _cross_encoder_rerank(library: Library, query: str, kept: list[int], rows: dict,
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
    scores = library.rerank_scores(query, [passage_of(rows[c]["text"], rows[c]["section"] or "") for c in top])
    if scores is None:
        return {}
    by_model = sorted(range(len(top)), key=lambda i: (-float(scores[i]), i))  # ties keep the fused order
    slots = sorted((scored[c] for c in top), reverse=True)
    for slot, i in zip(slots, by_model, strict=True):
        scored[top[i]] = slot
    kept[: len(top)] = [top[i] for i in by_model]
    return {top[i]: (rank, float(scores[i])) for rank, i in enumerate(by_model, start=1)}


def _cross_encoder_sentences(library: Library, query: str, chosen: list[int], rows: dict,
                             highlights: dict) -> None:
    """With a cross-encoder in use, a text or table hit's highlight is the sentence (row) of its
    page that the cross-encoder scores best against the query — sentence-level reranking; the
    MiniLM segment vectors only approximate it. One batched call for all hits' sentences
    (captions a table repeats are left out). Changes `highlights` in place."""
    from .highlight import caption_segments, segment_highlight, segment_texts

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
    scores = library.rerank_scores(query, [t for _, _, t in items])
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


def _same_region(row_a, hl_a: Highlight, row_b, hl_b: Highlight) -> bool:
    """One hit per page: a lower-ranked chunk whose highlight is on a page already shown adds
    nothing a user would not see there (and would push other pages out of the top k)."""
    if row_a["doc_id"] != row_b["doc_id"] or hl_a.page != hl_b.page:
        return False
    if hl_a.bbox is None or hl_b.bbox is None:
        return row_a["id"] == row_b["id"] or row_a["page"] == row_b["page"]
    return True


def _hit(library: Library, row, hl: Highlight, score: float, sources: dict, sim, doc_kind: str,
         enriched: bool = False, rerank: tuple[int, float] | None = None) -> Hit:
    doc = library._doc_names()[row["doc_id"]]
    geometry = doc_kind not in ("markdown",)
    if rerank is not None:
        sources = {**sources, "rerank": rerank[0]}
    return Hit(
        chunk_id=row["id"], doc_id=row["doc_id"], doc=doc[0], doc_path=doc[1], page=hl.page,
        bbox=hl.bbox if geometry else None, kind=row["kind"], score=score, text=row["text"],
        section=row["section"], boxes=hl.boxes if geometry else [], enriched=enriched, sources=sources,
        similarity=sim, rerank_score=rerank[1] if rerank is not None else None,
    )


def _enrich(library: Library, hits: list[Hit], plan: QueryPlan, qvec: np.ndarray, idf: dict[str, float],
            filters: Filters) -> list[Hit]:
    """Join the figure/table a top text hit refers to, or the paragraph referring to a top figure/table."""
    have = {h.chunk_id for h in hits}
    extra: list[Hit] = []
    for h in hits[:3]:
        if h.kind in ("figure", "table", "caption"):
            sql = "SELECT src FROM links WHERE dst = ? AND relation = 'refers_to' ORDER BY src LIMIT 1"
        else:
            sql = "SELECT dst FROM links WHERE src = ? AND relation = 'refers_to' ORDER BY dst LIMIT 1"
        with library.lock:
            linked = [r[0] for r in library.conn.execute(sql, (h.chunk_id,))]
        for cid in linked:
            if cid in have:
                continue
            rows = library._chunk_rows([cid])
            if cid not in rows:
                continue
            row = rows[cid]
            if filters.kinds and row["kind"] not in filters.kinds:
                continue
            hl = _row_highlight(row, library._match_vectors([cid]).get(cid), qvec, plan, filters, idf)
            extra.append(_hit(library, row, hl, h.score, {}, None, library.doc_kind(row["doc_id"]), enriched=True))
            have.add(cid)
    return extra
