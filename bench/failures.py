"""Failure analysis of a search run (issue 13): every answerable question whose gold page is not
first, and every one whose gold page is found but with no top-5 highlight on the gold box.

    .venv/bin/python bench/eval_search.py --library bench/data/lib-answer --reuse --skip-baselines \\
        --questions bench/heldout.jsonl --out bench/results/search_heldout.json
    .venv/bin/python bench/failures.py --questions bench/heldout.jsonl --library bench/data/lib-answer

Reads the engine's hits (bench/results/engine_hits.jsonl, written by eval_search.py) and the library
(to know what the first hit was: a contents/index chunk, its section). Classes, by position:

- wrong doc: the first hit is in another manual;
- adjacent page: right manual, first hit within 2 pages of the gold page;
- far page: right manual, further away;
- wrong box: the gold page is first but no top-5 hit on it intersects the gold box.

Cause hints, measured (the cause itself is named by reading each miss; see bench/README.md):
``nav`` (the first hit is a contents/index chunk), ``vocab`` (the share of the query's content
words found on the gold page, next to that on the first hit's page), ``gold rank``.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from metrics import score_question  # noqa: E402

STOP = set("a an and are as at be by can do does for from how i if in is it its me my of on or "
           "the to what when where which who why with without you your get set use using".split())


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9_]+", text.lower()) if w not in STOP and len(w) > 1}


def page_words(manuals: list[Path], doc: str, page: int, cache: dict) -> set[str]:
    key = (doc, page)
    if key not in cache:
        import pymupdf

        path = next((m / doc for m in manuals if (m / doc).exists()), None)
        if path is None:
            cache[key] = set()
        else:
            with pymupdf.open(path) as d:
                cache[key] = words(d[page - 1].get_text()) if 0 < page <= d.page_count else set()
    return cache[key]


def classify(q: dict, hits: list[dict], row: dict) -> str | None:
    gold = {(g["doc"], g["page"]) for g in q["gold"]}
    if not hits:
        return "no hits"
    top = hits[0]
    if (top["doc"], top["page"]) in gold:
        return "wrong box" if row["gold_page_hits@5"] and not row["box_overlap_hits@5"] else None
    docs = {g["doc"] for g in q["gold"]}
    if top["doc"] not in docs:
        return "wrong doc"
    near = min(abs(top["page"] - g["page"]) for g in q["gold"] if g["doc"] == top["doc"])
    return "adjacent page" if near <= 2 else "far page"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=Path, required=True)
    ap.add_argument("--hits", type=Path, default=BENCH / "results" / "engine_hits.jsonl")
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--manuals", type=Path, nargs="*",
                    default=[BENCH / "data" / "manuals", BENCH / "data" / "unseen", BENCH / "data" / "heldout2"])
    ap.add_argument("--out", type=Path, default=None, help="JSON lines, one per failure")
    args = ap.parse_args(argv)

    questions = [json.loads(x) for x in args.questions.read_text().splitlines() if x.strip()]
    hits = {}
    for line in args.hits.read_text().splitlines():
        if line.strip():
            item = json.loads(line)
            hits[str(item["id"])] = item.get("hits", [])
    db = sqlite3.connect(f"file:{args.library / 'library.sqlite'}?mode=ro", uri=True)
    cache: dict = {}
    failures = []
    for q in questions:
        if q["kind"] == "none":
            continue
        hs = hits.get(q["id"], [])
        row = score_question(q, hs)
        cls = classify(q, hs, row)
        if cls is None:
            continue
        top = hs[0] if hs else {}
        meta = {}
        if top.get("chunk_id"):
            got = db.execute("SELECT meta FROM chunks WHERE id = ?", (top["chunk_id"],)).fetchone()
            meta = json.loads(got[0]) if got else {}
        qw = words(q["query"])
        g = q["gold"][0]
        gold_cov = len(qw & page_words(args.manuals, g["doc"], g["page"], cache)) / max(1, len(qw))
        top_cov = (len(qw & page_words(args.manuals, top["doc"], top["page"], cache)) / max(1, len(qw))
                   if top else 0.0)
        failures.append({
            "id": q["id"], "kind": q["kind"], "class": cls, "gold_rank": row["rank"],
            "gold": f"{g['doc']}:{g['page']}", "top": f"{top.get('doc')}:{top.get('page')}:{top.get('kind')}",
            "top_nav": bool(meta.get("nav")), "top_section": (top.get("section") or "")[-60:],
            "vocab_gold": round(gold_cov, 2), "vocab_top": round(top_cov, 2), "query": q["query"],
        })
    counts = Counter(f["class"] for f in failures)
    answerable = sum(1 for q in questions if q["kind"] != "none")
    print(f"{args.questions.name}: {answerable} answerable, {len(failures)} failures: "
          + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    print("| id | kind | class | gold rank | gold | first hit | nav | vocab gold/top | query |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in sorted(failures, key=lambda f: (f["class"], f["id"])):
        print(f"| {f['id']} | {f['kind']} | {f['class']} | {f['gold_rank'] or '-'} | {f['gold']} | {f['top']} | "
              f"{'yes' if f['top_nav'] else ''} | {f['vocab_gold']}/{f['vocab_top']} | {f['query'][:70]} |")
    if args.out:
        args.out.write_text("".join(json.dumps(f) + "\n" for f in failures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
