"""`mmrag`: the headless front end over the engine (scripts, benchmarks, tests).

    mmrag --library DIR add PATH...                 # files or folders; progress on stderr
    mmrag --library DIR search "query" [-k 10] [--json]
    mmrag --library DIR search --batch QUERIES.jsonl [-k 10] > RESULTS.jsonl
    mmrag --library DIR ask "question" [--json]
    mmrag --library DIR list | remove DOC | reindex
    mmrag models
    mmrag --version

Every verb also takes -q/--quiet (only results and errors), -v/--verbose (log lines on stderr:
-v info, -vv debug) and --library, before or after the verb. Engine errors print one line
`mmrag: error: ...` on stderr and exit non-zero; Ctrl+C prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable

from .engine.errors import EngineError
from .engine.log_lines import OneLineFormatter

EXIT_FILES_FAILED = 3
EXIT_INTERRUPTED = 130

log = logging.getLogger(__name__)


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """-q/-v/--library on `parser`. Their default is SUPPRESS so that a verb's parser does not
    overwrite what was given before the verb; `run` fills in the real defaults."""
    parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="print only results and errors (no progress, notes or per-file lines)")
    parser.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="log lines on stderr: -v info, -vv debug (-vvv: other libraries' debug too)")
    parser.add_argument("--library", metavar="DIR|URL", default=argparse.SUPPRESS,
                        help="library folder (default: the app's data folder), or a team library on PostgreSQL: "
                             "postgresql://user@host/db (password from ~/.pgpass or PGPASSWORD)")


class VerbParser(argparse.ArgumentParser):
    """The parser of a verb (and of a verb's sub-verb): it has the common options too."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        add_common_options(self)


WARM_UP_HELP = ("stop when search is at full quality: skip encoding every sentence ahead (results are the same; "
                "a search then encodes the passages it ranks the first time, a fraction of a second)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every verb (each verb sets `func`)."""
    p = argparse.ArgumentParser(prog="mmrag", description="Search and ask your technical manuals, offline.")
    add_common_options(p)
    p.add_argument("--version", action="version", version=f"mmrag {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=VerbParser)
    sub.required = True

    a = sub.add_parser("add", help="add files or folders (PDF, images, Markdown, Docling JSON)")
    a.add_argument("paths", nargs="+", metavar="PATH")
    a.add_argument("--no-enrich", action="store_true",
                   help="skip the background work that follows (table rows encoded row by row; OCR of raster "
                        "figures, image vectors, captions; sentences encoded ahead); `enrich` runs it later")
    a.add_argument("--no-warm-up", action="store_true", help=WARM_UP_HELP)
    a.set_defaults(func=cmd_add)

    e = sub.add_parser("enrich", help="run pending background work (table rows encoded row by row; OCR of raster "
                                      "figures, image vectors, captions; sentences encoded ahead)")
    e.add_argument("--no-warm-up", action="store_true", help=WARM_UP_HELP)
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

    co = sub.add_parser("compact", help="reclaim space: indices with many deleted entries, unused crops and files")
    co.set_defaults(func=cmd_compact)

    ex = sub.add_parser("export", help="copy the library to a new, empty library on the other backend (a "
                                       "folder or postgresql://...), or from one: vectors and files included")
    way = ex.add_mutually_exclusive_group(required=True)
    way.add_argument("--to", metavar="DIR|URL", help="copy --library into this new, empty library")
    way.add_argument("--from", dest="source", metavar="DIR|URL", help="copy this library into --library (empty)")
    ex.set_defaults(func=cmd_export)

    for module in ("cli_ask", "cli_models", "cli_watch", "cli_eval"):
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


def note(args, message: str) -> None:
    """A `note: ...` line on stderr (a fallback, a missing model), unless --quiet."""
    if not args.quiet:
        print(f"note: {message}", file=sys.stderr)


class _StderrHandler(logging.StreamHandler):
    """Log records to the current sys.stderr, through tqdm.write so a progress bar stays intact."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from tqdm import tqdm

            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # never let logging break the command
            self.handleError(record)


@contextlib.contextmanager
def logging_to_stderr(verbose: int, quiet: bool):
    """Log to stderr while the verb runs: warnings (`mmrag: warning: ...`) by default, errors only
    with -q, the app's info with -v, its debug with -vv, every library's debug too with -vvv.
    The logging setup is put back afterwards (tests call `run` many times in one process)."""
    root, app = logging.getLogger(), logging.getLogger("mmrag_desktop")
    saved = root.level, app.level
    handler = _StderrHandler()
    if verbose:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S"))
    else:
        handler.setFormatter(OneLineFormatter())
    # by level on the handler too: a GUI run earlier in the same process may have lowered the root's
    handler.setLevel(logging.ERROR if quiet else logging.NOTSET if verbose else logging.WARNING)
    root.addHandler(handler)
    if verbose:
        app.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
    if verbose >= 3:
        root.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(saved[0])
        app.setLevel(saved[1])


def open_library(args, *, write: bool = True):
    """The Library named by --library (or the settings' default). Verbs that only read (`write`
    False) open it read-only when another program is writing to it."""
    from .engine.library import Library
    from .engine.location import library_location
    from .engine.settings import Settings

    t0 = time.perf_counter()
    settings = Settings.load()
    lib = Library.open(library_location(args.library) if args.library else None, settings,
                       access="write" if write else "auto")
    if lib.read_only:
        log.info("%s", lib.read_only_reason)
    log.info("library %s opened in %.2f s", lib.where, time.perf_counter() - t0)
    return lib


# ---- verbs ------------------------------------------------------------------------------
def report_events(events, bar: ProgressBar) -> int:
    """Print one line per finished/failed/skipped document, a bar otherwise; returns failures.
    With --quiet (the bar disabled) only the FAILED lines are printed."""
    failed = 0
    labels = {"failed": "FAILED  ", "skipped": "skipped ", "done": "added   ", "moved": "moved   ",
              "removed": "removed "}
    for ev in events:
        if ev.stage in labels:
            failed += ev.stage == "failed"
            if bar.enabled or ev.stage == "failed":
                bar.line(f"{labels[ev.stage]}{ev.doc}: {ev.message}")
        elif ev.extra.get("errors"):  # a figure whose enrichment failed (the job goes on)
            failed += 1
            bar.line(f"FAILED  {ev.doc}: {ev.message}")
        elif ev.stage == "unavailable":  # a watched folder that is missing: always said
            bar.line(f"missing {ev.message}")
        elif ev.stage in ("finished", "index", "watched"):
            if bar.enabled:
                bar.line(ev.message)
        else:
            bar.update(ev)
    return failed


def _run_job(args, job, interrupted: str) -> int:
    """Run `job(lib, bar) -> failures` on the --library library; exit code 0, 3 or 130."""
    lib = open_library(args)
    bar = ProgressBar(enabled=not args.quiet)
    try:
        failed = job(lib, bar)
    except KeyboardInterrupt:
        bar.line(f"mmrag: interrupted: {interrupted}")
        return EXIT_INTERRUPTED
    finally:
        bar.close()
        lib.close()
    return EXIT_FILES_FAILED if failed else 0


def cmd_add(args) -> int:
    def job(lib, bar):
        # with figure work and the sentence pass to follow, ingest runs in a child process: the
        # models only ingest needs (the bulk pass's PyTorch) leave with it, so this process reads
        # the figures with less memory held (bench/rss_add.py; bench/README.md, session 17)
        failed = report_events(lib.add(args.paths, isolated=not args.no_enrich), bar)
        lib.release_child()
        if not args.no_enrich:
            report_events(lib.enrich(warm_up=not args.no_warm_up), bar)
        return failed

    return _run_job(args, job, "documents finished so far are kept; run add again to resume")


def cmd_enrich(args) -> int:
    return _run_job(args, lambda lib, bar: report_events(lib.enrich(warm_up=not args.no_warm_up), bar),
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
    lib = open_library(args, write=False)
    try:
        filters = _filters_from(args)
        if args.batch:
            return _search_batch(args, lib, filters)
        if args.image:
            hits = lib.search_image(args.image, k=args.k, docs=filters["docs"])
        else:
            hits = lib.search(args.query, k=args.k, **filters)
        _print_search_notice(args, lib)
        if args.json:
            print(json.dumps({"query": args.query, "hits": [h.to_json() for h in hits]}, ensure_ascii=False))
        else:
            _print_hits(hits)
        return 0
    finally:
        lib.close()


def _search_batch(args, lib, filters: dict) -> int:
    path, k = args.batch, args.k
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
    _print_search_notice(args, lib)
    if errors:
        print(f"mmrag: {errors} quer{'y' if errors == 1 else 'ies'} failed (see \"error\" in the output)",
              file=sys.stderr)
        return EXIT_FILES_FAILED
    return 0


def _print_search_notice(args, lib) -> None:
    """Say on stderr when search ran without a model the user configured (Library.model_notices)."""
    for notice in lib.model_notices:
        note(args, notice)


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
    lib = open_library(args, write=False)
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
    return _run_job(args, lambda lib, bar: report_events(lib.reindex(), bar),
                    "documents finished so far are kept; run reindex again")


def cmd_compact(args) -> int:
    lib = open_library(args)
    try:
        done = lib.compact()
    finally:
        lib.close()
    if not args.quiet:
        print("\n".join(done) if done else "nothing to compact")
    return 0


def cmd_export(args) -> int:
    from .engine.location import describe, library_location

    def job(lib, bar):
        if args.to:
            events, there = lib.export_to(library_location(args.to)), describe(library_location(args.to))
        else:
            events, there = lib.import_from(library_location(args.source)), lib.where
        missing = 0
        for ev in events:
            if ev.message and ev.stage == "files":
                missing = len(ev.extra.get("missing", []))
                bar.line(f"note: {ev.message}")
            else:
                bar.update(ev)
        bar.close()
        if not args.quiet:
            print(f"copied {len(lib.documents())} document(s) to {there}" if args.to else
                  f"copied {len(lib.documents())} document(s) from {describe(library_location(args.source))}")
        return missing

    return _run_job(args, job, "nothing was copied; the destination is as it was")


class ProgressBar:
    """The job's progress on stderr, drawn by tqdm: one bar for the current document and stage,
    fitted to the terminal's width (and to its new width when the window is resized). When stderr
    is not a terminal (a pipe, a log file) there is no bar, only the per-document lines.
    `enabled=False` (--quiet) draws no bar either."""

    def __init__(self, enabled: bool = True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self._bar = None  # a tqdm, made at the first update
        self._key: tuple | None = None
        self._off = False  # tqdm found that the stream is not a terminal

    def update(self, ev) -> None:
        if not self.enabled or self._off:
            return
        key = (ev.doc, ev.stage, ev.unit, ev.total)
        if key == self._key:
            self._bar.update(max(0, ev.done - self._bar.n))
            return
        self._key = key
        counter = f"[{min(ev.docs_done + 1, ev.docs_total)}/{ev.docs_total}] " if ev.docs_total > 1 else ""
        room = max(10, min(40, self._columns() - 52))  # the file name gives way to the meter
        doc = ev.doc if len(ev.doc) <= room else ev.doc[:room - 1] + "…"
        desc = counter + " ".join(x for x in (doc, ev.stage) if x)
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=ev.total or None, desc=desc, unit=ev.unit or "it", file=self.stream,
                             disable=None, dynamic_ncols=True, leave=False, mininterval=0.2)
            if self._bar.disable:  # not a terminal
                self._off = True
                return
        else:
            self._bar.unit = ev.unit or "it"
            self._bar.set_description_str(desc, refresh=False)
        left = ev.eta is not None and ev.eta >= 1 and ev.docs_total > 1  # the whole job's, not this stage's
        self._bar.set_postfix_str(f"all: {_duration(ev.eta)} left" if left else "", refresh=False)
        self._bar.total = ev.total or None  # (reset(total=None) would keep the old total)
        self._bar.reset()  # redraws with the new stage
        self._bar.update(max(0, ev.done))

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return 80

    def line(self, text: str) -> None:
        """A whole line above the bar (the bar is redrawn below it)."""
        if self._bar is not None and not self._bar.disable:
            self._bar.write(text, file=self.stream)
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _duration(seconds: float) -> str:
    """'45s', '3m05s', '1h02m'."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def run(argv: list[str] | None = None, *, error: Callable[[str], None] | None = None) -> int:
    """Parse `argv` and run the verb; engine errors become a one-line message and exit code,
    Ctrl+C one line and 130 (never a traceback)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    say = error or (lambda m: print(m, file=sys.stderr))
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        args.quiet = bool(getattr(args, "quiet", False))
        args.verbose = int(getattr(args, "verbose", 0) or 0)
        args.library = getattr(args, "library", None)
        if args.quiet and args.verbose:
            parser.error("-q and -v cannot be used together")
        with logging_to_stderr(args.verbose, args.quiet):
            log.debug("mmrag %s: %s", _version(), {k: v for k, v in vars(args).items() if k != "func"})
            t0 = time.perf_counter()
            code = int(args.func(args) or 0)
            log.info("%s finished in %.1f s, exit code %d", args.command, time.perf_counter() - t0, code)
            return code
    except EngineError as e:
        say(f"mmrag: error: {e}")
        return getattr(e, "exit_code", 1)
    except KeyboardInterrupt:
        say("mmrag: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return 0


def _quiet_stdout() -> None:
    """After the reader of stdout went away (`mmrag search ... | head`): point stdout at devnull so
    the interpreter's final flush does not print a BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
