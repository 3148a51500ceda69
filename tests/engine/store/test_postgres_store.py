"""The PostgreSQL store (engine/store/postgres/) against a real server, never a mock: pgserver
starts PostgreSQL 16 with pgvector in a temp folder once for the test session (tests/conftest.py's
`pg_server`), and each test gets a database of its own (`pg_uri`).

Most tests are a contract run on both backends (`store` is parametrised: the SQLite `Store` and
`PgStore`), so both implementations of a repository method must behave the same. The rest check
what only the server has: other clients, the HNSW index, migrations, connection errors.
"""

from __future__ import annotations

import importlib.util
import inspect
import threading
from pathlib import Path

import numpy as np
import pytest

from mmrag_desktop.engine.errors import LibraryError, LibraryInUseError
from mmrag_desktop.engine.store import Filters, Store

MISSING = [name for name in ("psycopg", "pgvector", "pgserver") if importlib.util.find_spec(name) is None]
NO_SERVER = (f"PostgreSQL tests need {', '.join(MISSING)} (pip install -e '.[dev]': the server extra and "
             "pgserver)") if MISSING else ""
needs_server = pytest.mark.skipif(bool(MISSING), reason=NO_SERVER or "ok")

def _open(backend: str, tmp_path: Path, request):
    if backend == "sqlite":
        return Store(tmp_path / "lib")
    from mmrag_desktop.engine.store.postgres import PgStore

    return PgStore(request.getfixturevalue("pg_uri"))


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path):
    """A fresh store of each backend (the contract tests run on both)."""
    s = _open(request.param, tmp_path, request)
    yield s
    s.close()


@pytest.fixture
def pg_store(pg_uri):
    from mmrag_desktop.engine.store.postgres import PgStore

    s = PgStore(pg_uri)
    yield s
    s.close()


def _unit(rng, n: int, dim: int = 8) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _row(doc_id: int, ord_: int, text: str, *, kind: str = "text", page: int = 1, page_end: int | None = None,
         section: str = "Chapter > Electrical", group_key=None) -> dict:
    return {"doc_id": doc_id, "ord": ord_, "kind": kind, "text": text, "section": section, "page": page,
            "page_end": page if page_end is None else page_end, "bbox": "[1, 2, 3, 4]", "spans": "[]",
            "lines": '[{"p": 1}]', "group_key": group_key, "meta": "{}"}


def _document(store, name: str, rows: list[dict], *, folder: Path = Path("/manuals")) -> tuple[int, list[int]]:
    """A ready document with these chunk rows (doc_id filled in), committed as ingest does."""
    path = folder / name
    doc = store.documents.register(path, "sha-" + name, 10, 1.5, "pending")
    with store.db.transaction():
        store.documents.replace_pages(doc, [(1, 612.0, 792.0, 0, 1, 0), (2, 612.0, 792.0, 90, 0, 1)])
        ids = store.chunks.insert([{**r, "doc_id": doc} for r in rows])
        store.documents.mark_ready(doc, sha="sha-" + name, size=10, mtime=1.5, kind="pdf", title=name, pages=2,
                                   warning=None, enrichment="")
    return doc, ids


# ---- the two implementations have the same interface ------------------------------------------

def _public(obj) -> dict[str, list[tuple]]:
    """Public methods: their parameters' names, kinds and defaults (return types name each backend's
    own classes)."""
    return {n: [(p.name, p.kind, p.default) for p in inspect.signature(m).parameters.values()]
            for n, m in inspect.getmembers(obj, callable) if not n.startswith("_")}


@needs_server
def test_every_repository_method_has_the_same_parameters_on_both_backends(pg_store):
    import mmrag_desktop.engine.store as sqlite_store
    import mmrag_desktop.engine.store.postgres as pg_mod
    from mmrag_desktop.engine.store.vector_index import VectorIndex

    assert set(_public(Store)) <= set(_public(pg_mod.PgStore))
    for name in ("Documents", "Chunks", "Vectors"):  # the repositories with PostgreSQL's own SQL
        want, have = _public(getattr(sqlite_store, name)), _public(getattr(pg_mod, "Pg" + name))
        assert set(want) <= set(have), (name, set(want) - set(have))
        assert {n: have[n] for n in want} == want, name
    # the others are the store's own repositories, over the PostgreSQL database
    for name in ("Figures", "State", "Folders"):
        assert type(getattr(pg_store, name.lower())) is getattr(sqlite_store, name)
    # the index objects services query (search) and feed (ingest, enrichment)
    want, have = _public(VectorIndex), _public(pg_mod.PgVectorIndex)
    for name in ("query", "add", "remove", "remove_leftovers"):
        assert have[name] == want[name], name


