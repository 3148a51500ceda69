"""`mmrag-desktop --self-test`: the check a frozen build must pass (no window).

Loads every model role that is available, ingests the bundled sample PDF into a
temporary library, searches it, and reports. Returns 0 on success, 1 otherwise.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

SAMPLE = ("resources", "samples", "self-test.pdf")
SAMPLE_QUERY = "calibrate the pressure sensor"


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _check_models() -> bool:
    """Load every role the models module can resolve; a missing optional role is not a failure."""
    try:
        models = importlib.import_module("mmrag_desktop.engine.models")
    except ImportError:
        _say("models: engine.models not present; the library's own model loading is tested below")
        return True
    ok = True
    loader = getattr(models, "self_test", None) or getattr(models, "check_all", None)
    if loader is None:
        _say("models: no self-test entry point in engine.models; skipped")
        return True
    try:
        for line in loader() or []:
            _say(f"models: {line}")
    except Exception as e:  # report and fail: a frozen build must load its models
        _say(f"models: FAILED: {type(e).__name__}: {e}")
        ok = False
    return ok


def run_self_test() -> int:
    """Run the self-test; returns the process exit code (0 = pass)."""
    t0 = time.perf_counter()
    from ..engine.library import Library

    ok = _check_models()
    with tempfile.TemporaryDirectory(prefix="mmrag-selftest-") as tmp:
        sample = Path(tmp) / "self-test.pdf"
        sample.write_bytes(resources.files("mmrag_desktop").joinpath(*SAMPLE).read_bytes())
        lib = Library.open(Path(tmp) / "library")
        try:
            failed = []
            for ev in lib.add([sample]):
                if getattr(ev, "stage", "") == "failed":
                    failed.append(ev.message)
            if failed:
                _say(f"ingest: FAILED: {failed}")
                return 1
            docs = lib.documents()
            _say(f"ingest: {len(docs)} document(s), {sum(d.pages for d in docs)} page(s)")
            hits = lib.search(SAMPLE_QUERY, k=3)
            if not hits or hits[0].doc != sample.name:
                _say(f"search: FAILED: no hit in the sample for {SAMPLE_QUERY!r}")
                return 1
            _say(f"search: top hit page {hits[0].page}, kind {hits[0].kind}, bbox {hits[0].bbox}")
        finally:
            lib.close()
    _say(f"self-test {'passed' if ok else 'FAILED'} in {time.perf_counter() - t0:.1f} s")
    return 0 if ok else 1
