"""Second-stage ranking of the fused candidates (issue 13): features each candidate already has,
combined into one score.

With `WEIGHTS` None the score is the hand-set rule of sessions 2-5: the fused score (scaled to
the best candidate) plus SEGMENT_WEIGHT x the best sentence's match. With weights, it is their
weighted sum of the features below (a linear model fitted on the development set only,
bench/fit_second_stage.py).
"""

from __future__ import annotations

import math
import re

FEATURES = ("fused", "sentence", "dense", "keyword", "exact", "rows", "section", "named",
            "table", "figure", "caption", "nav")
SEGMENT_WEIGHT = 0.5  # weight of the best sentence's match in the hand-set rule
SECTION_WEIGHT = 0.0  # weight of the section-title match in the hand-set rule
WEIGHTS: dict[str, float] | None = None

_WORD = re.compile(r"[^\W_]+")


def section_match(terms: list[str], section: str) -> float:
    """Share of the query's terms that are words of the chunk's section path."""
    if not terms or not section:
        return 0.0
    words = {w.lower() for w in _WORD.findall(section)}
    return sum(1 for t in terms if t.lower() in words) / len(terms)


def features(*, fused: float, sentence: float, dense: float | None, ranks: dict[str, int], row: dict,
             terms: list[str], named: bool) -> dict[str, float]:
    """The candidate's features: `fused` already scaled to the best candidate, `sentence` its best
    sentence's match, `dense` its cosine similarity (None when the dense list missed it), `ranks`
    its 1-based rank in each list that has it."""
    kind = row["kind"]
    return {
        "fused": fused,
        "sentence": sentence if math.isfinite(sentence) else 0.0,
        "dense": dense or 0.0,
        "keyword": 1.0 / ranks["keyword"] if "keyword" in ranks else 0.0,
        "exact": 1.0 if "exact" in ranks else 0.0,
        "rows": 1.0 / ranks["rows"] if "rows" in ranks else 0.0,
        "section": section_match(terms, row.get("section") or ""),
        "named": 1.0 if named else 0.0,
        "table": 1.0 if kind == "table" else 0.0,
        "figure": 1.0 if kind == "figure" else 0.0,
        "caption": 1.0 if kind == "caption" else 0.0,
        "nav": 1.0 if '"nav": true' in (row.get("meta") or "") else 0.0,
    }


def combine(f: dict[str, float]) -> float:
    """One candidate's score from its features."""
    if WEIGHTS is None:
        return f["fused"] + SEGMENT_WEIGHT * f["sentence"] + SECTION_WEIGHT * f["section"]
    return sum(WEIGHTS.get(name, 0.0) * f[name] for name in FEATURES) + WEIGHTS.get("bias", 0.0)
