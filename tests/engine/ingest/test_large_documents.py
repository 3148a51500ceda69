"""A long document is written in bounded batches inside one transaction (issue 17, memory): the
result equals a single commit, other connections never see it half-written, and a failure part-way
keeps the version indexed before. FLUSH_CHUNKS is lowered so a few real pages make several batches."""

from __future__ import annotations

import sqlite3

import numpy as np
import pymupdf
import pytest
from pdf_factory import make_vector_figure_pdf

from mmrag_desktop.engine.ingest import pipeline
from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.store.chunks import Chunks

TOPICS = ["coolant pump flow", "relay coil voltage", "fan bearing wear", "heater fuse rating",
          "valve seat torque", "sensor cable colour", "motor brush length", "filter mesh size"]


def long_pdf(path, version: str = "A"):
    """A figure page ("Figure 1: Throughput ...") then one page per topic, each mentioning Figure 1."""
    fig = make_vector_figure_pdf(path.with_name("figure-page.pdf")).path
    doc = pymupdf.open(fig)
    for i, topic in enumerate(TOPICS):
        page = doc.new_page()
        for j in range(6):
            page.insert_text((72, 90 + 60 * j), f"Edition {version}. The {topic} of unit {i} step {j} is checked "
                             f"monthly; see Figure 1 for the load curve.", fontsize=10)
    doc.save(path)
    doc.close()
    return path


def chunks_of(lib) -> list[tuple]:
    return lib.conn.execute("SELECT ord, kind, text, page, page_end, lines, group_key FROM chunks ORDER BY ord").fetchall()


def links_of(lib) -> set[tuple]:
    return set(lib.conn.execute(
        "SELECT s.ord, d.ord, l.relation FROM links l JOIN chunks s ON s.id = l.src JOIN chunks d ON d.id = l.dst"))


def index_matches_sqlite(lib) -> None:
    ids = {r[0] for r in lib.conn.execute("SELECT chunk_id FROM vectors WHERE space = 'text'")}
    assert set(lib.text_index()._live) == ids == {r[0] for r in lib.conn.execute("SELECT id FROM chunks")}  # noqa: SLF001


@pytest.fixture
def batches(monkeypatch):
    """Lower the batch size and record the size of every chunk insert."""
    sizes: list[int] = []
    real = Chunks.insert

    def recording(self, rows):
        sizes.append(len(rows))
        return real(self, rows)

    monkeypatch.setattr(Chunks, "insert", recording)
    monkeypatch.setattr(pipeline, "FLUSH_CHUNKS", 4)
    return sizes


def test_a_document_written_in_batches_equals_one_commit(tmp_path, embedder, monkeypatch, batches):
    pdf = long_pdf(tmp_path / "long.pdf")
    with Library.open(tmp_path / "batched", embedder=embedder) as lib:
        assert [e.stage for e in lib.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
        batched = chunks_of(lib), links_of(lib)
        vec = lib.conn.execute("SELECT c.ord, v.vec FROM vectors v JOIN chunks c ON c.id = v.chunk_id").fetchall()
        index_matches_sqlite(lib)
        hit = lib.search("how often is the motor brush length checked", k=1)[0]
        assert hit.page == TOPICS.index("motor brush length") + 2
    assert len(batches) >= 3 and max(batches) <= 4 + 8, batches  # several bounded batches
    monkeypatch.setattr(pipeline, "FLUSH_CHUNKS", 10_000)
    batches.clear()
    with Library.open(tmp_path / "whole", embedder=embedder) as lib:
        list(lib.add([pdf]))
        assert len(batches) == 1
        assert (chunks_of(lib), links_of(lib)) == batched
        assert any(rel == "refers_to" for _, _, rel in batched[1]), "mentions link to the figure across batches"
        one = dict(lib.conn.execute("SELECT c.ord, v.vec FROM vectors v JOIN chunks c ON c.id = v.chunk_id"))
    for ord_, blob in vec:
        a, b = np.frombuffer(blob, np.float32), np.frombuffer(one[ord_], np.float32)
        if embedder.bulk_backend == "bf16":  # bfloat16 products depend a little on the batch (cpu_features.py)
            assert float(a @ b) > 0.9999
        else:
            assert np.allclose(a, b, atol=1e-5)


def test_a_half_written_document_is_invisible_and_a_failed_save_keeps_the_old_version(tmp_path, embedder,
                                                                                      monkeypatch, batches):
    pdf = long_pdf(tmp_path / "long.pdf", "A")
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([pdf]))
        before = chunks_of(lib)
    long_pdf(tmp_path / "long.pdf", "B")  # the file changes: re-indexed in batches
    seen: list[list[str]] = []
    real = Chunks.insert

    def failing_third(self, rows):
        other = sqlite3.connect(folder / "library.sqlite")  # another reader, as another process would be
        seen.append([t for (t,) in other.execute("SELECT text FROM chunks")])
        other.close()
        if len(seen) == 3:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, rows)

    monkeypatch.setattr(Chunks, "insert", failing_third)
    with Library.open(folder, embedder=embedder) as lib:
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            list(lib.add([pdf]))
        assert len(seen) == 3
        for texts in seen:  # two batches were already written when the later ones looked
            assert not any("Edition B" in t for t in texts) and any("Edition A" in t for t in texts)
        doc = lib.document("long.pdf")
        assert doc.status == "ready" and "could not be saved" in doc.error
        assert chunks_of(lib) == before
        index_matches_sqlite(lib)
        assert "Edition A" in lib.search("fan bearing wear checked", k=1)[0].text
        monkeypatch.setattr(Chunks, "insert", real)
        assert [e.stage for e in lib.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
        assert "Edition B" in lib.search("fan bearing wear checked", k=1)[0].text
        index_matches_sqlite(lib)
