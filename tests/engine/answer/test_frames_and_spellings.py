"""Asked in session 66 (no set's): the nauty guide and the FAUST quick reference. Two answerable questions were said
not covered for a word no page writes: "idiomatic" ("What's the idiomatic way to loop over ...?", a word of the
question's frame) and "optimised" (the manual writes "optimized"); and a question about a tool the manual has not
("Which gtools program computes the chromatic number ...?") was answered with the gtools' introduction at 0.86.
Real library (SQLite, hnswlib, PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

import pytest
from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.confidence import decisive_unknown, unknown_words

PAGE = [
    "10.2 Bargraphs",
    "Bargraphs are output widgets: they display a signal and produce no sound of their own.",
    "A bargraph that feeds no output is optimized away by the compiler like any unused expression.",
    "Using attach(x,vumeter(x)) one can tell the compiler that when x is compiled vumeter(x) should also be compiled.",
    "The attach primitive takes two input signals and produces one output signal which is a copy of the first input.",
    "10.3 Sets",
    "To do something for each element of a set s, loop with nextelement: for (i = -1; (i = nextelement(s,m,i)) >= 0;).",
    "If the set fits in a single setword x, it is quicker to take the first bit with FIRSTBITNZ until x is empty.",
    "The gtools programs read and write graphs in graph6, sparse6 and digraph6 format.",
    "countg computes and counts the graphs of a file by their number of vertices, edges and other properties.",
]


@pytest.fixture
def manual(library, tmp_path):
    pdf = write_pdf(tmp_path / "guide.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(PAGE)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    return library


def test_a_word_spelt_the_british_way_is_known_by_the_american_spelling(manual):
    # "optimised" / "optimized", "analysed" / "analyzed": an inflected -ise or -yse verb is the word the manual writes
    assert unknown_words("Why do my bargraphs get optimised away?", manual.term_df) == []
    assert unknown_words("Is it optimising bargraphs away?", manual.term_df) == []
    assert unknown_words("Are bargraphs analysed?", manual.term_df) == ["analysed"]  # (the page never analyzes)
    answer = extractive_answer(manual, "My bargraphs get optimised away because they don't feed any output. How do I "
                                       "tell the compiler to compile them?")
    assert not answer.insufficient_evidence, answer.text
    assert "attach(x,vumeter(x))" in answer.text


def test_the_word_that_says_which_way_is_no_matter_of_the_question(manual):
    question = "What's the idiomatic way to loop over all the elements of a set?"
    assert "idiomatic" not in unknown_words(question, manual.term_df)
    assert not extractive_answer(manual, question).insufficient_evidence
    # a name before "way" is the question's matter still ("a Python way to ...")
    assert "python" in unknown_words("Is there a Python way to loop over a set?", manual.term_df)
    assert "quickest" not in unknown_words("What is the quickest way to loop over a set?", manual.term_df)


@pytest.mark.parametrize(("question", "unknown", "decisive"), [
    # what a question asks a tool of the manual to act on, a word no dictionary has: not covered whatever the score
    ("Which gtools program computes the chromatic number of each graph in a graph6 file?", ["chromatic"],
     ["chromatic"]),
    ("Which option reports the cyclomatic complexity of a function?", ["cyclomatic"], ["cyclomatic"]),
    # a word of the dictionary and words joined by hyphens are left to the score; "does" opens no such clause
    ("Which option sets the start address of the stack?", ["start"], []),
    ("Which CircuiTikZ package option draws zig-zag resistors?", ["zig-zag"], []),
    ("Which callback functions does a custom hashing module have to export?", ["hashing"], []),
])
def test_what_a_tool_is_asked_to_act_on(question, unknown, decisive):
    assert decisive_unknown(question, unknown) == decisive


def test_a_tool_for_what_the_manual_never_names_is_not_covered(manual):
    answer = extractive_answer(manual, "Which gtools program computes the chromatic number of each graph in a graph6 "
                                       "file?")
    assert answer.insufficient_evidence, answer.text
    assert any("chromatic" in n for n in answer.notices)  # the reason names the word
    assert not extractive_answer(manual, "Which gtools program counts the graphs of a file by their number of "
                                         "edges?").insufficient_evidence
