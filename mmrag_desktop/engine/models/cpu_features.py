"""What the processor offers the embedder: bfloat16 matrix units.

On a CPU with AMX-BF16 or AVX512-BF16 (Intel Xeon since Cooper Lake / Sapphire Rapids, AMD Zen 4),
PyTorch runs the text embedder's matrix products in bfloat16 about 2.7 times as fast as float32
ONNX Runtime, with vectors within cosine 0.9999 of the float ones (bench/README.md, session 16).
Elsewhere bfloat16 is emulated and slower, so it is used only where the flags say so.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

BF16_FLAGS = frozenset({"amx_bf16", "avx512_bf16"})


@functools.lru_cache(maxsize=1)
def native_bf16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """True when the processor multiplies bfloat16 matrices natively (Linux: its /proc/cpuinfo
    flags); False where that cannot be read (other systems, a container hiding it)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        with cpuinfo.open(encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return bool(BF16_FLAGS & set(line.partition(":")[2].split()))
    except OSError:
        return False
    return False
