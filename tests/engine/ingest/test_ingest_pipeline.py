"""Bad input never loses what is indexed; a killed ingest resumes. Real PDFs, real parser, real OCR."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import write_pdf
from pdf_factory import (
    make_corrupt_pdf,
    make_encrypted_pdf,
    make_page_break_pdf,
    make_ruled_table_pdf,
    make_scanned_pdf,
    make_vector_figure_pdf,
    make_zero_page_pdf,
)

from mmrag_desktop.engine.library import Library

GOOD = [(72, 100, "Firmware update"), (72, 130, "Hold the BOOT button while plugging in the USB cable.")]


def outcome(lib, paths):
    """{file name: (stage, message)} for the final event of each file."""
    out = {}
    for ev in lib.add(paths):
        if ev.stage in ("done", "failed", "skipped"):
            out[ev.doc] = (ev.stage, ev.message)
    return out


def test_every_bad_file_fails_clearly_and_the_good_ones_go_in(tmp_path, library):
    good = write_pdf(tmp_path / "good.pdf", [GOOD])
    make_corrupt_pdf(tmp_path / "corrupt.pdf")
    make_encrypted_pdf(tmp_path / "locked.pdf")
    make_zero_page_pdf(tmp_path / "zero.pdf")
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "notes.pdf").write_text("just some text pretending to be a PDF\n" * 20)
    (tmp_path / "data.xyz").write_text("unknown type")
    paths = [tmp_path / n for n in ("corrupt.pdf", "locked.pdf", "zero.pdf", "empty.pdf", "notes.pdf",
                                    "data.xyz", "missing.pdf")] + [good]
    res = outcome(library, paths)
    assert res["good.pdf"][0] == "done"
    expect = {
        "corrupt.pdf": ("damaged", "corrupt", "cannot", "broken", "not a valid", "repair"),
        "locked.pdf": ("password",),
        "zero.pdf": ("no pages", "zero pages", "0 pages", "empty"),
        "empty.pdf": ("empty",),
        "notes.pdf": ("not a pdf",),
        "data.xyz": ("unsupported",),
        "missing.pdf": ("not found",),
    }
    for name, words in expect.items():
        stage, message = res[name]
        assert stage == "failed", (name, res[name])
        assert any(w in message.lower() for w in words), (name, message)
    status = {d.name: (d.status, d.error) for d in library.documents()}
    assert status["good.pdf"][0] == "ready"
    for name in expect:
        assert status[name][0] == "failed" and status[name][1], (name, status[name])
    assert library.search("how do I flash new firmware", k=1)[0].doc == "good.pdf"


def test_a_cut_short_pdf_goes_in_with_a_warning(tmp_path, library):
    """A truncated download opens after PyMuPDF repairs it, with its last pages empty: what can be
    read is indexed, and the document says it is damaged instead of looking complete."""
    import pymupdf

    doc = pymupdf.open()
    for i in range(3):
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 520, 760), f"Section {i}: the relay closes after the "
                            "debounce delay and the status LED turns green. " * 12, fontsize=11)
    data = doc.tobytes()
    doc.close()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    stage, message = outcome(library, [cut])["cut.pdf"]
    assert stage == "done" and "damaged" in message and "came out empty" in message, message
    info = next(d for d in library.documents() if d.name == "cut.pdf")
    assert info.status == "ready" and "damaged" in info.error
    assert library.search("when does the status LED turn green", k=1)[0].doc == "cut.pdf"
    whole = tmp_path / "whole.pdf"
    whole.write_bytes(data)
    assert outcome(library, [whole])["whole.pdf"][0] == "done"
    assert not next(d for d in library.documents() if d.name == "whole.pdf").error


def test_failed_file_does_not_remove_indexed_version(tmp_path, library):
    """A file that was indexed and then got corrupted keeps its indexed content."""
    pdf = write_pdf(tmp_path / "manual.pdf", [GOOD])
    outcome(library, [pdf])
    make_corrupt_pdf(pdf)
    res = outcome(library, [pdf])
    assert res["manual.pdf"][0] == "failed"
    doc = library.documents()[0]
    assert doc.status == "ready" and "could not be re-indexed" in doc.error
    assert library.search("BOOT button USB", k=1)[0].doc == "manual.pdf"


def test_scanned_pdf_goes_through_ocr(tmp_path, library):
    sample = make_scanned_pdf(tmp_path / "scan.pdf")
    res = outcome(library, [sample.path])
    assert res["scan.pdf"][0] == "done", res
    ocr_used = library.conn.execute("SELECT ocr_used, has_text_layer FROM pages").fetchall()
    assert ocr_used == [(1, 0)]
    hit = library.search("how often should the filter be replaced", k=1)[0]
    assert "filter" in hit.text.lower() and hit.page == 1
    drawn = dict(sample.info["lines"])["Replace the filter every 90 days."]
    # the highlight starts on the line where the text was drawn (OCR boxes mapped back to points);
    # the sentence after it comes along (search/highlight.py)
    assert abs(hit.bbox[1] - drawn[1]) < 12 and hit.bbox[3] > drawn[3] - 12, (hit.bbox, drawn)


def test_scanned_pdf_without_ocr_is_a_clear_failure(tmp_path, embedder):
    from mmrag_desktop.engine.settings import Settings

    lib = Library.open(tmp_path / "lib", Settings(ocr_enabled=False), embedder=embedder)
    try:
        res = outcome(lib, [make_scanned_pdf(tmp_path / "scan.pdf").path])
        assert res["scan.pdf"][0] == "failed"
        assert "ocr" in res["scan.pdf"][1].lower()
    finally:
        lib.close()


def test_page_break_paragraph_is_one_chunk_with_boxes_on_both_pages(tmp_path, library):
    sample = make_page_break_pdf(tmp_path / "pb.pdf")
    outcome(library, [sample.path])
    rows = library.conn.execute("SELECT id, page, page_end FROM chunks WHERE text LIKE ?",
                                (f"%{sample.info['first_part'][:30]}%",)).fetchall()
    assert rows
    chunk = library.chunk(rows[0][0])
    pages = {s["page"] for s in chunk["spans"]}
    assert {1, 2} <= pages
    assert sample.info["second_part"][:20] in chunk["text"]


def test_footnote_follows_the_sentence_it_would_have_split(tmp_path, library):
    """PyMuPDF reads a page's footnote after its last body line: a paragraph running on to the
    next page used to carry the note in the middle of its sentence (ngspice manual, page 76)."""
    note = "A negative resistor can cause convergence problems."
    sample = make_page_break_pdf(tmp_path / "fn.pdf", footnote=note)
    outcome(library, [sample.path])
    first, second = sample.info["first_part"], sample.info["second_part"]
    texts = [r[0] for r in library.conn.execute("SELECT text FROM chunks ORDER BY ord")]
    spanning = [t for t in texts if first in t]
    assert spanning and all(f"{first}\n{second}" in t for t in spanning)
    holding = [t for t in texts if note in t]
    assert holding  # still searchable
    assert all(t.index(note) > t.index(second) for t in holding if second in t)
    hits = library.search("negative resistor convergence problems", k=3)
    assert hits and note in hits[0].text


def test_chunks_fit_the_embedder_window(tmp_path, library, embedder):
    """Measured with the model's own tokenizer: no chunk is silently truncated."""
    from pdf_factory import make_headings_pdf

    sample = make_headings_pdf(tmp_path / "h.pdf", pages=4)
    outcome(library, [sample.path, make_page_break_pdf(tmp_path / "pb.pdf").path,
                      make_ruled_table_pdf(tmp_path / "t.pdf").path])
    from mmrag_desktop.engine.ingest.pipeline import embed_text_of

    rows = library.conn.execute("SELECT text, section FROM chunks").fetchall()
    assert len(rows) >= 3

    class Draft:
        def __init__(self, text, section):
            self.text, self.section = text, section

    for text, section in rows:
        full, _ = embed_text_of(Draft(text, section))
        assert embedder.count_tokens(full) + 2 <= embedder.max_tokens, (embedder.count_tokens(full), full[:80])


