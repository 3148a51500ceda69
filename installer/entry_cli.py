"""PyInstaller entry script of the `mmrag` command-line executable (build.spec)."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a spawned child (ingest worker, model check) runs this exe too
    from mmrag_desktop.cli import main

    sys.exit(main())
