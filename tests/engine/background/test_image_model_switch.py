"""Changing the image embedder: image search keeps using the previous CLIP model and its index until
the new model's vectors cover every figure, then switches (engine/image_model.py).

Two tiny random CLIP folders (different weights and projection sizes, so different model ids and
dimensions) go through the real loading, enrichment, SQLite and hnswlib code. Random models rank
meaninglessly, so the tests assert on plumbing: which model served a query, which chunk ids came
back and in which order that model's own vectors put them, and which vector rows exist per model.
"""

from __future__ import annotations

import io
import json
import logging
import shutil

import numpy as np
import pytest
from model_builders import build_tiny_clip
from pdf_factory import make_raster_figure_pdf, make_vector_figure_pdf, sample_image_png
from PIL import Image

from mmrag_desktop.engine.errors import Cancelled
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.models.clip import load_image_embedder
from mmrag_desktop.engine.settings import Settings
from mmrag_desktop.engine.store import Filters

QUERY = "front panel of the device"


@pytest.fixture(scope="module")
def clip_b(tmp_path_factory):
    return build_tiny_clip(tmp_path_factory.mktemp("models") / "clip-b", seed=1, projection=24)


@pytest.fixture
def clip_a(tmp_path):
    """Per test: one test deletes it."""
    return build_tiny_clip(tmp_path / "models" / "clip-a", seed=0, projection=16)


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory):
    d = tmp_path_factory.mktemp("pdfs")
    return [make_vector_figure_pdf(d / "chart.pdf").path, make_raster_figure_pdf(d / "panel.pdf").path]


@pytest.fixture
def lib_on_a(tmp_path, pdfs, clip_a, embedder):
    """A library whose two figures have image vectors of CLIP A (the active image model)."""
    settings = Settings(threads=2, ocr_enabled=False, models={"image_embedder": str(clip_a)})
    lib = Library.open(tmp_path / "lib", settings, embedder=embedder)
    assert [e.stage for e in lib.add(pdfs) if e.stage in ("done", "failed")] == ["done", "done"]
    assert list(lib.enrich())[-1].stage == "finished"
    assert vector_rows(lib) == {"clip-a": figure_ids(lib)} and len(figure_ids(lib)) == 2
    yield lib
    lib.close()


def figure_ids(lib) -> set[int]:
    return {r[0] for r in lib.conn.execute("SELECT chunk_id FROM figures")}


def vector_rows(lib) -> dict[str, set[int]]:
    """model id -> chunk ids with an image vector of that model."""
    out: dict[str, set[int]] = {}
    for cid, model in lib.conn.execute("SELECT chunk_id, model FROM vectors WHERE space = 'image'"):
        out.setdefault(model, set()).add(cid)
    return out


def recorded(lib) -> tuple[str | None, str | None]:
    return lib.store.state.get("image_model"), lib.store.state.get("image_model_path")


def image_search(lib, query=QUERY) -> list[int]:
    return lib.image_list(query, 10, Filters())


def served_by(lib) -> str:
    """The model id of the image embedder the last image_list call used."""
    return lib.models.image.loaded.model_id


def ranking(lib, folder, query=QUERY) -> list[int]:
    """Figure ids ordered by the stored vectors of the model in `folder` (exact, brute force)."""
    emb = load_image_embedder(folder)
    try:
        q = emb.encode_text([query])[0] if isinstance(query, str) else emb.encode_images([query])[0]
    finally:
        emb.close()
    rows = lib.conn.execute("SELECT chunk_id, vec FROM vectors WHERE space = 'image' AND model = ?",
                            (emb.model_id,)).fetchall()
    scores = {cid: float(np.frombuffer(v, dtype=np.float32) @ q) for cid, v in rows}
    return sorted(scores, key=lambda c: -scores[c])


def manifest(lib) -> dict:
    return json.loads((lib.index_dir / "image.json").read_text())


def change_to_b(lib, clip_b) -> None:
    lib.settings.models["image_embedder"] = str(clip_b)
    lib.models_changed()


def enrich_one_figure_then_cancel(lib) -> list:
    """Run enrichment and cancel it after its first figure; returns the events seen."""
    token, seen = CancelToken(), []
    with pytest.raises(Cancelled):
        for ev in lib.enrich(token):
            seen.append(ev)
            if ev.stage == "enrich" and ev.done == 1:
                token.cancel()
    return seen


