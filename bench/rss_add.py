"""Peak memory of a whole `mmrag add` (ingest, figure work, the sentence pass), sampled from outside.

    .venv/bin/python bench/rss_add.py bench/data/unseen/*.pdf [--library DIR] [--as-window] [--cold]

Runs `mmrag --library DIR add FILES...` on a fresh library (a temporary folder unless given),
or with --as-window what the window runs (the ingest job, then the background work, both in the
library's one child process: results.ingest_job, results.enrich_job),
samples the resident memory of the process and its children every 0.5 s, and prints the peak per
process and the summed timeline (seconds, MB), so a peak can be placed in a stage (the command's
progress goes to bench/results/rss_add.log, each line with its second). --cold: an empty cache folder,
as on a new machine, so the text model's ONNX export is made during the add. Target (issue 13): <= 1,536 MB for a 1,000-page library.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

BENCH = Path(__file__).resolve().parent
MMRAG = BENCH.parent / ".venv" / "bin" / "mmrag"
# the window's ingest and background jobs, without the window (ui/results.py runs these generators)
WINDOW_JOBS = """
import sys
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.library import Library
from mmrag_desktop.ui import results
lib = Library.open(sys.argv[1])
for job in (results.ingest_job(sys.argv[2:]), results.enrich_job()):
    for ev in job(lib, CancelToken()):
        if ev.stage in ("done", "failed", "finished"):
            print(ev.stage, ev.doc, ev.message, file=sys.stderr, flush=True)
lib.close()
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--library")
    ap.add_argument("--as-window", action="store_true", help="the window's jobs instead of the CLI's add")
    ap.add_argument("--cold", action="store_true",
                    help="an empty cache folder, as on a new machine (the text model's ONNX export is made first)")
    args = ap.parse_args(argv)
    env = None
    if args.cold:
        cache = Path(tempfile.mkdtemp(prefix="rss-cache-"))
        env = {**os.environ, "MMRAG_CACHE_DIR": str(cache)}
    folder = Path(args.library or tempfile.mkdtemp(prefix="rss-add-"))
    shutil.rmtree(folder, ignore_errors=True)
    log = BENCH / "results" / "rss_add.log"
    t0 = time.monotonic()
    with log.open("w") as err:
        cmd = [str(MMRAG), "--library", str(folder), "add", *args.files]
        if args.as_window:
            cmd = [sys.executable, "-c", WINDOW_JOBS, str(folder), *args.files]
        proc = subprocess.Popen(cmd, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # each progress line with the second it came, to place a peak of the timeline in a stage
        stamp = threading.Thread(target=lambda: [err.write(f"{time.monotonic() - t0:7.1f} s  {line}")
                                                 for line in proc.stderr], daemon=True)
        stamp.start()
        root = psutil.Process(proc.pid)
        peaks: dict[tuple[int, str], float] = {}
        timeline: list[tuple[float, int]] = []
        while proc.poll() is None:
            total = 0.0
            try:
                members = [root] + root.children(recursive=True)
            except psutil.NoSuchProcess:
                break
            for p in members:
                try:
                    mb = p.memory_info().rss / 2**20
                    key = (p.pid, " ".join(p.cmdline()[1:3])[:60])
                except psutil.NoSuchProcess:
                    continue
                peaks[key] = max(peaks.get(key, 0.0), mb)
                total += mb
            timeline.append((round(time.monotonic() - t0, 1), round(total)))
            time.sleep(0.5)
        stamp.join(timeout=5)
    if not args.library:
        shutil.rmtree(folder, ignore_errors=True)
    if args.cold:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"exit {proc.returncode}, {time.monotonic() - t0:.1f} s; progress in {log}")
    for (pid, name), mb in sorted(peaks.items(), key=lambda kv: -kv[1])[:5]:
        print(f"peak {mb:,.0f} MB  pid {pid}  {name}")
    step = max(1, len(timeline) // 40)
    print("timeline (s, MB):", timeline[::step])
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
