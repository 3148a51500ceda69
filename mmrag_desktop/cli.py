"""`mmrag`: the headless front end over the engine (scripts, benchmarks, tests).

    mmrag --library DIR add PATH...                 # files or folders; progress on stderr
    mmrag --library DIR search "query" [-k 10] [--json]
    mmrag --library DIR search --batch QUERIES.jsonl [-k 10] > RESULTS.jsonl
    mmrag --library DIR ask "question" [--json]
    mmrag --library DIR list | remove DOC | reindex
    mmrag models

Engine errors print one line `mmrag: error: ...` on stderr and exit non-zero.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .engine.errors import EngineError

EXIT_FILES_FAILED = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every verb (each verb sets `func`)."""
    p = argparse.ArgumentParser(prog="mmrag", description="Search and ask your technical manuals, offline.")
    p.add_argument("--library", metavar="DIR", help="library folder (default: the app's data folder)")
    p.add_argument("--version", action="version", version=f"mmrag {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    a = sub.add_parser("add", help="add files or folders (PDF, images, Markdown, Docling JSON)")
    a.add_argument("paths", nargs="+", metavar="PATH")
    a.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    a.add_argument("--no-enrich", action="store_true",
                   help="skip the background work that follows (sentence vectors for sharper highlights; "
                        "OCR of raster figures, image vectors, captions); `enrich` runs it later")
    a.set_defaults(func=cmd_add)

    e = sub.add_parser("enrich", help="run pending background work (sentence vectors; OCR of raster figures, "
                                      "image vectors, captions)")
    e.set_defaults(func=cmd_enrich)

    s = sub.add_parser("search", help="ranked hits with page and highlight box")
    s.add_argument("query", nargs="?", help="the query text")
    s.add_argument("--batch", metavar="QUERIES.jsonl", help='one {"id":..., "query":...} per line; "-" for stdin')
    s.add_argument("-k", type=int, default=10, help="number of hits (default 10)")
    s.add_argument("--json", action="store_true", help="print the hits as one JSON object")
    s.add_argument("--doc", action="append", metavar="DOC", help="only this document (id or file name); repeatable")
    s.add_argument("--pages", metavar="FROM-TO", help="only these pages, e.g. 10-20")
    s.add_argument("--kind", action="append", choices=["text", "table", "figure", "caption"],
                   help="only hits of this kind; repeatable")
    s.add_argument("--image", metavar="IMAGE", help="search by image instead of text")
    s.set_defaults(func=cmd_search)

    lst = sub.add_parser("list", help="documents with status")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)

    r = sub.add_parser("remove", help="remove a document (id, file name or path)")
    r.add_argument("doc", metavar="DOC")
    r.set_defaults(func=cmd_remove)

    ri = sub.add_parser("reindex", help="re-ingest every document and rebuild the indices")
    ri.set_defaults(func=cmd_reindex)

    for module in ("cli_ask", "cli_models"):
        _register_optional(module, sub)
    return p


def _register_optional(module: str, sub) -> None:
    import importlib

    try:
        mod = importlib.import_module(f"mmrag_desktop.{module}")
    except ModuleNotFoundError as e:
        if e.name != f"mmrag_desktop.{module}":
            raise
        return
    mod.register(sub)


def _version() -> str:
    from . import __version__

    return __version__


def open_library(args):
    """The Library named by --library (or the settings' default)."""
    from .engine.library import Library
    from .engine.settings import Settings

    settings = Settings.load()
    return Library.open(Path(args.library) if args.library else None, settings)


# ---- verbs ------------------------------------------------------------------------------
def _report(events, bar: ProgressBar) -> int:
    """Print one line per finished/failed/skipped document, a bar otherwise; returns failures."""
    failed = 0
    labels = {"failed": "FAILED  ", "skipped": "skipped ", "done": "added   "}
    for ev in events:
        if ev.stage in labels:
            failed += ev.stage == "failed"
            bar.line(f"{labels[ev.stage]}{ev.doc}: {ev.message}")
        elif ev.stage in ("finished", "index") or ev.extra.get("errors"):
            bar.line(ev.message)
        else:
            bar.update(ev)
    return failed


def _run_job(args, job, interrupted: str, *, quiet: bool = False) -> int:
    """Run `job(lib, bar) -> failures` on the --library library; exit code 0, 3 or 130."""
    lib = open_library(args)
    bar = ProgressBar(enabled=not quiet)
    try:
        failed = job(lib, bar)
    except KeyboardInterrupt:
        bar.line(f"interrupted: {interrupted}")
        return 130
    finally:
        bar.close()
        lib.close()
    return EXIT_FILES_FAILED if failed else 0


def cmd_add(args) -> int:
    def job(lib, bar):
        failed = _report(lib.add(args.paths), bar)
        if not args.no_enrich:
            _report(lib.enrich(), bar)
        return failed

    return _run_job(args, job, "documents finished so far are kept; run add again to resume", quiet=args.quiet)


def cmd_enrich(args) -> int:
    return _run_job(args, lambda lib, bar: _report(lib.enrich(), bar) and 0,
                    "finished work is kept; run enrich again to resume")


