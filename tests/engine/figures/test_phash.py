"""Perceptual hashes on real rendered images: stability under re-scaling/re-compression,
distance between different figures, duplicate lookup over a real SQLite `figures` table."""

from __future__ import annotations

import io
import sqlite3

import numpy as np
import pytest
from PIL import Image, ImageDraw

from mmrag_desktop.engine.figures.phash import DUPLICATE_DISTANCE, dhash, hamming, hamming_many, phash
from mmrag_desktop.engine.figures.similar import duplicate_groups, similar_figures
from mmrag_desktop.engine.store.migrations import migrate


def schematic(seed: int, size=(400, 300)) -> Image.Image:
    """A line drawing with boxes, wires and labels (like a block diagram)."""
    rng = np.random.default_rng(seed)
    im = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(im)
    for _ in range(6):
        x, y = rng.integers(10, size[0] - 90), rng.integers(10, size[1] - 60)
        d.rectangle([x, y, x + 80, y + 50], outline="black", width=3)
        d.text((x + 8, y + 18), f"U{rng.integers(1, 99)}", fill="black")
    for _ in range(8):
        pts = rng.integers(0, min(size), size=4)
        d.line(list(map(int, pts)), fill="black", width=2)
    return im


def plot(freq: float) -> Image.Image:
    im = Image.new("RGB", (400, 300), "white")
    d = ImageDraw.Draw(im)
    xs = np.linspace(0, 1, 200)
    pts = [(20 + 360 * x, 150 - 120 * np.sin(2 * np.pi * freq * x)) for x in xs]
    d.line(pts, fill="blue", width=3)
    d.line([(20, 280), (380, 280)], fill="black", width=2)
    d.line([(20, 20), (20, 280)], fill="black", width=2)
    return im


def test_hashes_are_64_bit_hex():
    im = schematic(1)
    for h in (phash(im), dhash(im)):
        assert len(h) == 16 and int(h, 16) >= 0


def test_same_figure_rescaled_and_recompressed_is_a_duplicate():
    im = schematic(3)
    small = im.resize((200, 150), Image.Resampling.BILINEAR)
    buf = io.BytesIO()
    im.save(buf, format="JPEG", quality=40)
    jpeg = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    rgba = im.convert("RGBA")
    for variant in (small, jpeg, rgba):
        assert hamming(phash(im), phash(variant)) <= DUPLICATE_DISTANCE
        assert hamming(dhash(im), dhash(variant)) <= 10


def test_different_figures_are_far_apart():
    hashes = [phash(schematic(s)) for s in range(5)] + [phash(plot(f)) for f in (1, 3)]
    for i in range(len(hashes)):
        for j in range(i + 1, len(hashes)):
            assert hamming(hashes[i], hashes[j]) > DUPLICATE_DISTANCE


def test_hamming_many_matches_scalar():
    hs = [phash(schematic(s)) for s in range(6)]
    assert list(hamming_many(hs[0], hs)) == [hamming(hs[0], h) for h in hs]
    assert hamming_many(hs[0], []).shape == (0,)


def test_empty_image_raises():
    with pytest.raises(ValueError):
        phash(Image.new("RGB", (0, 0)))


def _db_with_figures(images: list[tuple[int, Image.Image]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    migrate(conn)
    conn.execute("INSERT INTO documents (id, path, name, sha256) VALUES (1, '/a.pdf', 'a.pdf', 'x')")
    conn.execute("INSERT INTO documents (id, path, name, sha256) VALUES (2, '/b.pdf', 'b.pdf', 'y')")
    for cid, (doc, im) in enumerate(images, 1):
        conn.execute("INSERT INTO chunks (id, doc_id, ord, kind, text, page, page_end) VALUES (?, ?, ?, 'figure', 'f', 1, 1)",
                     (cid, doc, cid))
        conn.execute("INSERT INTO figures (chunk_id, doc_id, page, bbox, source, phash, dhash) VALUES (?, ?, 1, '[0,0,10,10]', 'raster', ?, ?)",
                     (cid, doc, phash(im), dhash(im)))
    return conn


def test_duplicates_across_documents_and_lookup_by_image():
    a = schematic(7)
    conn = _db_with_figures([(1, a), (1, plot(2)), (2, a.resize((300, 225))), (2, schematic(8))])
    rows = conn.execute("SELECT chunk_id, doc_id, page, bbox, phash FROM figures WHERE phash IS NOT NULL "
                        "ORDER BY chunk_id").fetchall()  # what store.Figures.hashes() returns
    groups = duplicate_groups(rows)
    assert groups == [[1, 3]]
    found = similar_figures(rows, a)
    assert [f.chunk_id for f in found] == [1, 3]
    assert found[0].distance == 0 and {f.doc_id for f in found} == {1, 2}
    assert [f.chunk_id for f in similar_figures(rows, phash(a), exclude_chunk=1)] == [3]
