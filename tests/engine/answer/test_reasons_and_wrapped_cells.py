"""A question why, and a table cell of two lines (session 59, the JAGS user manual asked for the first time). "Why does
JAGS refuse to compile my model when I write I(0, ) after x[i] ~ dnorm(mu, tau) ...?" quoted the manual's lines of
code that look like the question's own ("y[i] ~ dnorm(mu, tau)") and never the reason given below them ("... JAGS does
not know if the aim is to model truncation or censoring and so the compiler will reject the model."). And "What's the
difference between round() and trunc() in JAGS?" quoted "trunc(x) | Round to integer": the cell's second line
"towards zero" was read as a row of its own. (And session 60's: a consequence, or a claim, quoted without its reason.)
Real library (SQLite, hnswlib, PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

import pymupdf
import pytest
from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.evidence import rows_rejoined
from mmrag_desktop.engine.answer.extractive import Candidate, _claims

CENSORING = [
    "A.3 Censoring and truncation",
    "The BUGS construct I(,) is ambiguous in a model such as",
    "model {",
    "for (i in 1:N) {",
    "x[i] ~ dnorm(mu, tau) I(0, )",
    "}",
    "mu ~ dnorm(0, 1.0E-3)",
    "tau ~ dgamma(1, 1)",
    "}",
    "because the mean and precision of x1 ... xN are parameters to be estimated. JAGS does not",
    "know if the aim is to model truncation or censoring and so the compiler will reject the model.",
    "Use either T(,) or the dinterval distribution to resolve the ambiguity.",
]
EXAMPLE = [
    "2.1 A simple example",
    "model {",
    "for (i in 1:N) {",
    "y[i] ~ dnorm(mu, tau)",
    "}",
    "mu ~ dnorm(0, 1.0E-3)",
    "tau ~ dgamma(1, 1)",
    "}",
    "The model describes the observed values y[i] as normally distributed around a common mean.",
]


def test_a_question_why_is_answered_by_the_reason_not_by_code_like_its_own(library, tmp_path):
    pdf = write_pdf(tmp_path / "jags.pdf", [[(57, 80 + 16 * i, t) for i, t in enumerate(page)]
                                            for page in (EXAMPLE, CENSORING)], fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "Why does JAGS refuse to compile my model when I write I(0, ) after "
                                        "x[i] ~ dnorm(mu, tau) with mu and tau estimated?")
    first = answer.text.split(" [")[0]
    assert "reject the model" in first or "parameters to be estimated" in first, answer.text


DIMENSIONS = [
    "2.6 Dimensions of node arrays",
    "The dimensions of a node array may be given in the data, or they may be inferred from the model.",
    "Clearly, the length() and dim() functions can only work if the size of the node array can be",
    "inferred, using one of the three methods outlined above.",
    "Note: the length() and dim() functions are different from all other functions in JAGS:",
    "they do not act on nodes, but only on node arrays. As a consequence, an expression such as",
    "dim(a %*% b) is syntactically incorrect.",
]
ERRORS = [
    "3.8 Error messages",
    "There are two kinds of errors in JAGS: runtime errors, which are due to mistakes in the model",
    "specification, and logic errors which are internal errors in the JAGS program.",
    "Syntax errors generally take the form \u201csyntax error, unexpected FOO, expecting BAR\u201d.",
]


def test_a_consequence_is_quoted_with_its_reason(library, tmp_path):
    """(session 60) "Why is dim(a %*% b) a syntax error in a JAGS model?" quoted "As a consequence, an expression such as
    dim(a %*% b) is syntactically incorrect." without the sentence before it, which says why."""
    pdf = write_pdf(tmp_path / "jags.pdf", [[(57, 80 + 16 * i, t) for i, t in enumerate(page)]
                                            for page in (DIMENSIONS, ERRORS)], fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "Why is dim(a %*% b) a syntax error in a JAGS model?")
    assert "they do not act on nodes, but only on node arrays. As a consequence, an expression such as dim(a %*% b) " \
           "is syntactically incorrect." in answer.text.split(" [")[0], answer.text
    # a question that asks no reason gets the consequence alone
    what = extractive_answer(library, "Is an expression such as dim(a %*% b) allowed in a JAGS model?")
    assert "As a consequence, an expression such as dim(a %*% b) is syntactically incorrect." in what.text, what.text
    assert "they do not act on nodes, but only on node arrays. As a consequence" not in what.text, what.text


