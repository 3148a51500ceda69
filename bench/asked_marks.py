"""How many quoted sentences of the extractive answers to asked lists the window shows marked "not found in the cited
pages" (issue 11: a verbatim quote is backed by construction, so every mark on one is a false mark).

    .venv/bin/python bench/asked_marks.py --library DIR s58-dasm s58-firehol

The library must hold the lists' manuals (bench/asked/README.md names them; `mmrag --library DIR add ...`). Prints the
count of claims not supported over the sentences shown, and each marked sentence with its list and question number.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--library", required=True, type=Path, help="a library holding the lists' manuals")
    ap.add_argument("lists", nargs="+", help="asked lists by name (bench/asked/NAME.txt)")
    args = ap.parse_args(argv)

    from mmrag_desktop.engine.answer import answer_events
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.settings import Settings

    library = Library.open(args.library, Settings(threads=1))
    shown = marked = 0
    try:
        for name in args.lists:
            questions = [q.strip() for q in (BENCH / "asked" / f"{name}.txt").read_text("utf-8").splitlines() if q.strip()]
            for n, question in enumerate(questions, 1):
                done = next(e for e in answer_events(library, question, mode="extractive", settings=Settings(threads=1))
                            if e.kind in ("done", "error"))
                if done.kind == "error":
                    print(f"{name} Q{n}: error: {done.message}", file=sys.stderr)
                    continue
                sentences = done.answer.to_json().get("sentences", [])
                shown += len(sentences)
                for s in sentences:
                    if s.get("claim", True) and not s.get("supported"):
                        marked += 1
                        print(f"{name} Q{n}: {s['text'][:160]}")
    finally:
        library.close()
    print(f"marked not supported: {marked} of {shown} sentences shown")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
