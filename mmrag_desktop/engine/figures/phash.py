"""Perceptual hashes of figure images: pHash (DCT of a 32x32 grayscale) and dHash (gradients).

Both give 64-bit hashes written as 16 hex digits. Two crops of the same figure (another scan,
another resolution, a re-compressed copy) differ by a few bits; unrelated figures by ~32.
numpy + Pillow only.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..images import flatten_on_white

HASH_BITS = 64
# Hamming distance up to which two figures count as the same image (pHash; 64 bits).
DUPLICATE_DISTANCE = 6


@lru_cache(maxsize=4)
def _dct_matrix(n: int) -> np.ndarray:
    """Orthonormal DCT-II matrix M so that M @ x is the DCT of the column vector x."""
    k = np.arange(n)[:, None]
    i = np.arange(n)[None, :]
    m = np.cos(np.pi * (2 * i + 1) * k / (2 * n)) * np.sqrt(2.0 / n)
    m[0, :] = np.sqrt(1.0 / n)
    return m


def _gray(image, size: tuple[int, int]) -> np.ndarray:
    """Grayscale float array of `image` resized to `size` (width, height)."""
    from PIL import Image

    gray = flatten_on_white(image).convert("L").resize(size, Image.Resampling.LANCZOS)
    return np.asarray(gray, dtype=np.float64)


def _to_hex(bits: np.ndarray) -> str:
    value = 0
    for b in bits.ravel():
        value = (value << 1) | int(bool(b))
    return f"{value:016x}"


def phash(image) -> str:
    """64-bit pHash of a PIL image as 16 hex digits.

    The image is flattened onto white, reduced to 32x32 grayscale, transformed with a 2-D DCT;
    the 8x8 lowest frequencies are compared with their median. Raises ValueError for an empty image.
    """
    if image.width == 0 or image.height == 0:
        raise ValueError("cannot hash an empty image")
    pixels = _gray(image, (32, 32))
    m = _dct_matrix(32)
    dct = m @ pixels @ m.T
    low = dct[:8, :8]
    return _to_hex(low > np.median(low))


def dhash(image) -> str:
    """64-bit difference hash (horizontal gradients of a 9x8 grayscale) as 16 hex digits.

    Raises ValueError for an empty image.
    """
    if image.width == 0 or image.height == 0:
        raise ValueError("cannot hash an empty image")
    pixels = _gray(image, (9, 8))
    return _to_hex(pixels[:, 1:] > pixels[:, :-1])


def hamming(a: str, b: str) -> int:
    """Number of differing bits between two hex hashes. Raises ValueError for malformed hashes."""
    return (int(a, 16) ^ int(b, 16)).bit_count()


def hamming_many(query: str, hashes: list[str]) -> np.ndarray:
    """Hamming distances from `query` to each hash in `hashes` (vectorised), as an int array."""
    if not hashes:
        return np.zeros(0, dtype=np.int64)
    q = np.uint64(int(query, 16))
    arr = np.array([int(h, 16) for h in hashes], dtype=np.uint64) ^ q
    as_bytes = arr.view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1).sum(axis=1).astype(np.int64)


def is_duplicate(a: str, b: str, max_distance: int = DUPLICATE_DISTANCE) -> bool:
    """True when two pHashes are within `max_distance` bits (the same figure)."""
    return hamming(a, b) <= max_distance