GETTING_STARTED = [
    "Chapter 1 Getting Started",
    "SLEPc, the Scalable Library for Eigenvalue Problem Computations, is a software library for the",
    "solution of large sparse eigenvalue problems on parallel computers.",
    "The reasons for this situation are diverse. First, new methods are increasingly complex and",
    "difficult to implement and therefore robust implementations must be provided by computational",
    "specialists, for example as software libraries. The development of such libraries requires to invest",
    "a lot of effort but sometimes they do not reach normal users due to a lack of awareness.",
    "In the case of eigenproblems, using libraries is not straightforward. It is usually recom-",
    "mended that the user understands how the underlying algorithm works and typically the prob-",
    "lem is successfully solved only after several cycles of testing and parameter tuning. Methods",
    "are often specific for a certain class of eigenproblems and this leads to an explosion of available",
    "algorithms from which the user has to choose.",
]


def test_a_short_claim_is_quoted_with_the_reason_after_it(library, tmp_path):
    """(session 60) "Why does the SLEPc manual say that solving an eigenproblem with a library is not straightforward
    for users?" quoted "In the case of eigenproblems, using libraries is not straightforward." alone: the claim, its
    reason the sentence after it."""
    pdf = write_pdf(tmp_path / "slepc.pdf", [[(57, 80 + 16 * i, t) for i, t in enumerate(GETTING_STARTED)]], fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "Why does the SLEPc manual say that solving an eigenproblem with a library is "
                                        "not straightforward for users?")
    assert "using libraries is not straightforward. It is usually recommended that the user understands how the " \
           "underlying algorithm works" in answer.text.split(" [")[0], answer.text


@pytest.mark.parametrize(("sentence", "claim"), [
    ("In the case of eigenproblems, using libraries is not straightforward.", True),
    ("2 Errors printed.", False),  # (a table's fragment: gputils' message levels)
    ("Y[3] ~ dnorm(mu, tau)", False),  # (a line of code: JAGS Q1 lost its reason sentence to the prose after it)
    ("\u2022 A way of mapping between RGB intensity and RGB protocol value.", False),  # (a list item)
    ("The compiler rejects the model because it is ambiguous.", False),  # (it gives its reason)
])
def test_a_short_claim(sentence, claim):
    assert _claims(Candidate(block_id=1, position=0, text=sentence)) is claim


def test_a_cell_of_two_lines_is_one_cell():
    rows = ("Usage: tanh(x) | Description: Hyperbolic Tangent | Value: Real\n"
            "Usage: trunc(x) | Description: Round to integer | Value: Integer\n"
            "Description: towards zero\n"
            "Usage: step(x) | Description: Test for x >= 0. | Value: Logical\n"
            "Description: see also ifelse\n"  # (a cell that ends a sentence is whole: this row stays)
            "Name: G | Default: 0.0")
    assert rows_rejoined(rows).split("\n") == [
        "Usage: tanh(x) | Description: Hyperbolic Tangent | Value: Real",
        "Usage: trunc(x) | Description: Round to integer towards zero | Value: Integer",
        "Usage: step(x) | Description: Test for x >= 0. | Value: Logical",
        "Description: see also ifelse",
        "Name: G | Default: 0.0"]


def test_a_wrapped_cell_is_quoted_whole(library, tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 60), "9.1 Functions in the bugs module", fontsize=12)
    page.insert_text((57, 84), "Table 9.1: Scalar functions in the bugs module", fontsize=10)
    rows = [("Usage", "Description", "Value"), ("round(x)", "Round to integer", "Integer"),
            ("", "away from zero", ""), ("sqrt(x)", "Square root", "Real"), ("tanh(x)", "Hyperbolic tangent", "Real"),
            ("trunc(x)", "Round to integer", "Integer"), ("", "towards zero", "")]
    y = 110
    page.draw_line((50, y - 14), (450, y - 14))
    for i, row in enumerate(rows):
        for x, cell in zip((57, 160, 330), row, strict=True):
            page.insert_text((x, y), cell, fontsize=10)
        if i == 0:
            page.draw_line((50, y + 5), (450, y + 5))
        y += 16
    page.draw_line((50, y - 10), (450, y - 10))
    doc.save(str(tmp_path / "bugs.pdf"))
    doc.close()
    assert [e.stage for e in library.add([tmp_path / "bugs.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "What is the difference between round() and trunc() in the bugs module?")
    assert "Round to integer towards zero" in answer.text, answer.text