def test_old_model_serves_until_the_new_one_covers_every_figure_then_switches(lib_on_a, clip_a, clip_b, embedder):
    lib = lib_on_a
    figs = figure_ids(lib)
    assert recorded(lib) == ("clip-a", str(clip_a))
    assert image_search(lib) == ranking(lib, clip_a) and served_by(lib) == "clip-a"
    old = lib.models.image.loaded

    change_to_b(lib, clip_b)
    assert lib.image_change_pending
    assert image_search(lib) == ranking(lib, clip_a) and served_by(lib) == "clip-a"  # reloaded from its path
    assert lib.models.image.loaded is not old and old.model is None  # models_changed closed the one it held

    seen = enrich_one_figure_then_cancel(lib)
    assert "image search keeps using clip-a until clip-b" in seen[0].message
    rows = vector_rows(lib)
    assert rows["clip-a"] == figs and len(rows["clip-b"]) == 1  # half way
    assert image_search(lib) == ranking(lib, clip_a) and set(image_search(lib)) == figs
    assert served_by(lib) == "clip-a" and recorded(lib) == ("clip-a", str(clip_a))
    picture = Image.open(io.BytesIO(sample_image_png()))
    assert image_search(lib, picture) == ranking(lib, clip_a, picture)  # search by image too
    assert len(lib.store.vectors.index("image", "clip-a", 16)) == 2 and manifest(lib)["model"] == "clip-a"
    assert lib.image_change_pending
    old = lib.models.image.loaded

    events = list(lib.enrich())
    assert events[0].total == 1  # resumed: only the figure clip-b has not embedded yet
    assert "now uses clip-b instead of clip-a" in events[-1].message
    assert vector_rows(lib) == {"clip-b": figs}  # clip-a's vectors are gone
    assert recorded(lib) == ("clip-b", str(clip_b)) and not lib.image_change_pending
    assert old.model is None  # the old model was closed at the switch
    assert {r[0] for r in lib.conn.execute("SELECT clip_model FROM figures")} == {"clip-b"}
    assert image_search(lib) == ranking(lib, clip_b) and served_by(lib) == "clip-b"
    assert manifest(lib)["model"] == "clip-b" and manifest(lib)["dim"] == 24
    folder, settings = lib.folder, lib.settings
    lib.close()

    with Library.open(folder, settings, embedder=embedder) as again:  # the switch is remembered
        assert recorded(again) == ("clip-b", str(clip_b)) and not again.image_change_pending
        assert image_search(again) == ranking(again, clip_b) and served_by(again) == "clip-b"


def test_restart_mid_change_keeps_the_old_model_and_a_lazy_check_switches(lib_on_a, clip_a, clip_b, embedder):
    lib = lib_on_a
    figs = figure_ids(lib)
    change_to_b(lib, clip_b)
    enrich_one_figure_then_cancel(lib)
    folder, settings = lib.folder, lib.settings
    lib.close()

    with Library.open(folder, settings, embedder=embedder) as again:
        assert again.image_change_pending and recorded(again) == ("clip-a", str(clip_a))
        assert image_search(again) == ranking(again, clip_a) and served_by(again) == "clip-a"
        # another handle (as the GUI's child process would) embeds the last figure but stops before
        # the end of its run, where it would switch: the next image search notices the coverage
        other = Library.open(folder, settings, embedder=embedder, access="child")
        try:
            enrichers = other.enricher.load_enrichers(vlm=None)
            work = other.enricher.pending_figures(enrichers)
            assert len(work) == 1 and work[0].steps == ["clip"]
            assert other.enricher.enrich_figure(work[0], enrichers) == []
            enrichers.close()
        finally:
            other.close()
        assert vector_rows(again) == {"clip-a": figs, "clip-b": figs} and again.models.image.loaded.model_id == "clip-a"
        assert image_search(again) == ranking(again, clip_b) and served_by(again) == "clip-b"
        assert vector_rows(again) == {"clip-b": figs} and recorded(again) == ("clip-b", str(clip_b))


def test_a_switch_made_by_the_child_process_reaches_the_window_library(lib_on_a, clip_a, clip_b):
    """The GUI's path: the model manager changes the shared Settings, models_changed(), then an
    isolated enrichment in the (already running) child process; the parent follows the switch."""
    lib = lib_on_a
    figs = figure_ids(lib)
    assert list(lib.enrich(isolated=True))  # starts the child while clip-a is configured
    assert image_search(lib) == ranking(lib, clip_a) and served_by(lib) == "clip-a"
    change_to_b(lib, clip_b)
    assert image_search(lib) == ranking(lib, clip_a)
    events = list(lib.enrich(isolated=True))
    assert "now uses clip-b instead of clip-a" in events[-1].message, events[-1].message
    assert vector_rows(lib) == {"clip-b": figs} and recorded(lib) == ("clip-b", str(clip_b))
    assert image_search(lib) == ranking(lib, clip_b) and served_by(lib) == "clip-b"
    assert len(lib.store.vectors.held_index("image")) == 2