# ---- contract: documents ----------------------------------------------------------------------

def test_documents_register_status_and_lookups(store):
    doc = store.documents.register(Path("/manuals/pump.pdf"), "aaa", 100, 2.0, "pending")
    assert store.documents.register(Path("/manuals/pump.pdf"), "bbb", 101, 3.0, "pending") == doc
    row = store.documents.by_path(Path("/manuals/pump.pdf"))
    assert (row["sha256"], row["size"], row["mtime"], row["status"], row["name"]) == ("bbb", 101, 3.0, "pending",
                                                                                      "pump.pdf")
    assert store.documents.by_path(Path("/manuals/none.pdf")) is None
    store.documents.start_indexing(doc, "bbb")
    assert store.documents.by_path(Path("/manuals/pump.pdf"))["status"] == "indexing"
    assert [d["id"] for d in store.documents.interrupted()] == [doc]
    store.documents.mark_crashed(doc, "reading this file stopped the indexer")
    row = store.documents.by_path(Path("/manuals/pump.pdf"))
    assert (row["status"], row["crashed_sha"], row["indexing_sha"]) == ("failed", "bbb", None)
    assert store.documents.crashed_paths() == {"/manuals/pump.pdf"}
    with store.db.transaction():
        store.documents.mark_ready(doc, sha="bbb", size=101, mtime=3.0, kind="markdown", title="Pump", pages=3,
                                   warning="damaged", enrichment="pending")
    row = store.documents.by_path(Path("/manuals/pump.pdf"))
    assert (row["status"], row["error"], row["crashed_sha"], row["title"], row["pages"]) == \
        ("ready", "damaged", None, "Pump", 3)
    assert store.documents.kind(doc) == "markdown" and store.documents.kind(999) == "pdf"
    # a ready document stays ready when registered again, and keeps serving its version
    assert store.documents.register(Path("/manuals/pump.pdf"), "ccc", 1, 4.0, "pending") == doc
    assert store.documents.by_path(Path("/manuals/pump.pdf"))["status"] == "ready"
    assert store.documents.ready_by_sha("ccc")["id"] == doc and store.documents.ready_by_sha("zzz") is None
    assert store.documents.enrichment_pending() == [doc]
    store.documents.mark_enrichment_done([doc])
    assert store.documents.enrichment_pending() == []
    store.documents.set_error(doc, "no longer parses")
    assert store.documents.by_path(Path("/manuals/pump.pdf"))["error"] == "no longer parses"
    store.documents.set_failed(doc, "gone")
    assert store.documents.by_path(Path("/manuals/pump.pdf"))["status"] == "failed"


def test_documents_pages_paths_names_and_delete(store):
    doc, ids = _document(store, "a.pdf", [_row(0, 0, "alpha"), _row(0, 1, "beta")])
    other, _ = _document(store, "b.pdf", [_row(0, 0, "gamma")], folder=Path("/elsewhere"))
    _document(store, "c.pdf", [], folder=Path("/manuals-old"))
    assert store.documents.page_size(doc, 2) == (612.0, 792.0) and store.documents.page_size(doc, 9) is None
    assert [d["name"] for d in store.documents.under(Path("/manuals"))] == ["a.pdf"]
    assert store.documents.names() == {doc: ("a.pdf", "/manuals/a.pdf"), other: ("b.pdf", "/elsewhere/b.pdf"),
                                       doc + 2: ("c.pdf", "/manuals-old/c.pdf")}
    store.documents.repoint(doc, Path("/moved/a2.pdf"), 11, 2.5)
    assert store.documents.names()[doc] == ("a2.pdf", "/moved/a2.pdf")
    store.documents.mark_pending([Path("/moved/a2.pdf"), Path("/not/there.pdf")])
    assert store.documents.by_path(Path("/moved/a2.pdf"))["status"] == "pending"
    rows = {d["id"]: d for d in store.documents.all()}
    assert [rows[doc]["n_chunks"], rows[other]["n_chunks"], rows[doc + 2]["n_chunks"]] == [2, 1, 0]
    assert set(rows[doc]) == {"id", "path", "name", "sha256", "size", "mtime", "kind", "title", "pages", "status",
                              "error", "added", "updated", "enrichment", "indexing_sha", "crashed_sha", "n_chunks"}
    assert len(rows[doc]["added"]) == 20 and rows[doc]["added"].endswith("Z")
    store.vectors.put_text(ids, "m", _unit(np.random.default_rng(1), 2), [np.zeros((1, 8))] * 2)
    store.figures.insert(ids[0], doc, 1, [0, 0, 10, 10], "raster", "a/1.png", 5, 5, "ff", "00", False)
    store.documents.delete(doc)
    assert store.documents.by_path(Path("/moved/a2.pdf")) is None
    assert store.chunks.rows(ids) == {} and store.vectors.count("m") == 0 and not store.figures.exists(ids[0])
    assert store.documents.page_size(doc, 1) is None and doc not in store.documents.names()


