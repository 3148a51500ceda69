"""Entry point of the desktop app: `mmrag-desktop` and `python -m mmrag_desktop`.

    mmrag-desktop [--library DIR] [--self-test]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line (Qt's own options are left for QApplication)."""
    p = argparse.ArgumentParser(prog="mmrag-desktop", description="Search and ask your technical manuals offline.")
    p.add_argument("--library", type=Path, default=None, help="library folder (default: from settings)")
    p.add_argument("--self-test", action="store_true",
                   help="load the models, ingest a bundled sample PDF, search it, exit 0 on success")
    args, _qt_args = p.parse_known_args(argv)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the GUI (or the self-test); returns the exit code."""
    import multiprocessing

    multiprocessing.freeze_support()  # the ingest worker is a spawned child, also in a frozen build
    args = parse_args(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # llama.cpp thread trap (ENVIRONMENT.md)
    if args.self_test:
        from .ui.self_test import run_self_test

        return run_self_test()
    from .ui.app import run_gui

    return run_gui(library_dir=args.library)


if __name__ == "__main__":
    sys.exit(main())
