"""Seen on the PETSc users manual (asked in session 46, no set's). A footnote set at the page's end stands
between a sentence and its end on the next page ("... or supplying command-line" / "(3) This may seem an odd
way to implement ..."), and the answer quoted the two as one. Its lists end each item with the title of
the chapter that covers it ("... (Tao). TAO: Optimization Solvers" / "• code for managing interactions
between mesh data structures ... (DM);" / "DM Basics"), and the answer read the title at the end of one
item as the term line of the next: "TAO: Optimization Solvers • code for managing ... (DM);"."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import candidate_sentences, line_heads, opens_a_line
from mmrag_desktop.engine.hits import Hit

CLASSES = ("The important PETSc classes include\n"
           "• nonlinear solvers (SNES); SNES: Nonlinear Solvers\n"
           "• scalable optimization algorithms including a rich set of gradient-based optimizers, Newton-based "
           "optimizers\nand optimization with constraints (Tao). TAO: Optimization Solvers\n"
           "• code for managing interactions between mesh data structures and vectors, matrices, and solvers (DM);\n"
           "DM Basics\nEach class consist of an abstract interface and an implementation for each algorithm.")
ENTRY = "~/.octaverc\nThis file is used to make personal changes to the default Octave environment."


def block(text: str, chunk_id: int = 88) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc="petsc-manual.pdf", page=10, bbox=(72.0, 100.0, 500.0, 300.0),
               kind="text", score=0.03, text=text, section="1.2 Getting Started")


def test_a_title_after_a_sentence_on_its_line_names_no_entry_below():
    cands = candidate_sentences(pack_evidence([block(CLASSES)], 1000))
    (dm,) = [c for c in cands if "mesh data structures" in c.text]
    assert dm.text.startswith("• code for managing") and not dm.label, dm.text
    # a term line of its own still names the entry below it
    (octaverc,) = [c for c in candidate_sentences(pack_evidence([block(ENTRY, 89)], 1000)) if "personal" in c.text]
    assert octaverc.label == "~/.octaverc"


def test_which_pieces_open_a_line():
    assert opens_a_line("~/.octaverc", line_heads(ENTRY))
    assert not opens_a_line("TAO: Optimization Solvers", line_heads("constraints (Tao). TAO: Optimization Solvers\n• code"))
    assert not opens_a_line("", line_heads(ENTRY))


FOOTNOTE = ("Alternatively, you can have PCFieldSplit extract the diagonal blocks A00, A11 etc.\nout of Amat by calling "
            "PCFieldSplitSetDiagUseAmat(pc,PETSC_TRUE) or supplying command-line\n(3) This may seem an odd way to "
            "implement since it involves the extra multiply by -A11. The reason is that this approach works for any "
            "number of blocks.")


def test_a_footnote_is_not_what_the_sentence_above_it_goes_on_with():
    cands = candidate_sentences(pack_evidence([block(FOOTNOTE, 788)], 1000))
    (cut,) = [c for c in cands if c.text.startswith("Alternatively")]
    assert cut.following == "" and "(3)" not in cut.text
    (note,) = [c for c in cands if c.text.startswith("(3) This may seem")]  # the footnote is quotable alone
    assert note.following.startswith("The reason is")


def test_which_lines_are_footnotes():
    """code_saturne's user's guide: "Most element types are handled, except for pyramids." was quoted with the
    footnote below it, "(4) “little endian” on Intel or AMD processors, ...", which opens with a quote."""
    from mmrag_desktop.engine.answer.evidence import FOOTNOTE_LINE

    for note in ("(3) This may seem an odd way", "(4) \u201clittle endian\u201d on Intel or AMD processors"):
        assert FOOTNOTE_LINE.match(note), note
    for line in ("(2) and (3) below give the bounds", "(2.19) The problem is caused by", "(a) The first"):
        assert not FOOTNOTE_LINE.match(line), line
