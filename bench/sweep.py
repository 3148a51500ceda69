"""Search quality of one engine setting on every question set, in one process (issue 13 experiments).

    .venv/bin/python bench/sweep.py                                    # current settings
    .venv/bin/python bench/sweep.py --set "search.searcher.NAV_PENALTY=0.5;0.6" --sets dev

Each ``--set MODULE.NAME=V1[;V2...]`` (JSON values) (module under mmrag_desktop.engine) is tried value by value;
each value is scored on each set (R@1, R@5, MRR@10, box@5 and the mean IoU of gold-page boxes over answerable questions,
bench/metrics.py).
Libraries are opened read-only as they are (build them first: eval_search.py, bench_answer.py, or
``mmrag --library DIR add``). Sets and their libraries:

| set | questions | library |
|---|---|---|
| dev | questions.jsonl | data/lib-answer |
| heldout | heldout.jsonl | data/lib-answer |
| unseen | unseen.jsonl | data/lib-unseen |
| heldout2 | heldout2.jsonl | data/lib-heldout2 |
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from metrics import score_run  # noqa: E402

SETS = {
    "dev": ("questions.jsonl", "lib-answer"),
    "heldout": ("heldout.jsonl", "lib-answer"),
    "unseen": ("unseen.jsonl", "lib-unseen"),
    "heldout2": ("heldout2.jsonl", "lib-heldout2"),
}


def parse_set(spec: str) -> tuple[object, str, list]:
    target, values = spec.split("=", 1)
    module, name = target.rsplit(".", 1)
    mod = importlib.import_module(f"mmrag_desktop.engine.{module}")
    if not hasattr(mod, name):
        raise SystemExit(f"{module} has no {name}")
    return mod, name, [json.loads(v) for v in values.split(";")]


def questions_of(name: str) -> list[dict]:
    """The questions of set `name` (SETS)."""
    return [json.loads(x) for x in (BENCH / SETS[name][0]).read_text().splitlines() if x.strip()]


def library_folders(lib_specs: list[str]) -> dict[str, Path]:
    """Each set's library folder: its usual one, or DIR for a "SET=DIR" of `lib_specs` (--lib)."""
    folders = {name: BENCH / "data" / libdir for name, (_q, libdir) in SETS.items()}
    folders.update({k: Path(v) for k, v in (x.split("=", 1) for x in lib_specs)})
    return folders


def run_set(lib, questions: list[dict]) -> dict:
    hits = {q["id"]: [h.to_json() for h in lib.search(q["query"], k=10)] for q in questions}
    return score_run(questions, hits)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", default=[], help="MODULE.NAME=V1;V2 (JSON values)")
    ap.add_argument("--sets", nargs="*", default=list(SETS))
    ap.add_argument("--lib", action="append", default=[], metavar="SET=DIR",
                    help="score SET on the library in DIR instead of its usual one")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    from mmrag_desktop.engine.library import Library

    grid: list[list[tuple[object, str, object]]] = [[]]
    for spec in args.set:
        mod, name, values = parse_set(spec)
        grid = [g + [(mod, name, v)] for g in grid for v in values]
    results = []
    libs = {}
    folders = library_folders(args.lib)
    try:
        for name in args.sets:
            qfile = SETS[name][0]
            if not (BENCH / qfile).exists() or not (folders[name] / "library.sqlite").exists():
                print(f"skip {name}: {qfile} or {folders[name]} missing", file=sys.stderr)
                continue
            libs[name] = Library.open(folders[name], access="read")
        print("| setting | set | n | R@1 | R@5 | MRR@10 | box@5 | IoU |")
        print("|---|---|---|---|---|---|---|---|")
        for combo in grid:
            for mod, attr, value in combo:
                setattr(mod, attr, value)
            label = ", ".join(f"{a}={v}" for _, a, v in combo) or "current"
            for name, lib in libs.items():
                agg = run_set(lib, questions_of(name))["overall"]
                results.append({"setting": label, "set": name, **{k: agg.get(k) for k in
                                                                  ("n", "R@1", "R@5", "MRR@10", "box@5", "IoU")}})
                print(f"| {label} | {name} | {agg['n']} | {agg['R@1']:.3f} | {agg['R@5']:.3f} | "
                      f"{agg['MRR@10']:.3f} | {agg['box@5']:.3f} | {agg['IoU']:.3f} |", flush=True)
    finally:
        for lib in libs.values():
            lib.close()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
