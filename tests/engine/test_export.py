"""Export for an expert (engine/export/) on a real library: a PDF written by the test, ingested with the
real embedder, answered extractively (no LLM), exported through Library.export_answer; the page crops
are real PyMuPDF renders, decoded here with Pillow."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from html import escape
from pathlib import Path

import numpy as np
import pytest
from pdf_factory import make_section_manual
from PIL import Image

from mmrag_desktop.engine.answer import ask
from mmrag_desktop.engine.errors import ExportError
from mmrag_desktop.engine.export import crops, export_answer, write_atomically
from mmrag_desktop.engine.settings import Settings

QUESTION = "What supply voltage does the <b>programmer</b> need?"
HOSTILE = "<script>alert('x')</script><img src=http://evil.example/x.png>"
PAGES = [
    ("1 Power supply",
     "The programmer needs a supply voltage of 5 V (4.5 V to 5.5 V). Current draw stays below 100 mA "
     "during programming."),
    ("2 Connecting",
     "Connect the ground pin first. The USB cable is 1 m long. The status LED blinks green while programming. "
     f"A label on the case reads {HOSTILE} and must be ignored."),
]


def make_manual(path: Path, pages=PAGES) -> Path:
    return make_section_manual(path, pages)


@pytest.fixture(scope="module")
def lib(tmp_path_factory, embedder):
    from mmrag_desktop.engine.library import Library

    base = tmp_path_factory.mktemp("export_lib")
    with pytest.MonkeyPatch.context() as mp:  # module scope: isolate the app folders here too
        for name in ("CONFIG", "DATA", "CACHE", "LOG"):
            (base / name).mkdir()
            mp.setenv(f"MMRAG_{name}_DIR", str(base / name))
        library = Library.open(base / "lib", Settings(threads=1), embedder=embedder)
        events = list(library.add([make_manual(base / "programmer.pdf")]))
        assert any(e.stage == "done" for e in events), [e.message for e in events]
        yield library
        library.close()


@pytest.fixture(scope="module")
def answer(lib):
    a = ask(lib, QUESTION, mode="extractive")
    assert a.citations and not a.insufficient_evidence, a.text
    return a


def _images(html: str) -> list[Image.Image]:
    out = []
    for m in re.finditer(r'src="data:image/(png|jpeg);base64,([A-Za-z0-9+/=]+)"', html):
        out.append(Image.open(io.BytesIO(base64.b64decode(m.group(2)))).convert("RGB"))
    return out


def _highlight_share(img: Image.Image, box) -> float:
    """Share of the pixels inside `box` (crop pixels) that show the yellow fill over white paper."""
    x0, y0, x1, y1 = (round(v) for v in box)
    fill = tuple(round(255 * (1 - crops.FILL_OPACITY) + c * crops.FILL_OPACITY) for c in crops.FILL_RGB)
    px = np.asarray(img.crop((x0, y0, x1, y1)), dtype=int).reshape(-1, 3)
    return float((np.abs(px - np.array(fill)) <= 10).all(axis=1).mean()) if len(px) else 0.0


def _no_external_resources(html: str) -> None:
    for attr, value in re.findall(r'\b(src|href)="([^"]*)"', html):
        assert value.startswith("data:" if attr == "src" else "#"), (attr, value[:60])
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html  # the browser is told to fetch nothing


def test_html_export_holds_the_question_checked_sentences_and_highlighted_crops(lib, answer, tmp_path):
    path = lib.export_answer(answer, tmp_path / "for expert.html", question=QUESTION)
    assert path == tmp_path / "for expert.html" and path.is_file()
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)  # not mkstemp's private 0600
    html = path.read_text(encoding="utf-8")
    assert "What supply voltage does the &lt;b&gt;programmer&lt;/b&gt; need?" in html
    assert "<b>programmer</b>" not in html
    for s in answer.sentences:  # every sentence of the answer is there (escaped), its [n] a link into the page
        assert escape(s.text.split(" [")[0][:40]) in html
    assert 'href="#cite-1"' in html and 'id="cite-1"' in html
    assert '<mark class="quoted">The programmer needs a supply voltage of 5 V' in html  # what the answer relies on
    _no_external_resources(html)
    assert "@media print" in html and "break-inside: avoid" in html
    # one image per cited page, each showing the highlight where the bundle says it is
    bundle = json.loads(lib.export_answer(answer, tmp_path / "b.json").read_text(encoding="utf-8"))
    imgs = _images(html)
    assert len(imgs) == sum(len(c["images"]) for c in bundle["citations"]) >= 1
    metas = [m for c in bundle["citations"] for m in c["images"]]
    for meta, img in zip(metas, imgs, strict=True):
        assert (img.width, img.height) == (meta["width"], meta["height"])
        assert max(img.size) <= crops.MAX_SIDE_PX and img.width >= 500  # legible: ~144 dpi
        assert max(_highlight_share(img, b) for b in meta["highlight"]) > 0.3
        assert _highlight_share(img, (0, 0, img.width, 20)) < 0.05  # the margin above is not highlighted
    # the manifest: file name, sha256 of the file itself, pages cited, versions
    pdf = Path(lib.documents()[0].path)
    sha = hashlib.sha256(pdf.read_bytes()).hexdigest()
    assert f"sha256 {sha}" in html and "programmer.pdf" in html
    doc = bundle["documents"][0]
    assert doc["sha256"] == doc["sha256_now"] == sha and doc["file"] == "present"
    assert doc["pages_cited"] == sorted({c.page for c in answer.citations})
    import mmrag_desktop

    v = bundle["versions"]
    assert v["app"] == mmrag_desktop.__version__ and v["answer_mode"] == "extractive"
    assert v["text_embedder"] == lib.embedder.model_id
    assert mmrag_desktop.__version__ in html and lib.embedder.model_id in html


def test_json_bundle_has_the_same_content_with_images_as_base64(lib, answer, tmp_path):
    bundle = json.loads(lib.export_answer(answer.to_json(), tmp_path / "ticket.json").read_text(encoding="utf-8"))
    assert bundle["format"] == "mmrag-expert-export" and bundle["format_version"] == 1
    assert bundle["question"] == answer.question and bundle["answer"] == answer.text
    assert [s["text"] for s in bundle["sentences"]] == [s.text for s in answer.sentences]
    assert [c["id"] for c in bundle["citations"]] == [c.id for c in answer.citations]
    c = bundle["citations"][0]
    assert c["text"] and c["quotes"]  # from the dict: the chunk text comes from the library
    Image.open(io.BytesIO(base64.b64decode(c["images"][0]["data"]))).verify()
    assert bundle["nearest"] == []  # the manuals cover it


def test_unsupported_sentences_and_missing_numbers_are_marked(lib, answer, tmp_path):
    a = answer.to_json()
    extra = "It draws 250 mA from the USB port [1]."
    a["answer"] = a["answer"] + "\n" + extra
    start = a["answer"].index(extra)
    a["sentences"].append({"text": extra, "citations": [1], "supported": False, "claim": True, "quote": False,
                           "support": None, "missing": ["250 mA"], "reason": "250 mA is in none of the evidence",
                           "start": start, "end": start + len(extra)})
    html = lib.export_answer(a, tmp_path / "marked.html").read_text(encoding="utf-8")
    span = re.search(r'<span class="unsupported"[^>]*><span class="badge">\?</span>(.*?)</span> '
                     r'<span class="reason">\(not checked: (.*?)\)</span>', html)
    assert span, html[:2000]
    assert '<mark class="missing" title="appears in none of the evidence">250 mA<sup>?</sup></mark>' in span.group(1)
    assert span.group(2) == "250 mA is in none of the evidence"
    assert 'class="legend"' in html
    # the supported sentences are not marked
    assert escape(answer.sentences[0].text.split(" [")[0]) in html
    assert html.count('<span class="unsupported" title=') == 1


def test_hostile_manual_text_cannot_inject_markup(lib, tmp_path):
    a = ask(lib, "What does the label on the case read?", mode="extractive")
    html = lib.export_answer(a, tmp_path / "hostile.html").read_text(encoding="utf-8")
    assert "evil.example" in html  # the text is shown ...
    assert "<script" not in html and "<img src=http" not in html  # ... never as markup
    assert "&lt;script&gt;" in html
    _no_external_resources(html)


def test_not_covered_answer_lists_the_nearest_pages_with_crops(lib, tmp_path):
    a = ask(lib, "How do I bake sourdough bread with rye flour?", mode="extractive")
    assert a.insufficient_evidence and a.nearest
    html = lib.export_answer(a, tmp_path / "uncovered.html").read_text(encoding="utf-8")
    assert "The manuals do not cover this question" in html
    assert "Nearest pages in the manuals" in html
    assert html.count('<article class="citation" id="nearest-') == len(a.nearest)
    assert len(_images(html)) >= len(a.nearest)
    bundle = json.loads(lib.export_answer(a, tmp_path / "uncovered.json").read_text(encoding="utf-8"))
    assert [(n["doc"], n["page"]) for n in bundle["nearest"]] == [(c.doc, c.page) for c in a.nearest]
    assert bundle["insufficient_evidence"] is True


def test_missing_source_file_and_markdown_give_notes_not_errors(library, tmp_path):
    pdf = make_manual(tmp_path / "moved.pdf")
    md = tmp_path / "notes.md"
    md.write_text("# Fuses\n\nThe mains fuse of the programmer is rated 2 A slow-blow.\n", encoding="utf-8")
    for _ in library.add([pdf, md]):
        pass
    a = ask(library, "What supply voltage does the programmer need?", mode="extractive")
    b = ask(library, "What is the mains fuse rating?", mode="extractive")
    assert any(c.doc == "notes.md" for c in b.citations)
    pdf.unlink()
    html = library.export_answer(a, tmp_path / "missing.html").read_text(encoding="utf-8")
    assert "was not found when this was exported" in html and "file not found at export" in html
    assert "The programmer needs a supply voltage" in html  # the cited text stands in for the image
    assert _images(html) == []
    html = library.export_answer(b, tmp_path / "md.html").read_text(encoding="utf-8")
    assert "the source is a Markdown file" in html and "2 A slow-blow" in html


def test_a_changed_source_file_is_flagged(library, tmp_path):
    pdf = make_manual(tmp_path / "changing.pdf")
    for _ in library.add([pdf]):
        pass
    a = ask(library, "What supply voltage does the programmer need?", mode="extractive")
    with open(pdf, "ab") as f:
        f.write(b"\n% edited after indexing\n")
    bundle = json.loads(library.export_answer(a, tmp_path / "changed.json").read_text(encoding="utf-8"))
    d = bundle["documents"][0]
    assert d["file"] == "changed" and d["sha256_now"] == hashlib.sha256(pdf.read_bytes()).hexdigest() != d["sha256"]
    assert "changed after it was indexed" in bundle["citations"][0]["note"]


def test_writes_are_atomic_and_failures_leave_the_target_alone(lib, answer, tmp_path):
    target = tmp_path / "keep.html"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(ExportError, match="no text"):
        lib.export_answer({"question": "q"}, target)
    with pytest.raises(ExportError, match="does not exist"):
        lib.export_answer(answer, tmp_path / "no such folder" / "x.html")
    with pytest.raises(ExportError, match="is a folder"):
        lib.export_answer(answer, tmp_path)
    assert target.read_text(encoding="utf-8") == "old"
    # a rename that fails (the name is taken by a folder) removes the temporary file
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("x")
    with pytest.raises(ExportError, match="cannot write"):
        write_atomically(tmp_path / "taken", b"<html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.html", "taken"]
    lib.export_answer(answer, target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.html", "taken"]


def test_export_answer_needs_no_library(answer, lib, tmp_path):
    """The service works from the narrow collaborators alone (documents, no chunk look-up)."""
    path = export_answer(answer, tmp_path / "plain.html", documents=lib.documents())
    html = path.read_text(encoding="utf-8")
    assert len(_images(html)) >= 1 and "programmer.pdf" in html


def test_crop_of_a_rotated_page_highlights_the_text(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 400), "TERMINAL PE CONNECTS THE SHIELD", fontsize=14)
    page.set_rotation(90)
    doc.save(tmp_path / "rot.pdf")
    doc.close()
    with pymupdf.open(tmp_path / "rot.pdf") as d:
        words = d[0].get_text("words")
    box = (min(w[0] for w in words), min(w[1] for w in words), max(w[2] for w in words), max(w[3] for w in words))
    [crop] = crops.pdf_crops(tmp_path / "rot.pdf", {1: [box]})
    img = Image.open(io.BytesIO(crop.data)).convert("RGB")
    hb = crop.highlight[0]
    assert hb[3] - hb[1] > hb[2] - hb[0]  # the line runs top to bottom on the page as shown
    inside = img.crop(tuple(round(v) for v in hb))
    assert (np.asarray(inside, dtype=int).sum(axis=2) < 250).any()  # the text is inside the highlight


def test_crop_of_an_image_document(tmp_path):
    im = Image.new("RGB", (900, 600), "white")
    im.paste((30, 90, 200), (300, 200, 500, 320))
    im.save(tmp_path / "panel.png")
    [crop] = crops.image_crops(tmp_path / "panel.png", {1: [(300.0, 200.0, 500.0, 320.0)]})
    out = Image.open(io.BytesIO(crop.data)).convert("RGB")
    assert out.width < 900 and crop.mime == "image/png"
    x0, y0, x1, y1 = (round(v) for v in crop.highlight[0])
    r, g, b = out.getpixel(((x0 + x1) // 2, (y0 + y1) // 2))
    assert r > 80 and b < 200  # the blue panel is tinted by the yellow fill
    with pytest.raises(crops.CropUnavailable):
        crops.image_crops(tmp_path / "nothing.png", {1: []})


def test_cited_passage_is_unwrapped_with_the_quoted_sentences_marked():
    from mmrag_desktop.engine.export.page import passage_html

    c = {"kind": "text", "text": "Set the cur-\nrent limit first.\nThen press <START> and\nwait.",
         "quotes": ["Then press <START> and wait.", "A sentence from elsewhere."]}
    body, left = passage_html(c)
    assert body == 'Set the current limit first. <mark class="quoted">Then press &lt;START&gt; and wait.</mark>'
    assert left == ["A sentence from elsewhere."]
    table, _ = passage_html({"kind": "table", "text": "Model | Range\nPX-200A | 0-10 bar", "quotes": []})
    assert table == "Model | Range\nPX-200A | 0-10 bar"  # rows stay rows
