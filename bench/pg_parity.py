"""The same questions on both backends (issue 16): a folder library (SQLite FTS5 + hnswlib) and the
same library moved to PostgreSQL + pgvector with `export_to` (nothing parsed or embedded again),
scored in one process. Also compares the keyword retrievers alone (FTS5's BM25 against
PostgreSQL's (postgres/bm25.py): overlap of their top 20 and whether a gold page is in it), and times
single-client search on both.

    .venv/bin/python bench/pg_parity.py                       # dev, heldout, heldout2
    .venv/bin/python bench/pg_parity.py --sets heldout2

Starts a pgserver (PostgreSQL 16.2 + pgvector 0.6.2) under bench/data/pg-parity and stops it at
the end. Libraries as bench/sweep.py (build them first). Writes bench/results/pg_parity.json.
Target: every measure within 0.02 between the backends.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from metrics import score_run  # noqa: E402
from sweep import SETS  # noqa: E402

MEASURES = ("R@1", "R@5", "MRR@10", "box@5")


def keyword_lists(lib, questions: list[dict], n: int = 20) -> dict[str, list[int]]:
    """The keyword retriever's top `n` chunk ids per question, as the searcher asks for them."""
    from mmrag_desktop.engine.search import searcher as searcher_mod
    from mmrag_desktop.engine.search.query import plan_query
    from mmrag_desktop.engine.store.chunks import Filters

    chunks = lib.store.chunks
    out = {}
    for q in questions:
        plan = plan_query(q["query"])
        idf = chunks.term_idf(plan.terms)
        expr = searcher_mod._keyword_query(plan, idf, chunks.count())  # noqa: SLF001
        out[q["id"]] = chunks.keyword_ids(expr, n, Filters())
    return out


def gold_in(lib, ids: list[int], q: dict) -> bool:
    """True when one of the chunks `ids` lies on a gold page of `q`."""
    rows = lib.store.chunks.rows(ids)
    names = lib.store.documents.names()
    gold = {(g["doc"], g["page"]) for g in q["gold"]}
    return any((names[r["doc_id"]][0], p) in gold for r in rows.values() for p in range(r["page"], r["page_end"] + 1))


def timed_run(lib, questions: list[dict]) -> tuple[dict, list[float]]:
    hits, times = {}, []
    for q in questions:
        t0 = time.perf_counter()
        hits[q["id"]] = [h.to_json() for h in lib.search(q["query"], k=10)]
        times.append((time.perf_counter() - t0) * 1000)
    return hits, times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="*", default=["dev", "heldout", "heldout2"])
    ap.add_argument("--lib", action="append", default=[], metavar="SET=DIR")
    args = ap.parse_args(argv)

    import pgserver
    import psycopg

    from mmrag_desktop.engine.library import Library

    folders = {name: BENCH / "data" / libdir for name, (_q, libdir) in SETS.items()}
    folders.update({k: Path(v) for k, v in (x.split("=", 1) for x in args.lib)})
    data = BENCH / "data" / "pg-parity"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    server = pgserver.get_server(data, cleanup_mode="stop")
    results, opened = [], {}
    try:
        for name in args.sets:
            folder = folders[name]
            if not (folder / "library.sqlite").exists():
                print(f"skip {name}: no library in {folder}", file=sys.stderr)
                continue
            if folder not in opened:
                db = f"parity_{len(opened)}"
                with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                    conn.execute(f"CREATE DATABASE {db}")
                uri = server.get_uri(db)
                local = Library.open(folder, access="read")
                t0 = time.perf_counter()
                for _ in local.export_to(uri):
                    pass
                export_s = time.perf_counter() - t0
                opened[folder] = (local, Library.open(uri, access="read"), export_s)
                print(f"{folder.name}: exported to PostgreSQL in {export_s:.1f} s "
                      f"({len(local.documents())} documents)", file=sys.stderr)
            local, remote, export_s = opened[folder]
            questions = [json.loads(x) for x in (BENCH / SETS[name][0]).read_text().splitlines() if x.strip()]
            row = {"set": name, "export_s": round(export_s, 1)}
            for backend, lib in (("sqlite", local), ("postgres", remote)):
                lib.search("warm up the models", k=10)
                hits, times = timed_run(lib, questions)
                agg = score_run(questions, hits)["overall"]
                row[backend] = {m: agg[m] for m in MEASURES}
                row[backend]["n"] = agg["n"]
                row[backend]["search_p50_ms"] = round(statistics.median(times), 1)
                row[backend]["search_p95_ms"] = round(sorted(times)[int(0.95 * (len(times) - 1))], 1)
            answerable = [q for q in questions if q.get("gold")]
            kw_local, kw_remote = keyword_lists(local, answerable), keyword_lists(remote, answerable)
            overlap = [len(set(kw_local[i]) & set(kw_remote[i])) / max(1, len(set(kw_local[i]) | set(kw_remote[i])))
                       for i in kw_local if kw_local[i] or kw_remote[i]]
            row["keyword"] = {
                "jaccard_top20": round(statistics.mean(overlap), 3) if overlap else None,
                "gold_in_top20_sqlite": round(sum(gold_in(local, kw_local[q["id"]], q) for q in answerable)
                                            / len(answerable), 3),
                "gold_in_top20_postgres": round(sum(gold_in(remote, kw_remote[q["id"]], q) for q in answerable)
                                                  / len(answerable), 3),
            }
            row["max_diff"] = round(max(abs(row["sqlite"][m] - row["postgres"][m]) for m in MEASURES), 3)
            results.append(row)
            print(json.dumps(row), flush=True)
    finally:
        for local, remote, _ in opened.values():
            local.close()
            remote.close()
        server.cleanup()
    print("| set | backend | n | R@1 | R@5 | MRR@10 | box@5 | search p50 / p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        for backend in ("sqlite", "postgres"):
            b = r[backend]
            print(f"| {r['set']} | {backend} | {b['n']} | {b['R@1']:.3f} | {b['R@5']:.3f} | {b['MRR@10']:.3f} | "
                  f"{b['box@5']:.3f} | {b['search_p50_ms']} / {b['search_p95_ms']} |")
    print("\n| set | max difference | keyword top-20 Jaccard | gold page in keyword top 20: SQLite / PostgreSQL |")
    print("|---|---|---|---|")
    for r in results:
        k = r["keyword"]
        print(f"| {r['set']} | {r['max_diff']:.3f} | {k['jaccard_top20']} | {k['gold_in_top20_sqlite']} / "
              f"{k['gold_in_top20_postgres']} |")
    out = BENCH / "results" / "pg_parity.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
