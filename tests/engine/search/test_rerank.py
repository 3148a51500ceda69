"""Cross-encoder reranking (role `reranker`) through the real pipeline: a tiny random
BertForSequenceClassification folder stands in for a user's cross-encoder (none can be installed
offline). Its scores are meaningless; the tests check the plumbing: which hits it reorders, that
the order is the model's own, that nothing else moves, and that a broken model is reported while
search keeps working."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from model_builders import build_tiny_cross_encoder

from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.search.rerank import RERANK_TOP
from mmrag_desktop.engine.settings import Settings

QUERY = "how do I calibrate the pressure sensor"
TOPICS = ["pressure sensor", "temperature probe", "flow meter", "level switch", "load cell", "torque gauge"]
STEPS = ["zero offset", "span adjustment", "two-point check", "drift test", "reference comparison"]
K = 40  # more than the pages, so MMR keeps every page and the order is the score order


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("models") / "tiny-ce", seed=3)


@pytest.fixture(scope="module")
def lib_folder(tmp_path_factory, embedder) -> Path:
    """A library of one 30-page manual; every page talks about calibrating some instrument, so
    the query matches far more pages than the cross-encoder reorders."""
    import pymupdf
    from pdf_factory import MARGIN, paragraph

    base = tmp_path_factory.mktemp("rerank")
    doc = pymupdf.open()
    toc = []
    for i in range(30):
        topic, step = TOPICS[i % len(TOPICS)], STEPS[i % len(STEPS)]
        page = doc.new_page(width=612, height=792)
        title = f"{i + 1} Calibrating the {topic}"
        page.insert_text((MARGIN, 100), title, fontsize=16, fontname="hebo")
        toc.append([1, title, i + 1])
        paragraph(page, MARGIN, 130, f"To calibrate the {topic}, perform the {step} with the unit powered. "
                  f"Record reading {i * 7 % 13} in the log before closing panel {i + 1}.", 468)
    doc.set_toc(toc)
    pdf = base / "calibration.pdf"
    doc.save(pdf)
    doc.close()
    with Library.open(base / "lib", embedder=embedder) as lib:
        events = list(lib.add([pdf]))
        assert [e for e in events if e.stage == "done"], events
    return base / "lib"


def open_lib(folder: Path, embedder, reranker: Path | str | None = None) -> Library:
    models = {"reranker": str(reranker)} if reranker else {}
    return Library.open(folder, Settings(models=models), embedder=embedder)


def passage(hit) -> str:
    """What the cross-encoder should have read for a hit: the last two section levels + the text."""
    tail = " > ".join(hit.section.split(" > ")[-2:])[:80] if hit.section else ""
    return f"{tail}\n{hit.text}" if tail else hit.text


def broken_folder(tmp_path: Path, kind: str) -> Path:
    folder = tmp_path / f"broken-{kind}"
    folder.mkdir()
    if kind == "config":  # not even JSON: the registry rejects it before loading
        (folder / "config.json").write_text("{ this is not json", encoding="utf-8")
        (folder / "model.safetensors").write_bytes(b"\0" * 64)
    else:  # looks right (architecture, weights file) but the weights are garbage: fails to load
        (folder / "config.json").write_text(json.dumps({
            "architectures": ["BertForSequenceClassification"], "model_type": "bert", "num_labels": 1}))
        (folder / "model.safetensors").write_bytes(b"garbage, not a safetensors file" * 8)
    return folder


def test_cross_encoder_reorders_only_the_top_hits_by_its_own_scores(lib_folder, embedder, cross_encoder):
    from sentence_transformers import CrossEncoder

    with open_lib(lib_folder, embedder) as lib:
        before = lib.search(QUERY, k=K)
    assert len(before) > RERANK_TOP + 5
    assert all("rerank" not in h.sources and h.rerank_score is None for h in before)

    with open_lib(lib_folder, embedder, cross_encoder) as lib:
        after = lib.search(QUERY, k=K)
        assert lib.rerank_notice is None
    assert len(after) == len(before)

    # the cross-encoder's own scores for the (query, passage) pairs of the top N, in the same order
    model = CrossEncoder(str(cross_encoder), device="cpu", local_files_only=True)
    top = before[:RERANK_TOP]
    scores = model.predict([(QUERY, passage(h)) for h in top], batch_size=RERANK_TOP, show_progress_bar=False)
    expected = [top[i].chunk_id for i in sorted(range(len(top)), key=lambda i: (-float(scores[i]), i))]
    assert [h.chunk_id for h in after[:RERANK_TOP]] == expected
    assert expected != [h.chunk_id for h in top]  # the (random) model did change the order
    by_id = {h.chunk_id: float(s) for h, s in zip(top, scores, strict=True)}
    for rank, h in enumerate(after[:RERANK_TOP], start=1):
        assert h.sources["rerank"] == rank
        assert h.rerank_score == pytest.approx(by_id[h.chunk_id], abs=1e-5)
    # the top N keep their scores as a set; hits beyond N keep their order and scores
    assert [h.score for h in after[:RERANK_TOP]] == [h.score for h in top]
    assert [(h.chunk_id, h.score, h.sources) for h in after[RERANK_TOP:]] == \
        [(h.chunk_id, h.score, h.sources) for h in before[RERANK_TOP:]]
    as_json = after[0].to_json()
    assert as_json["sources"]["rerank"] == 1 and "rerank_score" in as_json
    assert "rerank_score" not in after[RERANK_TOP].to_json()


def test_cross_encoder_picks_the_highlighted_sentence(lib_folder, embedder, cross_encoder):
    """Sentence-level reranking: each text hit's box is the sentence of its page that the
    cross-encoder scores best (each page holds two sentences)."""
    from sentence_transformers import CrossEncoder

    from mmrag_desktop.engine.elements import union_bbox

    model = CrossEncoder(str(cross_encoder), device="cpu", local_files_only=True)
    with open_lib(lib_folder, embedder, cross_encoder) as lib:
        hits = lib.search(QUERY, k=8)
        chunks = {h.chunk_id: lib.chunk(h.chunk_id) for h in hits}
    changed = 0
    with open_lib(lib_folder, embedder) as lib:
        plain = {h.chunk_id: h.bbox for h in lib.search(QUERY, k=K)}
    for h in hits:
        assert h.kind == "text"
        lines = [ln for ln in chunks[h.chunk_id]["lines"] if ln.get("b") and ln["p"] == h.page]
        segs = sorted({s for ln in lines for s in ln.get("s") or []})
        texts = [" ".join(ln["t"] for ln in lines if s in ln["s"]).strip() for s in segs]
        scores = model.predict([(QUERY, t) for t in texts], show_progress_bar=False)
        best = segs[max(range(len(segs)), key=lambda i: float(scores[i]))]
        assert h.bbox == union_bbox([tuple(ln["b"]) for ln in lines if best in ln["s"]])
        changed += h.bbox != plain[h.chunk_id]
    assert changed, "the (random) cross-encoder chose another sentence than the segment vectors somewhere"


def test_without_a_reranker_results_are_unchanged_and_a_model_change_is_picked_up(
        lib_folder, embedder, cross_encoder):
    with open_lib(lib_folder, embedder) as lib:
        plain = [h.to_json() for h in lib.search(QUERY, k=K)]
        assert lib.models._reranker is False and lib.rerank_notice is None  # resolved once: nothing installed
        lib.settings.models["reranker"] = str(cross_encoder)  # what the model manager does
        lib.models_changed()
        reranked = lib.search(QUERY, k=K)
        assert reranked[0].sources.get("rerank") == 1
        reranker = lib.models._reranker
        del lib.settings.models["reranker"]
        lib.models_changed()
        assert reranker._model is None  # closed when forgotten
        again = [h.to_json() for h in lib.search(QUERY, k=K)]
    assert again == plain
    assert all("rerank" not in h["sources"] for h in plain)


@pytest.mark.parametrize("kind", ["config", "weights"])
def test_a_broken_reranker_is_reported_and_search_still_works(lib_folder, embedder, tmp_path, caplog, kind):
    folder = broken_folder(tmp_path, kind)
    with open_lib(lib_folder, embedder) as lib:
        plain = [h.chunk_id for h in lib.search(QUERY, k=K)]
    caplog.set_level(logging.WARNING, logger="mmrag_desktop.engine.models.reranker")
    with open_lib(lib_folder, embedder, folder) as lib:
        hits = lib.search(QUERY, k=K)
        assert [h.chunk_id for h in hits] == plain
        assert all("rerank" not in h.sources for h in hits)
        notice = lib.rerank_notice
        assert notice and "reranker" in notice and "not used" in notice
        assert folder.name in notice or "broken" in notice
        if kind == "weights":
            assert "failed to load" in notice
        else:
            assert "not a cross-encoder folder" in notice
        warned = [r for r in caplog.records if "reranker" in r.getMessage()]
        assert len(warned) == 1
        lib.search(QUERY, k=5)  # not retried: no second load, no second warning
        assert len([r for r in caplog.records if "reranker" in r.getMessage()]) == 1
        assert lib.rerank_notice == notice
        # the answer and the window's search job show the notice
        from mmrag_desktop.engine.answer import ask

        answer = ask(lib, QUERY, mode="extractive")
        assert notice in answer.notices
        from mmrag_desktop.engine.jobs import CancelToken
        from mmrag_desktop.ui.results import search_job

        gen = search_job(QUERY, k=5)(lib, CancelToken())
        events = []
        with pytest.raises(StopIteration) as stop:
            while True:
                events.append(next(gen))
        assert [(e.kind, e.message) for e in events] == [("notice", notice)]
        assert len(stop.value.value) == 5


def test_cli_search_prints_the_reranker_notice(lib_folder, embedder, tmp_path, capsys, monkeypatch):
    from mmrag_desktop import cli
    from mmrag_desktop.engine import library as library_mod

    real_open = library_mod.Library.open
    monkeypatch.setattr(library_mod.Library, "open",
                        staticmethod(lambda folder=None, settings=None, e=None, **kw: real_open(folder, settings, embedder, **kw)))
    Settings(models={"reranker": str(broken_folder(tmp_path, "weights"))}).save()
    code = cli.run(["--library", str(lib_folder), "search", QUERY, "-k", "3", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert len(json.loads(out)["hits"]) == 3
    assert "note: The reranker broken-weights is not used" in err


def test_window_search_shows_the_reranker_notice(qtbot, lib_folder, tmp_path):
    from window_helpers import open_window

    folder = broken_folder(tmp_path, "weights")
    w = open_window(qtbot, lib_folder, models={"reranker": str(folder)})
    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        w.ask(QUERY, "search")
    turn = w.answer_pane.turns[-1]
    assert turn["sources"]  # the search still found pages
    assert [n for n in turn["notices"] if "reranker broken-weights is not used" in n]
    assert "is not used" in w.answer_pane.text.toPlainText()
    w.close()
