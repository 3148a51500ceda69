"""Scale on both backends (issue 16): a synthetic library of N chunks (scale.py's generator: text,
5% tables, random unit 384-d vectors) as a folder (SQLite + hnswlib) and moved to PostgreSQL +
pgvector with `export_to` (COPY), for N in --sizes:

- SQLite: insert time, hnswlib index build from SQLite, disk size;
- PostgreSQL: bulk load (export_to's COPY), HNSW index build, database size, server RSS;
- both: search p50/p95 through `Library.search` (the real MiniLM encodes each query; the library's
  vectors are random, so only times mean anything) with 1 client and with 8 concurrent client
  processes (each its own `Library.open(..., access="read")`), and queries/s with 8.

    .venv/bin/python bench/scale_pg.py --sizes 100000 300000 1000000

Writes bench/results/scale_pg.json (one entry per size, appended as each finishes). Needs disk
under bench/data/scale-pg (deleted after each size unless --keep).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from scale import VOCAB, _pct, populate, timed_searches  # noqa: E402

RESULTS = BENCH / "results"
CLIENTS = 8
QUERIES_PER_CLIENT = 25


def queries(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(VOCAB, rng.randint(2, 6))) for _ in range(n)]


def client(location: str, seed: int, n: int, ready, start, out) -> None:
    """One reader process: open the library, warm up, say so, wait for the start, time `n` searches."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.settings import Settings

    lib = Library.open(location, Settings(threads=1), access="read")
    qs = queries(n + 3, seed)
    for q in qs[:3]:  # warm up: not timed
        lib.search(q, k=10)
    ready.put(1)
    start.wait()
    times = timed_searches(lib, qs[3:], warm=0)
    lib.close()
    out.put(times)


def concurrent(location: str, clients: int) -> dict:
    """p50/p95 over every search of `clients` processes searching at once, and queries/s."""
    ctx = mp.get_context("spawn")
    ready, start, out = ctx.Queue(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=client, args=(str(location), 100 + i, QUERIES_PER_CLIENT, ready, start, out))
             for i in range(clients)]
    for p in procs:
        p.start()
    for _ in procs:  # every client has loaded its model and index and searched
        ready.get(timeout=3600)
    t0 = time.perf_counter()
    start.set()
    times = []
    for _ in procs:
        times.extend(out.get(timeout=3600))
    wall = time.perf_counter() - t0
    for p in procs:
        p.join(60)
    return {"clients": clients, "searches": len(times), "p50_ms": round(_pct(times, 50), 1),
            "p95_ms": round(_pct(times, 95), 1), "queries_per_s": round(len(times) / wall, 1)}


def single(lib) -> dict:
    times = timed_searches(lib, queries(60, 7), warm=5)
    return {"clients": 1, "searches": len(times), "p50_ms": round(_pct(times, 50), 1),
            "p95_ms": round(_pct(times, 95), 1), "mean_ms": round(statistics.mean(times), 1)}


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def server_rss_mb() -> float:
    import psutil

    return sum(p.memory_info().rss for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres") / 2**20


def run_size(n: int, work: Path, backends: list[str], shared_buffers: str, reuse: bool = False) -> dict:
    import pgserver
    import psycopg
    from pgserver._commands import pg_ctl

    from mmrag_desktop.engine.library import Library

    row: dict = {"chunks": n}
    folder = work / "lib"
    if not reuse:
        lib = Library.open(folder)
        lib.embedder.encode(["warm up"])
        row["sqlite_insert_s"] = round(populate(lib, n), 1)
        lib.close()
        shutil.rmtree(folder / "index", ignore_errors=True)
        lib = Library.open(folder)
        t0 = time.perf_counter()
        lib.text_index()
        row["sqlite_index_build_s"] = round(time.perf_counter() - t0, 1)
        lib.close()  # saves the index files the readers load
    row["sqlite_disk_mb"] = round(folder_mb(folder))
    if "sqlite" in backends:
        with Library.open(folder, access="read") as lib:
            row["sqlite_1_client"] = single(lib)
        print(json.dumps(row), flush=True)
        row["sqlite_8_clients"] = concurrent(str(folder), CLIENTS)
        print(json.dumps(row), flush=True)
    if "postgres" in backends:
        server = pgserver.get_server(work / "pg", cleanup_mode="stop")
        try:
            with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE scale")
                conn.execute("ALTER SYSTEM SET maintenance_work_mem = '6GB'")
                conn.execute("ALTER SYSTEM SET max_parallel_maintenance_workers = 1")
                # as a team's server would be set up (pgserver's default is 128 MB): the HNSW index
                # and the tables are read from shared memory, not through the OS cache
                conn.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}'")
                conn.execute("ALTER SYSTEM SET effective_cache_size = '12GB'")
            pg_ctl(["-w", "restart", "-m", "fast"], pgdata=server.pgdata, user=server.system_user)
            row["pg_shared_buffers"] = shared_buffers
            uri = server.get_uri("scale")
            marks = {}
            with Library.open(folder, access="read") as source:
                t0 = time.perf_counter()
                for ev in source.export_to(uri):
                    if ev.stage == "index" and "index" not in marks:
                        marks["index"] = time.perf_counter()
                t1 = time.perf_counter()
            row["pg_bulk_load_s"] = round(marks.get("index", t1) - t0, 1)
            row["pg_index_build_s"] = round(t1 - marks.get("index", t1), 1)
            with psycopg.connect(uri, autocommit=True) as conn:
                row["pg_db_mb"] = round(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
                                        / 2**20)
                row["pg_hnsw_mb"] = round(conn.execute(
                    "SELECT COALESCE(SUM(pg_relation_size(name::regclass)), 0) FROM vector_indexes").fetchone()[0]
                    / 2**20)
            with Library.open(uri, access="read") as lib:
                row["pg_1_client"] = single(lib)
            print(json.dumps(row), flush=True)
            row["pg_8_clients"] = concurrent(uri, CLIENTS)
            row["pg_server_rss_mb"] = round(server_rss_mb())
        finally:
            server.cleanup()
    row["bench_ru_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    row["load_average"] = os.getloadavg()
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    ap.add_argument("--backends", nargs="+", default=["sqlite", "postgres"])
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--reuse", action="store_true",
                    help="use the library a killed run left in bench/data/scale-pg (one size; with --backends postgres)")
    ap.add_argument("--shared-buffers", default="4GB", help="PostgreSQL's shared_buffers for the run")
    args = ap.parse_args(argv)
    out_path = RESULTS / "scale_pg.json"
    RESULTS.mkdir(parents=True, exist_ok=True)
    done = json.loads(out_path.read_text()) if out_path.exists() else []
    for n in args.sizes:
        work = BENCH / "data" / "scale-pg"
        reuse = args.reuse and (work / "lib" / "index").is_dir()
        if not reuse:
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
        shutil.rmtree(work / "pg", ignore_errors=True)
        row = run_size(n, work, args.backends, args.shared_buffers, reuse)
        print(json.dumps(row), flush=True)
        old = next((r for r in done if r["chunks"] == n), {})
        row = {**old, **row} if reuse else row  # a reused library keeps its earlier SQLite figures
        done = [r for r in done if r["chunks"] != n] + [row]
        out_path.write_text(json.dumps(done, indent=1))
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