def test_a_transaction_spanning_repositories_rolls_back_as_one(store):
    doc = store.documents.register(Path("/m/x.pdf"), "s", 1, 1.0, "pending")
    assert store.chunks.count() == 0
    with pytest.raises(RuntimeError):
        with store.db.transaction():
            ids = store.chunks.insert([_row(doc, 0, "pump")])
            with store.db.transaction():  # nested: joins the one open
                store.vectors.put_text(ids, "m", _unit(np.random.default_rng(0), 1), [np.zeros((1, 8))])
                store.state.set("text_model", "m")
            assert store.chunks.count() == 1
            raise RuntimeError("crash mid-document")
    assert store.chunks.count() == 0 and store.vectors.count("m") == 0 and store.state.get("text_model") is None
    assert store.chunks.keyword_ids('"pump"', 10, Filters()) == []


def test_threads_share_the_store(store):
    doc = store.documents.register(Path("/m/t.pdf"), "s", 1, 1.0, "pending")
    errors = []

    def write(n):
        try:
            for i in range(10):
                with store.db.transaction():
                    store.chunks.insert([_row(doc, n * 100 + i, f"thread {n} chunk {i}")])
        except Exception as e:  # pragma: no cover - shown by the assert
            errors.append(e)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and store.chunks.count() == 30


# ---- contract: chunks and keyword search --------------------------------------------------------

def test_chunk_rows_ids_and_lookups(store):
    doc, ids = _document(store, "a.pdf", [
        _row(0, 0, "Pump overview"), _row(0, 1, "Figure 3: wiring", kind="figure", page=2, group_key="figure:3"),
        _row(0, 2, "As Figure 3 shows", group_key="figure:3"), _row(0, 3, "Table 1", kind="table", page=1,
                                                                    page_end=2)])
    assert ids == sorted(ids) and len(set(ids)) == 4
    rows = store.chunks.rows([*ids, 10**9])
    assert set(rows) == set(ids)
    assert set(rows[ids[0]]) == {"id", "doc_id", "ord", "kind", "text", "section", "page", "page_end", "bbox",
                                 "spans", "lines", "group_key", "meta"}
    assert (rows[ids[1]]["kind"], rows[ids[1]]["page"], rows[ids[1]]["bbox"]) == ("figure", 2, "[1, 2, 3, 4]")
    assert [rows[i]["ord"] for i in ids] == [0, 1, 2, 3]
    assert store.chunks.count() == 4 and sorted(store.chunks.ids_of_document(doc)) == ids
    assert store.chunks.by_group_keys(["figure:3"], Filters()) == [ids[1], ids[2]]
    assert store.chunks.on_page(doc, ("figure", "table"), 2) == [ids[1], ids[3]]
    # the next text chunk in the document's order skips the figure between; none after the last
    assert store.chunks.next_text(doc, 0) == ids[2] and store.chunks.next_text(doc, 2) is None
    assert store.chunks.text_row(ids[0]) == ("Pump overview", "Chapter > Electrical", '[{"p": 1}]', "{}")
    assert store.chunks.text_row(10**9) is None
    store.chunks.add_links({(ids[2], ids[1], "refers_to")})
    store.chunks.add_links({(ids[2], ids[1], "refers_to")})  # twice: ignored
    assert store.chunks.linked(ids[1], referring=True) == [ids[2]]
    assert store.chunks.linked(ids[2], referring=False) == [ids[1]]
    assert store.chunks.allowed_ids(Filters(kinds=["figure", "table"])) == {ids[1], ids[3]}
    assert store.chunks.allowed_ids(Filters(pages=(2, 2))) == {ids[1], ids[3]}
    assert store.chunks.allowed_ids(Filters(doc_ids=[doc + 1])) == set()
    store.chunks.delete_document(doc)
    assert store.chunks.count() == 0


