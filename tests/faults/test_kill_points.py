"""A real SIGKILL at several points of the work (issue 17): the library opens consistent (the index
holds exactly the vectors SQLite has, nothing of a half-written document is searchable) and the
next run finishes the job. Each kill happens in a child process at a point patched to kill it."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.settings import Settings

PAGES = [[(72, 100 + 18 * i, f"Section {i}: relay K{i} switches heater circuit number {i} at {20 + i} volts.")
          for i in range(10)] for _ in range(4)]

SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.settings import Settings
    from mmrag_desktop.engine.store import chunks, vectors
    point, folder, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    calls = {"n": 0}

    def killing(real, after=1):
        def wrapper(*a, **k):
            out = real(*a, **k)
            calls["n"] += 1
            if calls["n"] >= after:
                os.kill(os.getpid(), signal.SIGKILL)
            return out
        return wrapper

    if point == "commit":      # inside the document's transaction, its chunks just written
        chunks.Chunks.insert = killing(chunks.Chunks.insert)
        with Library.open(folder) as lib:
            list(lib.add([arg]))
    elif point == "flush":     # a long document's first batch written, its transaction still open
        from mmrag_desktop.engine.ingest import pipeline
        pipeline.FLUSH_CHUNKS = 2
        chunks.Chunks.insert = killing(chunks.Chunks.insert)
        with Library.open(folder) as lib:
            list(lib.add([arg]))
    elif point == "sentences":  # after the first committed batch of the sentence pass
        vectors.Vectors.put_sentences = killing(vectors.Vectors.put_sentences)
        with Library.open(folder) as lib:
            list(lib.enrich())
    elif point == "enrich":     # after the first figure's enrichment was committed
        from mmrag_desktop.engine.background import enrich
        enrich.FigureEnricher._commit_figure = killing(enrich.FigureEnricher._commit_figure)
        with Library.open(folder, Settings(models={"image_embedder": arg}, ocr_enabled=False)) as lib:
            list(lib.enrich())
    elif point == "switch":     # inside the text-model switch's transaction (old vectors deleted)
        vectors.Vectors.keep_only_text_model = killing(vectors.Vectors.keep_only_text_model)
        with Library.open(folder, Settings(models={"text_embedder": arg})) as lib:
            list(lib.reembed())
    """
)


def kill_at(point: str, folder, arg) -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, point, str(folder), str(arg)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]


def consistent(lib: Library) -> None:
    """The index holds exactly SQLite's vectors of the active model; no chunk belongs to a
    document that is not ready."""
    index = lib.text_index()
    rows = {r[0] for r in lib.conn.execute("SELECT chunk_id FROM vectors WHERE space = 'text' AND model = ?",
                                           (lib.embedder.model_id,))}
    assert set(index._live) == rows  # noqa: SLF001
    assert lib.conn.execute("SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                            "WHERE d.status != 'ready'").fetchone()[0] == 0


@pytest.fixture
def indexed(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([write_pdf(tmp_path / "a.pdf", PAGES)]))
    return folder


def test_killed_inside_a_documents_commit(indexed, tmp_path, embedder):
    second = write_pdf(tmp_path / "b.pdf", [[(72, 100, "The coolant pump delivers 12 litres per minute.")]])
    kill_at("commit", indexed, second)
    with Library.open(indexed, embedder=embedder) as lib:
        consistent(lib)
        assert lib.document("b.pdf").status == "failed"  # its reading was cut short: not tried first again
        assert all(h.doc == "a.pdf" for h in lib.search("coolant pump litres", k=5))
        assert [e.stage for e in lib.add([second]) if e.stage in ("done", "failed")] == ["done"]
        assert lib.search("coolant pump litres", k=1)[0].doc == "b.pdf"
        consistent(lib)


def test_killed_between_the_batches_of_a_long_document(indexed, tmp_path, embedder):
    changed = [[(x, y, text.replace("heater", "boiler")) for x, y, text in page] for page in PAGES]
    write_pdf(tmp_path / "a.pdf", changed)  # the indexed file changes: re-indexed in batches of 2 chunks
    kill_at("flush", indexed, tmp_path / "a.pdf")
    with Library.open(indexed, embedder=embedder) as lib:
        consistent(lib)
        doc = lib.document("a.pdf")
        assert doc.status == "ready" and "stopped the indexer" in doc.error  # the old version is kept
        assert not lib.conn.execute("SELECT 1 FROM chunks WHERE text LIKE '%boiler%'").fetchone()
        assert "heater" in lib.search("which relay switches heater circuit 3", k=1)[0].text
        assert [e.stage for e in lib.add([tmp_path / "a.pdf"]) if e.stage in ("done", "failed")] == ["done"]
        assert "boiler" in lib.search("which relay switches boiler circuit 3", k=1)[0].text
        consistent(lib)


def test_killed_during_the_sentence_pass(indexed, embedder):
    kill_at("sentences", indexed, "-")
    with Library.open(indexed, embedder=embedder) as lib:
        consistent(lib)
        done = lib.conn.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone()[0]
        assert done > 0, "the first batch was committed before the kill"
        assert lib.search("which relay switches heater circuit 3", k=1)[0].doc == "a.pdf"
        list(lib.enrich())
        assert lib.conn.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone()[0] == \
            lib.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]


def test_killed_inside_a_text_model_switch(indexed, tmp_path, embedder):
    copy = tmp_path / "minilm-copy"  # a second real model (the only text model installable offline)
    shutil.copytree(embedder.model_dir, copy)
    kill_at("switch", indexed, copy)
    settings = Settings(models={"text_embedder": str(copy)})
    with Library.open(indexed, settings) as lib:
        # the switch's transaction never committed: the old model is still the active one
        assert lib.reembed_pending and lib.embedder.model_id == embedder.model_id
        consistent(lib)
        assert lib.search("which relay switches heater circuit 3", k=1)[0].doc == "a.pdf"
        list(lib.reembed())
        assert not lib.reembed_pending and lib.embedder.model_id != embedder.model_id
        consistent(lib)
        assert lib.search("which relay switches heater circuit 3", k=1)[0].doc == "a.pdf"


def test_killed_during_figure_enrichment(tmp_path, embedder):
    from model_builders import build_tiny_clip
    from pdf_factory import make_raster_figure_pdf

    clip = build_tiny_clip(tmp_path / "tiny-clip")
    folder = tmp_path / "lib"
    settings = Settings(models={"image_embedder": str(clip)}, ocr_enabled=False)
    docs = [make_raster_figure_pdf(tmp_path / f"panel{i}.pdf").path for i in range(3)]
    with Library.open(folder, settings, embedder=embedder) as lib:
        for d in docs:
            list(lib.add([d]))
        figures = lib.conn.execute("SELECT COUNT(*) FROM figures").fetchone()[0]
    assert figures >= 3
    kill_at("enrich", folder, clip)
    with Library.open(folder, settings, embedder=embedder) as lib:
        consistent(lib)
        embedded = lib.conn.execute("SELECT COUNT(*) FROM vectors WHERE space = 'image'").fetchone()[0]
        assert 1 <= embedded < figures, "the first figure's work was committed, the rest was not"
        list(lib.enrich())
        assert lib.conn.execute("SELECT COUNT(*) FROM vectors WHERE space = 'image'").fetchone()[0] == figures
        assert len(lib.store.vectors.index("image", "tiny-clip", 16)) == figures
        consistent(lib)
