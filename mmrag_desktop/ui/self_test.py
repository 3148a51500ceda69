"""`mmrag-desktop --self-test`: the check an installed or frozen build must pass.

Checks each part the app needs, one line per part on stderr ("ok" or "FAILED: why"):
  qt       Qt's platform plugin (the xcb libraries on Linux, then a real QApplication and window)
  pymupdf  opens and renders the bundled sample PDF
  models   every model role that resolves loads and runs once; the default roles
           (text embeddings, answer model, OCR) must be present: a fresh install answers
           questions with no network
  ingest   the sample PDF into a temporary library
  search   finds the sample's passage with a box
  answer   llama.cpp answers a question about the sample with a citation
Returns 0 when every part passed, 1 otherwise (the failing parts are named).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

SAMPLE = ("resources", "samples", "self-test.pdf")
SAMPLE_QUERY = "calibrate the pressure sensor"
SAMPLE_QUESTION = "How do I calibrate the pressure sensor?"
REQUIRED_ROLES = ("text_embedder", "answer_llm", "ocr")


class PartFailed(Exception):
    """A part of the self-test failed; the message says why in plain words."""


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def check_qt() -> str:
    """The platform plugin loads and a window can be shown (offscreen, xcb, wayland, ...)."""
    import os

    from .platform_libs import check, wants_xcb

    libs = check()
    if not libs.ok:
        raise PartFailed(libs.message())
    # Qt aborts the whole process when its platform cannot connect; say why before that happens
    if sys.platform.startswith("linux") and wants_xcb() and not os.environ.get("DISPLAY"):
        raise PartFailed("no X display to open a window on (DISPLAY is not set); run it in a desktop "
                         "session, under Xvfb, or with QT_QPA_PLATFORM=offscreen")
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "mmrag-desktop"])
    label = QLabel("mmrag-desktop self-test")
    label.show()
    app.processEvents()
    shown = label.isVisible()
    label.close()
    if not shown:
        raise PartFailed("a window could not be shown")
    return f"platform {app.platformName()}"


def check_pymupdf(sample: Path) -> str:
    """The sample PDF opens and its first page renders."""
    import pymupdf

    with pymupdf.open(sample) as doc:
        pix = doc[0].get_pixmap(dpi=72)
    if pix.width < 100 or pix.height < 100:
        raise PartFailed(f"the rendered page is only {pix.width}x{pix.height} pixels")
    return f"PyMuPDF {pymupdf.__version__}, page 1 rendered {pix.width}x{pix.height}"


def check_models() -> str:
    """Load every role the registry resolves; the default roles must resolve."""
    from ..engine.errors import ModelError
    from ..engine.models import resolve_all
    from ..engine.models.verify import verify_model
    from ..engine.settings import Settings

    settings = Settings.load()  # a broken settings file gives defaults and a warning, never an error
    for warning in settings.load_warnings:
        _say(f"  settings: {warning}")
    problems = []
    for r in resolve_all(settings):
        if not r.ok or r.path is None:
            _say(f"  model {r.role}: {r.status} ({r.message})")
            if r.role in REQUIRED_ROLES:
                problems.append(f"{r.role} is {r.status}")
            continue
        t = time.perf_counter()
        try:
            verify_model(r.role, r.path, mmproj=r.extra.get("mmproj"), settings=settings, compute_sha=False)
        except ModelError as e:
            _say(f"  model {r.role}: FAILED to load: {e}")
            problems.append(f"{r.role} failed to load")
            continue
        _say(f"  model {r.role}: loaded {r.path.name} ({r.source}) in {time.perf_counter() - t:.1f} s")
    if problems:
        raise PartFailed("; ".join(problems))
    return "every resolved model loaded"


def check_ingest(lib, sample: Path) -> str:
    failed = [ev.message for ev in lib.add([sample]) if getattr(ev, "stage", "") == "failed"]
    if failed:
        raise PartFailed("; ".join(failed))
    docs = lib.documents()
    return f"{len(docs)} document(s), {sum(d.pages for d in docs)} page(s)"


def check_search(lib, sample: Path) -> str:
    hits = lib.search(SAMPLE_QUERY, k=3)
    if not hits or hits[0].doc != sample.name or hits[0].bbox is None:
        raise PartFailed(f"no boxed hit in the sample for {SAMPLE_QUERY!r}")
    return f"top hit page {hits[0].page}, kind {hits[0].kind}, bbox {[round(v) for v in hits[0].bbox]}"


def check_answer(lib) -> str:
    """llama.cpp runs the answer model on the sample (quote-first: the model picks the sentences
    to quote, so even the small default model has to run; "auto" skips models that small)."""
    answer = None
    for ev in lib.ask(SAMPLE_QUESTION, mode="quote"):
        if ev.kind == "error":
            raise PartFailed(ev.message)
        if ev.kind == "done":
            answer = ev.answer
    if answer is None or not answer.model:
        raise PartFailed("no answer model ran: " + " ".join(answer.notices if answer else []))
    if not answer.citations:
        raise PartFailed(f"{answer.model} answered without a citation")
    return f"{answer.mode} answer by {answer.model}, {len(answer.citations)} citation(s)"


def run_self_test(*, gui: bool = True) -> int:
    """Run every part; returns the process exit code (0 = all passed). `gui=False` skips Qt."""
    t0 = time.perf_counter()
    failed: list[str] = []

    def part(name: str, fn: Callable[[], str]) -> bool:
        _say(f"{name}: checking...")
        t = time.perf_counter()
        try:
            detail = fn()
        except PartFailed as e:
            _say(f"{name}: FAILED: {e}")
        except Exception as e:  # noqa: BLE001 - the self-test names whatever broke, never a traceback
            _say(f"{name}: FAILED: {type(e).__name__}: {e}")
        else:
            _say(f"{name}: ok ({detail}; {time.perf_counter() - t:.1f} s)")
            return True
        failed.append(name)
        return False

    from ..engine.library import Library

    with tempfile.TemporaryDirectory(prefix="mmrag-selftest-") as tmp:
        sample = Path(tmp) / "self-test.pdf"
        sample.write_bytes(resources.files("mmrag_desktop").joinpath(*SAMPLE).read_bytes())
        if gui:
            part("qt", check_qt)
        part("pymupdf", lambda: check_pymupdf(sample))
        part("models", check_models)
        lib = Library.open(Path(tmp) / "library")
        try:
            if part("ingest", lambda: check_ingest(lib, sample)):
                part("search", lambda: check_search(lib, sample))
                part("answer", lambda: check_answer(lib))
        finally:
            lib.close()
    took = time.perf_counter() - t0
    if failed:
        _say(f"self-test FAILED in {took:.1f} s: {', '.join(failed)}")
        return 1
    _say(f"self-test passed in {took:.1f} s")
    return 0
