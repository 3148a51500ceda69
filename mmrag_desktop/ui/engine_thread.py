"""One dedicated thread owns the engine's `Library` and runs every engine call.

SQLite connections must not be shared between threads, so the GUI never touches the
Library: it submits jobs (`fn(library, cancel_token)`, returning a value or a generator
of events) and gets Qt signals back. Interactive jobs (search, answer, look-ups) run
between the steps of a background job (ingest), so the user can search while a long
ingest is running. Progress floods are coalesced (at most one event per ~40 ms per job,
stage changes always pass) so the GUI thread never drowns in events.
"""

from __future__ import annotations

import inspect
import logging
import os
import queue
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer, Signal

from ..engine.errors import Cancelled, EngineError
from ..engine.jobs import CancelToken

log = logging.getLogger(__name__)

JobFn = Callable[[Any, CancelToken], Any]
# Progress stages that may be coalesced (a newer event of the same job replaces them).
COALESCED_STAGES = {"scan", "parse", "embed", "enrich", "ocr", "sentences"}
COALESCE_SECONDS = 0.04


class EngineJob(QObject):
    """A handle on one submitted job; lives in the GUI thread, signals arrive there.

    state: queued | running | done | failed | cancelled.
    """

    progress = Signal(object)  # each event the job's generator yields
    finished = Signal(object)  # the result (a generator's return value, or the function's)
    failed = Signal(object)  # the exception (EngineError subclasses, or anything unexpected)
    cancelled = Signal()

    def __init__(self, name: str, fn: JobFn, interactive: bool, coalesce: bool) -> None:
        super().__init__()
        self.name, self.fn, self.interactive, self.coalesce = name, fn, interactive, coalesce
        self.token = CancelToken()
        self.state = "queued"
        self.details = ""  # traceback text of an unexpected failure

    def cancel(self) -> None:
        """Ask the job to stop at its next check (a queued job never starts)."""
        self.token.cancel()


def lower_thread_priority(nice: int = 5) -> None:
    """Renice the calling thread (Linux: per-thread nice) so the GUI thread wins the CPU.

    Worker threads that torch / onnxruntime create later from this thread inherit it; on
    2 cores they otherwise starve the GUI thread for hundreds of milliseconds.
    """
    if hasattr(os, "setpriority") and sys.platform.startswith("linux"):
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
        except OSError as e:  # not fatal: only responsiveness is affected
            log.info("could not lower the engine thread's priority: %s", e)


def freeze_gc() -> None:
    """Move every object alive now (loaded models, libraries) out of the GC's reach.

    A full collection walking torch/transformers objects held the GIL ~0.9 s during ingest
    (measured), freezing the window; frozen objects are skipped by later collections.
    """
    import gc

    gc.collect()
    gc.freeze()


def default_library_factory(folder: Path | str, settings=None):
    """Open the engine's Library with the window's settings (imported here so the window starts
    without it); without settings, the saved ones. Read-only when another program writes to it."""
    from ..engine.library import Library
    from ..engine.settings import Settings

    return Library.open(folder, settings if settings is not None else Settings.load(), access="auto")


