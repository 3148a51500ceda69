"""The store's repositories on a real SQLite file: transactions that span repositories, documents,
chunks (FTS, filters, links), vectors (and their index), figures and state."""

from __future__ import annotations

import sqlite3
import threading

import numpy as np
import pytest

from mmrag_desktop.engine.store import Filters, Store
from mmrag_desktop.engine.store.vectors import match_vectors


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "lib")
    yield s
    s.close()


def _unit(rng, n: int, dim: int = 8) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _row(doc_id: int, ord_: int, text: str, *, kind: str = "text", page: int = 1, group_key=None) -> dict:
    return {"doc_id": doc_id, "ord": ord_, "kind": kind, "text": text, "section": "Chapter > Electrical", "page": page,
            "page_end": page, "bbox": None, "spans": "[]", "lines": "[]", "group_key": group_key, "meta": "{}"}


def _document(store: Store, tmp_path, name: str, texts: list[str], **kw) -> tuple[int, list[int]]:
    path = tmp_path / name
    doc = store.documents.register(path, "sha-" + name, 10, 1.0, "pending")
    with store.db.transaction():
        ids = store.chunks.insert([_row(doc, i, t, **kw) for i, t in enumerate(texts)])
        store.documents.mark_ready(doc, sha="sha-" + name, size=10, mtime=1.0, kind="pdf", title=name, pages=1,
                                   warning=None, enrichment="")
    return doc, ids


def test_a_transaction_spanning_repositories_commits_or_rolls_back_as_one(store, tmp_path):
    doc = store.documents.register(tmp_path / "a.pdf", "x", 1, 1.0, "pending")
    with pytest.raises(sqlite3.OperationalError), store.db.transaction():
        ids = store.chunks.insert([_row(doc, 0, "supply voltage 3.3 V")])
        store.vectors.put_text(ids, "m", _unit(np.random.default_rng(0), 1), [np.zeros((1, 8), np.float16)])
        store.state.set("text_model", "m")
        assert store.chunks.count() == 1
        raise sqlite3.OperationalError("disk I/O error (simulated)")
    assert store.chunks.ids_of_document(doc) == [] and store.vectors.count("m") == 0
    assert store.state.get("text_model") is None
    assert store.chunks.count() == 0, "the cached count does not keep the rolled-back insert"
    with store.db.transaction():  # nested: put_text joins the open transaction
        ids = store.chunks.insert([_row(doc, 0, "supply voltage 3.3 V")])
        store.vectors.put_text(ids, "m", _unit(np.random.default_rng(0), 1), [np.zeros((1, 8), np.float16)])
    assert store.vectors.count("m") == 1


def test_the_lock_serialises_threads(store, tmp_path):
    doc = store.documents.register(tmp_path / "a.pdf", "x", 1, 1.0, "pending")
    errors = []

    def write(n: int):
        try:
            for i in range(20):
                with store.db.transaction():
                    store.documents.set_status(doc, "pending", f"{n}-{i}")
                    store.state.set(f"k{n}", str(i))
        except sqlite3.Error as e:  # a second thread inside the first one's transaction would fail here
            errors.append(e)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and [store.state.get(f"k{n}") for n in range(4)] == ["19"] * 4


def test_documents_register_status_and_lookups(store, tmp_path):
    path = tmp_path / "m.pdf"
    doc = store.documents.register(path, "abc", 5, 2.0, "unknown")
    assert store.documents.by_path(path)["status"] == "pending"
    store.documents.set_failed(doc, "corrupt")
    assert store.documents.by_path(path)["error"] == "corrupt"
    assert store.documents.register(path, "abd", 6, 3.0, "pending") == doc, "the same path keeps its id"
    assert store.documents.by_path(path)["error"] is None
    store.documents.replace_pages(doc, [(1, 595.0, 842.0, 0, 1, 0)])
    store.documents.mark_ready(doc, sha="abd", size=6, mtime=3.0, kind="image", title="M", pages=1,
                               warning=None, enrichment="pending")
    assert store.documents.kind(doc) == "image" and store.documents.names()[doc] == ("m.pdf", str(path))
    assert store.documents.ready_by_sha("abd")["id"] == doc and store.documents.page_size(doc, 1) == (595.0, 842.0)
    assert store.documents.enrichment_pending() == [doc]
    store.documents.mark_enrichment_done([doc])
    assert store.documents.enrichment_pending() == []
    store.documents.mark_pending([path])
    assert store.documents.by_path(path)["status"] == "pending"
    store.documents.delete(doc)
    assert store.documents.all() == [] and store.documents.names() == {}


