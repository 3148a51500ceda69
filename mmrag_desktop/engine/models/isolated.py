"""Crash isolation: run a model check in a separate process, so a native crash (llama.cpp and
libmtmd abort or segfault on some damaged or mismatched files) cannot kill the app. The one place
that does this: the answer model's verification before loading (answer/runner.py), the model
manager's answer-model check (verify.py) and the VLM pair check (vlm.py) all use `run_isolated`;
the text model's ONNX export (text_embedder.export_isolated) uses it to keep torch and transformers
out of the process that embeds."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from contextlib import contextmanager

from ..errors import ModelError


class IsolationTimeout(ModelError):
    """The check ran longer than its time limit (the child was killed)."""


def _child(target: Callable[..., dict], args: tuple, conn) -> None:  # runs in the child process
    try:
        conn.send({"ok": True, **target(*args)})
    except ModelError as e:
        conn.send({"ok": False, "message": e.reason})
    except MemoryError:
        conn.send({"ok": False, "message": "not enough memory to load this model"})
    except Exception as e:  # noqa: BLE001 - anything is reported to the parent in plain words
        conn.send({"ok": False, "message": f"{type(e).__name__}: {e}"})
    finally:
        conn.close()


_FLAG_LOCK = threading.Lock()  # two threads starting children must not restore the flag under each other


@contextmanager
def _children_allowed():
    """Let a daemonic process (the library's ingest worker is one) start the child: multiprocessing
    refuses because a daemon is stopped without waiting for its children, but `run_isolated` always
    waits for its child or kills it."""
    with _FLAG_LOCK:
        me = multiprocessing.current_process()
        was = me.daemon
        if was:
            me.daemon = False
        try:
            yield
        finally:
            if was:
                me.daemon = True


def run_isolated(role: str, target: Callable[..., dict], args: tuple, *, what: str,
                 timeout: float = 180.0) -> dict:
    """Call `target(*args)` (a top-level function returning a dict) in a spawned process.

    Returns its dict. Raises ModelError(role, ...) when it raises or crashes (`what` names the
    files in the message), IsolationTimeout (a ModelError) when it runs longer than `timeout`
    seconds (the child is killed).
    """
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(target, args, child), daemon=True)
    with _children_allowed():
        proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            raise IsolationTimeout(role, f"checking {what} took longer than {timeout:.0f} s")
        result = parent.recv()
    except EOFError:
        proc.join(5)
        code = proc.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        raise ModelError(role, f"the model runtime crashed while loading {what} ({how}); "
                               "a file is damaged or the files do not belong together") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()
    if not result.pop("ok", False):
        raise ModelError(role, result.get("message", "the model failed to load"))
    return result
