"""PyInstaller entry script of the `mmrag-desktop` executable (build.spec)."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a spawned child (ingest worker, model check) runs this exe too
    from mmrag_desktop.__main__ import main

    sys.exit(main())
