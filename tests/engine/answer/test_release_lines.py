"""Releases of a change log printed as text (session 58). Valgrind's manual prints its NEWS as monospaced text: a release
is a line "Release 3.10.1 (25 November 2014)" over a line of "~~~~", which no outline heads, and its list of fixed bugs,
one report a line ("340788 warning: unhandled syscall: 318 (getrandom)"), runs on for pages. "Valgrind printed
"unhandled syscall: 318 (getrandom)"; in which release was that fixed?" was answered with the whole list run together
as one sentence and no release: the release line is eleven chunks above. Now each report is a line of its own, and a
change log's quote is named by the last release line above it, in its chunk or before it. Real library (SQLite, hnswlib,
PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

import pymupdf
import pytest
from conftest import extractive_answer

from mmrag_desktop.engine.answer.evidence import RELEASE_LINE, pack_evidence, unwrap_lines
from mmrag_desktop.engine.hits import Hit


def hit(text: str, section: str = "Table of Contents > 2. NEWS", release_above: str = "") -> Hit:
    return Hit(chunk_id=2635, doc_id=1, doc="valgrind_manual.pdf", page=257, bbox=(72.0, 100.0, 500.0, 300.0),
               kind="text", score=0.03, text=text, section=section, release_above=release_above)


BUGS = ("340722 Resolve \"UNKNOWN attrlist flags 0:0x10000000\"\n"
        "340725 AVX2: Incorrect decoding of vpbroadcast{b,w} reg,reg forms\n"
        "340788 warning: unhandled syscall: 318 (getrandom)\n"
        "340807 disInstr(arm): unhandled instruction: 0xEE989B20\n"
        "n-i-bz arm64: Implement \"fcvtpu w, s\".")


def test_each_fixed_bug_is_a_line_of_its_own():
    assert unwrap_lines(BUGS).split("\n") == BUGS.split("\n")
    # a report's description wrapped on to the next line is still one line
    assert unwrap_lines("337528 leak check heuristic for block prefixed by length as 64bit number and more of\n"
                        "the same description wrapped") == ("337528 leak check heuristic for block prefixed by length as "
                                                            "64bit number and more of the same description wrapped")


@pytest.mark.parametrize(("line", "release"), [
    ("Release 3.10.1 (25 November 2014)", True),
    ("Release 3.19.0 (11 Apr 2022)", True),
    ("* Noteworthy changes in release 2.3 (2020-01-01) [stable]", True),
    ("Version 1.2.0", True),
    ("## Version 4.1 - 2021-03-04", True),
    # a sentence about a release is no release's line, nor a release candidate's closing line
    ("Version 3.0 adds support for the MIPS32 platform.", False),
    ("This release supports X86/Linux, AMD64/Linux and ARM32/Linux.", False),
    ("(3.10.1: 25 November 2014, vex r3026, valgrind r14785)", False),
    ("3.10.1 is a bug fix release.", False),
])
def test_a_release_line(line, release):
    assert bool(RELEASE_LINE.search(line)) is release


def test_a_quote_is_named_by_the_release_line_above_it():
    text = ("n-i-bz In VALGRIND_PRINTF write out thread name, if any, to xml\n"
            "(3.11.0: 22 September 2015, vex r3195, valgrind r15674)\n"
            "Release 3.10.1 (25 November 2014)\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
            "3.10.1 is a bug fix release. It fixes various bugs reported in 3.10.0.\n" + BUGS)
    (block,) = pack_evidence([hit(text, release_above="Release 3.11.0 (22 September 2015)")], 1000)
    assert block.named("340788 warning: unhandled syscall: 318 (getrandom)") == (
        "Release 3.10.1 (25 November 2014): 340788 warning: unhandled syscall: 318 (getrandom)")
    # above the chunk's release line, the release carried from the chunks before it
    assert block.named("n-i-bz In VALGRIND_PRINTF write out thread name, if any, to xml") == (
        "Release 3.11.0 (22 September 2015): n-i-bz In VALGRIND_PRINTF write out thread name, if any, to xml")
    assert block.without_heading("Release 3.10.1 (25 November 2014): 3.10.1 is a bug fix release.") == (
        "3.10.1 is a bug fix release.")
    # no change log: no release, whatever lines it holds
    (other,) = pack_evidence([hit(text, section="3. Advanced Topics > 3.1 Client requests",
                                  release_above="Release 3.11.0 (22 September 2015)")], 1000)
    assert other.named("340788 warning: unhandled syscall: 318 (getrandom)") == (
        "340788 warning: unhandled syscall: 318 (getrandom)")


def _news_pdf(path) -> object:
    """A manual whose chapter "2. NEWS" prints two releases as text: 3.1.0's fixed bugs run over three pages, the
    asked one on the last; 3.0.0's start below them."""
    lines = ["Release 3.1.0 (25 November 2024)", "~" * 34, "3.1.0 is a bug fix release. It fixes the bugs listed below.",
             "The following bugs have been fixed or resolved.", ""]
    lines += [f"{400100 + i} arm64: unhandled instruction variant number {i} in the decoder" for i in range(150)]
    lines[-20] = "400777 the spin lock loops forever and uses a whole processor core"
    lines += ["", "Release 3.0.0 (10 September 2024)", "~" * 34, "3.0.0 is a feature release with many improvements.",
              "The following bugs have been fixed or resolved.", ""]
    lines += [f"{390100 + i} ppc64: missing syscall wrapper number {i} for the kernel" for i in range(40)]
    lines[-5] = "390888 the disassembler prints garbage for packed decimal instructions"
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 80), "1. Introduction", fontsize=18)
    page.insert_text((57, 120), "This manual describes the debugger and what each release changed.", fontsize=10)
    toc = [[1, "1. Introduction", 1]]
    per_page = 60
    for start in range(0, len(lines), per_page):
        page = doc.new_page(width=595, height=842)
        y = 60
        if start == 0:
            page.insert_text((57, y), "2. NEWS", fontsize=18)
            toc.append([1, "2. NEWS", page.number + 1])
            y += 30
        for line in lines[start:start + per_page]:
            page.insert_text((57, y), line, fontsize=9, fontname="cour")
            y += 12
    doc.set_toc(toc)
    doc.save(str(path))
    doc.close()
    return path


def test_a_fixed_bug_is_quoted_with_its_release(library, tmp_path):
    pdf = _news_pdf(tmp_path / "debugger.pdf")
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "The spin lock loops forever using a whole core; in which release was that fixed?")
    first = answer.text.split(" [")[0]
    # its own line, pages below its release's line
    assert first == ("Release 3.1.0 (25 November 2024): 400777 the spin lock loops forever and uses a whole processor "
                     "core ..."), answer.text
    assert answer.citations[0].page >= 3
    answer = extractive_answer(library, "Which release fixed the disassembler printing garbage for packed decimal instructions?")
    assert answer.text.startswith("Release 3.0.0 (10 September 2024): 390888 the disassembler prints garbage"), \
        answer.text
