"""Peak memory of `add` on one very long PDF (issue 17: "keep a 10,000-page PDF's memory bounded").

Writes synthetic PDFs of 1,000 and 10,000 pages (each page a heading and 40 lines of varied
technical prose; every 25th page a ruled 4x3 table and a captioned vector chart; the 10,000-page file is ten
copies of the 1,000-page one) into bench/data/big/, then ingests each into a fresh library in a fresh interpreter (speed_ingest.py's
--child-rss: psutil sampled every 0.1 s, and ru_maxrss) and prints the peaks. With
``--unbatched`` it also runs the 10,000-page file with FLUSH_CHUNKS raised past the document's
chunk count, i.e. the whole document held in memory until one commit as before.

    .venv/bin/python bench/big_document.py [--pages 1000 10000] [--unbatched]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIG = HERE / "data" / "big"
RESULTS = HERE / "results"

WORDS = ("pump valve relay sensor heater motor fuse bearing coil cable filter seal gasket spring "
         "torque pressure voltage current resistance flow rate temperature limit interval check "
         "replace inspect tighten measure calibrate adjust clean lubricate").split()


def write_pdf(path: Path, pages: int) -> Path:
    import pymupdf

    if path.exists():
        return path
    if pages > 1000 and pages % 1000 == 0:  # copies of the 1,000-page file (writing pages is slow)
        base = pymupdf.open(write_pdf(BIG / "big-1000.pdf", 1000))
        doc = pymupdf.open()
        for _ in range(pages // 1000):
            doc.insert_pdf(base)
        return _save(doc, path)
    rng = random.Random(pages)
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 60), f"{n // 25 + 1}.{n % 25 + 1} Maintenance of unit {n}", fontsize=14)
        y = 90
        lines = 20 if n % 25 == 0 else 40
        for _ in range(lines):
            words = " ".join(rng.choice(WORDS) for _ in range(11))
            page.insert_text((72, y), f"{words} {rng.randint(1, 999)} mm.", fontsize=10)
            y += 15
        if n % 25 == 0:
            top = y + 10
            for r in range(5):
                page.draw_line((72, top + 18 * r), (400, top + 18 * r), width=0.6)
            for c in range(4):
                page.draw_line((72 + 109 * c, top), (72 + 109 * c, top + 72), width=0.6)
            for r, row in enumerate((["Part", "Torque Nm", "Interval h"], ["M6 bolt", "9", "500"],
                                     ["M8 bolt", "22", "500"], [f"M{10 + n % 5} bolt", "45", "1000"])):
                for c, cell in enumerate(row):
                    page.insert_text((76 + 109 * c, top + 13 + 18 * r), cell, fontsize=9)
            page.insert_text((72, top - 4), f"Table {n // 25 + 1}: Bolt torques of unit {n}", fontsize=9)
            base = top + 250
            page.draw_line((120, base), (420, base), width=1)
            page.draw_line((120, base), (120, base - 130), width=1)
            for k in range(6):
                page.draw_rect((135 + 45 * k, base - 20 * (k + 1), 160 + 45 * k, base), fill=(0.3, 0.5, 0.8))
            page.insert_text((120, base + 24), f"Figure {n // 25 + 1}: Wear versus hours of unit {n}", fontsize=9)
    return _save(doc, path)


def _save(doc, path: Path) -> Path:
    BIG.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    doc.save(tmp, garbage=1, deflate=True)
    doc.close()
    tmp.replace(path)
    return path


def measure(pdf: Path, *, unbatched: bool = False) -> dict:
    code = ("import sys; sys.path.insert(0, {here!r}); import speed_ingest\n"
            "from mmrag_desktop.engine.ingest import pipeline\n"
            "{patch}\n"
            "speed_ingest.main(['--child-rss', {lib!r}, {pdf!r}])").format(
        here=str(HERE), lib=str(BIG / "lib"), pdf=str(pdf),
        patch="pipeline.FLUSH_CHUNKS = 10**9" if unbatched else "")
    proc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                          env={**os.environ})
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["unbatched"] = unbatched
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--unbatched", action="store_true", help="also the largest file held whole, as before")
    args = ap.parse_args(argv)
    runs = []
    for pages in args.pages:
        pdf = write_pdf(BIG / f"big-{pages}.pdf", pages)
        runs.append(measure(pdf))
    if args.unbatched:
        runs.append(measure(BIG / f"big-{max(args.pages)}.pdf", unbatched=True))
    print("| pages | chunks | written | ingest s | pages/s | peak RSS MB (sampled) | ru_maxrss MB |")
    print("|---|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['pages']:,} | {r['chunks']:,} | {'whole, one commit' if r['unbatched'] else 'in batches'} | "
              f"{r['wall_s']:.0f} | {r['pages_per_s']:.1f} | {r['peak_rss_mb_sampled']:.0f} | {r['ru_maxrss_mb']:.0f} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "big_document.json").write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
