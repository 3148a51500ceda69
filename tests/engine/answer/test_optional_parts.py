"""Routines a reference writes once with an optional part in brackets, and C macros defined with their values (session
59, CFITSIO's User's Reference Guide asked for the first time). "What's the difference between fits_make_hist and
fits_make_histd?" was said not covered: the guide writes "int fits_make_hist[d]", one entry for both, so
"fits_make_histd" was a name no page had. And "What values does fitsio.h define to represent undefined float and double
numbers?" quoted "#define FALSE 0 Values to represent undefined floating point numbers:" without the two #define lines
below the lead-in, which hold the values. Real library (SQLite, hnswlib, PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

import pytest
from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer import extractive
from mmrag_desktop.engine.answer.confidence import with_optional_part, with_wildcard_part
from mmrag_desktop.engine.answer.extractive import introduces_code, is_term_line

HIST = [
    "5.7.6 Column Binning or Histogramming Routines",
    "Bin the values in the input table columns, and write the histogram array to the output FITS image.",
    "The \u201cd\u201d version has double precision floating point inputs as noted in the calling signature.",
    "The version without \u201cd\u201d has single precision floating point inputs.",
    "int fits_make_hist[d]",
    "(fitsfile *fptr, /* I - pointer to table with X and Y cols; */",
    "fitsfile *histptr, /* I - pointer to output FITS image */",
]
DEFINES = [
    "4.1 CFITSIO Definitions",
    "A number of symbolic constants are defined in fitsio.h for the convenience of application programmers.",
    "Logical states (if TRUE and FALSE are not already defined):",
    "#define TRUE 1",
    "#define FALSE 0",
    "Values to represent undefined floating point numbers:",
    "#define FLOATNULLVALUE -9.11912E-36F",
    "#define DOUBLENULLVALUE -9.1191291391491E-36",
    "Image compression algorithm definitions",
    "#define RICE_1 11",
]


@pytest.mark.parametrize(("name", "written"), [
    ("fits_make_histd", True), ("fits_make_hist", False),  # (the name itself is matched as a word, elsewhere)
    ("ffgkns", True), ("ffgkne", True), ("ffgknx", False),  # letters one at a time: "ffgkn[sjed]"
    ("fits_read_key_lng", True), ("fits_read_key_dbl", False),  # alternatives: "fits_read_key_[lng|str]"
    ("fits_make_histdd", False),
])
def test_a_name_with_an_optional_part(name, written):
    text = "int fits_make_hist[d] (fitsfile *fptr ...); ffgkn[sjed]; fits_read_key_[lng|str]"
    assert with_optional_part(name, text.lower()) is written


def test_a_define_with_its_value_is_code_and_no_term():
    assert introduces_code("Values to represent undefined floating point numbers:", "#define FLOATNULLVALUE -9.11912E-36F")
    assert not is_term_line("#define FALSE 0")
    assert is_term_line("#define NAME")  # (a synopsis without its value may head a description)


def test_a_routine_written_with_an_optional_part_and_values_below_a_lead_in(library, tmp_path):
    pdf = write_pdf(tmp_path / "cfitsio.pdf", [[(57, 80 + 16 * i, t) for i, t in enumerate(page)]
                                               for page in (HIST, DEFINES)], fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    hist = extractive_answer(library, "What's the difference between fits_make_hist and fits_make_histd in CFITSIO?")
    assert not hist.insufficient_evidence, hist.text
    assert "precision floating point inputs" in hist.text, hist.text
    nulls = extractive_answer(library, "What values does fitsio.h define to represent undefined float and double numbers?")
    assert "Values to represent undefined floating point numbers: #define FLOATNULLVALUE -9.11912E-36F #define " \
           "DOUBLENULLVALUE -9.1191291391491E-36" in nulls.text, nulls.text
    assert "#define FALSE 0 Values" not in nulls.text


def test_shapes_written_as_calls_with_spaces_stay_lines_of_their_own():
    """CFITSIO's region shapes, "Annulus ( Xc, Yc, Rin, Rout )" one a line, were run together into one sentence of five
    shapes and the prose below them, and "What parameters does an annulus take ...?" could not quote its line."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("Circle ( Xc, Yc, R )\nAnnulus ( Xc, Yc, Rin, Rout )\nEllipse ( Xc, Yc, Rx, Ry, A )\n"
            "Sector ( Xc, Yc, Amin, Amax )\nwhere (Xc,Yc) is the coordinate of the shape's center.")
    lines = unwrap_lines(text).split("\n")
    assert "Annulus ( Xc, Yc, Rin, Rout )" in lines and "Circle ( Xc, Yc, R )" in lines
    # a wrapped line of prose that happens to hold brackets still goes on
    assert unwrap_lines("The shapes are given as calls, each with its parameters\n(and their units) in brackets.") == (
        "The shapes are given as calls, each with its parameters (and their units) in brackets.")


