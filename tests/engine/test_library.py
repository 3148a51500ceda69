"""The library end to end: real PDFs, real SQLite, real hnswlib, the real MiniLM."""

from __future__ import annotations

import json
import sqlite3

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.errors import LibraryError, QueryError
from mmrag_desktop.engine.library import Library

POWER = [
    (72, 100, "Power Supply Requirements"),
    (72, 130, "The programmer board needs a regulated supply of 7.5 volts at the barrel jack."),
    (72, 145, "Current draw stays below 350 milliamperes during flash writes."),
]
CLOCK = [
    (72, 100, "Clock Configuration"),
    (72, 130, "The ADC clock frequency must not exceed 16 MHz; set the prescaler in register ADCSRA."),
    (72, 145, "Higher clocks reduce the effective resolution of every conversion."),
]
GARDEN = [
    (72, 100, "Garden care"),
    (72, 130, "Tomatoes need six hours of sunlight and regular watering in summer."),
]


def events(lib, paths):
    return list(lib.add(paths))


def test_add_search_page_and_box(tmp_path, library):
    pdf = write_pdf(tmp_path / "board.pdf", [POWER, CLOCK, GARDEN])
    evs = events(library, [pdf])
    assert [e.stage for e in evs if e.stage in ("done", "failed")] == ["done"]
    docs = library.documents()
    assert len(docs) == 1 and docs[0].status == "ready" and docs[0].pages == 3
    hits = library.search("how fast may the analog converter clock run", k=5)
    assert hits, "no hits"
    top = hits[0]
    assert top.doc == "board.pdf" and top.page == 2
    # the highlight is the matching line, not the whole page: y of the ADC line is ~120-135
    x0, y0, x1, y1 = top.bbox
    assert 110 < y0 < 135 and y1 < 150, top.bbox
    js = top.to_json()
    assert set(js) >= {"doc", "page", "bbox", "kind", "score", "chunk_id", "text"}
    assert js["page"] == 2 and len(js["bbox"]) == 4


def test_same_file_twice_is_one_document(tmp_path, library):
    pdf = write_pdf(tmp_path / "a.pdf", [POWER])
    copy = tmp_path / "copy-of-a.pdf"
    copy.write_bytes(pdf.read_bytes())
    events(library, [pdf])
    second = events(library, [pdf, copy])
    assert [e.stage for e in second if e.stage in ("skipped", "done")] == ["skipped", "skipped"]
    assert len(library.documents()) == 1


def test_changed_file_is_reindexed(tmp_path, library):
    pdf = tmp_path / "manual.pdf"
    write_pdf(pdf, [POWER])
    events(library, [pdf])
    assert library.search("barrel jack supply voltage", k=3)[0].doc == "manual.pdf"
    write_pdf(pdf, [GARDEN])
    evs = events(library, [pdf])
    assert any(e.stage == "done" for e in evs)
    docs = library.documents()
    assert len(docs) == 1 and docs[0].status == "ready"
    texts = [h.text for h in library.search("barrel jack supply voltage", k=5)]
    assert not any("barrel" in t for t in texts), "old content still indexed"
    assert "Tomatoes" in library.search("tomato watering", k=1)[0].text


def test_remove_deletes_everywhere(tmp_path, library):
    a = write_pdf(tmp_path / "a.pdf", [POWER])
    b = write_pdf(tmp_path / "b.pdf", [GARDEN])
    events(library, [a, b])
    n_before = len(library.text_index())
    info = library.remove("a.pdf")
    assert info.name == "a.pdf"
    assert [d.name for d in library.documents()] == ["b.pdf"]
    assert library.conn.execute("SELECT COUNT(*) FROM chunks WHERE doc_id = ?", (info.id,)).fetchone()[0] == 0
    assert library.conn.execute("SELECT COUNT(*) FROM vectors v LEFT JOIN chunks c ON c.id = v.chunk_id "
                                "WHERE c.id IS NULL").fetchone()[0] == 0
    assert len(library.text_index()) == n_before - info.chunks
    assert all(h.doc == "b.pdf" for h in library.search("regulated supply barrel jack", k=5))
    with pytest.raises(LibraryError):
        library.remove("a.pdf")


def index_file(folder):
    """The text index file the manifest names."""
    manifest = json.loads((folder / "index" / "text.json").read_text())
    return folder / "index" / f"text.{manifest['generation']}.hnsw"


