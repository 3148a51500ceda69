"""Background figure enrichment on real PDFs the test generates (a captioned raster figure with
text inside it, a vector figure with labels, the same raster figure in a second manual):
crops and pHash duplicates, OCR text appended and searchable, CLIP vectors with a tiny random
CLIP, VLM captions with a tiny random GGUF pair, resume and cancel."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from model_builders import build_tiny_clip, build_tiny_vlm
from PIL import Image, ImageDraw, ImageFont

from mmrag_desktop.engine.errors import Cancelled
from mmrag_desktop.engine.figures.similar import duplicate_groups
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.settings import Settings

RASTER_BOX = [120.0, 140.0, 480.0, 360.0]


def label_png(text: str = "RESET") -> bytes:
    im = Image.new("RGB", (360, 220), "white")
    d = ImageDraw.Draw(im)
    d.rectangle([10, 10, 350, 210], outline="black", width=4)
    d.ellipse([30, 120, 90, 180], outline="black", width=4)
    font = ImageFont.load_default(size=44)
    d.text((110, 40), text, fill="black", font=font)
    d.text((110, 120), "VCC", fill="black", font=font)
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def make_pdf(path, caption: str, png: bytes, vector: bool = True) -> None:
    import pymupdf

    doc = pymupdf.open()
    p = doc.new_page(width=595, height=842)
    p.insert_text((72, 80), "Controller hardware", fontsize=16)
    p.insert_text((72, 110), "The reset circuit is shown in Figure 1 and explained below.", fontsize=10)
    p.insert_image(pymupdf.Rect(*RASTER_BOX), stream=png)
    p.insert_text((150, 380), caption, fontsize=10)
    p.insert_text((72, 420), "Hold the button for two seconds to restart the controller board.", fontsize=10)
    if vector:
        p2 = doc.new_page(width=595, height=842)
        p2.insert_text((72, 80), "Memory architecture", fontsize=16)
        for i, name in enumerate(["CPU", "RAM", "ROM"]):
            r = pymupdf.Rect(100 + i * 140, 200, 200 + i * 140, 260)
            p2.draw_rect(r, color=(0, 0, 0), width=1.5)
            p2.insert_text((r.x0 + 30, r.y0 + 35), name, fontsize=12)
        for a, b in [((200, 230), (240, 230)), ((340, 230), (380, 230)), ((150, 260), (150, 320)),
                     ((150, 320), (430, 320)), ((430, 320), (430, 260))]:
            p2.draw_line(a, b, color=(0, 0, 0), width=1.5)
        p2.insert_text((150, 350), "Figure 2: Memory bus between CPU, RAM and ROM", fontsize=10)
    doc.save(str(path))
    doc.close()


@pytest.fixture(scope="module")
def manuals(tmp_path_factory):
    d = tmp_path_factory.mktemp("manuals")
    png = label_png()
    make_pdf(d / "a.pdf", "Figure 1: Reset circuit of the controller", png)
    make_pdf(d / "b.pdf", "Figure 1: Power supply board", png, vector=False)
    return [d / "a.pdf", d / "b.pdf"]


@pytest.fixture(scope="module")
def embedder():
    from mmrag_desktop.engine.models.text_embedder import TextEmbedder

    return TextEmbedder(threads=2)


@pytest.fixture
def library(tmp_path, manuals, embedder):
    lib = Library.open(tmp_path / "lib", Settings(threads=2), embedder=embedder)
    events = list(lib.add(manuals))
    assert sum(ev.stage == "done" for ev in events) == 2
    yield lib
    lib.close()


def figures(lib) -> list[dict]:
    cur = lib.conn.execute("SELECT * FROM figures ORDER BY chunk_id")
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur]


def test_crops_hashes_and_duplicates_without_models(library):
    figs = figures(library)
    assert [f["source"] for f in figs] == ["raster", "vector", "raster"]
    for f in figs:
        crop = library.cache_dir / f["crop"]
        assert crop.is_file() and f["width"] > 0 and len(f["phash"]) == 16
    raster = [f["chunk_id"] for f in figs if f["source"] == "raster"]
    assert duplicate_groups(library.store.figures.hashes()) == [raster]  # same picture in two manuals
    hits = library.search_image(Image.open(io.BytesIO(label_png())), k=3)
    assert {h.chunk_id for h in hits[:2]} == set(raster)
    assert list(hits[0].bbox) == RASTER_BOX


def test_ocr_enrichment_makes_text_inside_raster_figures_searchable(library):
    before = library.conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'vcc'").fetchall()
    assert before == []  # the word exists only as pixels inside the raster figure
    events = list(library.enricher.events(image_embedder=None, vlm=None))
    assert events[0].total == 2 and events[-1].stage == "finished"  # the two raster figures
    assert all(not ev.extra.get("errors") for ev in events if ev.stage == "enrich" and ev.done)
    figs = {f["chunk_id"]: f for f in figures(library)}
    for cid, f in figs.items():
        chunk = library.chunk(cid)
        if f["source"] == "raster":
            assert f["ocr_done"] == 1
            assert "RESET" in chunk["text"].upper() and "Text in figure:" in chunk["text"]
            added = chunk["lines"][chunk["meta"]["base"]["n_lines"]:]
            ocr_lines = [ln for ln in added if "RESET" in ln["t"].upper()]
            assert ocr_lines, chunk["lines"]
            x0, y0, x1, y1 = ocr_lines[0]["b"]
            assert RASTER_BOX[0] <= x0 < x1 <= RASTER_BOX[2] and RASTER_BOX[1] <= y0 < y1 <= RASTER_BOX[3]
            assert chunk["meta"]["base"]["text"] in chunk["text"]
            # the chunk's dense vector leaves the OCR words out (they stay in BM25 and a segment)
            from types import SimpleNamespace

            from mmrag_desktop.engine.ingest.pipeline import embed_text_of

            base_text, _ = embed_text_of(SimpleNamespace(section=chunk["section"], text=chunk["meta"]["base"]["text"]))
            full_text, _ = embed_text_of(SimpleNamespace(section=chunk["section"], text=chunk["text"]))
            vec = library.store.vectors.chunk_vectors([cid], library.embedder.model_id)[cid]
            assert float(vec @ library.embedder.encode([base_text])[0]) > 0.999
            assert float(vec @ library.embedder.encode([full_text])[0]) < 0.99
        else:
            assert "Text in figure:" not in chunk["text"]
    # the updated text is in FTS and in the text index
    fts = library.conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'vcc'").fetchall()
    assert {r[0] for r in fts} == {cid for cid, f in figs.items() if f["source"] == "raster"}
    top = library.search("VCC", k=3)[0]
    assert top.kind == "figure" and top.chunk_id in figs and list(top.bbox) == RASTER_BOX
    seg = library.conn.execute("SELECT n FROM segment_vectors WHERE chunk_id = ?", (top.chunk_id,)).fetchone()[0]
    assert seg == library.chunk(top.chunk_id)["meta"]["base"]["n_segments"] + 1
    assert {d.enrichment for d in library.documents()} == {"done"}
    # resumable: nothing left to do
    again = list(library.enricher.events(image_embedder=None, vlm=None))
    assert again[0].total == 0


def test_clip_vectors_with_a_tiny_clip_from_settings(library, tmp_path):
    folder = build_tiny_clip(tmp_path / "tiny-clip")
    library.settings.models["image_embedder"] = str(folder)
    enr = library.enricher.load_enrichers(vlm=None)
    assert enr.image_embedder is not None and enr.image_embedder.model_id == "tiny-clip"
    assert len(library.enricher.pending_figures(enr)) == 3
    enr.close()
    events = list(library.enricher.events(vlm=None))
    assert events[-1].stage == "finished"
    rows = library.conn.execute("SELECT chunk_id, model, dim, vec FROM vectors WHERE space = 'image'").fetchall()
    assert len(rows) == 3 and {r[1] for r in rows} == {"tiny-clip"} and {r[2] for r in rows} == {16}
    vecs = np.stack([np.frombuffer(r[3], dtype=np.float32) for r in rows])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    assert {f["clip_model"] for f in figures(library)} == {"tiny-clip"}
    idx = library.store.vectors.index("image", "tiny-clip", 16)
    assert len(idx) == 3
    vector_fig = next(f["chunk_id"] for f in figures(library) if f["source"] == "vector")
    i = [r[0] for r in rows].index(vector_fig)
    assert idx.query(vecs[i], 1)[0][0] == vector_fig
    raster = [r[0] for r in rows if r[0] != vector_fig]
    assert np.allclose(vecs[[r[0] for r in rows].index(raster[0])], vecs[[r[0] for r in rows].index(raster[1])],
                       atol=1e-5)  # the same picture in two manuals gives the same vector
    assert list(library.enricher.events(vlm=None))[0].total == 0  # resumed: nothing pending


def test_cancel_keeps_finished_figures_and_resume_completes(library):
    token = CancelToken()
    seen = []
    with pytest.raises(Cancelled):
        for ev in library.enricher.events(token, image_embedder=None, vlm=None):
            seen.append(ev)
            if ev.done == 1:
                token.cancel()
    assert sum(f["ocr_done"] for f in figures(library) if f["source"] == "raster") == 1
    rest = list(library.enricher.events(image_embedder=None, vlm=None))
    assert rest[0].total == 1 and rest[-1].stage == "finished"


def test_vlm_captions_with_a_tiny_gguf_pair(library, tmp_path):
    from mmrag_desktop.engine.models.vlm import VisionLanguageModel

    model, mmproj = build_tiny_vlm(tmp_path / "vlm")
    vlm = VisionLanguageModel(model, mmproj, threads=1, max_tokens=3000)
    events = list(library.enricher.events(image_embedder=None, vlm=vlm))
    assert vlm.llm is None  # the job closes the models it used
    done = [ev for ev in events if ev.stage == "enrich" and ev.done]
    assert len(done) == 3 and all("vlm" in ev.extra["steps"] for ev in done)
    caps = library.conn.execute("SELECT chunk_id, model, data FROM captions").fetchall()
    failed = [ev for ev in done if ev.extra["errors"]]
    assert len(caps) + len(failed) == 3 and caps  # random weights: shape, not content
    for cid, model_id, data in caps:
        cap = json.loads(data)
        assert model_id == "tiny-llama" and cap["type"]
        assert "Description:" in library.chunk(cid)["text"]
    assert {f["caption_model"] for f in figures(library)} == {"tiny-llama"}


class GroundedCaptioner:
    """Stands in for a real grounding VLM (none can run here and a random model cannot ground):
    returns a fixed caption whose component sits in the lower-left quarter of the crop."""

    model_id = "fixed-grounding-test"

    def caption(self, image) -> dict:
        assert image.width > 0
        return {"description": "A reset circuit with a push button.", "type": "schematic",
                "visible_text": "RESET 42", "components": [{"name": "reset button", "bbox_2d": [0.0, 0.5, 0.5, 1.0]}],
                "topics": ["reset"]}

    def close(self) -> None:
        pass


def test_components_become_highlightable_lines_in_page_coordinates(library):
    list(library.enricher.events(image_embedder=None, vlm=GroundedCaptioner()))
    fig = next(f for f in figures(library) if f["source"] == "raster")
    chunk = library.chunk(fig["chunk_id"])
    comp = [ln for ln in chunk["lines"] if ln.get("c")]
    assert comp == [{"p": 1, "b": [120.0, 250.0, 300.0, 360.0], "t": "reset button", "c": 1,
                     "s": [chunk["meta"]["base"]["n_segments"] + 1]}]
    data = json.loads(library.conn.execute("SELECT data FROM captions WHERE chunk_id = ?", (fig["chunk_id"],)).fetchone()[0])
    assert data["components"][0]["bbox_page"] == [120.0, 250.0, 300.0, 360.0]
    hits = library.search("where is the reset button", k=3)
    grounded = [h for h in hits if h.chunk_id == fig["chunk_id"]]
    assert grounded
    # visual grounding: the component inside the figure is highlighted, not the whole figure
    assert grounded[0].bbox == (120.0, 250.0, 300.0, 360.0)


def test_clip_lists_join_text_search_and_image_search(library, tmp_path):
    """With image vectors and an image embedder configured, CLIP text->image and image->image
    lists are fused into search (plumbing check with a random tiny CLIP)."""
    folder = build_tiny_clip(tmp_path / "tiny-clip")
    library.settings.models["image_embedder"] = str(folder)
    list(library.enricher.events(vlm=None))
    hits = library.search("picture of the board", k=10)
    assert any("image" in h.sources for h in hits if h.kind == "figure"), [(h.kind, h.sources) for h in hits]
    img = Image.open(io.BytesIO(label_png("SOMETHING ELSE"))).rotate(90, expand=True)
    by_image = library.search_image(img, k=5)
    assert any(h.sources.get("image") for h in by_image), [h.sources for h in by_image]
    assert all(h.kind == "figure" and h.bbox for h in by_image if "image" in h.sources)


def test_missing_crops_are_rendered_again_from_the_pdf(library):
    import shutil

    shutil.rmtree(library.cache_dir / "figures")
    library.conn.execute("UPDATE figures SET crop = NULL, phash = NULL, ocr_done = 1")
    events = list(library.enricher.events(image_embedder=None, vlm=None))
    assert events[0].total == 3 and all("crop" in ev.extra["steps"] for ev in events[1:-1])
    for f in figures(library):
        assert (library.cache_dir / f["crop"]).is_file() and len(f["phash"]) == 16
    assert len(duplicate_groups(library.store.figures.hashes())) == 1
