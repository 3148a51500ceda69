"""Sentence vectors: the background pass that encodes each chunk segment on its own, search's use
of them, and search encoding them itself where the pass has not (real MiniLM, real SQLite, real
PyMuPDF)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import write_pdf

from mmrag_desktop.engine.errors import Cancelled
from mmrag_desktop.engine.ingest import sentences
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.search.highlight import segment_texts
from mmrag_desktop.engine.store.vectors import match_vectors

PARAGRAPH = [
    "The heater relay K4 is driven by transistor Q7 on the controller board.",
    "Its coil draws about forty milliamperes at twelve volts.",
    "The default switching delay is set to 250 milliseconds in firmware.",
    "A flyback diode across the coil protects the transistor.",
]


@pytest.fixture
def manual(tmp_path):
    pages = []
    for p in range(4):
        y, lines = 90, []
        for i in range(6):
            for sentence in PARAGRAPH:
                lines.append((72, y, f"{sentence[:-1]} (unit {p}.{i})."))
                y += 14
            y += 10
        pages.append(lines[:44])
    return write_pdf(tmp_path / "relays.pdf", pages)


def _added(library, pdf):
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    return library


def _own(library, cid):
    n, dim, blob = library.conn.execute(
        "SELECT n, dim, vecs FROM sentence_vectors WHERE chunk_id = ?", (cid,)).fetchone()
    return np.frombuffer(blob, dtype=np.float16).reshape(n, dim).astype(np.float32)


def test_pass_encodes_every_segment_on_its_own_and_resumes_after_cancel(library, manual, monkeypatch):
    lib = _added(library, manual)
    n_chunks = lib.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert n_chunks >= 4 and sentences.count_pending(lib.store.vectors, lib.embedder.model_id) == n_chunks
    monkeypatch.setattr(sentences, "BATCH_CHUNKS", 2)

    token, seen = CancelToken(), []
    with pytest.raises(Cancelled):
        for ev in lib.enrich(token):
            seen.append(ev)
            if ev.stage == "sentences" and ev.done == 2:
                token.cancel()
    first = next(e for e in seen if e.stage == "sentences")
    assert first.total == n_chunks and first.unit == "chunks" and first.extra["kinds"] == []
    assert sentences.count_pending(lib.store.vectors, lib.embedder.model_id) == n_chunks - 2, "the finished batch is kept"

    events = list(lib.enrich())
    assert [e.done for e in events if e.stage == "sentences"][-1] == n_chunks - 2
    assert events[-1].stage == "finished" and sentences.count_pending(lib.store.vectors, lib.embedder.model_id) == 0
    assert not [e for e in lib.enrich() if e.stage == "sentences"], "nothing left to do"

    # each stored vector is the model's own encoding of that segment's lines
    cid, n, lines = lib.conn.execute(
        "SELECT s.chunk_id, s.n, c.lines FROM segment_vectors s JOIN chunks c ON c.id = s.chunk_id "
        "WHERE c.kind = 'text' ORDER BY s.n DESC LIMIT 1").fetchone()
    assert n >= 3
    texts = [t.strip() for t in segment_texts(json.loads(lines), n)]
    own = _own(lib, cid)
    assert own.shape == (n, lib.embedder.dim)
    np.testing.assert_allclose(own, lib.embedder.encode(texts), atol=2e-3)


def test_search_matches_sentences_against_the_mixed_vectors(library, manual):
    lib = _added(library, manual)
    query = "what is the default switching delay of the heater relay"
    before = lib.search(query, k=3)[0]
    list(lib.enrich())
    hit = lib.search(query, k=3)[0]
    assert "default switching delay" in hit.text

    # the mix is pooled + own, normalised, and only where the shapes agree
    pooled = lib.store.vectors.segment_vectors([hit.chunk_id], lib.embedder.model_id)[hit.chunk_id].astype(np.float32)
    own = _own(lib, hit.chunk_id)
    mixed = lib.store.vectors.match_vectors([hit.chunk_id], lib.embedder.model_id)[hit.chunk_id]
    expect = (pooled + own) / np.linalg.norm(pooled + own, axis=1, keepdims=True)
    np.testing.assert_allclose(mixed, expect, atol=1e-5)
    assert match_vectors({1: pooled}, {1: own[:-1]})[1] is not None
    np.testing.assert_array_equal(match_vectors({1: pooled}, {1: own[:-1]})[1], pooled)

    # search reads them: an own vector pointing at the query moves the highlight to that segment
    row = lib.store.chunks.rows([hit.chunk_id])[hit.chunk_id]
    texts = segment_texts(json.loads(row["lines"]), own.shape[0])
    target = next(i for i, t in enumerate(texts) if "coil draws" in t and "default" not in t)
    qvec = lib.embedder.encode([query])[0]
    forced = own.copy()
    forced[target] = qvec * 50  # dominates the normalised mix of that one segment
    with lib.conn:
        lib.conn.execute("UPDATE sentence_vectors SET vecs = ? WHERE chunk_id = ?",
                         (forced.astype(np.float16).tobytes(), hit.chunk_id))
    moved = next(h for h in lib.search(query, k=5) if h.chunk_id == hit.chunk_id)
    target_lines = [tuple(ln["b"]) for ln in json.loads(row["lines"]) if target in (ln.get("s") or [])]
    assert any(_inside(b, moved.bbox) for b in target_lines), (moved.bbox, target_lines)
    assert not any(_inside(b, hit.bbox) for b in target_lines), "the forced segment was not shown before"
    assert before.chunk_id == hit.chunk_id


def test_a_changed_chunk_is_encoded_again_and_removal_cleans_up(library, manual):
    lib = _added(library, manual)
    list(lib.enrich())
    cid = lib.conn.execute("SELECT chunk_id FROM sentence_vectors LIMIT 1").fetchone()[0]
    # what figure enrichment does when it rewrites a chunk: new pooled vectors, own ones dropped
    with lib.conn:
        lib.conn.execute("DELETE FROM sentence_vectors WHERE chunk_id = ?", (cid,))
    assert sentences.count_pending(lib.store.vectors, lib.embedder.model_id) == 1
    assert [e.done for e in lib.enrich() if e.stage == "sentences"][-1] == 1
    doc = lib.documents()[0]
    lib.remove(doc.id)
    assert lib.conn.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone()[0] == 0


def _inside(inner, outer) -> bool:
    return (inner[0] >= outer[0] - 0.5 and inner[1] >= outer[1] - 0.5
            and inner[2] <= outer[2] + 0.5 and inner[3] <= outer[3] + 0.5)


def test_every_hit_highlights_lines_of_its_own_chunk(library, manual):
    """One hit per page: when another chunk of the page matches better, the hit becomes that chunk,
    so the text, the shaded passage and the highlight the window shows agree."""
    lib = _added(library, manual)
    list(lib.enrich())
    for query in ("default switching delay", "what protects the transistor from the coil",
                  "current drawn by the relay coil", "which transistor drives the heater relay"):
        for hit in lib.search(query, k=10):
            row = lib.store.chunks.rows([hit.chunk_id])[hit.chunk_id]
            mine = [ln["b"] for ln in json.loads(row["lines"]) if ln.get("b") and ln["p"] == hit.page]
            assert any(_inside(b, hit.bbox) for b in mine), (query, hit.chunk_id, hit.bbox)


def _shown(hits):
    return [(h.chunk_id, h.page, h.bbox, h.boxes, round(h.score, 5)) for h in hits]


QUERIES = ("what is the default switching delay of the heater relay", "which transistor drives the heater relay",
           "current drawn by the relay coil", "what protects the transistor from the coil")


def test_search_before_the_pass_shows_what_it_shows_after(library, manual):
    """Search encodes the sentences of the passages it ranks when the pass has not stored them:
    the same hits, scores and highlights as after the pass, and nothing written to the library."""
    lib = _added(library, manual)
    model = lib.embedder.model_id
    n_chunks = sentences.count_pending(lib.store.vectors, model)
    version = lib.store.db.version()
    own = lib.searcher.sentences
    early = {q: _shown(lib.search(q, k=5)) for q in QUERIES}
    assert own.encoded > 0, "the passages were encoded for the search"
    assert sentences.count_pending(lib.store.vectors, model) == n_chunks, "search wrote nothing"
    assert lib.store.db.version() == version
    encoded = own.encoded
    assert _shown(lib.search(QUERIES[0], k=5)) == early[QUERIES[0]]
    assert own.encoded == encoded, "a passage is encoded once"

    list(lib.enrich())
    assert sentences.count_pending(lib.store.vectors, model) == 0
    for q in QUERIES:
        late = _shown(lib.search(q, k=5))
        assert [h[:2] for h in late] == [h[:2] for h in early[q]], q
        for a, b in zip(late, early[q], strict=True):
            np.testing.assert_allclose(a[2], b[2], atol=0.01)
            assert a[4] == pytest.approx(b[4], abs=2e-3)
    assert own.encoded == encoded, "stored vectors are read, not encoded again"


def test_a_passage_encoded_for_search_is_encoded_again_when_its_chunk_changes(library, manual):
    lib = _added(library, manual)
    model = lib.embedder.model_id
    hit = lib.search(QUERIES[0], k=1)[0]
    own = lib.searcher.sentences
    before = own.match_vectors([hit.chunk_id])[hit.chunk_id]
    encoded = own.encoded
    # what figure work does to a chunk: new text, new pooled vectors (here: the lines of another chunk)
    other = lib.conn.execute("SELECT id FROM chunks WHERE id != ? AND kind = 'text' LIMIT 1", (hit.chunk_id,)).fetchone()[0]
    rows = lib.store.chunks.rows([other])
    pooled = lib.store.vectors.segment_vectors([other], model)[other].astype(np.float32)
    with lib.conn:
        lib.conn.execute("UPDATE chunks SET lines = ? WHERE id = ?", (rows[other]["lines"], hit.chunk_id))
    lib.store.vectors.replace_chunk_text(hit.chunk_id, model, lib.embedder.encode(["changed"])[0], pooled)
    after = own.match_vectors([hit.chunk_id])[hit.chunk_id]
    assert own.encoded == encoded + 1
    assert after.shape == (pooled.shape[0], lib.embedder.dim)
    assert not np.allclose(after[: len(before)], before[: len(after)], atol=1e-3)


def test_background_work_without_warm_up_encodes_table_rows_only(library, tmp_path, manual):
    from pdf_factory import make_ruled_table_pdf

    lib = _added(library, manual)
    _added(lib, make_ruled_table_pdf(tmp_path / "t.pdf").path)
    model = lib.embedder.model_id
    tables = sentences.count_pending(lib.store.vectors, model, kinds=sentences.TABLE_KINDS)
    others = sentences.count_pending(lib.store.vectors, model) - tables
    assert tables >= 1 and others >= 4
    events = list(lib.enrich(warm_up=False))
    kinds = [e.extra["kinds"] for e in events if e.stage == "sentences"]
    assert kinds and all(k == ["table"] for k in kinds)
    assert sentences.count_pending(lib.store.vectors, model, kinds=sentences.TABLE_KINDS) == 0
    assert sentences.count_pending(lib.store.vectors, model) == others, "the rest is left to search"
    assert events[-1].stage == "finished"
    events = list(lib.enrich())
    assert [e.stage for e in events if e.stage == "sentences"] and events[-1].stage == "finished"
    assert sentences.count_pending(lib.store.vectors, model) == 0