def test_index_rebuilt_from_sqlite_when_missing_or_mismatched(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        events(lib, [write_pdf(tmp_path / "c.pdf", [CLOCK, POWER])])
        expected = lib.search("ADC prescaler register", k=3)[0].chunk_id
    index_file(folder).unlink()
    with Library.open(folder, embedder=embedder) as lib:
        assert lib.search("ADC prescaler register", k=3)[0].chunk_id == expected
        assert lib.text_index().rebuilt_reason == "no index file"
    manifest = folder / "index" / "text.json"
    data = json.loads(manifest.read_text())
    data["model"] = "some-other-model"
    manifest.write_text(json.dumps(data))
    with Library.open(folder, embedder=embedder) as lib:
        assert lib.search("ADC prescaler register", k=3)[0].chunk_id == expected
        assert "model changed" in lib.text_index().rebuilt_reason


def test_index_repaired_when_sqlite_has_more(tmp_path, embedder):
    """A crash after the SQLite commit but before the index was saved: the index catches up."""
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        events(lib, [write_pdf(tmp_path / "one.pdf", [POWER])])
    saved = {f.name: f.read_bytes() for f in (folder / "index").glob("text.*")}
    with Library.open(folder, embedder=embedder) as lib:
        events(lib, [write_pdf(tmp_path / "two.pdf", [CLOCK])])
    for f in (folder / "index").glob("text.*"):
        f.unlink()
    for name, data in saved.items():  # index as before the second document
        (folder / "index" / name).write_bytes(data)
    with Library.open(folder, embedder=embedder) as lib:
        hits = lib.search("ADC clock prescaler", k=3)
        assert hits[0].doc == "two.pdf"
        assert lib.text_index().rebuilt_reason.startswith("repaired: +")


@pytest.mark.parametrize("query", ['"unbalanced', "AND OR NOT", "NEAR(a b", "col:value", "*", "-x +y",
                                   "regulated) OR (supply", "^start", "a'b\"c"])
def test_fts_syntax_is_never_interpreted(tmp_path, library, query):
    events(library, [write_pdf(tmp_path / "p.pdf", [POWER])])
    try:
        hits = library.search(query, k=3)
    except QueryError as e:  # only allowed when nothing searchable is left
        assert "letters or digits" in str(e)
        return
    assert isinstance(hits, list)


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "!!!???", "x" * 5000])
def test_empty_or_absurd_query_is_a_clear_error(library, query):
    with pytest.raises(QueryError) as e:
        library.search(query)
    assert str(e.value)


def test_identifier_boost_finds_register_name(tmp_path, library):
    events(library, [write_pdf(tmp_path / "c.pdf", [POWER, CLOCK, GARDEN])])
    hits = library.search("ADCSRA", k=3)
    assert hits[0].page == 2 and "exact" in hits[0].sources or "keyword" in hits[0].sources


def test_filters_by_document_page_and_kind(tmp_path, library):
    a = write_pdf(tmp_path / "a.pdf", [POWER, CLOCK])
    b = write_pdf(tmp_path / "b.pdf", [CLOCK])
    events(library, [a, b])
    only_b = library.search("ADC clock frequency", k=5, docs=["b.pdf"])
    assert only_b and {h.doc for h in only_b} == {"b.pdf"}
    page1 = library.search("ADC clock frequency", k=5, docs=["a.pdf"], pages=(1, 1))
    assert all(h.page == 1 for h in page1)
    assert library.search("ADC clock frequency", k=5, kinds=["table"]) == []


def test_commit_is_atomic(tmp_path, library, monkeypatch):
    """An error in the middle of writing a document rolls back everything of that document."""
    good = write_pdf(tmp_path / "good.pdf", [POWER])
    events(library, [good])
    before = library.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    documents = library.store.documents
    real = documents.mark_ready  # the last write of a document's commit: chunks and vectors are in

    def boom(*args, **kwargs):
        real(*args, **kwargs)
        raise sqlite3.OperationalError("disk I/O error (simulated)")

    monkeypatch.setattr(documents, "mark_ready", boom)
    with pytest.raises(sqlite3.OperationalError):
        events(library, [write_pdf(tmp_path / "bad.pdf", [CLOCK])])
    assert library.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == before
    assert library.conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == before
    bad = [d for d in library.documents() if d.name == "bad.pdf"][0]
    assert bad.status == "pending" and bad.chunks == 0
    monkeypatch.setattr(documents, "mark_ready", real)
    events(library, [tmp_path / "bad.pdf"])  # resumes
    assert {d.name: d.status for d in library.documents()} == {"good.pdf": "ready", "bad.pdf": "ready"}


def test_library_folder_errors(tmp_path):
    f = tmp_path / "file"
    f.write_text("not a folder")
    with pytest.raises(LibraryError):
        Library.open(f)
    bad = tmp_path / "badlib"
    bad.mkdir()
    (bad / "library.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LibraryError):
        Library.open(bad)
