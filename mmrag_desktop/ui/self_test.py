"""`mmrag-desktop --self-test`: the check a frozen build must pass (no window).

Loads every model role that is available, ingests the bundled sample PDF into a
temporary library, searches it, and reports. Returns 0 on success, 1 otherwise.
"""

from __future__ import annotations

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
    """Load every role the registry resolves (a missing optional role is only reported);
    returns False when a resolved model fails to load."""
    from ..engine.errors import ModelError
    from ..engine.models import resolve_all
    from ..engine.models.verify import verify_model
    from ..engine.settings import Settings

    settings = Settings.load()  # a broken settings file gives defaults and a warning, never an error
    for warning in settings.load_warnings:
        _say(f"settings: {warning}")
    ok = True
    for r in resolve_all(settings):
        if not r.ok or r.path is None:
            _say(f"model {r.role}: {r.status} ({r.message})")
            continue
        t = time.perf_counter()
        try:
            verify_model(r.role, r.path, mmproj=r.extra.get("mmproj"), settings=settings, compute_sha=False)
        except ModelError as e:
            _say(f"model {r.role}: FAILED to load: {e}")
            ok = False
            continue
        _say(f"model {r.role}: loaded {r.path.name} ({r.source}) in {time.perf_counter() - t:.1f} s")
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
