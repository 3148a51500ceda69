"""A learned second stage over search's candidates (issue 13; session 63, measured and not kept).

At the point where search has chosen one hit per page and before MMR, every kept candidate gets 20
features the engine already has (its score, the fused score, the best sentence's match, the dense
similarity, its rank in each fusion list, its kind, the contents/index flag, the share of the
query's words (idf-weighted) in its text and in its section path, how many candidates its page has
and the best of them, the share of the first ten hits from its document, its length). A pairwise
logistic regression (gold page against every other candidate of the same question) is fitted on
development questions; the candidate's score then gains w x the model's logit.

Development questions: the dev set and, optionally, asked lists whose gold pages are known
(`--asked-gold FILE`: {"<list>": {"lib": "<library folder>", "doc": "<pdf name>", "pages": [...]}},
the keys are kept outside the repository). Held-out, held-out 2 and unseen are never fitted on.

    python bench/second_stage.py dump OUT.pkl [--asked-gold FILE]          # features + the engine's ranks
    python bench/second_stage.py cv OUT.pkl --train dev,<list>,... [--seed 0]  # 7-fold CV on the train questions
    python bench/second_stage.py apply OUT.pkl MODEL.json --train ... --C 1 --w 0.1 0.2 [--asked-gold FILE]

`apply` fits on all train questions, writes MODEL.json and runs the real search with the model on
every set (engine's own path; MMR, highlights and all). Needs the `SECOND_STAGE` hook that commit 9b6b8a7
put in engine/search/searcher.py (removed in the commit after it: not kept); run it at that commit.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pickle
import re
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from metrics import score_run  # noqa: E402
from sweep import SETS, library_folders, questions_of  # noqa: E402

# the libraries this was measured on (session 63's, as bench/README.md's figures); --lib SET=DIR for others
MEASURED_ON = [f"{name}={BENCH / 'data' / (SETS[name][1] + '-n')}" for name in SETS]
LISTS = ["dense", "keyword", "exact", "rows"]
WORD = re.compile(r"\w+")
FOLDS = 7


def _has(term: str, words: set[str]) -> bool:
    """The term or a word starting with its stem (all but its last two letters, at least four)."""
    if term in words:
        return True
    stem = term[: max(4, len(term) - 2)]
    return len(term) >= 4 and any(w.startswith(stem) for w in words)


def features(searcher, plan, kept, rows, scored, highlights, fused, ranks, similarity, order, candidate_hl, idf):
    """[(chunk id, document name, page, {feature: value})] for the kept candidates, best first."""
    from mmrag_desktop.engine.search.searcher import _navigation

    names = searcher.documents.names()
    top_s = max(scored[c] for c in kept) or 1.0
    top_f = max(fused.values()) or 1.0
    terms = sorted({t for t in plan.terms if len(t) > 1})
    w_idf = {t: idf.get(t, 1.0) for t in terms}
    total_idf = sum(w_idf.values()) or 1.0
    page_scores: dict[tuple, list[float]] = {}
    for c in order:
        page_scores.setdefault((rows[c]["doc_id"], candidate_hl[c].page), []).append(scored[c])
    first_docs = [rows[c]["doc_id"] for c in kept[:10]]
    out = []
    for pos, c in enumerate(kept):
        row, hl = rows[c], highlights[c]
        text_words = {w.lower() for w in WORD.findall(row["text"])}
        section_words = {w.lower() for w in WORD.findall(row["section"] or "")}
        covered = [t for t in terms if _has(t, text_words)]
        in_section = [t for t in terms if _has(t, section_words)]
        on_page = page_scores.get((row["doc_id"], hl.page), [])
        other_best = max((s for s in on_page if s != scored[c]), default=0.0)
        f = {
            "score": scored[c] / top_s,
            "inv_pos": 1.0 / (1 + pos),
            "fused": fused.get(c, 0.0) / top_f,
            "seg": hl.score if np.isfinite(hl.score) else 0.0,
            "dense_sim": float(similarity.get(c) or 0.0),
            "text": float(row["kind"] == "text"),
            "table": float(row["kind"] == "table"),
            "figure": float(row["kind"] not in ("text", "table")),
            "nav": float(_navigation(row)),
            "cov": len(covered) / max(1, len(terms)),
            "cov_idf": sum(w_idf[t] for t in covered) / total_idf,
            "sec_cov_idf": sum(w_idf[t] for t in in_section) / total_idf,
            "page_n": math.log1p(len(on_page)),
            "page_other": other_best / top_s,
            "doc_share": first_docs.count(row["doc_id"]) / max(1, len(first_docs)),
            "log_words": math.log1p(len(row["text"].split())),
        }
        for n in LISTS:
            r = ranks.get(n, {}).get(c)
            f["inv_" + n] = 1.0 / r if r else 0.0
        out.append((c, names[row["doc_id"]][0], hl.page, f))
    return out


def questions(name: str, asked: dict, folders: dict[str, Path]) -> tuple[Path, list[dict], bool]:
    """(library folder, questions, has gold boxes) of a set (its folder from `folders`) or an asked list."""
    if name in SETS:
        return folders[name], questions_of(name), True
    a = asked[name]
    lines = [x.strip() for x in (BENCH / "asked" / f"{name}.txt").read_text().splitlines() if x.strip()]
    qs = [{"id": f"{name}:{i}", "kind": "text", "query": q, "gold": [{"doc": a["doc"], "page": p, "bbox": [0, 0, 0, 0]}]}
          for i, (q, p) in enumerate(zip(lines, a["pages"], strict=False), start=1)]  # the last lines: no page
    return Path(a["lib"]), qs, False


def run(hook, names: list[str], asked: dict, folders: dict[str, Path], tag: str) -> dict:
    """Search every question of `names` with `hook` in place; per set: aggregate, features, top 10."""
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.search import searcher

    seen: list[list] = []
    searcher.SECOND_STAGE = lambda s, **kw: seen.append(hook(s, **kw))
    libs: dict[Path, Library] = {}
    res = {}
    for name in names:
        folder, qs, boxes = questions(name, asked, folders)
        lib = libs.get(folder) or Library.open(folder, access="read")
        libs[folder] = lib
        hits, data = {}, {}
        for q in qs:
            seen.clear()
            hits[q["id"]] = [h.to_json() for h in lib.search(q["query"], k=10)]
            gold = {(g["doc"], g["page"]) for g in q["gold"]}
            data[q["id"]] = [(c, d, p, f, (d, p) in gold) for c, d, p, f in (seen[0] if seen else [])]
        agg = score_run(qs, hits, has_boxes=boxes)["overall"]
        res[name] = {"agg": agg, "data": data, "top": {k: [(h["doc"], h["page"]) for h in v] for k, v in hits.items()}}
        box = f" box@5 {agg['box@5']:.3f} qbox@5 {agg['qbox@5']:.3f}" if boxes else ""
        print(f"{tag} {name}: R@1 {agg['R@1']:.3f} R@5 {agg['R@5']:.3f} MRR {agg['MRR@10']:.3f}{box}", flush=True)
    return res


def _matrices(dumped: dict, names: list[str]) -> tuple[dict, list[str]]:
    """(question id -> (features, gold labels, the engine's score) of its candidates, the features' names)."""
    keys = list(next(items for s in dumped.values() for items in s["data"].values() if items)[0][3])
    out = {}
    for s in names:
        for qid, items in dumped[s]["data"].items():
            if items:
                out[qid] = (np.array([[f[k] for k in keys] for *_, f, _ in items]),
                            np.array([gold for *_, gold in items]), np.array([f["score"] for *_, f, _ in items]))
    return out, keys


def fit(mats: dict, qids, C: float) -> dict:
    """Pairwise logistic regression (the gold candidate against each other one, both ways)."""
    from sklearn.linear_model import LogisticRegression

    X = [mats[q][0] for q in qids if mats[q][1].any()]
    Y = [mats[q][1] for q in qids if mats[q][1].any()]
    stacked = np.vstack(X)
    mean, std = stacked.mean(0), stacked.std(0) + 1e-9
    pairs, labels = [], []
    for A, gold in zip(X, Y, strict=True):
        Z = (A - mean) / std
        for i, j in itertools.product(np.where(gold)[0], np.where(~gold)[0]):
            pairs += [Z[i] - Z[j], Z[j] - Z[i]]
            labels += [1, 0]
    clf = LogisticRegression(C=C, fit_intercept=False, max_iter=5000).fit(np.array(pairs), labels)
    return {"mean": mean, "std": std, "coef": clf.coef_[0]}


def _offline(model: dict, A, gold, score, w: float) -> np.ndarray:
    """(first place, top 5, reciprocal rank) of the candidates re-sorted without MMR."""
    z = ((A - model["mean"]) / model["std"]) @ model["coef"]
    order = np.argsort(-(score + w * z), kind="stable")
    g = gold[order]
    rr = next((1 / (i + 1) for i in range(min(10, len(g))) if g[i]), 0.0)
    return np.array([g[0], g[:5].any(), rr], dtype=float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["dump", "cv", "apply"])
    ap.add_argument("dump")
    ap.add_argument("model", nargs="?")
    ap.add_argument("--asked-gold")
    ap.add_argument("--train", default="dev")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--w", type=float, nargs="+", default=[0.1])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", help="comma-separated sets and lists to search (default: all)")
    ap.add_argument("--lib", action="append", default=[], metavar="SET=DIR", help="a set's library (default: *-n)")
    a = ap.parse_args()
    asked = json.loads(Path(a.asked_gold).read_text()) if a.asked_gold else {}
    names = a.only.split(",") if a.only else list(SETS) + list(asked)
    folders = library_folders(MEASURED_ON + a.lib)
    if a.mode == "dump":
        with open(a.dump, "wb") as fh:
            pickle.dump(run(lambda s, **kw: features(s, **kw), names, asked, folders, "engine"), fh)
        return
    with open(a.dump, "rb") as fh:
        dumped = pickle.load(fh)
    train = a.train.split(",")
    mats, keys = _matrices(dumped, train)
    qids = sorted(mats)
    if a.mode == "cv":
        perm = np.random.RandomState(a.seed).permutation(len(qids))
        folds = [{qids[i] for i in perm[k::FOLDS]} for k in range(FOLDS)]
        engine = {"mean": 0.0, "std": 1.0, "coef": np.zeros(len(keys))}  # w = 0: the engine's own order
        print(f"{len(qids)} train questions; engine: {sum(_offline(engine, *mats[q], 0.0) for q in qids)}")
        for C in (0.2, 0.5, 1.0, 2.0):
            total = {w: np.zeros(3) for w in a.w}
            for fold in folds:
                model = fit(mats, [q for q in qids if q not in fold], C)
                for q, w in itertools.product(fold, a.w):
                    total[w] += _offline(model, *mats[q], w)
            for w in a.w:
                print(f"C={C} w={w}: first {total[w][0]:.0f} top-5 {total[w][1]:.0f} sum of 1/rank {total[w][2]:.1f}")
        return
    model = fit(mats, qids, a.C)
    Path(a.model).write_text(json.dumps({"features": keys, **{k: v.tolist() for k, v in model.items()}}))
    print(" ".join(f"{k}={c:+.2f}" for k, c in sorted(zip(keys, model["coef"], strict=True), key=lambda t: -abs(t[1]))))
    for w in a.w:
        def hook(s, w=w, **kw):
            feats = features(s, **kw)
            for c, _, _, f in feats:
                x = (np.array([f[k] for k in keys]) - model["mean"]) / model["std"]
                kw["scored"][c] += w * float(x @ model["coef"])
            return feats
        run(hook, names, asked, folders, f"w={w}")


if __name__ == "__main__":
    main()