def test_keyword_search_expressions_filters_and_ranking(store):
    doc, ids = _document(store, "a.pdf", [
        _row(0, 0, "The pump runs at 3.3 V and the pump stops when dry.", section="Pump"),
        _row(0, 1, "Register REG_CTRL0 controls the motor.", section="Registers"),
        _row(0, 2, "Fig. 4-12 shows the wiring of the pumping station.", kind="figure", page=2),
        _row(0, 3, "Nothing of interest here.", section="Pump maintenance"),
    ])
    other, (o1,) = _document(store, "b.pdf", [_row(0, 0, "A second pump manual.")])
    search = store.chunks.keyword_ids
    assert search("", 10, Filters()) == []
    # porter-style stemming: pumping ~ pump; text outranks the section heading
    found = search('"pump"', 10, Filters())
    assert set(found) == {ids[0], ids[2], ids[3], o1}
    assert found[0] == ids[0] and found.index(ids[3]) > found.index(o1)
    assert search('"pump" OR "register"', 10, Filters()) and ids[1] in search('"pump" OR "register"', 10, Filters())
    assert search('"pump" AND "dry"', 10, Filters()) == [ids[0]]
    assert search('"reg_ctrl0"', 10, Filters()) == [ids[1]]
    assert search('"fig 4-12"', 10, Filters()) == [ids[2]]
    assert search('"fig 4-13"', 10, Filters()) == []
    assert search('"the"', 10, Filters()) and search('"x""y"', 10, Filters()) == []  # stop words kept; quotes
    assert search('"pump"', 10, Filters(doc_ids=[other])) == [o1]
    assert search('"pump"', 10, Filters(kinds=["figure"])) == [ids[2]]
    assert search('"pump"', 10, Filters(pages=(2, 5))) == [ids[2]]
    assert len(search('"pump"', 2, Filters())) == 2
    # figure enrichment rewrites a chunk's text: the keyword index follows
    store.chunks.update_text(ids[3], "Impeller seal replacement", "[]", '{"x": 1}')
    assert ids[3] in search('"impeller"', 10, Filters())
    assert store.chunks.text_row(ids[3])[3] == '{"x": 1}'


def test_term_idf_counts_matching_chunks(store):
    _document(store, "a.pdf", [_row(0, i, t, section="") for i, t in enumerate(
        ["pump seal", "pump motor", "valve", "pumps and valves", "register"])])
    idf = store.chunks.term_idf(["pump", "valve", "absent", "register"])
    n = 5
    assert idf["pump"] == pytest.approx(max(np.log((n + 1) / (3 + 0.5)), 0.1))
    assert idf["valve"] == pytest.approx(np.log((n + 1) / (2 + 0.5)))
    assert idf["absent"] == pytest.approx(np.log((n + 1) / 0.5))
    assert idf["register"] == pytest.approx(np.log((n + 1) / 1.5))
    assert store.chunks.term_df(["pump", "absent", "pump seal"]) == {"pump": 3, "absent": 0, "pump seal": 1}
    other, _ = _document(store, "b.pdf", [_row(0, 0, "pump curve", section="")])
    assert store.chunks.term_df(["pump", "curve", "valve"], doc_ids=[other]) == {"pump": 1, "curve": 1, "valve": 0}
    assert store.chunks.term_df(["pump"]) == {"pump": 4}
    assert store.chunks.term_df(["pump"], doc_ids=[]) == {"pump": 0}


def test_chunks_without_vectors(store):
    _, ids = _document(store, "a.pdf", [_row(0, i, f"chunk {i}") for i in range(3)])
    store.vectors.put_text(ids[:1], "m", _unit(np.random.default_rng(0), 1), [np.zeros((1, 8))])
    assert store.chunks.count_without_vector("m") == 2 and store.chunks.count_without_vector("other") == 3
    assert [r[0] for r in store.chunks.without_vector("m", 10)] == ids[1:]
    assert store.chunks.without_vector("m", 1) == [(ids[1], "chunk 1", "Chapter > Electrical", "{}")]


# ---- contract: state, folders, figures ----------------------------------------------------------

def test_state_and_folders(store):
    assert store.state.get("text_model") is None
    store.state.set("text_model", "a")
    store.state.set("text_model", "b")
    assert store.state.get("text_model") == "b"
    assert store.folders.add(Path("/docs")) is True and store.folders.add(Path("/docs")) is False
    assert store.folders.add(Path("/more")) is True
    store.folders.set_missing(Path("/docs"), True)
    first = store.folders.all()[0].missing_since
    assert first is not None and first.endswith("Z")
    store.folders.set_missing(Path("/docs"), True)  # keeps the first time
    assert store.folders.all()[0].missing_since == first
    store.folders.set_missing(Path("/docs"), False)
    assert [(f.path, f.missing_since) for f in store.folders.all()] == [("/docs", None), ("/more", None)]
    assert store.folders.remove(Path("/docs")) is True and store.folders.remove(Path("/docs")) is False
    assert [f.path for f in store.folders.all()] == ["/more"]


