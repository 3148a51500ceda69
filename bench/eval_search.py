"""Retrieval quality on the development set: the engine against two page-level baselines.

Builds (or reuses) a library from bench/data/manuals with the engine's CLI
(``mmrag --library DIR add ...``), runs ``mmrag --library DIR search --batch questions.jsonl -k 10``,
and scores it next to plain BM25 over pages and dense-only (MiniLM) over pages. Prints a
markdown table and writes bench/results/search.json (engine hits: bench/results/engine_hits.jsonl).

    python bench/eval_search.py                  # engine + both baselines
    python bench/eval_search.py --kinds figure   # figure questions only (issue 5's benchmark)
    python bench/eval_search.py --skip-engine    # baselines only
    python bench/eval_search.py --rebuild        # start from an empty library

Targets (engine, all answerable questions): R@5 >= 0.90, R@1 >= 0.65, box@5 >= 0.75;
figure questions alone: R@5 >= 0.85.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from metrics import KINDS, score_run  # noqa: E402

MANUALS = BENCH / "data" / "manuals"
RESULTS = BENCH / "results"
TARGETS = {"R@5": 0.90, "R@1": 0.65, "box@5": 0.75}
FIGURE_TARGETS = {"R@5": 0.85}


def mmrag_command() -> list[str]:
    """Return the argv prefix that runs the engine's CLI from this interpreter's environment."""
    exe = Path(sys.executable).with_name("mmrag")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mmrag_desktop.cli"]


def manual_paths() -> list[Path]:
    """Return the development manuals; raises SystemExit when they have not been fetched."""
    paths = sorted(MANUALS.glob("*.pdf"))
    if not paths:
        raise SystemExit(f"no manuals in {MANUALS}: run bash bench/fetch_manuals.sh first")
    return paths


def load_questions(path: Path, kinds: list[str] | None) -> list[dict]:
    """Return the questions of ``path`` (JSON lines), keeping only ``kinds`` when given."""
    qs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [q for q in qs if not kinds or q["kind"] in kinds]


def run_engine(library: Path, questions: list[dict], rebuild: bool,
               reuse: bool = False) -> tuple[dict[str, list[dict]], dict]:
    """Ingest the manuals with the CLI (unless `reuse`: the library is only read), run the batch
    search; return (hits by id, timings)."""
    if rebuild and library.exists():
        shutil.rmtree(library)
    cli = mmrag_command()
    t0 = time.perf_counter()
    if not reuse:
        subprocess.run(cli + ["--library", str(library), "add", *map(str, manual_paths())], check=True)
    t_add = time.perf_counter() - t0
    RESULTS.mkdir(parents=True, exist_ok=True)
    qfile = RESULTS / "queries.jsonl"
    qfile.write_text("".join(json.dumps({"id": q["id"], "query": q["query"]}) + "\n" for q in questions))
    t0 = time.perf_counter()
    proc = subprocess.run(cli + ["--library", str(library), "search", "--batch", str(qfile), "-k", "10"],
                          check=True, capture_output=True, text=True)
    t_search = time.perf_counter() - t0
    (RESULTS / "engine_hits.jsonl").write_text(proc.stdout)
    hits: dict[str, list[dict]] = {}
    for line in proc.stdout.splitlines():
        if line.strip():
            item = json.loads(line)
            hits[str(item["id"])] = item.get("hits", [])
            if item.get("error"):
                print(f"engine error on {item['id']}: {item['error']}", file=sys.stderr)
    return hits, {"add_s": t_add, "batch_search_s": t_search, "queries": len(questions)}


def run_baselines(questions: list[dict]) -> dict[str, dict[str, list[dict]]]:
    """Return {"bm25-pages": hits by id, "dense-pages": hits by id} for ``questions``."""
    from baselines import BM25Pages, DensePages, page_texts

    pages = page_texts(manual_paths())
    bm25 = BM25Pages(pages)
    dense = DensePages(pages, cache=BENCH / "data" / "dense_pages.npz")
    return {
        "bm25-pages": {q["id"]: bm25.search(q["query"], 10) for q in questions},
        "dense-pages": {q["id"]: dense.search(q["query"], 10) for q in questions},
    }


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.2f}"


def markdown_table(scores: dict[str, dict], kinds: list[str]) -> str:
    """Return a markdown table: one row per system and kind, page metrics and box overlap."""
    cols = ["R@1", "R@5", "MRR@10", "box@5", "qbox@5", "IoU"]
    lines = ["| system | kind | n | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 3)]
    for system, sc in scores.items():
        for kind in kinds:
            agg = sc.get(kind, {})
            if not agg.get("n"):
                continue
            lines.append(f"| {system} | {kind} | {agg['n']} | " + " | ".join(_fmt(agg.get(c)) for c in cols) + " |")
    return "\n".join(lines)


def none_summary(scores: dict[str, dict]) -> str:
    """Return lines comparing the top-1 score of unanswerable and answerable questions per system."""
    out = []
    for system, sc in scores.items():
        nn, aa = sc["none_top_scores"], sc["answerable_top_scores_when_correct"]
        if not nn.get("n"):
            continue
        out.append(f"- {system}: unanswerable top-1 score median {nn['median']:.3f} (max {nn['max']:.3f}); "
                   f"answerable with correct top-1: median {aa.get('median', float('nan')):.3f} "
                   f"(min {aa.get('min', float('nan')):.3f})")
    return "\n".join(out)


def target_lines(agg: dict, targets: dict[str, float], label: str) -> list[str]:
    """Return one 'PASS/FAIL metric value >= target' line per target."""
    return [f"{'PASS' if agg.get(m, 0) >= t else 'FAIL'} {label} {m} {agg.get(m, 0):.2f} (target >= {t})"
            for m, t in targets.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Retrieval quality on the development set.")
    ap.add_argument("--library", type=Path, default=BENCH / "data" / "lib-eval")
    ap.add_argument("--questions", type=Path, default=BENCH / "questions.jsonl")
    ap.add_argument("--kinds", nargs="*", choices=[*KINDS, "none"], help="only these question kinds")
    ap.add_argument("--rebuild", action="store_true", help="delete the library first")
    ap.add_argument("--reuse", action="store_true",
                    help="search the library as it is: no `mmrag add` (which would also run pending figure work)")
    ap.add_argument("--skip-engine", action="store_true")
    ap.add_argument("--skip-baselines", action="store_true")
    ap.add_argument("--details", action="store_true", help="print one line per question")
    ap.add_argument("--out", type=Path, default=None, help="JSON output (default results/search.json)")
    args = ap.parse_args(argv)

    questions = load_questions(args.questions, args.kinds)
    runs: dict[str, dict[str, list[dict]]] = {}
    timings = {}
    if not args.skip_engine:
        runs["engine"], timings = run_engine(args.library, questions, args.rebuild, args.reuse)
    if not args.skip_baselines:
        runs.update(run_baselines(questions))
    scores = {name: score_run(questions, hits, has_boxes=(name == "engine")) for name, hits in runs.items()}
    for name, sc in scores.items():  # keep the top 3 of every question for diagnosis
        for row in sc["questions"]:
            row["top3"] = [f"{h['doc']}:{h['page']}:{h.get('kind', 'page')}" for h in runs[name].get(row["id"], [])[:3]]

    kinds = ["overall", *KINDS]
    print(markdown_table(scores, kinds))
    print()
    print(none_summary(scores))
    checks = []
    if "engine" in scores:
        if not args.kinds:
            checks += target_lines(scores["engine"]["overall"], TARGETS, "overall")
        if scores["engine"]["figure"].get("n"):
            checks += target_lines(scores["engine"]["figure"], {**FIGURE_TARGETS, "box@5": 0.75}, "figure")
        print()
        print("\n".join(checks))
        misses = [r["id"] for r in scores["engine"]["questions"] if r["kind"] != "none" and not r["rank"]]
        print(f"engine misses (no gold page in top 10): {', '.join(misses) or 'none'}")
        if args.details:
            gold = {q["id"]: q["gold"] for q in questions}
            for r in scores["engine"]["questions"]:
                want = ",".join(f"{g['doc']}:{g['page']}" for g in gold[r["id"]]) or "-"
                print(f"  {r['id']:4} {r['kind']:6} rank={r['rank']} box={r['box_overlap_hits@5']}/"
                      f"{r['gold_page_hits@5']} gold={want} top3={' '.join(r['top3'])}")

    out = args.out or RESULTS / ("search.json" if not args.kinds else f"search_{'_'.join(args.kinds)}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"questions": str(args.questions), "manuals": [p.name for p in manual_paths()],
                               "timings": timings, "targets": TARGETS, "checks": checks,
                               "scores": scores}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
