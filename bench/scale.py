"""Scale run: 200,000 synthetic chunks through the engine's storage layer.

Writes 200 synthetic documents x 1,000 chunks (generated technical-looking text, random
L2-normalised 384-d vectors) into a fresh library's SQLite with the engine's schema (chunks +
FTS5 triggers, vectors, segment vectors), in one transaction per document. Then deletes the
hnswlib index files and times the rebuild from SQLite (``Library.text_index()``), runs 100
queries after a warm-up through ``Library.search`` and reports p50/p95 and RSS.
Target: search p50 <= 60 ms.

    python bench/scale.py [--chunks 200000] [--keep]

Writes bench/results/scale.json. Needs ~1.5 GB of disk under bench/data/scale (deleted at the
end unless --keep).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
P50_TARGET_MS = 60.0
DIM = 384

VOCAB = (
    "voltage current resistor capacitor inductor transistor diode amplifier gain bandwidth noise "
    "filter oscillator frequency phase impedance feedback loop stability compensation bias supply "
    "regulator converter switching ripple thermal junction temperature package footprint pin "
    "register interrupt timer counter clock reset watchdog bus serial parallel protocol packet "
    "frame checksum buffer memory flash eeprom firmware bootloader debug trace breakpoint sensor "
    "actuator motor encoder torque speed position controller pid setpoint error integral derivative "
    "calibration offset linearity accuracy resolution range tolerance default parameter option "
    "command syntax example table figure section chapter page value unit limit maximum minimum "
    "input output analog digital signal sample rate window transform spectrum plot axis label"
).split()


def synthetic_text(rng: random.Random, n_words: int) -> str:
    """Return ``n_words`` of Zipf-ish vocabulary with occasional part numbers and values."""
    words = []
    for _ in range(n_words):
        r = rng.random()
        if r < 0.03:
            words.append(f"{rng.choice('ABCDEFGH')}{rng.randint(10, 9999)}-{rng.randint(1, 99)}")
        elif r < 0.06:
            words.append(f"{rng.randint(1, 999)}{rng.choice(['mV', 'mA', 'kHz', 'ns', 'pF', 'Ohm'])}")
        else:
            words.append(VOCAB[min(int(rng.paretovariate(1.1)) - 1, len(VOCAB) - 1) if r < 0.5
                               else rng.randrange(len(VOCAB))])
    return " ".join(words)


TABLE_EVERY = 20  # 5% of chunks are tables
TABLE_ROWS = 8


def populate(lib, n_chunks: int, per_doc: int = 1000, seed: int = 11) -> float:
    """Insert ``n_chunks`` synthetic chunks with vectors; return seconds taken."""
    import numpy as np

    from mmrag_desktop.engine.store.db import Transaction

    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    model = lib.embedder.model_id
    t0 = time.perf_counter()
    n_docs = (n_chunks + per_doc - 1) // per_doc
    for d in range(n_docs):
        count = min(per_doc, n_chunks - d * per_doc)
        pages = max(1, count // 10)
        vecs = nrng.standard_normal((count, DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        with Transaction(lib.conn) as conn:
            cur = conn.execute(
                "INSERT INTO documents (path, name, sha256, size, kind, title, pages, status) "
                "VALUES (?, ?, ?, 0, 'pdf', ?, ?, 'ready')",
                (f"/synthetic/doc_{d:04d}.pdf", f"doc_{d:04d}.pdf", f"{d:064x}", f"Synthetic manual {d}", pages),
            )
            doc_id = cur.lastrowid
            conn.executemany(
                "INSERT INTO pages (doc_id, page, width, height) VALUES (?, ?, 612, 792)",
                [(doc_id, p) for p in range(1, pages + 1)],
            )
            ids, segs = [], []
            for i in range(count):
                page = min(pages, i // 10 + 1)
                y = 72 + (i % 10) * 64
                text = synthetic_text(rng, rng.randint(40, 110))
                bbox = [72.0, float(y), 540.0, float(y + 56)]
                # one chunk in TABLE_EVERY is a table of TABLE_ROWS rows (one segment each), so the
                # table-row list of search (search/table_rows.py) works at scale too
                kind = "table" if i % TABLE_EVERY == 0 else "text"
                n_seg = TABLE_ROWS if kind == "table" else 1
                lines = [{"p": page, "b": [72.0, y + 7.0 * r, 540.0, y + 7.0 * (r + 1)], "t": text[:120], "s": [r]}
                         for r in range(n_seg)]
                cur = conn.execute(
                    "INSERT INTO chunks (doc_id, ord, kind, text, section, page, page_end, bbox, spans, lines) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc_id, i, kind, text, f"Chapter {i // 100 + 1} > Section {i // 20 + 1}", page, page,
                     json.dumps(bbox), json.dumps([{"page": page, "bbox": bbox}]), json.dumps(lines)),
                )
                ids.append(cur.lastrowid)
                seg = vecs[i][None, :] if n_seg == 1 else nrng.standard_normal((n_seg, DIM)).astype(np.float32)
                segs.append(seg / np.linalg.norm(seg, axis=1, keepdims=True))
            conn.executemany(
                "INSERT INTO vectors (chunk_id, space, model, dim, vec) VALUES (?, 'text', ?, ?, ?)",
                [(cid, model, DIM, v.tobytes()) for cid, v in zip(ids, vecs, strict=True)],
            )
            conn.executemany(
                "INSERT INTO segment_vectors (chunk_id, model, n, dim, vecs) VALUES (?, ?, ?, ?, ?)",
                [(cid, model, len(sv), DIM, sv.astype(np.float16).tobytes()) for cid, sv in zip(ids, segs, strict=True)],
            )
    return time.perf_counter() - t0


def timed_searches(lib, queries: list[str], warm: int) -> list[float]:
    """Milliseconds of `Library.search(k=10)` for each query after the first `warm` (not timed)."""
    for q in queries[:warm]:
        lib.search(q, k=10)
    ms = []
    for q in queries[warm:]:
        t0 = time.perf_counter()
        lib.search(q, k=10)
        ms.append((time.perf_counter() - t0) * 1000)
    return ms


def _pct(vals: list[float], p: float) -> float:
    vals = sorted(vals)
    pos = (len(vals) - 1) * p / 100
    lo = int(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Scale run with synthetic chunks.")
    ap.add_argument("--chunks", type=int, default=200_000)
    ap.add_argument("--folder", type=Path, default=BENCH / "data" / "scale")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--torch-threads", type=int, default=None, help="torch.set_num_threads(N) for the queries")
    ap.add_argument("--keep", action="store_true", help="keep the library folder afterwards")
    args = ap.parse_args(argv)

    import psutil

    from mmrag_desktop.engine.library import Library

    proc = psutil.Process()
    if args.folder.exists():
        shutil.rmtree(args.folder)
    lib = Library.open(args.folder)
    lib.embedder.encode(["warm up"])
    rss_model = proc.memory_info().rss / 2**20
    t_insert = populate(lib, args.chunks)
    lib.close()
    shutil.rmtree(args.folder / "index", ignore_errors=True)
    db_mb = (args.folder / "library.sqlite").stat().st_size / 2**20

    lib = Library.open(args.folder)
    lib.embedder.encode(["warm up"])
    if args.torch_threads:  # after the model load, which applies the engine's own setting
        import torch

        torch.set_num_threads(args.torch_threads)
    t0 = time.perf_counter()
    index = lib.text_index()
    t_rebuild = time.perf_counter() - t0
    rss_index = proc.memory_info().rss / 2**20
    rng = random.Random(5)
    queries = [" ".join(rng.sample(VOCAB, rng.randint(2, 6))) for _ in range(args.queries + 10)]
    ms = timed_searches(lib, queries, warm=10)
    rss_end = proc.memory_info().rss / 2**20
    n_index = len(index)
    lib.close()
    if not args.keep:
        shutil.rmtree(args.folder, ignore_errors=True)

    out = {
        "machine_note": f"{os.cpu_count()} cores; load average {os.getloadavg()} at the end (shared machine)",
        "chunks": args.chunks, "indexed": n_index, "insert_s": t_insert, "sqlite_mb": db_mb,
        "index_rebuild_from_sqlite_s": t_rebuild,
        "search_p50_ms": _pct(ms, 50), "search_p95_ms": _pct(ms, 95), "queries": len(ms),
        "rss_mb_model_loaded": rss_model, "rss_mb_after_rebuild": rss_index, "rss_mb_after_search": rss_end,
        "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "target_p50_ms": P50_TARGET_MS, "torch_threads": args.torch_threads or "engine default",
    }
    print("| chunks | insert s | SQLite MB | index rebuild s | search p50 ms | p95 ms | RSS MB (after search) | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {n_index} | {t_insert:.0f} | {db_mb:.0f} | {t_rebuild:.1f} | {out['search_p50_ms']:.1f} | "
          f"{out['search_p95_ms']:.1f} | {rss_end:.0f} | {out['ru_maxrss_mb']:.0f} |")
    print(f"{'PASS' if out['search_p50_ms'] <= P50_TARGET_MS else 'FAIL'} search p50 (target <= {P50_TARGET_MS} ms)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(out, indent=1))
    print(f"wrote {RESULTS / 'scale.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
