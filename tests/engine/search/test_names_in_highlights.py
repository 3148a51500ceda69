"""A question that names its manual ("What does the Asymptote command filldraw do?") is answered
from that manual, but the manual's name says which manual, not which sentence: the highlight is
matched without it, so it lands on the sentence that answers, not on one that repeats the
product's name (real PDFs, SQLite, hnswlib, MiniLM)."""

from __future__ import annotations

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.search import searcher
from mmrag_desktop.engine.search.doc_names import named_documents, without_names

PAGE = [
    "The filldraw command fills the interior of a path and then draws its boundary.",
    "A different pen may be given for the filling and for the boundary line.",
    "Graphics for papers are often made with other tools and imported later.",
    "What the Asymptote command asy does with a file of Asymptote commands is described here.",
    "Asymptote reads the commands, runs them and writes the picture Asymptote drew.",
]
OTHER = ["Gnuplot draws plots of functions and data from the command line.",
         "The set style fill command chooses how areas of a plot are filled."]


def test_the_words_that_name_a_manual_are_left_out():
    docs = {1: ("asymptote.pdf", "Asymptote: the Vector Graphics Language"), 2: ("R-intro.pdf", "An Introduction to R")}
    q = "What does the Asymptote command filldraw do?"
    assert without_names(q, docs, named_documents(q, docs)) == "What does the command filldraw do?"
    q = "How do I read a CSV file into R?"
    assert without_names(q, docs, named_documents(q, docs)) == "How do I read a CSV file into?"
    assert without_names("asymptote", docs, {1}) == "asymptote"  # nothing would be left
    assert without_names(q, docs, set()) == q


@pytest.mark.parametrize("without", [True, False])
def test_a_highlight_is_matched_without_the_manuals_name(library, tmp_path, monkeypatch, without):
    monkeypatch.setattr(searcher, "HIGHLIGHT_WITHOUT_NAMES", without)
    pdfs = [write_pdf(tmp_path / "asymptote.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(PAGE)]]),
            write_pdf(tmp_path / "gnuplot.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(OTHER)]])]
    assert [e.stage for e in library.add(pdfs) if e.stage in ("done", "failed")] == ["done", "done"]
    hit = library.search("What does the Asymptote command filldraw do?", k=2)[0]
    assert hit.doc == "asymptote.pdf"
    answer_y = 90 + 16 * PAGE.index("The filldraw command fills the interior of a path and then draws its boundary.")
    # with the name the embedder matches "Asymptote commands are typed ..." (the test of the old way)
    assert (hit.bbox[1] <= answer_y <= hit.bbox[3] + 3) == without, (hit.bbox, answer_y)