def test_table_chunk_repeats_header_and_highlights_a_row(tmp_path, library):
    sample = make_ruled_table_pdf(tmp_path / "t.pdf")
    outcome(library, [sample.path])
    tables = library.conn.execute("SELECT id, text FROM chunks WHERE kind = 'table'").fetchall()
    assert tables, "no table chunk"
    assert "Signal: TXD" in tables[0][1] and "Voltage: 0.998 V" in tables[0][1]
    hits = library.search("which voltage is on the TXD pin", k=3, kinds=["table"])
    assert hits and hits[0].kind == "table"
    grid = sample.info["bbox"]
    x0, y0, x1, y1 = hits[0].bbox
    assert grid[1] - 20 <= y0 and y1 <= grid[3] + 1, (hits[0].bbox, grid)
    # a row, not the whole table
    assert (y1 - y0) < (grid[3] - grid[1]) * 0.6, (hits[0].bbox, grid)


def test_figure_found_by_caption_and_highlighted_as_region(tmp_path, library):
    sample = make_vector_figure_pdf(tmp_path / "f.pdf")
    outcome(library, [sample.path])
    fig = library.conn.execute("SELECT f.chunk_id, f.crop, f.phash FROM figures f").fetchall()
    assert fig and fig[0][1] and fig[0][2], fig
    assert (library.cache_dir / fig[0][1]).exists()
    caption = sample.info["caption"]
    hits = library.search(f"diagram of {caption.split(':', 1)[-1]}", k=3)
    top = [h for h in hits if h.kind == "figure"]
    assert top, [(h.kind, h.text[:40]) for h in hits]
    fx0, fy0, fx1, fy1 = sample.info["plot_box"]
    x0, y0, x1, y1 = top[0].bbox
    # the highlight covers the plot area (the region, not a text line) and not the whole page
    assert x0 <= fx0 + 5 and y0 <= fy0 + 5 and x1 >= fx1 - 5 and y1 >= fy1 - 5, (top[0].bbox, sample.info["plot_box"])
    assert (y1 - y0) < 400
    assert "Load percent" in top[0].text  # label text inside the region is part of the figure chunk


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from mmrag_desktop.engine.library import Library
    lib = Library.open(sys.argv[1])
    for ev in lib.add(sys.argv[2:]):
        if ev.stage == "parse" and ev.docs_done == 1 and ev.done >= 1:
            os.kill(os.getpid(), signal.SIGKILL)   # die in the middle of the second document
    """
)


def test_killed_ingest_leaves_library_consistent_and_resumes(tmp_path, embedder):
    files = []
    for i, topic in enumerate(["pump pressure limits", "valve torque table", "sensor wiring colours"]):
        files.append(write_pdf(tmp_path / f"doc{i}.pdf",
                               [[(72, 100, topic.title()), (72, 130, f"This page explains the {topic} in detail.")],
                                [(72, 100, f"More about {topic} and maintenance intervals.")]]))
    folder = tmp_path / "lib"
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-c", KILLER, str(folder), *map(str, files)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    with Library.open(folder, embedder=embedder) as lib:
        status = {d.name: d.status for d in lib.documents()}
        assert status["doc0.pdf"] == "ready"
        # the document being read when the process died is failed with the reason (it may be the
        # file that killed it), so it is not tried first again
        doc1 = lib.document("doc1.pdf")
        assert doc1.status == "failed" and "stopped the indexer" in doc1.error
        assert lib.conn.execute("SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                                "WHERE d.status != 'ready'").fetchone()[0] == 0
        assert lib.search("pump pressure", k=1)[0].doc == "doc0.pdf"
        # adding the folder again finishes the rest and leaves the suspect file out ...
        res = outcome(lib, [tmp_path])
        assert res["doc0.pdf"] == ("skipped", "already indexed, unchanged")
        assert res["doc1.pdf"][0] == "skipped" and "add it on its own" in res["doc1.pdf"][1]
        assert res["doc2.pdf"][0] == "done"
        # ... and naming it retries it
        assert outcome(lib, [files[1]])["doc1.pdf"][0] == "done"
        assert {d.status for d in lib.documents()} == {"ready"}, [(d.name, d.status, d.error) for d in lib.documents()]
        assert lib.search("valve torque", k=1)[0].doc == "doc1.pdf"


def test_cancel_leaves_document_pending(tmp_path, library):
    from mmrag_desktop.engine.jobs import CancelToken

    a = write_pdf(tmp_path / "a.pdf", [GOOD])
    b = write_pdf(tmp_path / "b.pdf", [GOOD[:1] + [(72, 160, "Another page about calibration.")]])
    token = CancelToken()
    stages = []
    for ev in library.add([a, b], cancel=token):
        stages.append((ev.stage, ev.doc))
        if ev.stage == "done":
            token.cancel()
    assert stages[-1][0] == "cancelled"
    assert {d.name: d.status for d in library.documents()} == {"a.pdf": "ready"}


def test_engine_never_imports_qt():
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import mmrag_desktop.engine as engine
        for m in pkgutil.walk_packages(engine.__path__, "mmrag_desktop.engine."):
            importlib.import_module(m.name)
        import mmrag_desktop.cli
        bad = sorted(n for n in sys.modules if n.split(".")[0] in ("PySide6", "shiboken6", "PyQt5", "PyQt6"))
        print(",".join(bad))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).parents[3])
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", f"engine imported Qt: {out.stdout}"


@pytest.mark.parametrize("name", ["big.pdf"])
def test_huge_file_is_refused_before_reading(tmp_path, library, monkeypatch, name):
    from mmrag_desktop.engine.ingest import pipeline as ingest

    monkeypatch.setattr(ingest, "MAX_FILE_BYTES", 1000)
    pdf = write_pdf(tmp_path / name, [GOOD] * 5)
    assert pdf.stat().st_size > 1000
    res = outcome(library, [pdf])
    assert res[name][0] == "failed" and "too large" in res[name][1]
