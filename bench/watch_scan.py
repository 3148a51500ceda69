"""Cost of a look at watched folders (engine/watch.py) with nothing changed, and with a burst.

Writes N small real PDFs into a folder tree (20 sub-folders), records them in a fresh library as
indexed documents through the store's Documents repository (same path, size and time, so the
watcher sees them as unchanged without parsing N files first), then times, in one run:
- `snapshot()`: what the CLI's poller does every --interval seconds;
- `plan_reconcile()`: what every reconcile does first (stats, the documents table, missing files);
- the same plan after 300 new files arrived (a burst: they are hashed only if a document's file
  vanished with the same size, so here they are not).

    .venv/bin/python bench/watch_scan.py [--files 1000] [--repeat 20]

Prints a table and writes bench/results/watch_scan.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _write_pdfs(folder: Path, n: int, start: int = 0) -> list[Path]:
    import pymupdf

    out = []
    for i in range(start, start + n):
        sub = folder / f"part{i % 20:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        p = sub / f"manual-{i:05d}.pdf"
        doc = pymupdf.open()
        doc.new_page().insert_text((72, 72), f"Manual {i}: service interval {i % 97} hours.")
        doc.save(str(p))
        doc.close()
        t = time.time() - 3600
        os.utime(p, (t, t))
        out.append(p)
    return out


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()

    from mmrag_desktop.engine.store import Store
    from mmrag_desktop.engine.watch import plan_reconcile, snapshot

    with tempfile.TemporaryDirectory() as tmp:
        shelf = Path(tmp) / "shelf"
        files = _write_pdfs(shelf, args.files)
        store = Store(Path(tmp) / "lib")
        docs = store.documents
        for p in files:
            st = p.stat()
            doc_id = docs.register(p, "0" * 64, st.st_size, st.st_mtime, "pending")
            docs.mark_ready(doc_id, sha="0" * 64, size=st.st_size, mtime=st.st_mtime, kind="pdf", title=p.stem,
                            pages=1, warning=None, enrichment="done")
        folders = [shelf]
        plan = plan_reconcile(folders, docs)
        assert plan.empty and plan.unchanged == args.files, plan.summary()
        snap_ms = _median_ms(lambda: snapshot(folders), args.repeat)
        plan_ms = _median_ms(lambda: plan_reconcile(folders, docs), args.repeat)
        _write_pdfs(shelf, 300, start=args.files)
        plan = plan_reconcile(folders, docs)
        assert len(plan.add) == 300 and plan.unchanged == args.files, plan.summary()
        burst_ms = _median_ms(lambda: plan_reconcile(folders, docs), args.repeat)
        store.close()

    result = {"files": args.files, "repeat": args.repeat, "snapshot_ms": round(snap_ms, 1),
              "plan_unchanged_ms": round(plan_ms, 1), "plan_after_300_new_ms": round(burst_ms, 1)}
    print(f"{'files':>6} {'snapshot (poll)':>16} {'plan, unchanged':>16} {'plan, +300 new':>16}")
    print(f"{args.files:>6} {snap_ms:>13.1f} ms {plan_ms:>13.1f} ms {burst_ms:>13.1f} ms")
    out = ROOT / "bench" / "results" / "watch_scan.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
