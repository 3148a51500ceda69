"""llama.cpp (llama-cpp-python) in this process: imported with OpenMP waiting passively and with
its native logs silenced, once per process, for the answer model and the vision-language model.

- `OMP_WAIT_POLICY=passive` is set before llama_cpp is first imported: on 2-vCPU machines
  busy-waiting OpenMP threads made runs sporadically 100x slower (ENVIRONMENT.md).
- llama.cpp and libmtmd write their logs to stderr; a no-op log callback replaces them. The
  ctypes callback stays referenced for the life of the process: native code calls it after we
  return, and a collected callback would crash the process.

Crash isolation (a file the user chose is loaded in a separate process first, because llama.cpp
aborts the whole process on some damaged files) is `isolated.run_isolated`; `probe_gguf` is what
that process runs for a GGUF language model.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading

from ..errors import ModelError

log = logging.getLogger(__name__)
INSTALL_HINT = ("llama-cpp-python is not installed (pip install llama-cpp-python, built with "
                "CMAKE_ARGS=-DGGML_NATIVE=OFF)")

_lock = threading.Lock()
_callback = None  # the no-op log callback, referenced for the life of the process
_silenced: set[str] = set()  # "llama", "mtmd": the libraries whose logs it receives


def import_llama_cpp(role: str, *, mtmd: bool = False):
    """Return the `llama_cpp` module, imported with OpenMP waiting passively and llama.cpp's logs
    silenced (libmtmd's too with `mtmd=True`, for the multimodal handlers).

    Raises ModelError(role, ...) when llama-cpp-python is not installed.
    """
    with _lock:
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            import llama_cpp
        except ImportError as e:
            raise ModelError(role, INSTALL_HINT) from e
        _silence(llama_cpp, mtmd)
        return llama_cpp


def _silence(llama_cpp, mtmd: bool) -> None:
    """Install the no-op log callback for llama.cpp (and libmtmd), each library once."""
    global _callback
    if _callback is None:

        @llama_cpp.llama_log_callback
        def _noop(level, text, user_data):  # noqa: ARG001 - called from C, signature fixed by llama.cpp
            return None

        _callback = _noop
    if "llama" not in _silenced:
        llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
        _silenced.add("llama")
    if mtmd and "mtmd" not in _silenced:
        _silenced.add("mtmd")  # tried once: a build without libmtmd keeps logging nothing more
        try:
            import llama_cpp.mtmd_cpp as mtmd_cpp

            mtmd_cpp.mtmd_log_set(_callback, ctypes.c_void_p(0))
            mtmd_cpp.mtmd_helper_log_set(_callback, ctypes.c_void_p(0))
        except (ImportError, AttributeError, OSError) as e:
            log.debug("libmtmd log callback not installed: %s", e)


def probe_gguf(path: str) -> dict:
    """Load the GGUF at `path` with a tiny context and decode a few tokens; returns its facts
    {"chat_template": bool, "n_ctx_train": int, "arch": str}. Meant to run in a child process
    (`isolated.run_isolated`): llama.cpp may abort on a damaged file."""
    llama_cpp = import_llama_cpp("answer_llm")
    llm = llama_cpp.Llama(model_path=path, n_ctx=64, n_threads=1, n_threads_batch=1, verbose=False)
    try:
        toks = llm.tokenize(b"Hello", add_bos=True)
        llm.eval(toks[:4])
        meta = llm.metadata or {}
        arch = meta.get("general.architecture", "")
        return {"chat_template": bool(meta.get("tokenizer.chat_template")),
                "n_ctx_train": int(meta.get(arch + ".context_length", 0) or 0), "arch": arch}
    finally:
        llm.close()