def _filters_from(args) -> dict:
    pages = None
    if args.pages:
        try:
            lo, _, hi = args.pages.partition("-")
            pages = (int(lo), int(hi or lo))
        except ValueError:
            raise EngineError(f"--pages wants FROM-TO, e.g. 10-20 (got {args.pages!r})") from None
    return {"docs": args.doc, "pages": pages, "kinds": args.kind}


def cmd_search(args) -> int:
    if not args.batch and args.query is None and not args.image:
        raise EngineError("give a query, --batch FILE or --image FILE")
    lib = open_library(args)
    try:
        filters = _filters_from(args)
        if args.batch:
            return _search_batch(lib, args.batch, args.k, filters)
        if args.image:
            hits = lib.search_image(args.image, k=args.k, docs=filters["docs"])
        else:
            hits = lib.search(args.query, k=args.k, **filters)
        _print_search_notice(lib)
        if args.json:
            print(json.dumps({"query": args.query, "hits": [h.to_json() for h in hits]}, ensure_ascii=False))
        else:
            _print_hits(hits)
        return 0
    finally:
        lib.close()


def _search_batch(lib, path: str, k: int, filters: dict) -> int:
    stream = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
    errors = 0
    with stream:
        for n, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                qid, query = item.get("id", n), item["query"]
            except (json.JSONDecodeError, KeyError, AttributeError) as e:
                raise EngineError(f"{path}:{n}: not a {{\"id\", \"query\"}} JSON line ({e})") from e
            out: dict = {"id": qid}
            try:
                out["hits"] = [h.to_json() for h in lib.search(query, k=k, **filters)]
            except EngineError as e:
                errors += 1
                out["hits"] = []
                out["error"] = str(e)
            print(json.dumps(out, ensure_ascii=False), flush=False)
    sys.stdout.flush()
    _print_search_notice(lib)
    if errors:
        print(f"mmrag: {errors} quer{'y' if errors == 1 else 'ies'} failed (see \"error\" in the output)",
              file=sys.stderr)
    return 0


def _print_search_notice(lib) -> None:
    """Say on stderr when search ran without a model the user configured (Library.model_notices)."""
    for notice in lib.model_notices:
        print(f"note: {notice}", file=sys.stderr)


def _print_hits(hits) -> None:
    if not hits:
        print("no hits")
        return
    for i, h in enumerate(hits, start=1):
        box = "" if h.bbox is None else " [" + ", ".join(f"{v:.0f}" for v in h.bbox) + "]"
        tag = " (related)" if h.enriched else ""
        print(f"{i:2d}. {h.doc} p.{h.page}{box}  {h.kind}  {h.score:.4f}{tag}")
        if h.section:
            print(f"    § {h.section}")
        snippet = " ".join(h.text.split())
        print(f"    {snippet[:220]}{'…' if len(snippet) > 220 else ''}")


def cmd_list(args) -> int:
    lib = open_library(args)
    try:
        docs = lib.documents()
    finally:
        lib.close()
    if args.json:
        print(json.dumps([d.to_json() for d in docs], ensure_ascii=False))
        return 0
    if not docs:
        print("the library is empty: mmrag add PATH...")
        return 0
    for d in docs:
        err = f"  ({d.error})" if d.error else ""
        print(f"{d.id:4d}  {d.status:8s} {d.pages:5d} p {d.chunks:6d} chunks  {d.name}{err}")
    return 0


def cmd_remove(args) -> int:
    lib = open_library(args)
    try:
        info = lib.remove(args.doc)
    finally:
        lib.close()
    print(f"removed {info.name} ({info.chunks} chunks)")
    return 0


def cmd_reindex(args) -> int:
    return _run_job(args, lambda lib, bar: _report(lib.reindex(), bar),
                    "documents finished so far are kept; run reindex again")


class ProgressBar:
    """A one-line progress bar on stderr (plain lines when stderr is not a terminal)."""

    def __init__(self, enabled: bool = True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self._last = 0.0
        self._width = 0

    def update(self, ev) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not self.tty and now - self._last < 2.0:
            return
        if self.tty and now - self._last < 0.1:
            return
        self._last = now
        frac = ev.done / ev.total if ev.total else 0.0
        bar = "#" * int(frac * 20)
        rate = f" {ev.rate:.0f} {ev.unit}/s" if ev.rate else ""
        eta = f" ETA {ev.eta:.0f}s" if ev.eta is not None else ""
        counter = f"[{min(ev.docs_done + 1, ev.docs_total)}/{ev.docs_total}] " if ev.docs_total else ""
        text = (f"{counter}{ev.doc[:40]} {ev.stage} [{bar:20s}] "
                f"{ev.done}/{ev.total} {ev.unit}{rate}{eta}")
        self._write(text)

    def _write(self, text: str) -> None:
        if self.tty:
            pad = max(0, self._width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def line(self, text: str) -> None:
        if self.tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self._width = 0
        self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()


def run(argv: list[str] | None = None, *, error: Callable[[str], None] | None = None) -> int:
    """Parse `argv` and run the verb; engine errors become a one-line message and exit code."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except EngineError as e:
        (error or (lambda m: print(m, file=sys.stderr)))(f"mmrag: error: {e}")
        return getattr(e, "exit_code", 1)
    except BrokenPipeError:
        return 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
