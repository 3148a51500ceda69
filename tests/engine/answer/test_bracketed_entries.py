"""GetDP's reference manual (asked in session 52, no set's) lists its built-in functions as entries named with their
arguments in brackets and braces, Gmsh's way: "Laplace []{expression-cst}" / "r/2, 1/(2*Pi)*ln(1/r), 1/(4*Pi*r).",
under a syntax's name for them, "green-function-id:". "What expression does GetDP use for the Laplace Green function in
a two-dimensional problem?" quoted GradLaplace's entry: Laplace's line was no entry's term, and its value, three
words of formula, no sentence to quote. Real MiniLM embedder."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import candidate_sentences, is_term_line, rank_candidates
from mmrag_desktop.engine.hits import Hit

GREEN = ("The triplets of values given in the definitions below correspond to the 1D, 2D and 3D cases.\n"
         "green-function-id:\nLaplace []{expression-cst}\nr/2, 1/(2*Pi)*ln(1/r), 1/(4*Pi*r).\nGradLaplace\n"
         "[]{expression-cst}\nGradient of Laplace relative to the destination point ($X, $Y, $Z).")


def block(text: str) -> Hit:
    return Hit(chunk_id=256, doc_id=1, doc="getdp.pdf", page=57, bbox=(72.0, 100.0, 500.0, 300.0), kind="text",
               score=0.03, text=text, section="5.2.4 Green functions")


def test_a_built_in_named_with_its_bracketed_arguments_is_an_entry_s_term():
    assert is_term_line("Laplace []{expression-cst}") and is_term_line("Sqrt [expression]")
    assert is_term_line("Period [expression]{expression-cst}")
    assert not is_term_line("See [1] for more.") and not is_term_line("the list [a, b]")
    assert not is_term_line("Note [12]")  # a reference to avr-libc's note 12, no entry
    texts = [c.text for c in candidate_sentences(pack_evidence([block(GREEN)], 1000))]
    assert "Laplace []{expression-cst} r/2, 1/(2*Pi)*ln(1/r), 1/(4*Pi*r)." in texts, texts


def test_the_entry_the_question_names_ranks_with_its_sibling_above_the_lead_in(embedder):
    """(In the whole answer, with the page's other passages, it is quoted first; on this block alone it ties with
    GradLaplace's entry, which names Laplace too.)"""
    q = "What expression does GetDP use for the Laplace Green function in a two-dimensional problem?"
    ranked = [c.text for c in rank_candidates(q, pack_evidence([block(GREEN)], 1000), embedder)]
    laplace = next(i for i, t in enumerate(ranked) if t.startswith("Laplace []{expression-cst} r/2"))
    triplets = next(i for i, t in enumerate(ranked) if t.startswith("The triplets"))
    assert laplace < 2 and laplace < triplets, ranked