def test_chunks_fts_filters_links_and_idf(store, tmp_path):
    a, ids_a = _document(store, tmp_path, "a.pdf", ["the supply voltage is 3.3 V", "see Figure 2 for the pinout"])
    b, ids_b = _document(store, tmp_path, "b.pdf", ["pinout of the header", "supply current"], page=4)
    assert store.chunks.count() == 4
    assert set(store.chunks.keyword_ids('"supply"', 10, Filters())) == {ids_a[0], ids_b[1]}
    assert store.chunks.keyword_ids('"supply"', 10, Filters(doc_ids=[b])) == [ids_b[1]]
    assert store.chunks.allowed_ids(Filters(pages=(3, 5))) == set(ids_b)
    assert store.chunks.on_page(b, ("text",), 4) == ids_b
    idf = store.chunks.term_idf(["supply", "pinout", "absent"])
    assert idf["absent"] > idf["supply"] > 0
    assert store.chunks.term_df(["supply", "pinout", "absent", "supply voltage"]) == {
        "supply": 2, "pinout": 2, "absent": 0, "supply voltage": 1}
    # counted in some documents only (answers ask whether the manuals found use a name)
    assert store.chunks.term_df(["supply", "voltage", "header"], doc_ids=[b]) == {"supply": 1, "voltage": 0, "header": 1}
    assert store.chunks.term_df(["voltage"], doc_ids=[a, b]) == {"voltage": 1}
    assert store.chunks.term_df(["supply"], doc_ids=[]) == {"supply": 0}
    assert store.chunks.term_df(["voltage"]) == {"voltage": 1}, "the library-wide count is cached apart"
    with store.db.transaction():
        store.chunks.delete_document(a)
        ids = store.chunks.insert([_row(a, 0, "Figure 2 pins", kind="figure", group_key="figure:2"),
                                   _row(a, 1, "see Figure 2 for the pinout")])
        store.chunks.add_links({(ids[1], ids[0], "refers_to")})
    assert store.chunks.count() == 4 and not set(ids) & set(ids_a), "replaced, with new ids"
    assert store.chunks.linked(ids[1], referring=False) == [ids[0]]
    assert store.chunks.linked(ids[0], referring=True) == [ids[1]]
    assert store.chunks.by_group_keys(["figure:2"], Filters()) == [ids[0]]
    store.chunks.update_text(ids[0], "Figure 2 pins\nText in figure: VCC GND", "[]", "{}")
    assert store.chunks.keyword_ids('"VCC"', 10, Filters()) == [ids[0]], "FTS follows updates"


