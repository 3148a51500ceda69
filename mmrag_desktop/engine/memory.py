"""Give freed heap memory back to the operating system between batches of a long job.

The background sentence pass encodes thousands of short, differently sized batches; torch frees
their tensors, but glibc keeps the freed pages in fragmented arenas, so the process's RSS grows
with the library: 1,572 MB at the peak for octave.pdf (1,158 pages) to full quality, against
1,438 MB with `malloc_trim(0)` after every batch (bench/README.md, session 8), at no cost in time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim  # glibc only; musl has none
    except (OSError, AttributeError):
        return None


def trim_heap() -> bool:
    """Ask the C library to return free heap pages to the OS; True when it could be asked
    (glibc), False elsewhere (nothing to do: other allocators return memory themselves)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
