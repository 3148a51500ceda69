"""Fit the second-stage weights (engine/search/second_stage.py) on the development set only.

    .venv/bin/python bench/fit_second_stage.py [--C 1.0] [--out bench/results/second_stage.json]

Runs every answerable development question through the library's search with the hand-set rule
and records the features of each second-stage candidate (the fused top 30 or more) and whether it
lies on a gold page. Fits a logistic regression (scikit-learn, L2, features standardised, then
folded back into plain weights on the raw features) and prints the weights as JSON for
`second_stage.WEIGHTS`. Then score the result on every set with
``bench/sweep.py --set 'search.second_stage.WEIGHTS=<json>'``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))


def collect(lib, questions: list[dict]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from mmrag_desktop.engine.search import second_stage

    seen: list[dict] = []
    real_features = second_stage.features

    def recording(**kw):
        f = real_features(**kw)
        seen.append({"row": kw["row"], "f": f})
        return f

    second_stage.features = recording
    X, y, groups = [], [], []
    names = {d.id: d.name for d in lib.documents()}
    try:
        for q in questions:
            seen.clear()
            lib.search(q["query"], k=10)
            gold = {(g["doc"], g["page"]) for g in q["gold"]}
            for item in seen:
                row = item["row"]
                pages = set(range(row["page"], (row.get("page_end") or row["page"]) + 1))
                X.append([item["f"][n] for n in second_stage.FEATURES])
                y.append(int(any((names[row["doc_id"]], p) in gold for p in pages)))
                groups.append(q["id"])
    finally:
        second_stage.features = real_features
    return np.asarray(X, dtype=np.float64), np.asarray(y), groups


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", type=Path, default=BENCH / "data" / "lib-answer")
    ap.add_argument("--questions", type=Path, default=BENCH / "questions.jsonl")
    ap.add_argument("--C", type=float, default=1.0, help="inverse L2 strength")
    ap.add_argument("--drop", nargs="*", default=[], help="features left out (weight 0)")
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "second_stage.json")
    args = ap.parse_args(argv)

    from sklearn.linear_model import LogisticRegression

    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.search import second_stage

    questions = [json.loads(x) for x in args.questions.read_text().splitlines() if x.strip()]
    questions = [q for q in questions if q["kind"] != "none"]
    with Library.open(args.library, access="read") as lib:
        X, y, _ = collect(lib, questions)
    keep = np.array([n not in args.drop for n in second_stage.FEATURES])
    X = X * keep  # a dropped feature is a constant 0: weight 0
    mean, std = X.mean(axis=0), X.std(axis=0)
    std[std == 0] = 1.0
    model = LogisticRegression(C=args.C, class_weight="balanced", max_iter=2000)
    model.fit((X - mean) / std, y)
    coef = model.coef_[0] / std
    bias = float(model.intercept_[0] - np.sum(model.coef_[0] * mean / std))
    weights = {n: round(float(c), 4) for n, c in zip(second_stage.FEATURES, coef, strict=True)}
    weights["bias"] = round(bias, 4)
    print(f"{len(questions)} questions, {len(y)} candidates, {int(y.sum())} on a gold page")
    print(json.dumps(weights))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"C": args.C, "weights": weights, "candidates": len(y)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
