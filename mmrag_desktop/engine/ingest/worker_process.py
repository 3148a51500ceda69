"""Run long write jobs (ingest, enrichment) in a child process that owns its own Library.

Why: PyMuPDF and other native calls hold Python's GIL for up to seconds on complex pages, which
freezes a window running in the same process. The child opens the same library folder (SQLite
WAL allows the parent to read meanwhile), streams `Progress` events back over a pipe, and the
parent's Library catches its index up from SQLite after each committed document (`refresh`).

The child is started on first use (spawn, so no Qt/thread state is inherited), kept for later
jobs, and stopped by `close()`. If it dies, the job raises EngineError; what it committed is kept
and the interrupted document stays pending for the next run.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import signal
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

from .. import errors
from ..errors import EngineError, WorkerDiedError
from ..jobs import CancelToken, Progress
from ..log_lines import OneLineFormatter
from ..settings import Settings

POLL_SECONDS = 0.1


class _EventCancel(CancelToken):
    """A CancelToken backed by a multiprocessing Event shared with the parent (it has the same
    set / is_set interface as the threading.Event CancelToken uses)."""

    def __init__(self, event) -> None:
        super().__init__()
        self._event = event


def prepare_child() -> None:
    """Call first in the child: quiet native threads, lower priority (the window comes first)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is ever downloaded
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # Ctrl-C in a terminal reaches the whole process group: the parent decides (it cancels the
    # job through the shared event), so the child finishes its document cleanly
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(5)
    except OSError:
        pass
    _log_plainly()


def _log_plainly() -> None:
    """The child's warnings go to stderr as the CLI prints them in its own process ("mmrag:
    warning: ..."); without a handler Python's last resort would print their tracebacks."""
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(OneLineFormatter())
    logging.getLogger().addHandler(handler)


def serve(lib, conn, cancel_event) -> None:
    """The child's loop over the library facade `lib` (opened by the child's entry point, which
    the composition root passes to WorkerProcess): ('settings', dict) / ('add', paths) /
    ('enrich', doc_ids, warm_up) / ('quit',). Closes `lib` when the parent quits or goes away."""
    try:
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                return
            if msg[0] == "quit":
                return
            if msg[0] == "settings":  # sent before each command: the user may have changed models
                _apply_settings(lib, msg[1])
                continue
            token = _EventCancel(cancel_event)  # the parent clears it before each command
            try:
                if msg[0] == "add":
                    events = lib.add(msg[1], cancel=token)
                elif msg[0] == "enrich":
                    events = lib.enrich(token, doc_ids=msg[1], warm_up=msg[2] if len(msg) > 2 else True)
                else:
                    raise EngineError(f"unknown worker command {msg[0]!r}")
                for ev in events:
                    conn.send(("event", asdict(ev)))
                conn.send(("end", None))
            except errors.Cancelled:
                conn.send(("cancelled", None))
            except EngineError as e:
                conn.send(("error", type(e).__name__, str(e)))
            except Exception as e:  # noqa: BLE001 - reported to the parent, which raises it
                conn.send(("error", "EngineError", f"{type(e).__name__}: {e}"))
    finally:
        lib.close()


def _apply_settings(lib, settings: dict) -> None:
    """Use the parent's current settings; models reload when they changed."""
    if settings != asdict(lib.settings):
        lib.settings = Settings(**settings)
        lib.models_changed()


def _exit_words(code: int | None) -> str:
    """How a child process ended, in words (a negative exit code is the signal that ended it)."""
    if code is None:
        return "it stopped unexpectedly"
    if code < 0:
        try:
            return f"ended by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"ended by signal {-code}"
    return f"exit code {code}"


class WorkerProcess:
    """A lazily started child process that runs write jobs for one library folder."""

    def __init__(self, folder: Path, settings: Settings, entry):
        """`entry(folder: str, settings: dict, conn, cancel_event)` runs in the child: a
        module-level function (spawn pickles it by name) that opens the library and calls `serve`."""
        self.folder = folder
        self.entry = entry
        self.settings = settings
        self._proc = None
        self._conn = None
        self._cancel = None

    def _ensure(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self._cancel = ctx.Event()
        settings = asdict(self.settings)
        self._proc = ctx.Process(target=self.entry, args=(str(self.folder), settings, child, self._cancel),
                                 name="mmrag-ingest", daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent

    def run(self, command: tuple, cancel: CancelToken, on_commit=None) -> Iterator[Progress]:
        """Send a command and yield its Progress events, plus a Progress(stage="waiting") with no
        document every POLL_SECONDS while nothing arrives; `on_commit()` runs after each document
        commit ("done") so the caller can refresh. Raises the child's EngineError, or EngineError
        when the child dies."""
        cancel.check()
        self._ensure()
        self._cancel.clear()
        self._conn.send(("settings", asdict(self.settings)))  # a child started earlier has old ones
        self._conn.send(command)
        cancel_sent = False
        while True:
            if cancel.cancelled and not cancel_sent:
                self._cancel.set()
                cancel_sent = True
            if not self._conn.poll(POLL_SECONDS):
                if not self._proc.is_alive():
                    code = self._proc.exitcode
                    self._proc = None
                    raise WorkerDiedError(
                        f"the background indexer stopped unexpectedly ({_exit_words(code)}); documents finished "
                        "so far are kept, add the files again to finish the rest", _exit_words(code))
                # a heartbeat with no document: lets a caller that interleaves jobs between events
                # (the GUI's engine thread) serve searches while the child is busy
                yield Progress("waiting", message="working in the background")
                continue
            try:
                msg = self._conn.recv()
            except EOFError:
                code = self._proc.exitcode if self._proc.join(1) is None else None
                self._proc = None
                raise WorkerDiedError("the background indexer stopped unexpectedly; finished documents are kept",
                                      _exit_words(code)) from None
            if msg[0] == "event":
                ev = Progress(**msg[1])
                if ev.stage == "done" and on_commit is not None:
                    on_commit()
                yield ev
            elif msg[0] == "end":
                if on_commit is not None:
                    on_commit()
                return
            elif msg[0] == "cancelled":
                if on_commit is not None:
                    on_commit()
                raise errors.Cancelled("cancelled")
            else:
                _, name, text = msg
                cls = getattr(errors, name, EngineError)
                if not (isinstance(cls, type) and issubclass(cls, EngineError)) or issubclass(
                        cls, (errors.DocumentError, errors.ModelError)):
                    cls = EngineError  # unknown, or a class whose constructor takes more: keep the message
                raise cls(text)

    def close(self, timeout: float = 10.0) -> None:
        """Ask the child to finish and wait; terminate it if it does not."""
        if self._proc is None:
            return
        try:
            if self._proc.is_alive():
                self._cancel.set()
                self._conn.send(("quit",))
                self._proc.join(timeout)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join(5)
        except (OSError, BrokenPipeError):
            pass
        finally:
            self._conn.close()
            self._proc = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None
