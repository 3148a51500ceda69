"""The `watch` verb: keep folders in sync with the library.

    mmrag --library DIR watch FOLDER...        # watch these (remembered), bring them in, keep watching
    mmrag --library DIR watch                  # keep watching the remembered folders
    mmrag --library DIR watch --once [FOLDER...]   # bring them in line and exit
    mmrag --library DIR watch --list           # the watched folders
    mmrag --library DIR watch --forget FOLDER [--remove-documents]

The watcher polls (stat only, every --interval seconds) rather than using inotify: it works the
same on every platform, on network shares and removable drives, and needs no extra package; a
look at a folder of thousands of unchanged manuals costs milliseconds. A burst of changes (a copy
of 300 files) is taken as one batch once the folder has been still for a couple of seconds.
Ctrl+C stops it (exit 0 when it was waiting; 130 when it cut work short, which is kept consistent).
"""

from __future__ import annotations

import signal
from pathlib import Path


def register(subparsers) -> None:
    """Add the `watch` verb to the CLI's subparsers."""
    w = subparsers.add_parser("watch", help="keep folders in sync: new and changed files added, deleted ones "
                                            "removed, moved ones re-pointed")
    w.add_argument("folders", nargs="*", metavar="FOLDER", help="folders to watch (remembered by the library)")
    w.add_argument("--once", action="store_true", help="bring the library in line with the folders and exit")
    w.add_argument("--interval", type=float, default=2.0, metavar="SECONDS",
                   help="how often to look for changes (default 2)")
    w.add_argument("--list", action="store_true", help="print the watched folders and exit")
    w.add_argument("--forget", metavar="FOLDER", help="stop watching FOLDER (its documents stay)")
    w.add_argument("--remove-documents", action="store_true",
                   help="with --forget: also remove the documents that came from FOLDER")
    w.set_defaults(func=cmd_watch)


def cmd_watch(args) -> int:
    """Run the verb; returns the exit code (0; 3 when files failed with --once; 130 when Ctrl+C
    cut work short)."""
    from .cli import EXIT_FILES_FAILED, EXIT_INTERRUPTED, ProgressBar, note, open_library
    from .engine.errors import LibraryError

    if args.remove_documents and not args.forget:
        raise LibraryError("--remove-documents goes with --forget FOLDER")
    if args.interval <= 0:
        raise LibraryError("--interval must be a positive number of seconds")
    lib = open_library(args, write=not args.list)
    try:
        if args.list:
            return _print_list(lib)
        if args.forget:
            removed = lib.unwatch(args.forget, remove_documents=args.remove_documents)
            note(args, f"stopped watching {args.forget}" + (f"; {len(removed)} document(s) removed" if removed else
                                                             "; its documents stay in the library"))
            return 0
        for folder in args.folders:
            if lib.watch(folder):
                note(args, f"watching {Path(folder).expanduser().resolve()}")
        if not lib.watched_folders():
            raise LibraryError("no folder is watched yet; give one: mmrag watch FOLDER")
        bar = ProgressBar(enabled=not args.quiet)
        try:
            return _run(args, lib, bar, EXIT_FILES_FAILED, EXIT_INTERRUPTED)
        finally:
            bar.close()
    finally:
        lib.close()


def _print_list(lib) -> int:
    counts = {}
    for w in lib.watched_folders():
        counts[w.path] = sum(1 for d in lib.documents() if d.path.startswith(w.path.rstrip("/") + "/"))
        state = f"missing since {w.missing_since}" if w.missing_since else "present"
        print(f"{w.path}\t{counts[w.path]} document(s)\t{state}")
    return 0


def _run(args, lib, bar, exit_failed: int, exit_interrupted: int) -> int:
    from .cli import report_events
    from .engine.errors import Cancelled
    from .engine.jobs import CancelToken
    from .engine.watch import poll_changes, snapshot

    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    seen = {"settling": 0, "cut": False}

    def folders() -> list[Path]:
        return [Path(w.path) for w in lib.watched_folders()]

    def tap(events):
        for ev in events:
            if ev.stage == "watched":
                seen["settling"] = ev.extra.get("settling", 0)
            seen["cut"] |= ev.stage == "cancelled"
            yield ev

    def reconcile() -> int:
        # what the folders held before this look: a file landing during or just after it (even one
        # copied with its old mtime) differs from this state, so the next poll sees it
        seen["before"] = snapshot(folders())
        try:
            return report_events(tap(lib.reconcile(cancel)), bar)
        except Cancelled:
            seen["cut"] = True
            return 0

    try:
        failed = reconcile()
        if args.once or cancel.cancelled:
            if seen["cut"]:
                bar.line("mmrag: interrupted: what was finished is kept")
                return exit_interrupted
            return exit_failed if failed else 0
        if not args.quiet:
            bar.line(f"watching {len(folders())} folder(s) for changes; Ctrl+C stops")
        while not cancel.cancelled:
            last = {} if seen["settling"] else seen["before"]  # files still being written: look again
            for _ in poll_changes(folders, cancel, interval=args.interval, last=last):
                reconcile()
                break
        if seen["cut"]:
            bar.line("mmrag: interrupted: what was finished is kept")
            return exit_interrupted
        if not args.quiet:
            bar.line("stopped watching")
        return 0
    finally:
        signal.signal(signal.SIGINT, previous)