def test_vectors_tables_index_and_model_switch(store, tmp_path):
    rng = np.random.default_rng(1)
    _doc, ids = _document(store, tmp_path, "a.pdf", ["one", "two", "three"])
    vecs = _unit(rng, 3)
    segs = [_unit(rng, 2).astype(np.float16) for _ in ids]
    store.vectors.put_text(ids, "old", vecs, segs)
    store.vectors.put_text(ids[:2], "new", _unit(rng, 2), segs[:2])
    assert store.vectors.count("old") == 3 and store.vectors.count("new") == 2
    assert [r[0] for r in store.chunks.without_vector("new", 10)] == [ids[2]]
    index = store.vectors.index("text", "old", 8)
    assert index.query(vecs[1], 1)[0][0] == ids[1]
    assert store.vectors.count_sentence_pending("old") == 3
    own = [_unit(rng, 2).astype(np.float16) for _ in ids]
    pending = store.vectors.sentence_pending("old", None, 10)
    store.vectors.put_sentences([(cid, "old", 2, 8, o.tobytes(), pooled) for (cid, _n, pooled, _l), o
                                 in zip(pending, own, strict=True)])
    assert store.vectors.count_sentence_pending("old") == 0
    mixed = store.vectors.match_vectors(ids, "old")
    np.testing.assert_allclose(np.linalg.norm(mixed[ids[0]], axis=1), 1.0, rtol=1e-3)
    store.vectors.keep_only_text_model("new")
    assert store.vectors.count("old") == 0 and store.vectors.segment_vectors(ids, "old") == {}
    store.vectors.remove_from_indices([ids[1]])
    assert ids[1] not in [c for c, _ in index.query(vecs[1], 3)]
    with pytest.raises(ValueError):
        store.vectors.segment_vectors(ids, "new", "chunks")


def test_match_vectors_mixes_only_same_shaped_rows():
    pooled = np.eye(2, dtype=np.float16)
    own = np.array([[0, 1], [1, 0]], dtype=np.float16)
    mixed = match_vectors({1: pooled, 2: pooled}, {1: own, 2: own[:1]})
    np.testing.assert_allclose(mixed[1], np.full((2, 2), 2 ** -0.5), rtol=1e-3)
    assert mixed[2] is pooled


def test_figures_and_state(store, tmp_path):
    doc, ids = _document(store, tmp_path, "a.pdf", ["Figure 1 pinout"], kind="figure")
    store.figures.insert(ids[0], doc, 1, [10.0, 20.0, 110.0, 220.0], "raster", None, None, None, "ab" * 8, None, False)
    assert store.figures.exists(ids[0]) and store.figures.hashes()[0][4] == "ab" * 8
    assert store.figures.work_rows()[0][:2] == (ids[0], doc)
    store.figures.update(ids[0], crop="figures/1/1.png", width=100, clip_model="clip-a")
    assert store.figures.image_coverage("clip-a") == (0, 1), "a crop but no vector yet"
    store.vectors.put_image(ids[0], "clip-a", np.ones(4, np.float32) / 2)
    assert store.figures.image_coverage("clip-a") == (1, 1)
    store.figures.forget_image_models_except("clip-b")
    with pytest.raises(ValueError):
        store.figures.update(ids[0], text="not a figure column")
    store.figures.put_caption(ids[0], "vlm", {"description": "a pinout", "components": []})
    store.state.set("image_model", "clip-a")
    assert store.state.get("image_model") == "clip-a" and store.state.get("unset") is None


def test_the_dense_search_finds_nearly_the_exact_neighbours(tmp_path):
    """hnswlib's search is approximate: with a breadth (ef) of 80 for the 40 candidates search asks for,
    rebuilding the answer library (same vectors, another graph) let a chunk the exact search ranks beyond
    40 into the list, and held-out h04's answer changed with it (bench/README.md, session 39). The breadth
    is at least EF_MIN = 200 now: on clustered vectors of the text embedder's size the 40 returned hold
    98% or more of the exact 40 (95% at 80; the answer library's questions: 99.1% -> 100%, 0.2 -> 0.4 ms)."""
    from mmrag_desktop.engine.store.vector_index import VectorIndex

    rng = np.random.default_rng(0)
    dim, n = 384, 4000
    centres = rng.normal(size=(40, dim))
    vectors = centres[rng.integers(0, 40, n)] + 0.6 * rng.normal(size=(n, dim))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    index = VectorIndex(tmp_path, "text", "clustered", dim, threads=1)  # one thread: the same graph every run
    index.add(np.arange(1, n + 1), vectors)
    queries = vectors[rng.integers(0, n, 30)] + 0.3 * rng.normal(size=(30, dim)).astype(np.float32)
    found = sum(len({i for i, _ in index.query(q, 40)} & set((np.argsort(-(vectors @ q))[:40] + 1).tolist()))
                for q in queries)
    assert found / (30 * 40) >= 0.98