def _hit(chunk_id: int, page: int, section: str, text: str, navigation: bool = False):
    from mmrag_desktop.engine.hits import Hit

    return Hit(chunk_id=chunk_id, doc_id=1, doc="cfitsio.pdf", page=page, bbox=None, kind="text", score=1.0, text=text,
               section=section, navigation=navigation)


def test_passages_of_other_pages_give_way_to_the_page_that_names_the_routine(embedder):
    """"What's the difference between fits_make_hist and fits_make_histd?" quoted "CFITSIO supports several local FITS
    conventions ..." of another page first: only the routine's page names it (an index names every routine)."""
    from mmrag_desktop.engine.answer import extractive
    from mmrag_desktop.engine.answer.evidence import pack_evidence

    question = "What's the difference between fits_make_hist and fits_make_histd in CFITSIO?"
    entry = _hit(455, 72, "5.7.6 Column Binning or Histogramming Routines", "\n".join(HIST[1:4]))
    signature = _hit(456, 72, "5.7.6 Column Binning or Histogramming Routines", "\n".join(HIST[4:]))
    other = _hit(1105, 175, "12 Local FITS Conventions", "CFITSIO supports several local FITS conventions which are "
                 "not defined in the official FITS standard and which are not necessarily recognized by other FITS "
                 "software packages.")
    index = _hit(1173, 189, "Index of Routines", "fits_make_hist 64\nfits_make_key 61", navigation=True)
    blocks = pack_evidence([entry, other, index, signature], 2000)
    ranked = extractive.rank_candidates(question, blocks, embedder)
    place = {c.text[:19]: n for n, c in enumerate(ranked)}
    assert place["The \u201cd\u201d version has"] < place["CFITSIO supports se"]
    # a second page naming the routine: each may answer in part, nothing is scored down
    other.text += " The fits_make_hist routine is one of them."
    blocks = pack_evidence([entry, other, index, signature], 2000)
    assert extractive._blocks_without(blocks, ["fits_make_hist", "fits_make_histd"]) == set()


# Session 65 (UMFPACK's user guide): "For which sys values does umfpack_solve do iterative refinement, and can I pass
# NULL for Ap, Ai and Ax when refinement is off?" was said not covered ("No page found mentions “umfpack_solve”"): the
# guide writes "umfpack_*_solve", one name for its umfpack_di_solve, umfpack_dl_solve, umfpack_zi_solve, ... routines.
SOLVE = [
    "umfpack_*_solve",
    "Purpose: Given LU factors computed by umfpack_*_numeric and the right-hand-side B, solve a linear system.",
    "Iterative refinement can be optionally performed when sys is UMFPACK_A, UMFPACK_At or UMFPACK_Aat.",
    "The arrays Ap, Ai and Ax do not need to be present (NULL pointers can be passed) if Control [UMFPACK_IRSTEP]",
    "is zero, since in that case A is not accessed.",
]


@pytest.mark.parametrize(("name", "text", "written"), [
    ("umfpack_solve", "call umfpack_*_solve (sys, ...)", True),
    ("umfpack_solve", "the umfpack_*_*solve routines", True),  # "wsolve" beside "solve"
    ("umfpack_report_info", "umfpack_*_report_info (control, info)", True),
    ("umfpack_solve", "umfpack_di_solve (sys, ...)", False),  # a variant: not the name with a wildcard
    ("umfpack_symbolic", "umfpack_*_qsymbolic", False),  # another routine
    ("solve", "*_solve", False),  # one word: no part to leave out
])
def test_a_name_with_a_wildcard_part(name, text, written):
    assert with_wildcard_part(name, text) is written
    # and the answer's ranking reads it so too: a block that writes it names the routine (no UNNAMED_PENALTY)
    assert extractive._names_routine(text.lower(), [name]) is written


def test_a_routine_named_without_its_wildcard_part_is_covered(library, tmp_path):
    pdf = write_pdf(tmp_path / "umfpack.pdf", [[(57, 80 + 16 * i, t) for i, t in enumerate(SOLVE)]], fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    ans = extractive_answer(library, "Can I pass NULL for Ap, Ai and Ax to umfpack_solve when refinement is off?")
    assert not ans.insufficient_evidence, (ans.text, ans.notices)
    assert "NULL pointers can be passed" in ans.text, ans.text
    # a routine the guide does not write at all is still no name it has
    other = extractive_answer(library, "Can I pass NULL for Ap, Ai and Ax to umfpack_refactor when refinement is off?")
    assert other.insufficient_evidence and any("umfpack_refactor" in n for n in other.notices), other.notices
