"""The table-row list of search: table chunks ranked by their best row (real MiniLM, SQLite, PyMuPDF)."""

from __future__ import annotations

from pdf_factory import make_ruled_table_pdf

CELLS = [
    ["Macro", "Type", "Meaning"],
    ["TEMPERATURE", "double", "analysis temperature"],
    ["RAD_FREQ", "double", "angular frequency"],
    ["INIT", "boolean", "first call of model"],
    ["ANALYSIS", "enum", "type of analysis"],
    ["TIME", "double", "current time point"],
]
QUERY = "which macro gives the analysis temperature"


def _table_library(library, tmp_path):
    sample = make_ruled_table_pdf(tmp_path / "macros.pdf", CELLS)
    assert [e.stage for e in library.add([sample.path]) if e.stage in ("done", "failed")] == ["done"]
    table = library.conn.execute("SELECT id FROM chunks WHERE kind = 'table'").fetchone()[0]
    return sample, table


def test_a_question_about_one_row_finds_the_table_through_its_rows(library, tmp_path):
    sample, table = _table_library(library, tmp_path)
    qvec = library.embedder.encode([QUERY])[0]
    assert library.table_rows.ranked(qvec, 5)[0] == table

    hit = next(h for h in library.search(QUERY, k=5) if h.chunk_id == table)
    assert "rows" in hit.sources and hit.sources["rows"] == 1
    # the highlight is the row asked about
    row_box = sample.info["cell_boxes"][1]
    assert hit.bbox[1] >= row_box[0][1] - 3 and hit.bbox[3] <= row_box[0][3] + 3, (hit.bbox, row_box)

    # filters reach the list; a kind filter without tables leaves it out
    assert library.table_rows.ranked(qvec, 5, allowed=set()) == []
    text_only = library.search(QUERY, k=5, kinds=["text"])
    assert all("rows" not in h.sources for h in text_only)


def test_the_row_matrix_follows_library_changes(library, tmp_path, monkeypatch):
    from mmrag_desktop.engine.search import table_rows

    _sample, table = _table_library(library, tmp_path)
    qvec = library.embedder.encode([QUERY])[0]
    before = library.table_rows.ranked(qvec, 5)
    assert before == [table]
    pooled = library.store.vectors.segment_vectors([table], library.embedder.model_id)[table].astype("float32")
    assert (abs(library.table_rows._matrix - pooled) < 1e-6).all()
    list(library.enrich())  # the background pass: rows now matched with their own vectors too
    library.table_rows.ranked(qvec, 5)
    assert (abs(library.table_rows._matrix - pooled) < 1e-6).all(), "rebuilt at most every REFRESH_SECONDS"
    monkeypatch.setattr(table_rows, "REFRESH_SECONDS", 0.0)
    assert library.table_rows.ranked(qvec, 5) == [table]
    mixed = library.table_rows._matrix.copy()
    assert mixed.shape == pooled.shape and not (abs(mixed - pooled) < 1e-6).all()
    library.remove(library.documents()[0].id)
    assert library.table_rows.ranked(qvec, 5) == []


SIZES = [
    ["Routine", "Code size", "Formats"],
    ["printf", "1.4k", "cdiopsux"],
    ["printf_small", "0.45k", "cdosx"],
    ["printf_fast", "1.2k", "cdsux"],
    ["printf_tiny", "0.26k", "cdsux"],
]
HEAP = ("A default heap space of 1024 bytes is provided for malloc to allocate memory from. If you "
        "need a different heap size, recompile _heap.c with the required size defined in HEAP_SIZE.")


def test_a_table_question_shows_the_pages_table_only_when_the_table_answers_it(library, tmp_path):
    """"default" makes a question a table question, and a table question's text hit becomes the
    page's table (the user asked to see it) -- but not a table about something else: "default
    heap size for malloc" keeps the paragraph that says 1024 bytes, not the printf sizes above it
    (sdccman.pdf page 59)."""
    sample = make_ruled_table_pdf(tmp_path / "library.pdf", SIZES, after=HEAP)
    assert [e.stage for e in library.add([sample.path]) if e.stage in ("done", "failed")] == ["done"]

    heap = library.search("default heap size for malloc", k=3)[0]
    assert heap.kind == "text" and "1024 bytes" in heap.text
    x0, y0, x1, y1 = sample.info["after"]
    assert heap.bbox[1] >= y0 - 3 and heap.bbox[3] <= y1 + 3, (heap.bbox, sample.info["after"])

    sizes = library.search("default code size of printf_small", k=3)[0]
    assert sizes.kind == "table"
    row_box = sample.info["cell_boxes"][2][0]
    assert sizes.bbox[1] >= row_box[1] - 3 and sizes.bbox[3] <= row_box[3] + 3, (sizes.bbox, row_box)