def test_figures_rows_hashes_captions_and_coverage(store):
    doc, ids = _document(store, "a.pdf", [_row(0, 0, "Figure 1", kind="figure"), _row(0, 1, "Figure 2",
                                                                                     kind="figure")])
    store.figures.insert(ids[0], doc, 1, [0.123, 1, 2, 3.456], "raster", "a/1.png", 10, 20, "abcd", "0f", True)
    store.figures.insert(ids[1], doc, 2, [5, 5, 6, 6], "vector", None, None, None, None, None, False)
    assert store.figures.exists(ids[0]) and not store.figures.exists(10**9)
    rows = store.figures.work_rows()
    assert rows == store.figures.work_rows([doc]) and store.figures.work_rows([doc + 5]) == []
    assert tuple(rows[0]) == (ids[0], doc, "a.pdf", "/manuals/a.pdf", "pdf", 1, "[0.12, 1, 2, 3.46]", "raster",
                              "a/1.png", 1, None, None)
    assert [tuple(r) for r in store.figures.hashes()] == [(ids[0], doc, 1, "[0.12, 1, 2, 3.46]", "abcd")]
    assert store.figures.crops() == {"a/1.png"}
    assert store.figures.image_coverage("clip") == (0, 1)
    store.vectors.put_image(ids[0], "clip", _unit(np.random.default_rng(2), 1)[0])
    store.figures.update(ids[0], clip_model="clip", ocr_done=False, caption_model=None)
    assert store.figures.image_coverage("clip") == (1, 1)
    assert tuple(store.figures.work_rows()[0])[9:] == (0, "clip", None)
    with pytest.raises(ValueError, match="unknown figure column"):
        store.figures.update(ids[0], colour="red")
    store.figures.put_caption(ids[0], "vlm", {"a": 1})
    store.figures.put_caption(ids[0], "vlm", {"a": 2})  # replaced
    store.figures.forget_image_models_except("other")
    assert tuple(store.figures.work_rows()[0])[10] is None


# ---- contract: vectors ----------------------------------------------------------------------------

def test_vectors_tables_and_model_switch(store):
    rng = np.random.default_rng(3)
    doc, ids = _document(store, "a.pdf", [_row(0, i, f"chunk {i}", kind="table" if i == 2 else "text")
                                          for i in range(4)])
    vecs = _unit(rng, 4)
    segs = [rng.normal(size=(i + 1, 8)).astype(np.float16) for i in range(4)]
    assert not store.vectors.has_any("text") and store.vectors.dim("text", "m") is None
    store.vectors.put_text(ids, "m", vecs, segs)
    assert store.vectors.count("m") == 4 and store.vectors.has_any("text") and store.vectors.has_any("text", "m")
    assert not store.vectors.has_any("text", "n") and not store.vectors.has_other_models("text", "m")
    assert store.vectors.dim("text", "m") == 8
    got = store.vectors.chunk_vectors(ids, "m")
    assert set(got) == set(ids) and got[ids[1]].dtype == np.float32
    np.testing.assert_array_equal(got[ids[1]], vecs[1])
    seg = store.vectors.segment_vectors(ids, "m")
    assert seg[ids[3]].shape == (4, 8) and seg[ids[3]].dtype == np.float16
    np.testing.assert_array_equal(seg[ids[3]], segs[3])
    with pytest.raises(ValueError):
        store.vectors.segment_vectors(ids, "m", "chunks")
    assert store.vectors.table_segments("m") == [(ids[2], 3)]
    # sentence vectors: only where the pooled vectors are unchanged
    assert store.vectors.count_sentence_pending("m") == 4 and store.vectors.count_sentence_pending("m", [doc + 1]) == 0
    pending = store.vectors.sentence_pending("m", None, 2)
    assert [r[0] for r in pending] == ids[:2] and pending[0][1] == 1 and pending[0][2] == segs[0].tobytes()
    own = [rng.normal(size=(i + 1, 8)).astype(np.float16) for i in range(2)]
    store.vectors.put_sentences([(ids[0], "m", 1, 8, own[0].tobytes(), segs[0].tobytes()),
                                 (ids[1], "m", 2, 8, own[1].tobytes(), b"stale")])
    assert store.vectors.count_sentence_pending("m") == 3
    assert set(store.vectors.segment_vectors(ids, "m", "sentence_vectors")) == {ids[0]}
    mixed = store.vectors.match_vectors(ids[:2], "m")
    assert mixed[ids[0]].shape == (1, 8) and np.allclose(np.linalg.norm(mixed[ids[0]], axis=1), 1, atol=1e-3)
    np.testing.assert_array_equal(mixed[ids[1]], segs[1])
    # a chunk's text changed: other models' vectors and its sentence vectors go
    store.vectors.put_text(ids[:1], "old", vecs[:1], segs[:1])
    store.vectors.replace_chunk_text(ids[0], "m", vecs[3], segs[3])
    assert store.vectors.has_other_models("text", "m") is False
    assert store.vectors.segment_vectors([ids[0]], "m")[ids[0]].shape == (4, 8)
    assert store.vectors.count_sentence_pending("m") == 4
    # another model's vectors coexist until the switch
    store.vectors.put_text(ids, "n", _unit(rng, 4, 16), [np.zeros((1, 16))] * 4)
    assert store.vectors.has_other_models("text", "m") and store.vectors.dim("text", "n") == 16
    store.vectors.keep_only_text_model("n")
    assert store.vectors.count("m") == 0 and store.vectors.count("n") == 4
    assert store.vectors.segment_vectors(ids, "m") == {}
    store.vectors.put_image(ids[1], "clip", vecs[0])
    store.vectors.put_image(ids[1], "clip2", vecs[1])
    store.vectors.keep_only_image_model("clip2")
    assert store.vectors.count("clip", "image") == 0 and store.vectors.count("clip2", "image") == 1


