"""'What is this?': a dropped photo finds the manual's figure; a VLM answer about it is cited."""

from __future__ import annotations

import io
import json

import pytest
from model_builders import build_tiny_vlm
from pdf_factory import make_raster_figure_pdf, sample_image_png
from PIL import Image

from mmrag_desktop import cli
from mmrag_desktop.engine.answer.image_question import NO_MATCH, image_answer_events
from mmrag_desktop.engine.errors import QueryError


def run(events):
    evs = list(events)
    done = [e for e in evs if e.kind == "done"]
    assert len(done) == 1
    return evs, done[0].answer


@pytest.fixture
def panel(tmp_path, library):
    sample = make_raster_figure_pdf(tmp_path / "panel.pdf")
    assert any(e.stage == "done" for e in library.add([sample.path]))
    return sample


def test_without_a_vlm_the_matching_figure_is_cited_and_the_gap_said(library, panel):
    photo = Image.open(io.BytesIO(sample_image_png()))
    evs, ans = run(image_answer_events(library, photo))
    assert ans.question == "What is this?" and ans.mode == "extractive"
    assert any(e.kind == "notice" and "vision-language model" in e.message for e in evs)
    top = ans.citations[0]
    assert top.doc == "panel.pdf" and top.page == 1 and top.kind == "figure"
    x0, y0, x1, y1 = panel.info["image_box"]
    assert top.bbox[0] <= x0 + 5 and top.bbox[1] <= y0 + 5 and top.bbox[2] >= x1 - 5 and top.bbox[3] >= y1 - 5
    assert "[1]" in ans.text and "Front panel" in ans.text
    # the listed matches are checked pointers; the lead-in is not a claim
    assert [s_.claim for s_ in ans.sentences][:1] == [False] and all(s_.supported for s_ in ans.sentences[1:])
    assert all(ans.text[s_.start:s_.end] == s_.text for s_ in ans.sentences)


def test_with_a_tiny_vlm_the_answer_goes_through_the_citation_check(library, panel, tmp_path):
    """Real llama.cpp multimodal path with a random tiny GGUF pair (output meaningless: assert plumbing)."""
    model, mmproj = build_tiny_vlm(tmp_path / "tiny-vlm")
    library.settings.models["vlm"] = str(model)
    library.settings.models["vlm_mmproj"] = str(mmproj)
    library.settings.max_answer_tokens = 8
    evs, ans = run(image_answer_events(library, io.BytesIO(sample_image_png()).getvalue(), "Where is this used?"))
    assert ans.mode == "generative" and ans.model
    assert ans.question == "Where is this used?"
    valid = {c.id for c in ans.evidence}
    assert ans.citations and {c.id for c in ans.citations} <= valid
    assert all(isinstance(r, (int, str)) for r in ans.removed_citations)
    # the random model's words back nothing: every claim it made is marked, the matches are not
    assert all(ans.text[s_.start:s_.end] == s_.text for s_ in ans.sentences)
    assert ans.unsupported_sentences == [s_.text for s_ in ans.sentences if s_.claim and not s_.supported]


def test_unmatched_or_unreadable_images(library, panel, tmp_path):
    blank = Image.new("RGB", (200, 120), (255, 255, 255))
    evs, ans = run(image_answer_events(library, blank))
    assert ans.insufficient_evidence and ans.text == NO_MATCH and not ans.citations
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    with pytest.raises(QueryError):
        image_answer_events(library, bad)


def test_cli_ask_image_json(tmp_path, capsys, panel, library):
    photo = tmp_path / "photo.png"
    photo.write_bytes(sample_image_png())
    library.close()
    code = cli.run(["--library", str(library.folder), "ask", "--image", str(photo), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["question"] == "What is this?" and data["citations"][0]["doc"] == "panel.pdf"
