"""A question with a visual word ("graph", "curve") finds a page by its text, and search shows the
page's figure in its place (the region the user asked to see). An answer keeps that text as evidence:
Asymptote's manual, "How do I draw a secondary logarithmic y axis on a graph?" found the page by "A
secondary logarithmic y axis can be drawn like this:", its plot came first, and the plot's tick labels
alone read as not covered. Real PDF, real library, real MiniLM."""

from __future__ import annotations

import pymupdf
from pdf_factory import LOREM, MARGIN, PAGE_H, PAGE_W, paragraph

from mmrag_desktop.engine.answer import ask

QUESTION = "How do I draw a secondary logarithmic y axis on a graph?"
HOW = ("A secondary logarithmic y axis can be drawn with the routine secondaryY, which takes the "
       "primary picture and a function that draws the secondary scale.")


def _plot_page(doc, intro: str) -> None:
    """A page: a paragraph, then a plot drawn with lines whose only text is its tick labels."""
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = paragraph(page, MARGIN, MARGIN + 20, intro, PAGE_W - 2 * MARGIN)
    left, top, right, bottom = 180.0, y + 40, 430.0, y + 220
    page.draw_line((left, bottom), (right, bottom), width=1)
    page.draw_line((left, bottom), (left, top), width=1)
    page.draw_line((right, bottom), (right, top), width=1)
    page.draw_polyline([(left + 10 * k, bottom - 1.6 * k * k) for k in range(13)], color=(0.8, 0, 0), width=1.2)
    for frac, text in ((0.0, "10^-1"), (0.5, "10^0"), (1.0, "10^1")):
        ty = bottom - frac * (bottom - top)
        page.draw_line((left - 4, ty), (left, ty), width=1)
        page.draw_line((right, ty), (right + 4, ty), width=1)
        page.insert_text((left - 30, ty + 3), text, fontsize=8, fontname="helv")
        page.insert_text((right + 6, ty + 3), text, fontsize=8, fontname="helv")


def test_the_text_a_page_was_found_by_stays_in_the_answer(library, tmp_path):
    doc = pymupdf.open()
    _plot_page(doc, "Logarithmic axes are drawn by setting the scale of each axis. " + LOREM)
    _plot_page(doc, HOW + " " + LOREM)
    _plot_page(doc, "Tick labels are formatted with a format string. " + LOREM)
    path = tmp_path / "graphs.pdf"
    doc.save(path)
    assert [e.stage for e in library.add([path]) if e.stage in ("done", "failed")] == ["done"]

    hits = library.search(QUESTION, k=5)
    assert hits[0].page == 2 and hits[0].kind == "figure"  # the page found, its plot shown (Search as before)
    with_text = library.search(QUESTION, k=5, companions=2)
    assert any(h.page == 2 and h.kind == "text" and "secondaryY" in h.text for h in with_text)
    answer = ask(library, QUESTION, mode="extractive")
    assert not answer.insufficient_evidence, answer.text
    assert "secondaryY" in answer.text and any(c.page == 2 for c in answer.citations)