def test_vector_index_queries_best_first_with_filters(store):
    rng = np.random.default_rng(4)
    _, ids = _document(store, "a.pdf", [_row(0, i, f"chunk {i}") for i in range(50)])
    vecs = _unit(rng, 50, 16)
    store.vectors.put_text(ids, "m", vecs, [np.zeros((1, 16))] * 50)
    idx = store.vectors.index("text", "m", 16)
    idx.add(np.asarray(ids, dtype=np.int64), vecs)  # as ingest does after its commit
    assert len(idx) == 50 and idx.model == "m" and idx.dim == 16
    hits = idx.query(vecs[7], 5)
    assert hits[0][0] == ids[7] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    exact = sorted(((float(vecs[i] @ vecs[7]), ids[i]) for i in range(50)), reverse=True)[:5]
    assert [c for c, _ in hits] == [c for _, c in exact]
    allowed = set(ids[20:25])
    hits = idx.query(vecs[7], 10, filter_ids=allowed)
    assert {c for c, _ in hits} == allowed and len(hits) == 5
    assert idx.query(vecs[7], 3, filter_ids=set()) == []
    assert store.vectors.index("text", "m", 16) is idx and store.vectors.held_index("text") is idx
    rebuilt = store.vectors.rebuild_index("text", "m", 16, reason="reindex")
    assert len(rebuilt) == 50 and rebuilt.query(vecs[3], 1)[0][0] == ids[3]
    store.vectors.drop_index("text")
    assert store.vectors.held_index("text") is None


# ---- what only the server has ------------------------------------------------------------------

@needs_server
def test_the_hnsw_index_is_used_per_space_and_model(pg_store):
    rng = np.random.default_rng(5)
    _, ids = _document(pg_store, "a.pdf", [_row(0, i, f"c{i}") for i in range(30)])
    pg_store.vectors.put_text(ids, "m", _unit(rng, 30, 16), [np.zeros((1, 16))] * 30)
    idx = pg_store.vectors.index("text", "m", 16)
    assert idx.rebuilt_reason == "created" and idx.exists()
    assert pg_store.db.all("SELECT space, model, dim FROM vector_indexes") == [("text", "m", 16)]
    with pg_store.db.transaction():  # the plan of the query with 30 rows, when sorting them all is ruled out
        pg_store.db.run("SET LOCAL enable_seqscan = off")
        pg_store.db.run("SET LOCAL enable_sort = off")
        plan = "\n".join(r[0] for r in pg_store.db.all(
            "EXPLAIN SELECT chunk_id FROM vectors WHERE space = 'text' AND model = 'm' "
            "ORDER BY vec::vector(16) <=> ?::vector(16) LIMIT 5", (np.ones(16, dtype=np.float32),)))
    assert idx.name in plan
    # another model of the space gets its own index; keeping one model drops the other's
    pg_store.vectors.put_text(ids, "n", _unit(rng, 30, 8), [np.zeros((1, 8))] * 30)
    other = pg_store.vectors.index("text", "n", 8)
    assert other.name != idx.name and other.exists()
    pg_store.vectors.keep_only_text_model("n")
    assert not idx.exists() and other.exists()


