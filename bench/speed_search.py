"""Search latency with warm models on a ~1,000-page library.

Builds (or reuses) a library of ngspice-manual.pdf + gnuplot.pdf (1,026 pages), then runs 200
queries (the development questions plus section titles and phrases sampled from the library,
fixed seed) after a warm-up, timing ``Library.search(q, k=10)`` each. For comparison it times a
raw ``hnswlib`` ``knn_query`` (k=10, same ef) on the library's own index file with the query
vectors precomputed, and the query embedding alone. Targets: p50 <= 30 ms, p95 <= 80 ms.

    python bench/speed_search.py [--library DIR] [--manuals A.pdf B.pdf] [--queries 200] [--cold]

`--cold` measures a library left as `mmrag add --no-warm-up` leaves it: at full quality, but with
only the table rows' sentence vectors stored, so each search encodes the sentences of the passages
it ranks that no earlier search of the run has encoded (search/own_sentences.py; the library is
copied and the other chunks' sentence vectors deleted from the copy). The warm-up queries are
then left out, so the first searches count too.

Writes bench/results/speed_search.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
MANUALS = BENCH / "data" / "manuals"
RESULTS = BENCH / "results"
P50_TARGET_MS = 30.0
P95_TARGET_MS = 80.0


def percentile(values: list[float], p: float) -> float:
    """Return the ``p``-th percentile (0-100) of ``values`` by linear interpolation."""
    vals = sorted(values)
    if not vals:
        return float("nan")
    pos = (len(vals) - 1) * p / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def make_queries(lib, n: int, seed: int = 7) -> list[str]:
    """Return ``n`` queries: the development questions, then section titles and text phrases."""
    qs = [json.loads(line)["query"] for line in (BENCH / "questions.jsonl").read_text().splitlines() if line]
    rng = random.Random(seed)
    sections = sorted({r[0].split(" > ")[-1] for r in lib.conn.execute("SELECT section FROM chunks") if r[0]})
    rng.shuffle(sections)
    texts = [r[0] for r in lib.conn.execute("SELECT text FROM chunks WHERE kind = 'text' ORDER BY id")]
    i = 0
    while len(qs) < n:
        if i % 2 == 0 and sections:
            qs.append(sections.pop())
        else:
            words = rng.choice(texts).split()
            start = rng.randrange(max(1, len(words) - 8))
            phrase = " ".join(words[start:start + rng.randint(3, 8)])
            if sum(ch.isalpha() for ch in phrase) >= 6:  # skip punctuation-only samples
                qs.append(phrase)
        i += 1
    return qs[:n]


def _summary(ms: list[float]) -> dict:
    return {"n": len(ms), "p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95),
            "mean_ms": statistics.fmean(ms), "max_ms": max(ms)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Search latency with warm models.")
    ap.add_argument("--library", type=Path, default=BENCH / "data" / "lib-1000")
    ap.add_argument("--manuals", nargs="*", default=["ngspice-manual.pdf", "gnuplot.pdf"])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--torch-threads", type=int, default=None,
                    help="torch.set_num_threads(N) before searching (default: leave the engine's choice)")
    ap.add_argument("--seed-from", type=Path, default=None,
                    help="copy this library (e.g. bench/data/lib-eval) instead of ingesting from scratch")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--cold", action="store_true", help="as `mmrag add --no-warm-up` leaves a library (see above)")
    args = ap.parse_args(argv)

    import hnswlib
    import numpy as np

    from mmrag_desktop.engine.library import Library

    if args.seed_from and not args.library.exists():
        # reuse an already ingested library (e.g. eval_search's) and drop the other manuals
        shutil.copytree(args.seed_from, args.library)
        with Library.open(args.library) as seeded:
            for info in seeded.documents():
                if info.name not in args.manuals:
                    seeded.remove(info.id)
    lib = Library.open(args.library)
    try:
        t0 = time.perf_counter()
        for ev in lib.add([MANUALS / m for m in args.manuals]):
            if ev.stage == "failed":
                raise RuntimeError(f"{ev.doc}: {ev.message}")
        for _ev in lib.enrich():  # full quality (sentence vectors), as `mmrag add` leaves a library
            pass
        t_add = time.perf_counter() - t0
        if args.cold:
            lib.close()
            cold = args.library.with_name(args.library.name + "-cold")
            shutil.rmtree(cold, ignore_errors=True)
            shutil.copytree(args.library, cold, ignore=shutil.ignore_patterns("*.lock"))
            lib = Library.open(cold)
            with lib.conn:
                lib.conn.execute("DELETE FROM sentence_vectors WHERE chunk_id NOT IN "
                                 "(SELECT id FROM chunks WHERE kind = 'table')")
            args.warmup = 0
            lib.embedder.encode(["load the model"])
        pages = lib.conn.execute("SELECT SUM(pages) FROM documents").fetchone()[0]
        chunks = lib.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        queries = make_queries(lib, args.queries)
        if args.torch_threads:  # after the model load, which applies the engine's own setting
            import torch

            lib.embedder.encode(["load the model"])
            torch.set_num_threads(args.torch_threads)
        for q in queries[: args.warmup]:
            lib.search(q, k=10)
        engine_ms = []
        for q in queries:
            t0 = time.perf_counter()
            lib.search(q, k=10)
            engine_ms.append((time.perf_counter() - t0) * 1000)
        embed_ms = []
        vecs = []
        for q in queries:
            t0 = time.perf_counter()
            vecs.append(lib.embedder.encode([q])[0])
            embed_ms.append((time.perf_counter() - t0) * 1000)
        lib.text_index().save()
        index_path = lib.text_index().path  # after saving: a save may write a new file
    finally:
        lib.close()

    raw = hnswlib.Index(space="ip", dim=len(vecs[0]))
    raw.load_index(str(index_path))
    raw.set_ef(64)
    raw.set_num_threads(1)
    qv = np.asarray(vecs, dtype=np.float32)
    for v in qv[: args.warmup]:
        raw.knn_query(v.reshape(1, -1), k=10)
    raw_ms = []
    for v in qv:
        t0 = time.perf_counter()
        raw.knn_query(v.reshape(1, -1), k=10)
        raw_ms.append((time.perf_counter() - t0) * 1000)

    eng, rw, emb = _summary(engine_ms), _summary(raw_ms), _summary(embed_ms)
    out = {
        "machine_note": f"{os.cpu_count()} cores; load average {os.getloadavg()} at the end (shared machine)",
        "library": {"manuals": args.manuals, "pages": pages, "chunks": chunks, "add_s": t_add},
        "engine_search": eng, "raw_hnswlib_knn": rw, "query_embedding": emb,
        "ratio_p50_engine_to_raw_knn": eng["p50_ms"] / rw["p50_ms"],
        "ratio_p50_engine_to_embed_plus_knn": eng["p50_ms"] / (emb["p50_ms"] + rw["p50_ms"]),
        "targets_ms": {"p50": P50_TARGET_MS, "p95": P95_TARGET_MS},
        "torch_threads": args.torch_threads or "engine default",
    }
    print(f"library: {pages} pages, {chunks} chunks; {len(queries)} queries after {args.warmup} warm-up")
    print("| what | p50 ms | p95 ms | mean ms | max ms |")
    print("|---|---|---|---|---|")
    for name, s in (("Library.search k=10", eng), ("query embedding alone", emb), ("raw hnswlib knn_query", rw)):
        print(f"| {name} | {s['p50_ms']:.2f} | {s['p95_ms']:.2f} | {s['mean_ms']:.2f} | {s['max_ms']:.2f} |")
    print(f"ratio p50 engine / raw knn: {out['ratio_p50_engine_to_raw_knn']:.0f}x; "
          f"engine / (embedding + knn): {out['ratio_p50_engine_to_embed_plus_knn']:.1f}x")
    print(f"{'PASS' if eng['p50_ms'] <= P50_TARGET_MS else 'FAIL'} p50 (target <= {P50_TARGET_MS} ms); "
          f"{'PASS' if eng['p95_ms'] <= P95_TARGET_MS else 'FAIL'} p95 (target <= {P95_TARGET_MS} ms)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "speed_search.json" if not args.torch_threads else f"speed_search_t{args.torch_threads}.json"
    if args.cold:
        name = name.replace(".json", "_cold.json")
        out["cold"] = True
    (RESULTS / name).write_text(json.dumps(out, indent=1))
    print(f"wrote {RESULTS / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
