"""`mmrag eval`: retrieval tests on your own manuals (docs/retrieval_testing.md).

    mmrag --library DIR eval QUESTIONS.jsonl [-k 10] [--json]

Reads the question file first (a malformed line stops here, one line naming it), then opens the
library read-only (it is never changed, and it works while another program writes to it), runs
every question and prints a table (or one JSON object). Exit 0 whatever the scores are.
"""

from __future__ import annotations

import json
import sys

from .engine.errors import EngineError

QUERY_WIDTH = 44


def register(subparsers) -> None:
    """Add the `eval` verb to the CLI's subparsers."""
    e = subparsers.add_parser("eval", help="run retrieval tests (a question file) and print R@1, R@5, MRR, box hits")
    e.add_argument("questions", metavar="QUESTIONS.jsonl",
                   help='one {"id", "query", "doc", "pages", "bbox"} a line (docs/retrieval_testing.md)')
    e.add_argument("-k", type=int, default=10, help="how deep to look for the expected page (default 10)")
    e.add_argument("--json", action="store_true", help="print one JSON object: per-question rows and totals")
    e.set_defaults(func=cmd_eval)


def cmd_eval(args) -> int:
    """Run the question file against the library (read-only); print the table or JSON; exit 0."""
    from .cli import ProgressBar, note
    from .engine.evaluation import evaluate, read_questions
    from .engine.library import Library
    from .engine.location import is_database_uri, library_location
    from .engine.settings import Settings

    if args.k < 1:
        raise EngineError(f"-k must be at least 1 (got {args.k})")
    questions = read_questions(args.questions)
    settings = Settings.load()
    where = library_location(args.library) if args.library else settings.library_path
    if not is_database_uri(where) and not (where / "library.sqlite").is_file():
        raise EngineError(f"there is no library in {where} (make one with: mmrag --library DIR add FILE...)")
    lib = Library.open(where, settings, access="read")
    bar = ProgressBar(enabled=not args.quiet)  # on stderr, only when it is a terminal
    try:
        events = evaluate(questions, lambda q, k: lib.search(q, k=k), lib.documents(), k=args.k)
        while True:
            try:
                bar.update(next(events))
            except StopIteration as stop:
                report = stop.value
                break
        bar.close()
        for notice in lib.model_notices:
            note(args, notice)
    finally:
        bar.close()
        lib.close()
    if args.json:
        print(json.dumps({"file": str(args.questions), **report.to_json()}, ensure_ascii=False))
    else:
        print_table(report)
    return 0


def _cut(text: str, n: int) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def print_table(report, out=None) -> None:
    """One row per question (id, hit at rank 1, rank, box, query, what rank 1 was when missed),
    then the totals."""
    out = out or sys.stdout
    rows = report.results
    idw = max([2, *(len(r.question.id) for r in rows)])
    idw = min(idw, 16)
    print(f"{'id':<{idw}}  R@1   rank  box  {'query':<{QUERY_WIDTH}}  expected -> found at rank 1 (misses)", file=out)
    for r in rows:
        q = r.question
        head = f"{_cut(q.id, idw):<{idw}}  "
        if not r.scored:
            print(f"{head}{'-':<4}  {'-':>4}  {'-':<3}  {_cut(q.query, QUERY_WIDTH):<{QUERY_WIDTH}}  "
                  f"not scored: {r.message}", file=out)
            continue
        rank = str(r.rank) if r.rank else f">{report.k}"
        box = "-" if r.box_hit is None else ("yes" if r.box_hit else "no")
        line = f"{head}{'hit' if r.hit_at_1 else 'MISS':<4}  {rank:>4}  {box:<3}  {_cut(q.query, QUERY_WIDTH):<{QUERY_WIDTH}}"
        if r.missed:
            f = r.found
            found = f"{f.doc} p. {f.page}" if f else "nothing"
            line += f"  {q.describe_expected()} -> {found}"
        print(line.rstrip(), file=out)
    t = report.totals
    skipped = len(report.not_scored)
    print(file=out)
    if not t.n:
        print(f"no question could be scored ({skipped} not scored)", file=out)
        return
    box = f"  box {t.box_hits}/{t.box_n} ({t.box:.2f})" if t.box is not None else "  box - (no region given)"
    tail = f"; {skipped} not scored" if skipped else ""
    print(f"{t.n} question{'s' if t.n != 1 else ''}{tail}: R@1 {t.r1:.2f} ({round(t.r1 * t.n)}/{t.n})  "
          f"R@5 {t.r5:.2f} ({round(t.r5 * t.n)}/{t.n})  MRR@{report.k} {t.mrr:.3f}{box}", file=out)
    kinds = report.by_kind()
    if len(kinds) > 1:
        for kind, kt in kinds.items():
            if kt.n:
                kb = f"  box {kt.box_hits}/{kt.box_n}" if kt.box_n else ""
                print(f"  {kind:<8} n={kt.n:<3} R@1 {kt.r1:.2f}  R@5 {kt.r5:.2f}  MRR {kt.mrr:.3f}{kb}", file=out)