@needs_server
def test_other_clients_see_a_document_when_its_transaction_commits(pg_uri):
    from mmrag_desktop.engine.store.postgres import PgStore

    writer, reader = PgStore(pg_uri), PgStore(pg_uri)
    try:
        doc = writer.documents.register(Path("/m/a.pdf"), "s", 1, 1.0, "pending")
        with writer.db.transaction():
            ids = writer.chunks.insert([_row(doc, 0, "centrifugal pump")])
            writer.vectors.put_text(ids, "m", _unit(np.random.default_rng(6), 1), [np.zeros((1, 8))])
            assert reader.chunks.keyword_ids('"centrifugal"', 5, Filters()) == []
            assert reader.chunks.rows(ids) == {}
        assert reader.changed_elsewhere()
        reader.refresh()
        assert reader.chunks.keyword_ids('"centrifugal"', 5, Filters()) == ids
        assert reader.chunks.count() == 1 and reader.documents.names()[doc] == ("a.pdf", "/m/a.pdf")
        # two clients registering the same path get one row
        assert reader.documents.register(Path("/m/a.pdf"), "s", 1, 1.0, "pending") == doc
    finally:
        writer.close()
        reader.close()


@needs_server
def test_migrations_are_numbered_idempotent_and_refuse_a_newer_schema(pg_uri):
    from mmrag_desktop.engine.store.postgres import PgStore
    from mmrag_desktop.engine.store.postgres.migrations import MIGRATIONS

    results, errors = [], []

    def open_one():
        try:
            s = PgStore(pg_uri)
            results.append(s.db.one("SELECT max(version) FROM schema_version")[0])
            s.close()
        except Exception as e:  # pragma: no cover - shown by the assert
            errors.append(e)

    threads = [threading.Thread(target=open_one) for _ in range(3)]  # three clients open a new database at once
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and results == [len(MIGRATIONS)] * 3
    s = PgStore(pg_uri)
    assert s.db.all("SELECT version FROM schema_version ORDER BY version") == [(n,) for n in range(1, len(MIGRATIONS) + 1)]
    s.db.run("INSERT INTO schema_version (version) VALUES (?)", (len(MIGRATIONS) + 1,))
    s.close()
    with pytest.raises(LibraryError, match="newer than this app"):
        PgStore(pg_uri)


@needs_server
def test_a_read_only_client_reads_and_never_writes(pg_uri):
    from mmrag_desktop.engine.store.postgres import PgStore

    PgStore(pg_uri).close()
    s = PgStore(pg_uri, read_only_reason="another program writes")
    try:
        assert s.read_only and s.documents.all() == []
        with pytest.raises(LibraryInUseError, match="another program writes"):
            s.documents.register(Path("/m/a.pdf"), "s", 1, 1.0, "pending")
        assert s.vectors.index("text", "m", 8).query(np.ones(8, np.float32), 3) == []
        assert s.db.one("SELECT COUNT(*) FROM vector_indexes")[0] == 0
    finally:
        s.close()


@needs_server
def test_an_unreachable_server_is_a_library_error_without_the_password(tmp_path):
    from mmrag_desktop.engine.store.postgres import PgStore, is_database_uri

    uri = f"postgresql://team:s3cret@/mmrag?host={tmp_path}&port=5"
    assert is_database_uri(uri) and not is_database_uri(str(tmp_path))
    with pytest.raises(LibraryError, match="cannot connect") as err:
        PgStore(uri)
    assert "s3cret" not in str(err.value) and "team:***@" in str(err.value)


@needs_server
def test_keyword_expressions_are_translated_or_refused():
    from mmrag_desktop.engine.store.postgres.chunks import fts_to_tsquery

    assert fts_to_tsquery('"a" OR "b c"') == ("(phraseto_tsquery('mmrag', ?) || phraseto_tsquery('mmrag', ?))",
                                             ["a", "b c"])
    assert fts_to_tsquery('"say ""hi"""')[1] == ['say "hi"']
    assert fts_to_tsquery('"a" AND "b"')[0].count("&&") == 1
    for bad in ('a OR b', '"a" OR', 'OR "a"', '"a" "b"', '"a" NEAR "b"', '"a'):
        with pytest.raises(ValueError):
            fts_to_tsquery(bad)


# ---- the real services over the PostgreSQL repositories ---------------------------------------

