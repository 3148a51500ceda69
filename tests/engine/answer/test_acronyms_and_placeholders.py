"""Two words a question may use that no page writes, and still be covered (session 58, dasm's manual asked for the first
time): an acronym the pages spell out in words ("Windows-style CRLF line endings" of a manual that says "Windows-style
(carriage-return, line-feed) ... line endings are supported"), and a name the asker makes up for an example ("labels
with a caret surrounded by spaces (like "^ myLabel")"). Both questions were said not covered, at confidence 0.84 and
0.78. Real library (SQLite, hnswlib, PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

import pytest
from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.confidence import decisive_unknown, placeholder, spelled_out

PAGE = [
    "2.1 Encoding",
    "Source code files are written as plain-text (generally ASCII encoding) files.",
    "Both Windows-style (carriage-return, line-feed) and Unix-style (line-feed)",
    "line endings are supported by dasm.",
    "The assembler accepts the command line options listed in chapter 3.",
    "2.2 Comments",
    "dasm supports two different comment styles: traditional assembler single-line",
    "semicolon-delimited comments, and C-style delimited multiline comments.",
    "5.4 Deprecated Form",
    "A label may also be defined with whitespace, a carat, whitespace and then the label name.",
    "This is a deprecated format that may not be supported by future versions of dasm.",
    "Do not use it in new code; define labels in the first column instead.",
]


@pytest.mark.parametrize(("name", "spelled"), [
    ("CRLF", True),  # carriage-return, line-feed
    ("CR", False),   # too short to tell from chance
    ("CRC", False),
    ("EBCDIC", False),
    ("crlf", False),  # an acronym is written in capitals
])
def test_an_acronym_spelled_out(name, spelled):
    text = " ".join(PAGE).lower()
    assert spelled_out(name, text) is spelled


@pytest.mark.parametrize(("name", "made_up"), [
    ("myLabel", True), ("my_func", True), ("foo", True), ("foo2", True), ("bar_x", True),
    ("MySQL", False), ("MyISAM", False), ("barometer", False), ("food", False), ("RS485", False),
])
def test_a_made_up_name(name, made_up):
    assert placeholder(name) is made_up


def test_covered_though_the_question_words_it_otherwise(library, tmp_path):
    pdf = write_pdf(tmp_path / "dasm.pdf", [[(57, 80 + 16 * i, t) for i, t in enumerate(PAGE)]], fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    crlf = extractive_answer(library, "Does dasm accept source files with Windows-style CRLF line endings?")
    assert not crlf.insufficient_evidence, crlf.text
    assert "carriage-return, line-feed" in crlf.text
    example = extractive_answer(library, 'I have old dasm code that defines labels with a carat surrounded by spaces (like "^ '
                               'myLabel"); is that syntax still valid?')
    assert not example.insufficient_evidence, example.text
    assert "deprecated format" in example.text
    # an acronym the pages do not spell out, and a real name they never write, still make a question not covered
    assert extractive_answer(library, "Does dasm accept source files in EBCDIC encoding?").insufficient_evidence
    assert extractive_answer(library, "Can dasm read labels written in MySQL tables?").insufficient_evidence


@pytest.mark.parametrize(("question", "unknown", "decisive"), [
    # what the manual's subject is asked to act on, a word no dictionary has: not covered whatever the score (0.78)
    ("Can FireHOL generate nftables rules instead of iptables ones?", ["nftables"], ["nftables"]),
    ("Does dasm assemble Zilog Z80 code?", ["zilog", "z80"], ["zilog", "z80"]),
    # a word of the dictionary, words joined by hyphens and the asker's own doing are left to the score
    ("Does bytefield depend on a particular output driver or an external program?", ["driver"], []),
    ("Does upper or lower case matter for labels?", ["matter"], []),
    ("Can bodeplot overlay the constant closed-loop gain contours?", ["closed-loop"], []),
])
def test_what_the_subject_is_asked_to_act_on(question, unknown, decisive):
    assert decisive_unknown(question, unknown) == decisive