def test_the_child_killed_mid_switch_leaves_the_old_model_serving_and_the_next_run_finishes(lib_on_a, clip_a,
                                                                                          clip_b, tmp_path):
    """Issue 17: the window's path (isolated enrichment in the child) with the child SIGKILLed after
    its first figure for the new model: the parent keeps searching with the old model, its index
    matches SQLite, and the next run (a new child) finishes the switch."""
    import os
    import signal

    from mmrag_desktop.engine.errors import WorkerDiedError

    lib = lib_on_a
    more = [make_raster_figure_pdf(tmp_path / f"panel{i}.pdf").path for i in range(6)]
    list(lib.add(more))
    list(lib.enrich())
    figs = figure_ids(lib)
    assert len(figs) == 8 and vector_rows(lib) == {"clip-a": figs}
    change_to_b(lib, clip_b)
    with pytest.raises(WorkerDiedError):
        for ev in lib.enrich(isolated=True):
            if ev.stage == "enrich" and ev.done >= 1:
                os.kill(lib._worker.pid, signal.SIGKILL)  # noqa: SLF001
    lib.refresh()
    rows = vector_rows(lib)
    assert rows["clip-a"] == figs and 1 <= len(rows["clip-b"]) < len(figs), "killed half way"
    assert recorded(lib) == ("clip-a", str(clip_a)) and lib.image_change_pending
    assert image_search(lib) == ranking(lib, clip_a) and served_by(lib) == "clip-a"
    assert set(lib.store.vectors.held_index("image")._live) == figs  # noqa: SLF001

    events = list(lib.enrich(isolated=True))
    assert "now uses clip-b instead of clip-a" in events[-1].message, events[-1].message
    assert vector_rows(lib) == {"clip-b": figs} and recorded(lib) == ("clip-b", str(clip_b))
    assert image_search(lib) == ranking(lib, clip_b) and served_by(lib) == "clip-b"
    assert set(lib.store.vectors.held_index("image")._live) == figs  # noqa: SLF001


def test_old_model_folder_deleted_mid_change_falls_back_with_a_notice(lib_on_a, clip_a, clip_b, embedder, caplog):
    lib = lib_on_a
    figs = figure_ids(lib)
    change_to_b(lib, clip_b)
    enrich_one_figure_then_cancel(lib)
    done_by_b = vector_rows(lib)["clip-b"]
    folder, settings = lib.folder, lib.settings
    lib.close()
    shutil.rmtree(clip_a)

    with caplog.at_level(logging.WARNING, logger="mmrag_desktop.engine.background.image_model"), \
            Library.open(folder, settings, embedder=embedder) as again:
        assert again.image_notice is None
        assert image_search(again) == list(done_by_b) and served_by(again) == "clip-b"  # partial coverage
        assert "clip-a is not available" in again.image_notice and "1 of 2 figures" in again.image_notice
        assert any("clip-a is not available" in r.getMessage() for r in caplog.records)
        assert again.model_notices == [again.image_notice]  # what the CLI, answers and the window show
        assert recorded(again) == ("clip-b", str(clip_b)) and vector_rows(again) == {"clip-b": done_by_b}
        list(again.enrich())  # the rest follows and goes straight into the live index
        assert vector_rows(again) == {"clip-b": figs}
        assert image_search(again) == ranking(again, clip_b) and set(image_search(again)) == figs


def test_a_figure_that_cannot_be_embedded_does_not_pin_the_old_model(lib_on_a, clip_a, clip_b, tmp_path):
    """A whole-library run that finished switches even if one figure failed (its error is reported);
    a run over some documents does not."""
    lib = lib_on_a
    figs = figure_ids(lib)
    change_to_b(lib, clip_b)
    # the chart's crop and its source PDF disappear: no model can embed that figure now
    chart_doc, chart_fig, crop = lib.conn.execute(
        "SELECT f.doc_id, f.chunk_id, f.crop FROM figures f JOIN documents d ON d.id = f.doc_id"
        " WHERE d.name = 'chart.pdf'").fetchone()
    lib.conn.execute("UPDATE documents SET path = ? WHERE id = ?", (str(tmp_path / "gone.pdf"), chart_doc))
    (lib.cache_dir / crop).unlink()
    panel_doc = next(d.id for d in lib.documents() if d.id != chart_doc)

    events = list(lib.enrich(doc_ids=[panel_doc]))
    assert "keeps using clip-a" in events[-1].message
    assert recorded(lib)[0] == "clip-a" and image_search(lib) == ranking(lib, clip_a)

    events = list(lib.enrich())
    failed = [ev for ev in events if ev.stage == "enrich" and ev.extra.get("errors")]
    assert [ev.extra["chunk_id"] for ev in failed] == [chart_fig]
    assert "now uses clip-b instead of clip-a; 1 figure(s) without an image vector" in events[-1].message
    assert vector_rows(lib) == {"clip-b": figs - {chart_fig}} and recorded(lib)[0] == "clip-b"
    assert image_search(lib) == ranking(lib, clip_b) and served_by(lib) == "clip-b"