def _services(store, folder: Path, embedder):
    """Ingest, the sentence pass and search wired over `store`'s repositories as Library does."""
    from mmrag_desktop.engine.ingest.pipeline import Ingester
    from mmrag_desktop.engine.models.active import ActiveModels
    from mmrag_desktop.engine.search.own_sentences import OwnSentences
    from mmrag_desktop.engine.search.searcher import Searcher
    from mmrag_desktop.engine.search.table_rows import TableRows
    from mmrag_desktop.engine.settings import Settings

    models = ActiveModels(Settings(), store.vectors, store.figures, store.state, embedder)
    searcher = Searcher(store.chunks, store.documents, store.vectors, store.figures, models,
                        TableRows(store.chunks, store.vectors, models), OwnSentences(store.chunks, store.vectors, models))
    return Ingester(store.documents, store.chunks, store.vectors, store.figures, models, folder), searcher, models


@pytest.mark.slow
def test_ingest_the_sentence_pass_and_search_run_unchanged_on_postgres(tmp_path, request, embedder):
    from pdf_factory import make_plant_manual

    from mmrag_desktop.engine.ingest.sentences import sentence_events

    pdf = make_plant_manual(tmp_path / "plant.pdf")
    results = {}
    for backend in ("sqlite", "postgres"):
        if backend == "postgres" and MISSING:
            pytest.skip(NO_SERVER)
        store = _open(backend, tmp_path / backend, request)
        try:
            ingester, searcher, models = _services(store, tmp_path / backend, embedder)
            events = list(ingester.events([pdf]))
            assert [e.stage for e in events if e.stage in ("done", "failed")] == ["done"], events[-1]
            list(sentence_events(store.vectors, embedder, None))
            assert store.vectors.count_sentence_pending(embedder.model_id) == 0
            got = {}
            for query in ("relief valve opening pressure", "how often to replace the filter mat",
                          "coolant flow litres per minute"):
                hits = searcher.search(query, 3)
                got[query] = [(h.doc, h.page, h.kind, h.text) for h in hits]
            results[backend] = (got, [(d["name"], d["status"], d["pages"], d["n_chunks"])
                                      for d in store.documents.all()])
            models.close()
        finally:
            store.close()
    assert results["postgres"][1] == results["sqlite"][1] == [("plant.pdf", "ready", 3, results["sqlite"][1][0][3])]
    for query, hits in results["sqlite"][0].items():
        assert results["postgres"][0][query][0] == hits[0], query  # the same best hit, text and page
        assert {h[1] for h in results["postgres"][0][query]} == {h[1] for h in hits}, query


@needs_server
def test_a_lost_connection_is_a_library_error_and_the_next_use_reconnects(pg_store, pg_server):
    import psycopg

    def cut():  # the server ends this client's session, as a restart or a network cut would
        pid = pg_store.db.one("SELECT pg_backend_pid()")[0]
        with psycopg.connect(pg_server.get_uri(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

    doc, ids = _document(pg_store, "a.pdf", [_row(0, 0, "committed before the cut")])
    cut()
    with pytest.raises(LibraryError, match="lost the connection to the library database"):
        pg_store.chunks.rows(ids)
    assert set(pg_store.chunks.rows(ids)) == set(ids)  # connected again
    with pytest.raises(LibraryError, match="what was committed is kept"):
        with pg_store.db.transaction():
            more = pg_store.chunks.insert([_row(doc, 1, "half a document")])
            cut()
            pg_store.vectors.put_text(more, "m", _unit(np.random.default_rng(7), 1), [np.zeros((1, 8))])
    assert pg_store.chunks.ids_of_document(doc) == ids and pg_store.chunks.keyword_ids('"half"', 5, Filters()) == []


def test_the_store_sql_becomes_psycopg_sql():
    """`?` placeholders become `%s` outside quoted literals (a model named 'what?' stays), and every
    `%` is doubled for psycopg (inside literals too, where psycopg reads `%%` as `%`)."""
    from mmrag_desktop.engine.store.postgres.db import psycopg_sql

    assert psycopg_sql("SELECT a FROM t WHERE b = ? AND c = ANY(?)") == "SELECT a FROM t WHERE b = %s AND c = ANY(%s)"
    assert psycopg_sql("WHERE model = 'what?' AND x LIKE 'a%' AND y = ?") == (
        "WHERE model = 'what?' AND x LIKE 'a%%' AND y = %s")
    assert psycopg_sql("WHERE name = 'it''s ?' AND z = ?") == "WHERE name = 'it''s ?' AND z = %s"
