"""Retrieval metrics for the development set: page-level R@1, R@5, MRR@10 and box overlap.

A hit is correct when its doc and page match one gold entry. Box overlap counts the top-5 hits
that land on a gold page and whose bbox intersects that page's gold box (``box@5`` = their share
among the top-5 hits on a gold page); ``qbox@5`` is the share of questions with at least one such
hit; ``iou`` is the mean IoU of those gold-page hits with the gold box.
"""

from __future__ import annotations

import statistics

KINDS = ("text", "table", "figure")


def _intersects(a, b) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def iou(a, b) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1); 0.0 when they do not overlap."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _gold_boxes(gold: list[dict], hit: dict) -> list:
    return [g["bbox"] for g in gold if g["doc"] == hit.get("doc") and g["page"] == hit.get("page")]


def score_question(question: dict, hits: list[dict]) -> dict:
    """Return the per-question measures of ranked ``hits`` against ``question['gold']``."""
    gold = question["gold"]
    rank = None
    for i, h in enumerate(hits[:10]):
        if _gold_boxes(gold, h):
            rank = i + 1
            break
    on_page = over = 0
    ious = []
    for h in hits[:5]:
        boxes = _gold_boxes(gold, h)
        if not boxes:
            continue
        on_page += 1
        if h.get("bbox"):
            if any(_intersects(h["bbox"], b) for b in boxes):
                over += 1
            ious.append(max(iou(h["bbox"], b) for b in boxes))
        else:
            ious.append(0.0)
    return {
        "id": question["id"],
        "kind": question["kind"],
        "rank": rank,
        "top_score": hits[0]["score"] if hits else None,
        "gold_page_hits@5": on_page,
        "box_overlap_hits@5": over,
        "ious": ious,
    }


def aggregate(rows: list[dict], has_boxes: bool = True) -> dict:
    """Return R@1, R@5, MRR@10, box@5, qbox@5, mean IoU and n over ``rows`` (answerable questions)."""
    n = len(rows)
    if n == 0:
        return {"n": 0}
    r1 = sum(1 for r in rows if r["rank"] == 1) / n
    r5 = sum(1 for r in rows if r["rank"] and r["rank"] <= 5) / n
    mrr = sum(1.0 / r["rank"] for r in rows if r["rank"]) / n
    out = {"n": n, "R@1": r1, "R@5": r5, "MRR@10": mrr}
    if has_boxes:
        on_page = sum(r["gold_page_hits@5"] for r in rows)
        over = sum(r["box_overlap_hits@5"] for r in rows)
        ious = [v for r in rows for v in r["ious"]]
        out["box@5"] = over / on_page if on_page else 0.0
        out["qbox@5"] = sum(1 for r in rows if r["box_overlap_hits@5"] > 0) / n
        out["IoU"] = statistics.fmean(ious) if ious else 0.0
    return out


def score_run(questions: list[dict], results: dict[str, list[dict]], has_boxes: bool = True) -> dict:
    """Score one system: per kind, overall, and the top-score spread of unanswerable questions.

    ``results`` maps question id to its ranked hits. Returns a JSON-ready dict.
    """
    rows = [score_question(q, results.get(q["id"], [])) for q in questions]
    answerable = [r for r in rows if r["kind"] != "none"]
    out = {"overall": aggregate(answerable, has_boxes)}
    for kind in KINDS:
        out[kind] = aggregate([r for r in rows if r["kind"] == kind], has_boxes)
    out["none_top_scores"] = _spread([r["top_score"] for r in rows if r["kind"] == "none"])
    out["answerable_top_scores"] = _spread([r["top_score"] for r in answerable])
    out["answerable_top_scores_when_correct"] = _spread([r["top_score"] for r in answerable if r["rank"] == 1])
    out["questions"] = rows
    return out


def _spread(values: list) -> dict:
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return {"n": 0}
    return {"n": len(vals), "min": vals[0], "median": statistics.median(vals), "max": vals[-1],
            "values": [round(v, 4) for v in vals]}
