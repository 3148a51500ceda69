"""engine/memory.py: freed heap pages go back to the OS (glibc's malloc_trim), a no-op elsewhere."""

from __future__ import annotations

import platform
import sys

import pytest

from mmrag_desktop.engine.memory import trim_heap


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="malloc_trim is glibc's")
def test_trim_gives_freed_small_blocks_back():
    """Many small blocks freed leave glibc's heap large (they are below the mmap threshold);
    trimming returns the pages: RSS drops by most of what was allocated."""
    blocks = [bytearray(2000) for _ in range(100_000)]  # ~200 MB in the main heap
    keep = blocks[-1]  # one live block at the top would stop a plain top-trim; malloc_trim(0) still frees
    del blocks
    before = _rss_kb()
    assert trim_heap() is True
    after = _rss_kb()
    assert before - after > 100_000, (before, after)
    assert len(keep) == 2000