class EngineThread(QThread):
    """Owns the Library; runs submitted jobs one at a time, interactive ones first."""

    opened = Signal(object)  # the Library (do not call it from the GUI thread; for identity only)
    openFailed = Signal(object)  # noqa: N815 (Qt naming) exception
    busyChanged = Signal(bool)  # noqa: N815

    def __init__(self, folder: Path | str, factory: Callable[[Path | str], Any] = default_library_factory,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.folder = folder  # a folder (Path) or a PostgreSQL URL (str): the factory opens either
        self._factory = factory
        self._background: queue.Queue[EngineJob | None] = queue.Queue()
        self._interactive: deque[EngineJob] = deque()
        self._wake = threading.Condition()
        self._stopping = False
        self._running: list[EngineJob] = []
        self.library = None
        self.setObjectName("engine")

    # ---- GUI-thread API -----------------------------------------------------------
    def submit(self, name: str, fn: JobFn, *, interactive: bool = False, coalesce: bool = True) -> EngineJob:
        """Queue `fn(library, cancel_token)`; returns its EngineJob.

        Interactive jobs (search, answer) jump ahead of and interleave with background ones. The job
        reaches the engine thread when the GUI thread's event loop next runs, so the caller's
        connections are in place even for a job that fails at once (a signal emitted before a
        connection is made is lost).
        """
        job = EngineJob(name, fn, interactive, coalesce)
        app = QCoreApplication.instance()
        if app is not None and QThread.currentThread() is app.thread():
            QTimer.singleShot(0, job, lambda: self._enqueue(job))
        else:  # submitted from a worker (no event loop to wait for): at once
            self._enqueue(job)
        return job

    def _enqueue(self, job: EngineJob) -> None:
        with self._wake:
            if self._stopping:
                job.state = "cancelled"
            elif job.interactive:
                self._interactive.append(job)
            else:
                self._background.put(job)
            self._wake.notify_all()
        if job.state == "cancelled":
            job.cancelled.emit()

    def pending(self) -> list[EngineJob]:
        """Jobs queued or running (for "quit while busy?" prompts)."""
        with self._wake:
            queued = [j for j in list(self._background.queue) if j is not None]
            return [j for j in self._running + list(self._interactive) + queued if j.state in ("queued", "running")]

    def stop(self, timeout_ms: int = 30000) -> bool:
        """Cancel every job, close the Library, end the thread; returns True when it ended."""
        with self._wake:
            self._stopping = True
            for j in self._running + list(self._interactive) + list(self._background.queue):
                if j is not None:
                    j.cancel()
            self._background.put(None)
            self._wake.notify_all()
        return self.wait(timeout_ms)

    # ---- engine thread ------------------------------------------------------------
    def run(self) -> None:  # noqa: D401 (QThread API)
        lower_thread_priority()
        try:
            self.library = self._factory(self.folder)
        except BaseException as e:  # the GUI shows it; the thread ends
            self.openFailed.emit(e)
            return
        self.opened.emit(self.library)
        try:
            while True:
                job = self._next_job()
                if job is None:
                    break
                self._execute(job, preemptible=not job.interactive)
        finally:
            try:
                self.library.close()
            except Exception:  # closing must not hide the real reason the loop ended
                log.exception("closing the library failed")

    def _next_job(self) -> EngineJob | None:
        while True:
            with self._wake:
                if self._stopping and not self._interactive:
                    return None
                if self._interactive:
                    return self._interactive.popleft()
            try:
                job = self._background.get(timeout=0.05)
            except queue.Empty:
                continue
            if job is None:
                return None
            return job

    def _run_interactive_now(self) -> None:
        while True:
            with self._wake:
                if not self._interactive:
                    return
                job = self._interactive.popleft()
            self._execute(job, preemptible=False)

    def _execute(self, job: EngineJob, preemptible: bool) -> None:
        if job.token.cancelled:
            job.state = "cancelled"
            job.cancelled.emit()
            return
        job.state = "running"
        self._running.append(job)
        self.busyChanged.emit(True)
        last_emit, held = 0.0, None
        try:
            out = job.fn(self.library, job.token)
            if inspect.isgenerator(out):
                while True:
                    try:
                        ev = next(out)
                    except StopIteration as stop:
                        out = stop.value
                        break
                    stage = getattr(ev, "stage", None)
                    now = time.monotonic()
                    if job.coalesce and stage in COALESCED_STAGES and now - last_emit < COALESCE_SECONDS:
                        held = ev
                    else:
                        if held is not None and held is not ev:
                            job.progress.emit(held)
                        held = None
                        job.progress.emit(ev)
                        last_emit = now
                    if preemptible:
                        self._run_interactive_now()
                if held is not None:
                    job.progress.emit(held)
            job.state = "done"
            job.finished.emit(out)
        except Cancelled:
            job.state = "cancelled"
            job.cancelled.emit()
        except EngineError as e:
            job.state = "failed"
            job.failed.emit(e)
        except Exception as e:  # unexpected: keep the traceback for the error dialog and the log
            job.state = "failed"
            job.details = traceback.format_exc()
            log.error("job %s failed unexpectedly:\n%s", job.name, job.details)
            job.failed.emit(e)
        finally:
            self._running.remove(job)
            self.busyChanged.emit(bool(self._running))
