"""Soak benchmark (issue 17; not part of CI): add / search / ask / remove cycles on cuts of the
bench manuals for a fixed time, in one process, as a long session in the window would run them.
Reports RSS and open file handles per cycle (they should stay flat) and every error.

    .venv/bin/python bench/soak.py [--minutes 30] [--pages 30] [--json bench/results/soak.json]

The answers use the bundled model in generative mode (llama.cpp runs every cycle), searches the
development questions. Each cycle re-adds one manual cut after removing it, so the library
grows and shrinks the whole time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import psutil

BENCH = Path(__file__).resolve().parent
MANUALS = ["gnuplot.pdf", "ngspice-manual.pdf", "R-intro.pdf"]


def cut(src: Path, dst: Path, start: int, pages: int) -> Path:
    import pymupdf

    with pymupdf.open(src) as doc:
        out = pymupdf.open()
        out.insert_pdf(doc, from_page=start, to_page=min(start + pages, doc.page_count) - 1)
        out.save(str(dst))
        out.close()
    return dst


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--pages", type=int, default=30)
    ap.add_argument("--json", type=Path, default=BENCH / "results" / "soak.json")
    args = ap.parse_args()
    sys.path.insert(0, str(BENCH.parent))
    from mmrag_desktop.engine.answer import ask
    from mmrag_desktop.engine.errors import EngineError
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.settings import Settings

    queries = [json.loads(line)["query"] for line in (BENCH / "questions.jsonl").open()]
    work = Path(tempfile.mkdtemp(prefix="mmrag-soak-"))
    docs = [cut(BENCH / "data" / "manuals" / m, work / f"{Path(m).stem}-cut.pdf", 20, args.pages) for m in MANUALS]
    proc = psutil.Process()
    rng = random.Random(7)
    samples, errors = [], []
    t_end = time.monotonic() + args.minutes * 60
    with Library.open(work / "lib", Settings(answer_mode="generative", threads=2)) as lib:
        for d in docs:
            list(lib.add([d]))
        cycle = 0
        while time.monotonic() < t_end:
            cycle += 1
            t0 = time.monotonic()
            victim = docs[cycle % len(docs)]
            try:
                lib.remove(victim.name)
                for ev in lib.add([victim]):
                    if ev.stage == "failed":
                        errors.append(f"cycle {cycle}: add {victim.name}: {ev.message}")
                list(lib.enrich())
                for q in rng.sample(queries, 10):
                    lib.search(q, k=10)
                for q in rng.sample(queries, 2):
                    ask(lib, q)
            except EngineError as e:
                errors.append(f"cycle {cycle}: {type(e).__name__}: {e}")
            samples.append({"cycle": cycle, "seconds": round(time.monotonic() - t0, 1),
                            "rss_mb": round(proc.memory_info().rss / 1e6, 1), "fds": proc.num_fds(),
                            "chunks": lib.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]})
            print(json.dumps(samples[-1]), flush=True)
    first, last = samples[min(1, len(samples) - 1)], samples[-1]  # cycle 1 loads the models
    result = {"minutes": args.minutes, "pages_per_manual": args.pages, "cycles": len(samples),
              "rss_mb_after_cycle_2": first["rss_mb"], "rss_mb_last": last["rss_mb"],
              "rss_mb_max": max(s["rss_mb"] for s in samples), "fds_after_cycle_2": first["fds"],
              "fds_last": last["fds"], "fds_max": max(s["fds"] for s in samples), "errors": errors,
              "samples": samples}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "samples"}, indent=1))
    return 1 if errors else 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    raise SystemExit(main())
