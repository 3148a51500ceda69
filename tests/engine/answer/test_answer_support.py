"""The sentence check behind every mark in an answer: the shared splitter, numbers and names,
support against the cited evidence (real all-MiniLM-L6-v2), re-citing, generation guards, the
extractive filters and the quote-first reply format."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from mmrag_desktop.engine.answer.citations import check_citations, split_sentences
from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import (
    _asked_kind,
    _carries,
    asks_for_figure,
    candidate_sentences,
    in_section,
    is_quotable,
    is_term_line,
    near_duplicate,
    quote_text,
    rank_candidates,
    select_sentences,
)
from mmrag_desktop.engine.answer.guards import OutputGuard
from mmrag_desktop.engine.answer.key_terms import TermIndex, missing_terms, terms
from mmrag_desktop.engine.answer.quote_first import grammar, parse_reply
from mmrag_desktop.engine.answer.support import SupportChecker, recite
from mmrag_desktop.engine.hits import Hit
from mmrag_desktop.engine.sentence_split import split_sentences as split_plain


def hit(i: int, text: str, page: int = 1) -> Hit:
    return Hit(chunk_id=i, doc_id=1, doc="eyes.pdf", page=page, bbox=(72.0, 100.0, 500.0, 120.0), kind="text",
               score=0.03 - i / 1000, text=text, section="3 Outputs")


EVIDENCE = [
    hit(1, "The digital output OD0 can drive up to 100 mA current. OD1 can only drive up to 5 mA.", 12),
    hit(2, "The programmer needs a supply voltage of 5 V (4.5 V to 5.5 V). Current draw stays below 100 mA.", 3),
    hit(3, "The USB cable is 1 m long. Use only.values = TRUE to skip the eigenvectors.", 7),
]


def one_block(text: str, section: str = "", doc: str = "manual.pdf", page: int = 1, chunk_id: int = 5,
              kind: str = "text"):
    """The evidence of one hit (a text chunk unless `kind` says otherwise)."""
    return pack_evidence([Hit(chunk_id=chunk_id, doc_id=1, doc=doc, page=page, bbox=None, kind=kind, score=0.03,
                              text=text, section=section)], 1000)


def gputils_hit(chunk_id: int, page: int, section: str, text: str, score: float = 0.03) -> Hit:
    """A text hit of gputils' manual."""
    return manual_hit("gputils.pdf", chunk_id, page, section, text, score)


def manual_hit(doc: str, chunk_id: int, page: int, section: str, text: str, score: float = 0.03,
               kind: str = "text") -> Hit:
    """A hit of the manual `doc`, without boxes."""
    return Hit(chunk_id=chunk_id, doc_id=1, doc=doc, page=page, bbox=None, kind=kind, score=score,
               section=section, text=text)


@pytest.fixture(scope="module")
def blocks():
    return pack_evidence(EVIDENCE, 1000)


# ---- splitter ------------------------------------------------------------------------------
def test_a_one_word_heading_above_a_line_in_lower_case_is_no_part_of_its_sentence():
    """GNU Prolog's entries (no set's manual): "Description" above "fd_domain(Vars, Lower, Upper)
    constraints ..." was quoted as "Description fd_domain(Vars, ...": a line break before a word in
    lower case is a wrapped line, but not after a heading of one or two words."""
    text = ("Templates\nfd_domain(?fd_variable, +integer, +integer)\nDescription\nfd_domain(Vars, Lower, Upper) "
            "constraints each element X of Vars to take a value in Lower..Upper.\nThe variables of a constraint are\n"
            "given in a list.")
    assert split_plain(text, newlines=True) == [
        "Templates", "fd_domain(?fd_variable, +integer, +integer)", "Description",
        "fd_domain(Vars, Lower, Upper) constraints each element X of Vars to take a value in Lower..Upper.",
        "The variables of a constraint are\ngiven in a list."]


def test_a_full_stop_at_a_line_s_end_ends_the_sentence_before_a_name_in_lower_case():
    """Verilator's manual: "Same as /*verilator sformat*/ metacomment." ends one entry, the next
    starts with its header "split_var [-module ...]"; the answer quoted both as one sentence. A
    full stop that ends a line is a boundary before lower case too, not after "e.g." or "etc."."""
    text = ("Same as /*verilator sformat*/ metacomment.\nsplit_var [-module \"<modulename>\"] -var \"<varname>\"\n"
            "Break the variable into multiple pieces. See e.g.\nthe manual, the examples etc.\nand the tests.")
    assert split_plain(text, newlines=True) == [
        "Same as /*verilator sformat*/ metacomment.", 'split_var [-module "<modulename>"] -var "<varname>"',
        "Break the variable into multiple pieces.", "See e.g.\nthe manual, the examples etc.\nand the tests."]


def test_one_splitter_keeps_abbreviations_and_numbers_together():
    assert split_plain("See Fig. 3 for the pins. The supply is approx. 5 V. Done.") == [
        "See Fig. 3 for the pins.", "The supply is approx. 5 V.", "Done."]
    assert split_plain("Use e.g. the OD0 pin. It gives 3.3 V! Really? Yes.") == [
        "Use e.g. the OD0 pin.", "It gives 3.3 V!", "Really?", "Yes."]
    assert split_plain("A line\nAnother line. \u2022 one \u2022 two", newlines=True) == [
        "A line", "Another line.", "\u2022 one", "\u2022 two"]
    assert split_plain("A line that wraps\nonto the next one.\n2 items", newlines=True) == [
        "A line that wraps\nonto the next one.", "2 items"]
    # a command after a prompt: prose in lower case continues the sentence, a name in code starts one
    assert split_plain("> ev <- eigen(Sm)\nwill assign this list to ev.", newlines=True) == [
        "> ev <- eigen(Sm)\nwill assign this list to ev."]
    assert split_plain('> install.packages("x")\ninstall.packages can install it.', newlines=True) == [
        '> install.packages("x")', "install.packages can install it."]
    # the answer splitter: a marker that opens a sentence belongs to the previous one
    assert split_sentences("It works. [1] See Eq. 2 next [2].") == ["It works. [1]", "See Eq. 2 next [2]."]


def test_a_caption_keeps_its_label(embedder):
    """Yosys's application notes (held-out 2): the caption "Figure 2. Output of the three show commands
    from Fig. 1" was cut after "Figure 2.", the label dropped as too short and the caption quoted, if at
    all, without the figure's number, which is what a figure question's answer names. A caption's label at
    a line's start opens its sentence; elsewhere "Figure 2." still ends one."""
    assert split_plain("Figure 2. Output of the three show commands from Fig. 1") == [
        "Figure 2. Output of the three show commands from Fig. 1"]
    assert split_plain("Some text ends here.\nTable 4.1. Pin assignments. The header follows.", newlines=True) == [
        "Some text ends here.", "Table 4.1. Pin assignments.", "The header follows."]
    assert split_plain("Fig. 3. The layout of the board.") == ["Fig. 3. The layout of the board."]
    assert split_plain("The plots are shown in Figure 2. Output goes to the file.") == [
        "The plots are shown in Figure 2.", "Output goes to the file."]
    caption = manual_hit("yosys-manual.pdf", 1, 272, "Application Notes",
                         "Figure 2. Output of the three show commands from Fig. 1\nLabels: a A B $2 $add Y b c",
                         kind="figure")
    cands = candidate_sentences(pack_evidence([caption], 1000))
    assert any(c.text.startswith("Figure 2. Output of the three show commands") for c in cands), [c.text for c in cands]


# ---- numbers and names -----------------------------------------------------------------------
def test_a_power_is_one_number():
    """The parser marks exponents ("10^6", parse/pdf_lines.py): a power is one number by its value,
    so "0.001" or "1e-3" in an answer is backed by "10^\u22123" in the evidence, and the base and
    exponent alone are not."""
    got = {(t.text, round(t.value, 12)) for t in terms("Meg is 10^6 [1], mil 25.4\u00d710^\u22126, at most 2^31 elements.")}
    assert got == {("10^6", 1e6), ("25.4\u00d710^\u22126", 25.4e-6), ("2^31", 2.0 ** 31)}
    ix = TermIndex("The RELTOL parameter, which default value is 10^\u22123, sets the relative tolerance.")
    assert ix.has(terms("0.001")[0]) and ix.has(terms("1e-3")[0])
    assert not ix.has(terms("10")[0]) and not ix.has(terms("3")[0])
    assert missing_terms(terms("The default is 0.002."), ix) and not missing_terms(terms("The default is 0.001."), ix)


def test_small_numbers_are_told_apart():
    """Numbers were compared rounded to nine decimals: "1e-14" was backed by GMIN's "1.0e-12" (and
    by any 0). They are compared by nine significant digits."""
    ix = TermIndex("GMIN=x resets the value of GMIN. The default value is 1.0e-12; the offset is 0 V.")
    assert ix.has(terms("1e-12")[0]) and ix.has(terms("0.000000000001")[0])
    assert not ix.has(terms("1e-14")[0]) and not ix.has(terms("1e-15")[0])


def test_terms_find_numbers_units_and_identifiers():
    got = {(t.text, t.kind) for t in terms("OD0 drives 100 mA [1]; use `droptol`, only.values, --without-fftw, 1e-3 and PORTB.")}
    assert got == {("OD0", "name"), ("100 mA", "number"), ("droptol", "name"), ("only.values", "name"),
                   ("--without-fftw", "name"), ("1e-3", "number"), ("PORTB", "name")}
    assert terms("The answer is in the manual [2].") == []  # a marker is not a number


def test_terms_compare_by_value_and_unit():
    ix = TermIndex("OD1 can drive up to 5mA. RELTOL = 0.001; ONLY.VALUES; 1,000 samples")
    assert not missing_terms(terms("OD1 drives 5 mA, RELTOL is 1e-3, only.values, 1000 samples"), ix)
    assert [t.text for t in missing_terms(terms("OD1 drives 5 V"), ix)] == ["5 V"]
    assert [t.text for t in missing_terms(terms("OD2 gives 8 mA"), ix)] == ["OD2", "8 mA"]


def test_a_section_number_and_a_name_after_a_hyphen_are_terms_compared_whole():
    """Sentences the benchmark's models wrote on the held-out set (session 61), shown unmarked: SmolLM2's "... are
    available via Gnuplot (see 18.7.3)" where the evidence says "(see 18.7.2)" ("18.7.3" was read as the number
    18.7), and Qwen2.5-Coder-0.5B's "... z is a 2-Dmatrix_matchingthe" (a name after a hyphen was no term)."""
    ix = TermIndex("2D contour plots of CIDER simulation results are available via Gnuplot (see 18.7.2). z is a 2-D "
                   "matrix matching the resulting size of the X-Y grid. BIRD 2.0.12 is the release.")
    assert [t.text for t in missing_terms(terms("They are available via Gnuplot (see 18.7.3).", whole=True), ix)] == [
        "18.7.3"]
    assert not missing_terms(terms("They are available via Gnuplot (see 18.7.2).", whole=True), ix)
    assert [t.text for t in missing_terms(terms("z is a 2-Dmatrix_matchingthe!", whole=True), ix)] == [
        "2-Dmatrix_matchingthe"]
    assert not missing_terms(terms("BIRD 2.0.12 is the release, and pi is 3.14 or 2-D.", whole=True), TermIndex(
        "BIRD 2.0.12 is the release; pi is 3.14 in a 2-D plot."))
    # (the answer's ranking reads "18.7.3" as a number, as it was measured with)
    assert [(t.kind, t.value) for t in terms("see 18.7.3")] == [("number", 18.7)]


def test_a_sentence_citing_another_section_number_is_not_supported(embedder):
    hit = manual_hit("ngspice-manual.pdf", 7, 548, "18.7 CIDER output",
                     "2D contour plots of CIDER simulation results are available via Gnuplot (see 18.7.2).")
    chk = SupportChecker(pack_evidence([hit], 1000), embedder)
    assert chk.check("2D contour plots of CIDER simulation results are available via Gnuplot (see 18.7.2) [1].").supported
    wrong = chk.check("2D contour plots of CIDER simulation results are available via Gnuplot (see 18.7.3) [1].")
    assert not wrong.supported and wrong.missing == ["18.7.3"]


# ---- support ---------------------------------------------------------------------------------
def test_a_cited_sentence_is_supported_only_when_the_cited_block_says_it(blocks, embedder):
    chk = SupportChecker(blocks, embedder)
    ok = chk.check("The OD0 output can drive up to 100 mA of current [1].")
    assert ok.supported and ok.support.id == 1 and "OD0" in ok.support.text and ok.support.score >= chk.threshold
    bad_number = chk.check("The OD0 output can drive up to 250 mA of current [1].")
    assert not bad_number.supported and bad_number.missing == ["250 mA"] and "250 mA" in bad_number.reason
    invented = chk.check("The project is designed to provide a high-quality LED as an input of the circuit [1].")
    assert not invented.supported and invented.missing == ["LED"]
    unrelated = chk.check("The project is designed to give a good light as an input of the circuit [1].")
    assert not unrelated.supported and unrelated.missing == [] and unrelated.reason.startswith("no sentence")
    lead_in = chk.check("Best matching sentences from the manuals:")
    assert not lead_in.claim


def test_wrong_or_missing_citations_are_moved_to_the_block_that_says_it(blocks, embedder):
    chk = SupportChecker(blocks, embedder)
    text = ("The programmer needs a supply voltage of 5 V. The USB cable is 1 m long [1]. "
            "The moon is made of green cheese. The programmer needs a supply voltage of 7 V.")
    checks = chk.check_text(text)
    assert [c.supported for c in checks] == [True, True, False, False]
    assert [c.citations for c in checks] == [[2], [3], [], []]
    assert checks[3].missing == ["7 V"]
    new = recite(text, checks)
    assert new.startswith("The programmer needs a supply voltage of 5 V [2]. The USB cable is 1 m long [3]. The moon")
    assert [new[c.start:c.end] for c in checks] == [c.text for c in checks]
    assert check_citations(new, [1, 2, 3]).unsupported == [
        "The moon is made of green cheese.", "The programmer needs a supply voltage of 7 V."]


def test_quotes_are_supported_verbatim_and_nothing_passes_without_an_embedder(blocks):
    chk = SupportChecker(blocks, None)
    q = chk.check("The USB cable is 1 m long. [3]", quote=True)
    assert q.supported and q.quote and q.support.score == 1.0
    assert not chk.check("A one metre USB cable comes with it [3].").supported


def test_a_quote_with_bracketed_words_is_verbatim():
    """Seen on OpenOCD's manual: "adapter speed max_speed_kHz [Command] A non-zero speed is in KHZ.
    Hence: 3000 is 3mhz." was quoted from its block and marked "not found": the check reads a
    sentence without its bracketed words (model markers) but compared it with the block's text
    with them. Bracketed words the sentence changed are still no quote."""
    entry = one_block("NOTE: Script writers should consider using jtag_rclk instead of adapter speed.\n"
                      "adapter speed max_speed_kHz [Command]\nA non-zero speed is in KHZ. Hence: 3000 is 3mhz. "
                      "JTAG interfaces usually support a limited number of speeds.", "10.2 Interface Configuration",
                      "openocd.pdf", 66, chunk_id=3485)
    chk = SupportChecker(entry, None)  # no embedder: only a verbatim quote can pass
    quote = chk.check("adapter speed max_speed_kHz [Command] A non-zero speed is in KHZ. Hence: 3000 is 3mhz. [1]",
                      quote=True)
    assert quote.supported and quote.support.score == 1.0
    changed = chk.check("adapter speed max_speed_kHz [Config Command] A non-zero speed is in KHZ. [1]", quote=True)
    assert not changed.supported
    assert not chk.check("adapter speed max_speed_kHz [default 500] A non-zero speed is in KHZ. [1]").supported


def test_a_quoted_line_of_code_whose_words_are_mostly_bracketed_is_verbatim():
    """(session 60, tikz-relay's manual) "\\begin{tikzpicture}[circuit ee IEC relay] ..." quoted from its block was
    marked "not found in the cited pages": without its bracketed words the quote is one word, too few to be read as
    one. The bracketed words count (and must be the block's, as ever)."""
    code = one_block("\\begin{tikzpicture}[circuit ee IEC relay]\n\\draw (0,0) to [make contact] (2,0);",
                     "4 Examples", "tikz-relay-doc.pdf", 15, chunk_id=1153)
    chk = SupportChecker(code, None)
    assert chk.check("\\begin{tikzpicture}[circuit ee IEC relay] ... [1]", quote=True).supported
    assert not chk.check("\\begin{tikzpicture}[circuit ee IEC switch] ... [1]", quote=True).supported
    assert not chk.check("\\begin{tikzpicture} ... [1]", quote=True).supported  # (one word: no quote)


# ---- guards ----------------------------------------------------------------------------------
def test_guard_stops_a_loop_at_its_second_occurrence():
    g = OutputGuard()
    text = "It is 5 V [1]. " + "The project is designed to give a LED input [2]. " * 4
    fired = next(f for n in range(1, len(text) + 1) if (f := g.check(text[:n])) is not None)
    assert fired.guard == "loop" and text[: fired.cut].strip() == \
        "It is 5 V [1]. The project is designed to give a LED input [2]."


@pytest.mark.parametrize("text, guard", [
    ("The value is log \ufffd\ufffdFmax here.", "garbled"),
    ("It is fine. Then \u00c3\u00a9t\u00c3\u00a9 follows.", "garbled"),
    ("See (en-eyes.pdf, page 248, section: LaTeX and Xfig) for it.", "echo"),
    ("It is 5 V. [2] (section: 1 Power supply) The programmer", "echo"),
    ("Answer: " + "=" * 30, "garbled"),
])
def test_guard_catches_garbled_text_and_echoed_headers(text, guard):
    fired = OutputGuard().check(text)
    assert fired is not None and fired.guard == guard and fired.notice.startswith("Stopped the model")


def test_guard_catches_a_whole_block_echoed_back():
    block = " ".join(f"word{i}" for i in range(60))
    g = OutputGuard([block])
    assert g.check("A short answer that quotes word1 word2 word3. ") is None
    fired = g.check("First sentence. " + block + " ")
    assert fired is not None and fired.guard == "echo" and fired.cut == len("First sentence.")


# ---- extractive filters ------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "172 4.25.1 DIP and QFP chips customization",
    "4.25.1 DIP and QFP chips customization . . . . . . . 172",
    "plot command, 12, 45, 78",
    "4 5 3 6 2 7 1 8 Dual-in-Line",
    "Labels: R1 C2 Q1 VCC GND",
    "8 mm t o",  # a unit's measure and node names drawn beside it (chemplants), read as a sentence
    # a plot's axis labels and ticks, read by OCR (expEYES-17's hysteresis plot, session 61)
    "Text in figure: 1mn m rS 0.5 h -0.5 0.5",
    # an index line cut before its page number (seen quoted in a held-out answer)
    "508 opengl single precision date time . . . . . . . . . . .",
    # index entries run together, cut mid-entry by the evidence budget (SDCC manual, session 12)
    "__far (named address space), 40, 52 Feature request, 106 Flags, 41 Flat 24 (DS390 memory model), "
    "59 Floating point support, 26, 48, 56\u201358 HD64180 (see Z180), 43 Header files, 41, 101, 102 "
    "heap (malloc), 58 Higher",
])
def test_navigation_and_label_lines_are_never_quoted(line):
    assert not is_quotable(line)


def test_a_table_header_row_is_not_quoted_but_its_rows_are():
    assert not is_quotable("Name | Parameter | Units/Type | Default | Example")
    assert is_quotable("Name: G | Parameter: conductance/length | Units/Type: mhos/unit | Default: 0.0")
    assert is_quotable("Use the A | B notation for alternatives in the grammar.")  # one bar in prose
    assert not is_quotable("Option name | Type | Default value | Example of use")


def test_a_row_of_a_table_without_a_header_is_quoted(embedder):
    """Elk's input blocks: each is a one-row table without column names ("vqlss | the q-vector of the
    spin-spiral state in lattice coordinates | real(3) | (0.0, 0.0, 0.0)"); the row was taken for a header
    (cells without ":"), and the answer to "Which input variable holds the spin-spiral q-vector ...?"
    quoted a routine's argument list instead. A header's cells are a few words each, without numbers."""
    row = "vqlss | the q-vector of the spin-spiral state in lattice coordinates | real(3) | (0.0, 0.0, 0.0)"
    assert is_quotable(row)
    blocks = pack_evidence([
        manual_hit("elk.pdf", 1253, 40, "5 Input blocks > 5.127 vqlss", row, 0.05, kind="table"),
        manual_hit("elk.pdf", 1342, 60, "7 Routine/Function Prologues > 7.29 findngkmax (Source File: findngkmax.f90)",
                   "nspnfv : number of first-variational spin components: 1 normal case, 2 for spin-spiral case "
                   "(in,integer) vqcss : spin-spiral q-vector, not referenced if nspnfv=1 (in,integer)")], 1000)
    question = "Which input variable holds the spin-spiral q-vector, in what coordinates is it given, and what is its default?"
    assert select_sentences(question, blocks, embedder)[0].text == row


def test_prose_with_numbers_after_commas_is_quotable():
    assert is_quotable("The sizes are char, 8 bits; int, 16 bits; long, 32 bits; long long, 64 bits.")
    assert is_quotable("Use pins 1, 2, 3 and 4 for the data bus, see Table 3, 4 and 5.")


def test_a_question_for_a_file_prefers_the_sentence_that_names_one(embedder):
    """"which startup file ..." and "where does gnuplot write ..." ask for a file or directory: the
    sentence with "~/.octaverc" or "fit.log" is preferred (dev t17, session 19); "where is the reset
    pin" does not ask for one."""
    from mmrag_desktop.engine.answer.extractive import _asked_kind, _carries

    assert _asked_kind("which startup file holds my personal octave settings") == "file"
    assert _asked_kind("where does gnuplot write the iteration history of a fit") == "file"
    assert _asked_kind("in which directories is the .spiceinit file searched for") == "file"
    assert _asked_kind("where is the reset pin") == "name"
    assert _carries('The same information is written to a log file, "fit.log".', "file")
    assert _carries("the main library is R_HOME/library, but others can be used", "file")
    assert not _carries("Use e.g. version 2.6.2 and call eigen() on it.", "file")
    bl = pack_evidence([hit(1, "Your personal Octave settings are kept in a startup file that Octave reads at start-up. "
                               "Octave looks for it in your home directory as ~/.octaverc when it starts.")], 1000)
    best = rank_candidates("which startup file holds my personal octave settings", bl, embedder)[0]
    assert "~/.octaverc" in best.text  # the best-matching sentence, quoted with the next one that names it


def test_a_default_is_quoted_with_the_sentence_it_belongs_to(embedder):
    """ngspice's option list: "The default value is 1 µV." belongs to VNTOL's sentence before it;
    quoted alone after RELTOL's own sentence it read as RELTOL's default (session 19)."""
    bl = pack_evidence([hit(1, "RELTOL=x resets the relative error tolerance of the program. The default value is "
                               "0.001 (0.1%). VNTOL=x resets the absolute voltage error tolerance of the program. "
                               "The default value is 1 \u00b5V."),
                        hit(2, "The default is trapezoidal. METHOD=name sets the integration method.")], 1000)
    ranked = rank_candidates("What is the default value of RELTOL in ngspice?", bl, embedder)
    shown = [c.text for c in ranked]
    assert "VNTOL=x resets the absolute voltage error tolerance of the program. The default value is 1 \u00b5V." in shown
    assert "The default value is 1 \u00b5V." not in shown
    assert "... The default is trapezoidal." in shown  # the block starts with it: a continuation
    checker = SupportChecker(bl, embedder)
    assert checker.check(quote_text(shown[0], ranked[0].block_id), quote=True).supported


def test_the_number_of_the_next_list_item_is_not_quoted_with_an_item(embedder):
    """Asymptote's search path (session 21, a manual of no set): "4. The Asymptote system directory
    (by default, ...)." was quoted with the "5." that numbers the next item, as if it were its value."""
    bl = pack_evidence([hit(1, "4. The Asymptote system directory (by default, /usr/share/asymptote under UNIX and\n"
                               "C:\\Program Files\\Asymptote under MSDOS).\n"
                               "5. The Asymptote examples directory (by default, /usr/share/doc/asymptote/examples\n"
                               "under UNIX).")], 1000)
    ranked = rank_candidates("What is the default system directory of Asymptote?", bl, embedder)
    shown = [c.text for c in ranked]
    assert any(t.startswith("The Asymptote system directory") for t in shown)
    assert not any(t.rstrip().endswith("5.") for t in shown), shown


def test_a_default_of_an_unnamed_thing_is_quoted_with_the_sentence_before(embedder):
    """OpenOCD's manual: "When not specified during the configuration stage, the port number defaults
    to 6666." alone answered a question about the telnet port; it is the Tcl port's, which the
    sentence before names."""
    bl = pack_evidence([hit(1, "The Tcl server listens on the tcl_port for machine interfaces. When not specified "
                               "during the configuration stage, the port number defaults to 6666.")], 1000)
    shown = [c.text for c in rank_candidates("What is the default telnet port of OpenOCD?", bl, embedder)]
    alone = "When not specified during the configuration stage, the port number defaults to 6666."
    assert alone not in shown
    assert any(t.startswith("The Tcl server listens") and t.endswith(alone) for t in shown), shown


def test_a_cross_reference_is_no_answer_and_a_page_number_no_value(embedder):
    """OpenOCD's manual (session 21, a manual of no set): "See [option -gdb-port], page 77." ranked
    above "... the port number defaults to 3333." for a question about the default port: it only
    points elsewhere, and its page number counted as the value asked for."""
    bl = pack_evidence([hit(1, "The GDB port for the first target will be the base port. When not specified during "
                               "the configuration stage, the port number defaults to 3333. See [option -gdb-port], "
                               "page 77.")], 1000)
    shown = [c.text for c in rank_candidates("Which port does OpenOCD listen on for GDB by default?", bl, embedder)]
    assert "See [option -gdb-port], page 77." not in shown
    assert not _carries("see set format (p. 150) for more details", "value")
    assert _carries("the port number defaults to 3333 (see page 5)", "value")


def test_a_formula_the_pdf_maps_to_no_characters_is_not_quoted():
    """ngspice's convergence formula comes out of the PDF as U+FFFD runs (session 19, dev t01);
    avr-libc's wrapped-line mark (an arrow then one U+FFFD) is not such a formula."""
    assert not is_quotable("The algorithm has reached convergence when the difference (k +1) "
                           "\ufffd\ufffd\ufffdv(k+1) n \u2212v(k) n \ufffd\ufffd\ufffd\u2264RELTOLvnmax +VNTOL")
    assert not is_quotable("Temperature dependence of the saturation current is: \ufffdT1 \ufffdXTI N \ufffdEgq")
    assert is_quotable("These variables point to __heap_start and __\u2190\ufffd heap_end, where "
                       "__heap\u2190\ufffd start is filled in by the linker.")
    assert is_quotable("The RELTOL parameter, which default value is 10\u22123, sets the relative tolerance.")


def test_an_ellipsis_in_a_quoted_call_is_not_a_contents_line():
    assert is_quotable('pp = splinefit (. . ., "periodic", periodic) fits a periodic spline.')


def test_a_chapter_line_of_a_contents_page_is_not_quoted():
    """avr-libc's contents (page 3): a chapter's line has no dot leaders ("6 avr-libc and assembler
    programs 27") and was quoted as an answer; among contents lines it is one of them. The same
    shape in prose evidence stays quotable."""
    contents = one_block("5.4 Storing and Retrieving Strings in the Program Space . . . . . . . . . . . .\n"
                         "5.5 Caveats . . . . . . . . . . . . . . . . . . . .\n6 avr-libc and assembler programs 27",
                         "avr-libc", "avr-libc-user-manual.pdf", 3)
    assert candidate_sentences(contents) == []
    prose = one_block("The pins are numbered as below.\n2 resistors connect the LED to pin 5", "Wiring")
    assert [c.text for c in candidate_sentences(prose)][-1] == "2 resistors connect the LED to pin 5"


def test_a_listed_title_under_links_or_references_is_not_quoted():
    """NUT's "E.4 Offsite Links": "Which command shows the status of a UPS in NUT?" led with "•
    Monitoring a UPS with nut on Debian or Ubuntu Linux (Avery Fay)", a link's title. A bullet that
    is a sentence stays, and so do title-like bullets under other sections."""
    text = ("These are general information about UPS:\n\u2022 UPS HOWTO (The Linux Documentation Project)\n"
            "\u2022 Monitoring a UPS with nut on Debian or Ubuntu Linux (Avery Fay)\n"
            "\u2022 The upsc client shows the status of a UPS.")
    links = [c.text for c in candidate_sentences(one_block(text, "E Documentation > E.4 Offsite Links", "nut.pdf", 83))]
    assert links == ["These are general information about UPS:", "\u2022 The upsc client shows the status of a UPS."]
    other = [c.text for c in candidate_sentences(one_block(text, "6 Configuration > 6.2 Monitoring", "nut.pdf", 38))]
    assert "\u2022 UPS HOWTO (The Linux Documentation Project)" in other


def test_see_also_lines_and_a_figure_s_section_line_are_not_quoted():
    """Octave's "See also: [voronoi], page 832, [convhulln], page 837, ..." was quoted as an answer
    sentence, and a figure chunk's "Section: G.3.3 SOLA-330" line as the label of the figure's
    text (it reads like a definition list's term)."""
    assert not is_quotable("See also: [voronoi], page 832, [convhulln], page 837, [delaunayn], page 826.")
    assert is_quotable("See the voronoi function for the diagram itself.")
    figure = pack_evidence([Hit(chunk_id=1, doc_id=1, doc="nut.pdf", page=92, bbox=None, kind="figure", score=0.03,
                                text="Section: G.3.3 SOLA-330\nText in figure: Male DB-9 Female DB-9 SOLA-330 UPS "
                                     "serial cable", section="G.3.3 SOLA-330")], 1000)
    (cand,) = candidate_sentences(figure)
    assert cand.text.startswith("Text in figure:") and cand.label == ""


def test_a_sentence_with_the_opposite_of_a_question_word_is_not_quoted_first(embedder, monkeypatch):
    """MiniLM scores "internal ram of a 8051" above "placed in the external RAM" for a question
    about external RAM (sdccman.pdf page 41); OPPOSITE_PENALTY puts the external one first. A
    question that names both sides ("inputs ... output") penalises neither."""
    from mmrag_desktop.engine.answer import extractive

    bl = pack_evidence([hit(1, "Variables in this address space will be allocated into the internal ram of a 8051. "
                               "Variables in this address space will be placed in the external RAM.")], 1000)
    question = "In SDCC, how do I put a variable in external RAM on the 8051?"
    monkeypatch.setattr(extractive, "OPPOSITE_PENALTY", 0.0)
    assert "internal" in rank_candidates(question, bl, embedder)[0].text  # the embedder alone
    monkeypatch.undo()
    assert "external RAM" in rank_candidates(question, bl, embedder)[0].text
    assert extractive.opposes(["output"], "a linear variation with respect to the control input")
    assert not extractive.opposes(["output", "inputs"], "a linear variation with respect to the control input")
    # verbs in their forms: Verilator's "what happens when Verilator writes outside the bounds" quoted
    # "Reading a memory element outside the bounds ..." above "Writing a memory element ..."
    reading = "Reading a memory element outside the bounds specified for the array will give a width warning."
    assert extractive.opposes(["verilator", "writes", "bounds"], reading)
    assert not extractive.opposes(["writes"], "Writing a memory element outside the bounds may write another one.")
    assert not extractive.opposes(["writes", "reading"], reading)


def test_the_sentence_with_the_asked_for_value_is_preferred(embedder):
    bl = pack_evidence([hit(1, "The digital outputs of the expEYES kit are described in this section. "
                               "OD0 can drive up to 100 mA current.\n"
                               "3.2.1 Digital outputs . . . . . . . . 12")], 1000)
    assert all(". . ." not in c.text for c in candidate_sentences(bl))
    best = rank_candidates("How much current can the digital outputs deliver?", bl, embedder)[0]
    assert "100 mA" in best.text


def test_a_ratio_in_words_is_a_value(embedder):
    """Mnesia's manual (session 54's list): "Roughly how much faster is reading records with dirty operations than
    inside a transaction ...?" quoted "There are two significant differences ...: It is much more efficient. ..."
    first and "... more than ten times more efficient to read records dirty than within a transaction." third: a
    ratio written in words carries the value asked for as a number does."""
    ratio = "Notice that it is more than ten times more efficient to read records dirty than within a transaction."
    assert _carries(ratio, "value") and _carries("It runs twice as fast.", "value")
    assert not _carries("It is much more efficient.", "value") and not _carries("Ten tables are kept.", "value")
    bl = pack_evidence([hit(1, "Dirty operations are short cuts that bypass much of the processing and increase the "
                               "speed of the transaction. Dirty operations are much more efficient than operations "
                               "within a transaction. " + ratio)], 1000)
    best = rank_candidates("Roughly how much faster is reading records with dirty operations than inside a "
                           "transaction?", bl, embedder)[0]
    assert best.text == ratio, best.text


def test_a_definition_list_term_is_quoted_with_its_description(embedder):
    startup = ("octave-home/share/octave/site/m/startup/octaverc\n"
               "This file is used to make changes to the default Octave environment for all users.\n"
               "~/.octaverc\n"
               "This file is used to make personal changes to the default Octave environment.\n"
               ".octaverc\n"
               "This file can be used to make changes to the default Octave environment for a particular project.")
    bl = one_block(startup, "2 Getting Started > 2.1 Invoking Octave > 2.1.2 Startup Files", "octave.pdf", 40)
    best = rank_candidates("which startup file holds my personal octave settings", bl, embedder)[0]
    assert best.text == "~/.octaverc This file is used to make personal changes to the default Octave environment."
    assert is_term_line("FIT_LOG") and is_term_line("--persist") and is_term_line("~/.octaverc")
    assert not is_term_line("Startup Files") and not is_term_line("See also x.y.") and not is_term_line("")


def test_a_call_signature_is_quoted_with_its_description(embedder):
    entry = ("x = csvread (filename, dlm_opt1, . . .)\n"
             "Read the comma-separated-value (CSV) file filename into the matrix x.\n"
             "Note: only CSV files containing numeric data can be read.")
    bl = one_block(entry, "14 Input and Output > 14.1 Basic Input and Output", "octave.pdf", 300)
    best = rank_candidates("read a CSV file of numbers into a matrix in octave", bl, embedder)[0]
    assert best.text.startswith("x = csvread (filename, dlm_opt1, . . .) Read the comma-separated-value")
    assert is_term_line("[a, b] = foo (x)") and is_term_line("attach(dummy)")
    assert not is_term_line("Read the file (see below)") and not is_term_line("Use plot(x, y) to draw it.")


def test_a_superlative_asks_for_a_value_and_pairs_the_setting_with_its_default(embedder):
    assert _asked_kind("what is the smallest conductance the simulator allows") == "value"
    opts = ("GMIN=x resets the value of GMIN, the minimum conductance allowed by the program. "
            "The default value is 1.0e-12.")
    bl = pack_evidence([hit(1, opts)], 1000)
    best = rank_candidates("what is the smallest conductance the simulator allows and how to change it", bl, embedder)[0]
    assert best.text.endswith("The default value is 1.0e-12.") and best.text.startswith("GMIN=x")
    # Gpredict: "What Cycle value is recommended ...?" asks a value too, and the sentence after the one that
    # names the parameter gives it
    assert _asked_kind("What Cycle value is recommended for the rotator controller?") == "value"
    cycle = ("The code that communicates with hamlib runs in its own thread and is activated periodically. The Cycle "
             "parameter defines the delay between two such cycles. A value between 2-5 seconds should be adequate "
             "for most uses.")
    best = rank_candidates("What Cycle value is recommended for the rotator controller?",
                           pack_evidence([hit(1, cycle)], 1000), embedder)[0]
    assert best.text.endswith("A value between 2-5 seconds should be adequate for most uses."), best.text


def test_a_sentence_that_ends_with_the_code_it_announces_is_no_lead_in(embedder):
    """Gpredict: "... the only way to specify the user name and password is to include them into the URLs:" /
    "protocol://user:password@example.com/path/" is one sentence for the splitter (the URL goes on in lower
    case) and ended with no full stop, so it lost LEAD_IN_PENALTY as a fragment and was never quoted for "how
    do I give a username and password to Gpredict?"."""
    from mmrag_desktop.engine.answer import extractive

    text = ("There is one potentially dangerous shortcoming in the current implementation of TLE updates, namely "
            "authentication. If the remote server requires authentication, the only way to specify the user name "
            "and password is to include them into the URLs:\nprotocol://user:password@example.com/path/\nBe warned "
            "that the URL string will be stored as clear text in the configuration file.")
    question = "Our TLE server needs a username and password, how do I give those to Gpredict?"
    ranked = rank_candidates(question, pack_evidence([hit(1, text)], 1000), embedder)
    url = next(c for c in ranked if "protocol://user:password" in c.text)
    assert url is ranked[0], [c.text for c in ranked]
    assert extractive._SHOWS_CODE.search("Set it with: --prefix=/usr") and not extractive._SHOWS_CODE.search(
        "Every TAP requires at least the following configparams:")


def test_an_item_of_a_list_of_names_and_meanings_is_no_lead_in(embedder):
    """GLPK's glp_get_col_stat: the statuses are listed one a line, each closed by ";" ("GLP_NU — non-basic
    variable on its upper bound;"); the items lost LEAD_IN_PENALTY as fragments, and "Which status code means
    the variable is non-basic at its upper bound?" quoted "GLP_NS — non-basic fixed variable." (the last item,
    closed by a full stop) instead."""
    from mmrag_desktop.engine.answer import extractive

    statuses = ["BS — basic variable;", "NL — non-basic variable on its lower bound;",
                "NU — non-basic variable on its upper bound;", "NF — non-basic free (unbounded) variable;",
                "NS — non-basic fixed variable."]
    text = "\n".join(["Returns", "The routine glp_get_col_stat returns current status assigned to the structural "
                      "variable associated with j-th column as follows:", *(f"GLP_{s}" for s in statuses)])
    question = "After solving, which status code means a column's variable is non-basic at its upper bound?"
    chosen = select_sentences(question, pack_evidence([hit(1, text)], 1000), embedder)
    assert any(c.text == "GLP_NU — non-basic variable on its upper bound;" for c in chosen), [c.text for c in chosen]
    assert extractive._LIST_ITEM.match("-k — indices out of range;")
    for fragment in ("int glp_check_dup(int m, int n, int ne);", "The routine returns one of the following;",
                     "GLP_NS — non-basic fixed variable."):
        assert not extractive._LIST_ITEM.match(fragment)


def test_what_a_thing_is_is_quoted_with_the_sentence_that_says_more_of_it(embedder):
    """Gpredict: "What exactly is a "module" in Gpredict, what does it tie together?" quoted "A module in
    Gpredict is the same as a document in a word processor application." without the sentence after it,
    "It is an object, which has a certain number of satellites and a ground station associated to it.";
    and "... is drawn in white instead of yellow." goes with "This means that AO-51 is selected." for a
    question about what that means. Not for other questions."""
    text = ("The key idea in Gpredict is the concept of modules. A module in Gpredict is the same as a document in a "
            "word processor application. It is an object, which has a certain number of satellites and a ground "
            "station associated to it. Modules are stored in files.")
    bl = pack_evidence([hit(1, text)], 1000)
    more = "It is an object, which has a certain number of satellites and a ground station associated to it."
    defined = [c.text for c in rank_candidates('What exactly is a "module" in Gpredict?', bl, embedder)]
    assert any(t.startswith("A module in Gpredict is the same") and t.endswith(more) for t in defined), defined
    other = [c.text for c in rank_candidates("How many modules can Gpredict open?", bl, embedder)]
    assert not any(t.endswith(more) and t != more for t in other), other
    white = pack_evidence([hit(1, "As you can see on figure 4.2, satellite AO-51 is drawn in white instead of yellow. "
                                  "This means that AO-51 is selected. You can select a satellite by clicking on it.")], 1000)
    meant = rank_candidates("One satellite is drawn in white, what does that mean?", white, embedder)[0]
    assert meant.text.endswith("This means that AO-51 is selected."), meant.text


def test_what_a_sentence_means_in_the_questions_words_is_quoted_with_it(embedder):
    """The DRBD user's guide (session 53's list): "If Pacemaker controls DRBD through the linbit OCF resource agent,
    what should I do with the DRBD init script?" quoted "... it is recommended that you defer DRBD startup, shutdown,
    promotion, and demotion exclusively to the OCF resource agent." without the sentence after it, "That means that
    you should disable the DRBD init script:" / "chkconfig drbd off", which ranked tenth: what it means is said there,
    in the words of the question. Not when the sentence after says it in no word of the question the first lacks."""
    defer = ("If you are employing the DRBD OCF resource agent, it is recommended that you defer DRBD startup, "
             "shutdown, promotion, and demotion exclusively to the OCF resource agent.")
    means = "That means that you should disable the DRBD init script:\nchkconfig drbd off"
    text = f"This section explains how to enable a DRBD-backed service in a Pacemaker cluster.\n{defer}\n{means}\n" \
           "The ocf:linbit:drbd OCF resource agent provides Master/Slave capability."
    bl = pack_evidence([manual_hit("drbd.pdf", 1, 76, "8.1. Using DRBD in Pacemaker clusters", text)], 1000)
    question = "If Pacemaker controls DRBD through the linbit OCF resource agent, what should I do with the DRBD init script?"
    ranked = rank_candidates(question, bl, embedder)
    paired = next(c for c in ranked if c.text.startswith("If you are employing"))
    assert " ".join(paired.text.split()) == f"{defer} That means that you should disable the DRBD init script: chkconfig drbd off", \
        paired.text
    # quoted with what it announces, it is no lead-in without its command: nothing off its score for ending so
    assert paired.introduces
    other = rank_candidates("Which component starts DRBD when it is employed with Pacemaker?", bl, embedder)
    assert next(c for c in other if c.text.startswith("If you are employing")).text == defer


def test_a_condition_is_quoted_with_its_otherwise_and_a_problem_with_its_remedy(embedder):
    """Autoconf's manual (no set's): "If the system has no working alloca, what does AC_FUNC_ALLOCA set up
    instead?" quoted "If either method succeeds, define HAVE_ALLOCA." without "Otherwise, set the output
    variable ALLOCA to ..."; "... why, and how do I avoid it?" quoted "However, traditional Awk
    implementations ... read and discard input in this case." without "Portable scripts can redirect input
    from /dev/null to work around the problem." A condition goes with its otherwise; a problem with the
    sentence after it that works around it, when the question asks how to avoid it."""
    alloca = pack_evidence([manual_hit("autoconf.pdf", 1, 68, "5.5.2 Particular Function Checks",
                                       "Check for the alloca function. Define HAVE_ALLOCA_H if alloca.h defines a "
                                       "working alloca. If not, look for a builtin alternative. If either method "
                                       "succeeds, define HAVE_ALLOCA. Otherwise, set the output variable ALLOCA to "
                                       "alloca.o and define C_ALLOCA (so programs can periodically call alloca (0) to "
                                       "garbage collect).")], 1000)
    ranked = [c.text for c in rank_candidates("If the system has no working alloca, what does AC_FUNC_ALLOCA set up?",
                                              alloca, embedder)]
    paired = "If either method succeeds, define HAVE_ALLOCA. Otherwise, set the output variable ALLOCA to"
    assert any(t.startswith(paired) for t in ranked), ranked
    awk = pack_evidence([manual_hit("autoconf.pdf", 2, 253, "11.15 Limitations of Usual Tools",
                                    "Posix says that if a program contains only BEGIN actions, then the program "
                                    "merely executes the actions without reading input. However, traditional Awk "
                                    "implementations (such as Solaris 10 awk) read and discard input in this case. "
                                    "Portable scripts can redirect input from /dev/null to work around the problem.")],
                        1000)
    remedy = "Portable scripts can redirect input from /dev/null to work around the problem."
    why = [c.text for c in rank_candidates("My awk program with only a BEGIN block waits for input on Solaris 10; why, "
                                           "and how do I avoid it?", awk, embedder)]
    assert any(t.startswith("However, traditional Awk") and t.endswith(remedy) for t in why), why
    only_why = [c.text for c in rank_candidates("Why does my awk program with only a BEGIN block wait for input on "
                                                "Solaris 10?", awk, embedder)]
    assert not any(t.endswith(remedy) and t != remedy for t in only_why), only_why


def test_a_sentence_naming_a_sibling_of_the_name_asked_for_ranks_below_and_a_default_set_in_words_is_a_value(
        embedder, monkeypatch):
    """Autoconf's manual (no set's): "What does AC_PROG_CC put in CFLAGS by default, and how can I change that
    default ...?" quoted "You can override the default for CXXFLAGS by inserting a shell default assignment
    between AC_INIT and AC_PROG_CXX" second and never "If the shell variable CFLAGS was not already set, it is
    set to -g -O2 for the GNU C compiler": a sentence that names a sibling (CXXFLAGS, AC_PROG_CXX) and not the
    name asked for ranks lower, and a value set in words ("is set to -g -O2") is a value."""
    from mmrag_desktop.engine.answer import extractive
    from mmrag_desktop.engine.answer.extractive import _carries, _siblings

    cc = manual_hit("autoconf.pdf", 1, 95, "5.10.3 C Compiler Characteristics",
                    "If the shell variable CFLAGS was not already set, it is set to -g -O2 for the GNU C compiler, or -g "
                    "for other compilers. CFLAGS is then made an output variable. You can override the default for "
                    "CFLAGS by inserting a shell default assignment between AC_INIT and AC_PROG_CC.")
    cxx = manual_hit("autoconf.pdf", 2, 100, "5.10.4 C++ Compiler Characteristics",
                     "You can override the default for CXXFLAGS by inserting a shell default assignment between "
                     "AC_INIT and AC_PROG_CXX. The C++ compiler is searched for in the PATH.")
    assert _siblings("CFLAGS", "CXXFLAGS") and _siblings("AC_PROG_CC", "AC_PROG_CXX") and _siblings("PIC16F84", "PIC16F88")
    assert not _siblings("GLPK", "GLP_BS") and not _siblings("CFLAGS", "CFLAGS") and not _siblings("SIGINT", "SIGTERM") and not _siblings("AC_FUNC_ALLOCA",
                                                                                                      "HAVE_ALLOCA")
    assert _carries("it is set to -g -O2 for the GNU C compiler", "value") and _carries("The type defaults to auto.", "value")
    assert not _carries("CFLAGS is then made an output variable.", "value")
    question = "What does AC_PROG_CC put in CFLAGS by default, and how can I change that default?"
    evidence = pack_evidence([cc, cxx], 1000)
    ranked = {c.text[:40]: c.score for c in rank_candidates(question, evidence, embedder)}
    monkeypatch.setattr(extractive, "SIBLING_PENALTY", 0.0)
    monkeypatch.setattr(extractive, "_SETS_VALUE", re.compile("(?!)"))
    before = {c.text[:40]: c.score for c in rank_candidates(question, evidence, embedder)}
    cxxflags, cflags, set_to = ("You can override the default for CXXFLAG", "You can override the default for CFLAGS ",
                                "If the shell variable CFLAGS was not alr")
    assert ranked[cxxflags] < before[cxxflags] and ranked[cflags] == pytest.approx(before[cflags])
    assert ranked[set_to] > before[set_to] and ranked[set_to] > ranked[cxxflags]


def test_a_sentence_that_states_a_default_answers_a_question_about_the_default(embedder, monkeypatch):
    """stanli's manual (no set's): "Where is a \\dnotation type 1 label placed by default ...?" asks a
    place, not a number: "The default setting is above right, which means top right." was never quoted.
    A sentence that states a default ("default ... is", "defaults to", "per default") counts as carrying
    what a question about a default asks for."""
    from mmrag_desktop.engine.answer import extractive

    label = pack_evidence([manual_hit("stanli.pdf", 1, 23, "3.2.10 Labeling",
                                      "Type 1 is a normal labeling. Only the insertion point and the corresponding text "
                                      "must be specified. The optional parameter orientation can be changed. The default "
                                      "setting is above right, which means top right. Type 2 has besides the label "
                                      "additional a line to mark the appropriate place.")], 1000)
    question = "Where is a type 1 label placed by default, and how can I change its position?"
    ranked = rank_candidates(question, label, embedder)
    assert ranked[0].text.startswith("The default setting is above right"), [c.text for c in ranked]
    monkeypatch.setattr(extractive, "_STATES_DEFAULT", re.compile("(?!)"))
    assert not rank_candidates(question, label, embedder)[0].text.startswith("The default setting")
    monkeypatch.undo()
    other = rank_candidates("Where is a type 1 label placed, and how can I change its position?", label, embedder)
    assert not other[0].text.startswith("The default setting"), [c.text for c in other]


def test_a_chunk_that_starts_mid_sentence_is_quoted_as_a_continuation(embedder):
    """The GMIN chunk of the ngspice manual starts "default value is 1.0e-12."; quoted alone for an
    ITL1 question it read as ITL1's default. It is shown as "... default value is 1.0e-12." and
    still counts as a verbatim quote of its block."""
    bl = pack_evidence([hit(1, "default value is 1.0e-12. GMINSTEPS=x sets the number of Gmin steps to be "
                               "attempted. ITL1=x resets the dc iteration limit.")], 1000)
    cands = candidate_sentences(bl)
    assert cands[0].text == "... default value is 1.0e-12." and cands[1].text.startswith("GMINSTEPS=x")
    checker = SupportChecker(bl, embedder)
    r = checker.check(quote_text(cands[0].text, 1), quote=True)
    assert r.supported and r.citations == [1]


def test_questions_that_ask_for_a_name_in_more_words():
    assert _asked_kind("which startup file holds my personal octave settings") == "file"  # a name of a file
    assert _asked_kind("what environment variable sets the library path") == "name"
    assert _asked_kind("where does gnuplot write the iteration history of a fit") == "file"
    assert _asked_kind("how much current can OD0 drive") == "value"
    assert _asked_kind("why does the fit stop early") == ""


def test_a_row_that_repeats_a_sentence_s_words_with_another_value_is_kept(embedder):
    prose = ("The time usage counts tics from every core and reports a CPU time value enlarged by a "
             "factor of 8 if 8 threads have been chosen.")
    row = "Threads: 8 | CPU time [s]: 32.4 | CPU time [s]: 32.4"
    assert not near_duplicate(row, prose)  # 32.4 is not in the sentence
    assert near_duplicate("CPU time of 8 threads", prose)  # nothing the sentence lacks
    table = Hit(chunk_id=7, doc_id=1, doc="ngspice.pdf", page=800, bbox=None, kind="table", score=0.02,
                text="Threads: 1 | CPU time [s]: 65.4 | CPU time [s]: 69.3\n" + row)
    bl = pack_evidence([Hit(chunk_id=6, doc_id=1, doc="ngspice.pdf", page=799, bbox=None, kind="text", score=0.03,
                            text=prose), table], 1000)
    chosen = select_sentences("CPU time of the OpenMP benchmark with 8 threads", bl, embedder, max_sentences=4)
    assert any("32.4" in c.text for c in chosen)
    # rows of one table stay duplicates of each other: the best row is quoted, not its siblings
    assert near_duplicate("Threads: 1 | CPU time [s]: 65.4 | CPU time [s]: 69.3", row)
    assert sum(" | " in c.text for c in chosen) == 1


def test_an_option_of_another_case_is_another_option(embedder):
    """Asked in session 68 (no set's): "How do I make esl-translate report only ORFs that begin with an AUG ...?" of
    HMMER's guide quoted "With the -M option, ORFs start with any of the initiation codons allowed by the genetic code."
    and never the next sentence, "With the -m option, ORFs start with an initiator AUG Met.": terms are compared in
    lower case, and "-m" read as the "-M" of the sentence before, so it said nothing new. A one-letter option differs by
    its case."""
    from mmrag_desktop.engine.answer.extractive import select_sentences

    upper = ("With the -M option, ORFs start with any of the initiation codons allowed by the genetic code. For example, "
             "the standard code allows AUG, CUG, and UUG as initiators.")
    lower = "With the -m option, ORFs start with an initiator AUG Met."
    assert not near_duplicate(lower, upper) and near_duplicate(lower, upper.replace("-M", "-m") + " Met.")
    text = ("By default, no specific initiation codon is required, and any amino acid can start an open reading frame. "
            f"This behavior can be changed. {upper} {lower}")
    bl = pack_evidence([Hit(chunk_id=1, doc_id=1, doc="hmmer.pdf", page=201, bbox=None, kind="text", score=0.03,
                            text=text)], 1000)
    chosen = select_sentences("How do I make esl-translate report only ORFs that begin with an AUG?", bl, embedder,
                              max_sentences=4)
    assert any(c.text.startswith("With the -m option") for c in chosen), [c.text for c in chosen]


def test_a_sentence_is_compared_with_the_question_under_its_section_title():
    assert in_section("This file is used to make personal changes.", "2.1.2 Startup Files") == (
        "2.1.2 Startup Files: This file is used to make personal changes.")
    assert in_section("No section here.", "") == "No section here."


# ---- quote-first reply ---------------------------------------------------------------------------
def test_quote_reply_parses_partial_and_complete_output():
    assert parse_reply("Quotes: S2, S", 5).ids == [2] and not parse_reply("Quotes: S2, S", 5).quotes_done
    assert parse_reply("Quotes: S2, S", 5).complete == 1 and parse_reply("Quotes: S2, S1", 12).complete == 1
    r = parse_reply("Quotes: S2, S9, S2, S1\nAnswer: It is 5 V.", 5)
    assert r.ids == [2, 1] and r.quotes_done and r.own == "It is 5 V."
    g = grammar(3)
    assert '"S3" | "S2" | "S1"' in g and g.startswith('root ::= "Quotes: " sid')


def test_a_table_is_quoted_by_its_row(embedder):
    rows = ("Name | Parameter | Units/Type | Default | Example\n"
            "Name: R | Parameter: resistance/length | Units/Type: ohm/unit | Default: 0.0 | Example: 0.2\n"
            "Name: G | Parameter: conductance/length | Units/Type: mhos/unit | Default: 0.0 | Example: 0.0\n"
            "Name: LEN | Parameter: length of line | Units/Type: unit | Default: no default | Example: 1.0")
    table = Hit(chunk_id=9, doc_id=1, doc="ngspice.pdf", page=121, bbox=None, kind="table", score=0.03, text=rows)
    bl = pack_evidence([table], 1000)
    assert bl[0].text.count("\n") == 3  # rows stay rows (running text would be unwrapped)
    best = rank_candidates("default conductance per unit length of the lossy line", bl, embedder)[0]
    assert best.text.startswith("Name: G |") and "\n" not in best.text


def test_a_table_row_is_one_quote_whatever_its_cells_say():
    """Seen on the real SDCC manual: "SDCC major version number." was quoted alone, a sentence of the
    description cell of "#define: __SDCC_VERSION_MAJOR | Description: Always defined. SDCC major
    version number. ..."; rows starting in lower case ("mcs51: ...") ran into the row above."""
    rows = ("#define | Description\n"
            "#define: __SDCC_MODEL_LARGE | Description: when --model-large is used\n"
            "#define: __SDCC_VERSION_MAJOR | Description: Always defined. SDCC major version number. E.g. 3\n"
            "mcs51: code size small / large | printf: 1.4k / 2.0k\n"
            "mcs51: float format | printf: - | printf_fast_f: %f8")
    table = Hit(chunk_id=9, doc_id=1, doc="sdcc.pdf", page=65, bbox=None, kind="table", score=0.03, text=rows)
    texts = [c.text for c in candidate_sentences(pack_evidence([table], 1000))]
    assert texts == rows.split("\n")[1:]
    assert quote_text(texts[0], 1) == f"{texts[0]} [1]"  # a whole row gets no " ..."


def test_a_table_cut_to_the_budget_keeps_its_rows():
    rows = "\n".join(f"Name: R{i} | Parameter: resistor {i} | Default: {i}.0" for i in range(40))
    table = Hit(chunk_id=9, doc_id=1, doc="t.pdf", page=1, bbox=None, kind="table", score=0.03, text=rows)
    (block,) = pack_evidence([table], 120)
    assert block.truncated and block.text.endswith(" ...") and block.text.count("\n") >= 3
    assert all(line.startswith("Name: R") for line in block.text.splitlines())


OPTIONS = ("AVRDUDE is a command line tool, used as follows: avrdude -p partno options ...\n"
           "Command line options are used to control AVRDUDE's behaviour.\n"
           "-c programmer-id\n"
           "Specify the programmer to be used.\n"
           "AVRDUDE supports the following basic programmer types: STK500, AVRISP and serial bit-bang adapters.\n"
           "-D Disable auto erase for flash memory.\n"
           "-F Normally, AVRDUDE tries to verify that the device signature read from the part is reasonable "
           "before continuing.")


def _options_block():
    return one_block(OPTIONS, "2 Command Line Options > 2.1 Option Descriptions", "avrdude.pdf", 16)


def test_an_option_asked_for_is_quoted_with_its_entry(embedder):
    """Seen on the real avrdude manual: for "which avrdude option sets the programmer type" any
    sentence naming AVRDUDE counted as carrying the name asked for; an option is asked for, so a
    sentence carrying one ("-c", with its definition-list term) is preferred. (On that manual the
    entry still ranks fifth by meaning: the question is left open in bench/README.md.)"""
    assert _asked_kind("Which avrdude option sets the programmer type?") == "option"
    assert _asked_kind("sdcc option that dumps intermediate output") == "option"
    assert _asked_kind("which ngbehavior flag turns on KiCad compatibility") == "option"
    assert is_term_line("-c programmer-id") and [t.norm for t in terms("-F -c x")] == ["-f", "-c"]
    assert _carries("-c programmer-id Specify the programmer.", "option")
    assert not _carries("AVRDUDE supports the STK500.", "option") and _carries("AVRDUDE supports the STK500.", "name")
    ranked = rank_candidates("Which avrdude option sets the programmer type?", _options_block(), embedder)
    texts = [c.text for c in ranked]
    assert "-c programmer-id Specify the programmer to be used." in texts  # quoted with its term line
    # a sentence is never paired with the next entry of the option list
    assert not any("adapters. -D" in t for t in texts)
    by_text = {c.text: c.score for c in ranked}
    plain = rank_candidates("Which avrdude setting sets the programmer type?", _options_block(), embedder)
    plain_score = {c.text: c.score for c in plain}
    entry = "-c programmer-id Specify the programmer to be used."
    other = next(t for t in texts if t.startswith("AVRDUDE supports"))
    # asked for an option, the entry gains on a sentence that only names AVRDUDE
    assert by_text[entry] - by_text[other] > plain_score[entry] - plain_score[other]


def test_the_entry_of_an_option_the_question_names_comes_first(embedder):
    best = rank_candidates("What does the avrdude -F option do?", _options_block(), embedder)[0]
    assert best.text.startswith("-F Normally, AVRDUDE tries to verify")
    best = rank_candidates("what does -D mean for avrdude", _options_block(), embedder)[0]
    assert best.text == "-D Disable auto erase for flash memory."


def test_console_output_run_together_is_never_quoted():
    """Seen answering "what does -e do in avrdude": a terminal session joined into one sentence."""
    assert not is_quotable("# avrdude -p 2313 -t avrdude: AVR device initialized and ready to accept instructions "
                           "avrdude: Device signature = 0x1e9101 avrdude> The '?' command displays a list: avrdude> ?")
    assert not is_quotable("Reading | ################################################## | 100% 0.03s")
    assert not is_quotable("avrdude: Device signature = 0x1e9702 avrdude> d efuse >>> d efuse 0000 fd |. | "
                           "avrdude> d hfuse >>> d hfuse 0000 99 |. | avrdude> w efuse 0 0xff")
    assert is_quotable("Code: \\alpha | Sym: a | Code: \\beta | Sym: b | Code: \\gamma | Sym: c")  # a table's rows
    assert is_quotable("Note: the default is 5 V. Warning: do not exceed it.")


def test_a_dot_command_is_answered_by_its_description_not_its_examples(embedder):
    """Seen on the real ngspice manual: "what does the ngspice .save command do" quoted examples
    (".save i(vin) node1 v(node2)"), and an example line was glued to the description as its term."""
    assert not is_quotable(".save i(vin) node1 v(node2) v(3)") and not is_quotable(".save vector vector vector ...")
    assert is_quotable(".TRAN start a transient simulation (15.3.10).")
    text = ("General form:\n.save vector vector vector ...\nExamples:\n.save i(vin) node1 v(node2)\n"
            ".save all @m2[vdsat]\nThe vectors listed on the .SAVE line are recorded in the rawfile for use "
            "later with ngspice.\nThe standard vector names are accepted.")
    block = one_block(text, "15.6 Batch Output > 15.6.1 .SAVE: Name vector(s) to be saved", "ngspice.pdf", 326)
    best = rank_candidates("what does the ngspice .save command do", block, embedder)[0]
    assert best.text == "The vectors listed on the .SAVE line are recorded in the rawfile for use later with ngspice."


def test_sentences_that_only_name_a_dot_command_in_its_entry_take_its_bonus_once(embedder):
    """Asked in session 64 (no set's) of the ngspice 39 manual: "Which names are reserved and can't be used for .param
    parameters?" quoted three sentences of the .param entry about string-valued parameters, each naming ".param" and
    each taking the entry's bonus, before "... other words are reserved and cannot be used as parameter names: ...".
    The entry's defining sentence (its first of prose) takes it, or where it has none its first sentence that names the
    dot-command; the others compete on their words."""
    text = ("String-valued parameters can be defined by .param and used in the same ways as numeric parameters.\n"
            "Expressions on a .param line may use the parameters defined on the .param lines above it.\n"
            "Besides the function names, other words are reserved and cannot be used as parameter names: or, "
            "defined, time, temper, hertz.")
    block = one_block(text, "2 Circuit Description > 2.10 .param: Parametric netlists", "ngspice.pdf", 65)
    ranked = rank_candidates("Which names are reserved and can't be used for .param parameters?", block, embedder)
    texts = [c.text for c in ranked]
    reserved = next(t for t in texts if t.startswith("Besides the function names"))
    assert texts.index(reserved) < texts.index(next(t for t in texts if t.startswith("Expressions on a .param"))), texts
    assert ranked[0].text.startswith("String-valued parameters")  # the defining sentence keeps its bonus
    # a sentence that opens with the dot-command is its entry's description: each takes the bonus
    opened = one_block(".param lines assign values to identifiers.\n.param lines inside subcircuits are copied per "
                       "call.\nOther words are reserved and cannot be used as parameter names: time, hertz.",
                       "2 Circuit Description > 2.10 .param: Parametric netlists", "ngspice.pdf", 65)
    ranked = rank_candidates("What do .param lines inside subcircuits do?", opened, embedder)
    assert ranked[0].text.startswith(".param lines inside subcircuits are copied per call.")


def test_the_entry_of_a_setting_the_question_names_is_quoted_first(embedder):
    """Seen on the real ngspice manual: "what is the default value of ITL1 in ngspice" quoted
    "... default value is 1.0e-12." (GMIN's, the entry above) and environment variables; the
    entry "ITL1=x ..." was fifth."""
    text = ("default value is 1.0e-12.\n"
            "GMINSTEPS=x [*] sets the number of Gmin steps to be attempted. If the value is set to zero, "
            "the standard gmin stepping algorithm is skipped.\n"
            "ITL1=x resets the dc iteration limit. The default is 100.\n"
            "ITL2=x resets the dc transfer curve iteration limit. The default is 50.")
    env = one_block("SPICE_PATH default: $SPICE_EXEC_DIR/ngspice Used in the aspice command.\n"
                    "NGSPICE_MEAS_PRECISION default: 5 Sets the number of digits of meas(ure) output.",
                    "16 Starting ngspice > 16.7 Environmental variables", "ngspice.pdf", 344, chunk_id=6)
    blocks = pack_evidence([one_block(text, "15.1 Simulator Variables > 15.1.2 DC Solution Options",
                                      "ngspice.pdf", 297)[0].hit, env[0].hit], 1000)
    chosen = select_sentences("what is the default value of ITL1 in ngspice", blocks, embedder, max_sentences=4)
    assert chosen[0].text == "ITL1=x resets the dc iteration limit. The default is 100." and chosen[0].entry
    plain = select_sentences("what is the default dc iteration limit", blocks, embedder, max_sentences=4)
    assert not any(c.entry for c in plain)  # no setting named: nothing is an entry


def test_a_command_named_in_snake_case_is_answered_by_its_entry(embedder):
    """Seen on the real Yosys manual: "what does the yosys opt_clean pass do" quoted the opt pass and
    "All passes use the same interface"; the command's reference entry defines it first."""
    entry = one_block("1 opt_clean [options] [selection]\n2\n3 This pass identifies wires and cells that are "
                      "unused and removes them. Other\n4 passes often remove cells but leave the wires.\n",
                      "C Command Reference Manual > C.124 opt_clean – remove unused cells and wires",
                      "yosys-manual.pdf", 147)[0].hit
    other = one_block("The Yosys pass opt runs a number of simple optimizations. All passes use the same "
                      "interface, thus reducing the effort required to understand a pass.",
                      "8 Optimizations > 8.1 Simple Optimizations", "yosys-manual.pdf", 75, chunk_id=6)[0].hit
    blocks = pack_evidence([other, entry], 1000)
    chosen = select_sentences("what does the yosys opt_clean pass do", blocks, embedder, max_sentences=3)
    assert chosen[0].text.endswith("This pass identifies wires and cells that are unused and removes them.")
    assert chosen[0].entry


def test_a_figure_asked_for_is_answered_by_its_caption_first(embedder):
    """Seen on the ngspice manual: "schematic where a source feeds clamping diodes, ..." quoted the
    paragraphs about the circuit and never named the figure; a question about something in a plot
    ("which direction is up ...") is no figure asked for."""
    prose = Hit(chunk_id=3, doc_id=1, doc="sim.pdf", page=40, bbox=None, kind="text", score=0.04,
                text="The two clamping diodes protect the amplifier input. The amplifier is a subcircuit "
                     "that drives the load resistor. The capacitor couples the source to the diodes.")
    figure = Hit(chunk_id=4, doc_id=1, doc="sim.pdf", page=41, bbox=None, kind="figure", score=0.03,
                 text="Figure 12.4: Example circuit with a limiter")
    other = Hit(chunk_id=5, doc_id=1, doc="plot.pdf", page=7, bbox=None, kind="figure", score=0.02,
                text="Figure 3.1: Three-dimensional spiral")
    bl = pack_evidence([prose, figure, other], 1000)
    chosen = select_sentences("schematic where a source feeds clamping diodes and an amplifier driving a load",
                              bl, embedder, max_sentences=4)
    assert chosen[0].text.startswith("Figure 12.4")
    assert not any(c.text.startswith("Figure 3.1") for c in chosen[:2])  # only the best caption is lifted
    assert quote_text(chosen[0].text, 2) == "Figure 12.4: Example circuit with a limiter [2]"
    assert not asks_for_figure("which direction is up for the camera of a 3-D plot")
    assert asks_for_figure("what does a typical mesh for a 2D device look like")
    # a question after what the user is doing asks as much ("look at" is no figure asked for: the
    # PARI/GP card's answer opened with another manual's only figure caption)
    assert not asks_for_figure("I'm in gp's break loop after an error; how do I look at the data of the current error?")
    assert asks_for_figure("sketch of doping profile shapes, which shows the peak concentration")
    # nor one asked after a phrase set off by a comma (the ReportLab guide's answer opened with "Figure 11-7:
    # Stacking bars on top of each other.")
    assert not asks_for_figure("Besides PDF, can ReportLab produce its charts in other formats such as bitmaps?")
    assert asks_for_figure("block diagram of the receiver, with its mixer and filters")


def test_an_option_asked_for_is_answered_by_the_best_entry_of_the_option_list(embedder):
    """Seen on the real avrdude manual: "which avrdude option sets the programmer type" quoted
    "AVRDUDE knows about several common programmers." and a sentence naming --prefix, not the
    entry "-c programmer-id Specify the programmer to be used." three lines above; and on the
    ngspice manual "configure flag to build ngspice without the FFTW library" needs the entry
    "--with-fftw3=no ..." (an option with its value)."""
    listing = one_block("-B bitclock\nSpecify the bit clock period for the JTAG interface.\n-c programmer-id\n"
                        "Specify the programmer to be used. AVRDUDE knows about several common programmers. "
                        "Use this option to specify which one to use.", "2 Command Line Options", "avrdude.pdf", 16)
    other = one_block("When AVRDUDE is built using the default --prefix configure option, the configuration file "
                      "is located at /usr/local/etc/avrdude.conf. It describes every programmer type AVRDUDE knows.",
                      "A.1 Unix Configuration Files", "avrdude.pdf", 53, chunk_id=6)
    blocks = pack_evidence([listing[0].hit, other[0].hit], 1000)
    chosen = select_sentences("which avrdude option sets the programmer type", blocks, embedder, max_sentences=3)
    assert chosen[0].text == "-c programmer-id Specify the programmer to be used."
    configure = one_block("--enable-oldapps\nBuild the old applications too.\n--with-fftw3=no\nDo not check for and "
                          "use the fftw fast fourier transform library.", "Configure options", "ngspice.pdf", 20)
    chosen = select_sentences("configure flag to build without the FFTW library", configure, embedder, max_sentences=2)
    assert chosen[0].text.startswith("--with-fftw3=no Do not check")


def test_a_question_that_names_a_manual_is_answered_from_it_first(embedder):
    """Seen on the real manuals: "How do I read a CSV file into R?" quoted gnuplot's and Octave's CSV
    sentences although R's introduction was in the evidence."""
    plotter = one_block("To read data from a CSV file you must tell the plotter what the field separator is.",
                        "Data files", "gnuplot.pdf", 109)[0].hit
    r_intro = one_block("Large data objects are usually read as values from external files. The function "
                        "read.table() reads a file of comma separated values into a data frame.", "Reading data from files",
                        "R-intro.pdf", 39, chunk_id=6)[0].hit
    blocks = pack_evidence([plotter, r_intro], 1000)
    chosen = select_sentences("How do I read a CSV file into R?", blocks, embedder, max_sentences=3)
    assert blocks[chosen[0].block_id - 1].hit.doc == "R-intro.pdf"
    chosen = select_sentences("How do I read a CSV file?", blocks, embedder, max_sentences=3)
    assert blocks[chosen[0].block_id - 1].hit.doc == "gnuplot.pdf"


def test_a_lead_in_is_quoted_with_the_command_it_introduces(embedder):
    """Seen on the real NUT manual: "check that a NUT release tarball is genuine: which gpg command"
    quoted "Launch the GPG checking using the following command: ..." without the command on the next
    line. A lead-in and its command are one quote; a lead-in to a list is quoted with its items, not as
    the command's (test_a_lead_in_to_a_list_is_quoted_with_its_items)."""
    block = one_block("As of NUT 2.7.3, a new release key is used.\n"
                      "Launch the GPG checking using the following command:\n$ gpg --verify nut-X.Y.Z.tar.gz.sig\n"
                      "You should see a message mentioning a good signature.", "Verifying a release", "nut.pdf", 56)
    best = rank_candidates("which gpg command checks that a NUT release tarball is genuine", block, embedder)[0]
    assert best.text == "Launch the GPG checking using the following command: $ gpg --verify nut-X.Y.Z.tar.gz.sig"
    assert best.introduces and quote_text(best.text, 1).startswith("Launch the GPG checking using the following")
    listing = one_block("In this case, be sure to include the following information:\n- OS name and version,\n"
                        "- exact NUT version.", "Support", "nut.pdf", 84)
    assert [c.text for c in candidate_sentences(listing) if c.introduces] == [
        "In this case, be sure to include the following information: - OS name and version, - exact NUT version."]
    prose = one_block("The driver is started as follows:\nIt reads ups.conf and opens the port.", "Drivers")
    assert all(not c.introduces for c in candidate_sentences(prose))
    aside = one_block("Save may store data from devices inside a subcircuit:\n"
                      "Save voltage on node 3 (top level) and current through vmeas (inside x1)", "Save")
    assert all(not c.introduces for c in candidate_sentences(aside))


def test_a_lead_in_is_quoted_with_every_line_of_its_command_block():
    """Seen on the real expEYES manual: "Connect SINE to A1 and try:" was quoted with the first of its
    four prompt lines (">>>import expeyes.eyemath as em"), leaving out the fit_sine call asked for.
    The lines after it that open with the same prompt join the quote, within PAIR_WORDS words."""
    from mmrag_desktop.engine.answer.extractive import PAIR_WORDS, code_block

    code = [">>>import expeyes.eyemath as em", ">>>t,v= p.capture_hr(1, 400,50)", ">>>vfit, par = em.fit_sine(t,v)"]
    block = one_block("From a captured waveform, we can measure the amplitude and frequency by curve fitting.\n"
                      "Connect SINE to A1 and try:\n" + "\n".join(code) +
                      "\nThe peak voltage and the frequency will be printed.", "Sine wave fitting", "expeyes.pdf", 65)
    texts = [c.text for c in candidate_sentences(block)]
    assert "Connect SINE to A1 and try: " + " ".join(code) in texts
    assert "The peak voltage and the frequency will be printed." in texts
    # another prompt, prose, or the word budget ends the block
    assert code_block("$ make", ["> ls()", "$ make install"], PAIR_WORDS) == ["$ make"]
    assert code_block("> rm(x)", ["> ls()", "All objects are kept."], PAIR_WORDS) == ["> rm(x)", "> ls()"]
    assert code_block("> a <- 1", ["> b <- 2 + 3 + 4"], 4) == ["> a <- 1"]


def test_a_command_after_a_prompt_is_its_own_line_and_quoted_with_its_lead_in():
    """Seen on the real R manual: "> rm(x, y, z, ink, junk, temp, foo, bar)" ran into the next
    paragraph ("... foo, bar) All objects created during an R session ...") as one quoted sentence,
    and its lead-in stayed a fragment (the command ends in ")", which read as prose)."""
    block = one_block("To remove objects the function rm is available:\n> rm(x, y, z, ink, junk, temp, foo, bar)\n"
                      "All objects created during an R session can be stored permanently in a file.", "Data permanency",
                      "R-intro.pdf", 12)
    assert block[0].text.splitlines()[1] == "> rm(x, y, z, ink, junk, temp, foo, bar)"
    texts = [c.text for c in candidate_sentences(block)]
    assert texts[0] == "To remove objects the function rm is available: > rm(x, y, z, ink, junk, temp, foo, bar)"
    assert "All objects created during an R session can be stored permanently in a file." in texts
    assert not any("bar) All" in t for t in texts)
    # the same when the sentence that ends in the command wraps onto the prompt line
    wrapped = one_block("From a running R process they can be removed by\n> remove.packages(c(\"pkg1\", \"pkg2\"))\n"
                        "Finally, one can just remove the package directory from the library.", "Uninstalling", "R-admin.pdf")
    assert wrapped[0].text.splitlines()[-1] == "Finally, one can just remove the package directory from the library."
    # and when the sentence after the command starts in lower case (R-admin: "install.packages can ...")
    lower = one_block('> install.packages("Rcmdr", dependencies = TRUE)\ninstall.packages can install a source '
                      "package from a local .tar.gz file by setting argument repos to NULL.", "Installing packages")
    assert [c.text for c in candidate_sentences(lower)][-1].startswith("install.packages can install a source")


def test_a_program_s_own_prompt_is_a_prompt():
    """gpsim's manual: "gpsim> U1.txbaud = 9600 # set the transmit rate", "gpsim> U1.rxbaud ...", "9600" ran
    into "The symbol command can be used to query all attributes of a module." as one quoted sentence, so
    "How can I list all attributes of a loaded module?" never had that sentence to quote."""
    from mmrag_desktop.engine.sentence_split import PROMPT

    block = one_block("Most modules provide attributes that may be configured:\ngpsim> U1.txbaud = 9600 # set the "
                      "transmit rate\ngpsim> U1.rxbaud # query the receiver rate\n9600\nThe symbol command can be "
                      "used to query all attributes of a module.\ngpsim> symbol U1. # note the period", "Modules",
                      "gpsim.pdf", 44)
    texts = [c.text for c in candidate_sentences(block)]
    assert "The symbol command can be used to query all attributes of a module." in texts, texts
    assert all(PROMPT.match(p) for p in ("gpsim> symbol U1.", "avrdude> part", "octave> x = 1", "$ make", "> ls()"))
    assert not any(PROMPT.match(p) for p in ("M-> Move to the end of the input history", "a>b holds", "x> 0"))


def test_a_how_to_question_prefers_the_command_and_its_lead_in(embedder, monkeypatch):
    """"How do I delete all variables from the R workspace?": MiniLM scores "You will be asked if
    you want to save the R workspace ..." far above "To remove objects the function rm is
    available: > rm(...)"; a how-to question is answered by the command (HOWTO_BONUS)."""
    from mmrag_desktop.engine.answer import extractive

    block = one_block("To remove objects the function rm is available:\n> rm(x, y, z, ink, junk, temp, foo, bar)\n"
                      "All objects created during an R session can be stored permanently in a file.", "Data permanency",
                      "R-intro.pdf", 12)
    lead_in = "To remove objects the function rm is available: > rm(x, y, z, ink, junk, temp, foo, bar)"
    other = "All objects created during an R session can be stored permanently in a file."

    def scores(question: str, bonus: float | None = None) -> dict[str, float]:
        if bonus is not None:
            monkeypatch.setattr(extractive, "HOWTO_BONUS", bonus)
        out = {c.text: c.score for c in rank_candidates(question, block, embedder)}
        monkeypatch.undo()
        return out

    how = "How do I delete all variables from the R workspace?"
    assert scores(how)[lead_in] == pytest.approx(scores(how, 0.0)[lead_in] + 0.15)  # the default bonus
    assert scores(how)[other] == pytest.approx(scores(how, 0.0)[other])
    plain = "delete variables from the R workspace"  # asks no how-to: no bonus
    assert scores(plain) == pytest.approx(scores(plain, 0.0))
    # a question for the command asks how to as well (DRBD: "... what command do I run on the local node
    # before making the copy?")
    for asked in ("What command deletes all variables from the R workspace?",
                  "To clear the R workspace, which commands do I run?"):
        assert scores(asked)[lead_in] == pytest.approx(scores(asked, 0.0)[lead_in] + 0.15), asked
    commanded = "What does the rm command do to the R workspace?"  # asks what a command does, not for one
    assert scores(commanded) == pytest.approx(scores(commanded, 0.0))


def test_a_command_s_synopsis_is_quoted_with_its_description(embedder):
    """Seen on the real Yosys manual: "How do I make yosys print statistics about cell usage?" quoted
    "Print some statistics (number of objects) on the selected portion of the design." without the
    command's name, which only its synopsis line and the section title carry."""
    block = one_block("stat [options] [selection]\nPrint some statistics (number of objects) on the selected "
                      "portion of the design.\n-top <module>\nprint design hierarchy with this module as top.",
                      "Command Reference Manual > C.188 stat – print some statistics", "yosys.pdf", 185)
    best = rank_candidates("how do I print statistics about the design", block, embedder)[0]
    assert best.text.startswith("stat [options] [selection] Print some statistics")
    other = one_block("Q <= D;\nThe cell types implement d-type flip-flops with enable.", "5.2 Q cells")
    assert all(not c.label for c in candidate_sentences(other))


OPENOCD_TCP_PORTS = (  # OpenOCD's manual, p. 43, as the chunk holds it (texi2pdf sets a definition's kind on the right)
    "Specify or query the port used for a simplified RPC connection that can be used by\n"
    "clients to issue TCL commands and get the output from the Tcl engine. Intended\n"
    "as a machine interface. When not specified during the configuration stage, the port\n"
    "number defaults to 6666. When specified as \"disabled\", this service is not activated.\n"
    "telnet_port [number] [Config Command]\n"
    "Specify or query the port on which to listen for incoming telnet connections. This\n"
    "port is intended for interaction with one human through TCL commands. When not\n"
    "specified during the configuration stage, the port number defaults to 4444.\n"
    "soft_reset_halt [Command]\n"
    "Requesting target halt and executing a soft reset. This is often used when a target\n"
    "cannot be reset and halted. The num parameter is a value shown by flash\n"
    "banks.\n"
    "flash write_image [erase] [unlock] filename [offset] [type] [Command]\n"
    "Write the image filename to the current target’s flash bank(s). Only loadable sections\n"
    "from the image are written.")


def test_a_reference_entry_s_header_is_quoted_with_its_description(embedder):
    """Seen asking OpenOCD's manual: "What is the default telnet port?" quoted "Specify or query the
    port on which to listen for incoming telnet connections." without the command it describes, and
    the splitter gave the header line to the sentence above it ("... is not activated.
    telnet_port [number] [Config Command]"). A header line ending in its kind in brackets belongs to
    the entry below it: never quoted alone, never part of the sentence above, never a wrapped line."""
    cands = candidate_sentences(one_block(OPENOCD_TCP_PORTS, "7.3 TCP/IP Ports", "openocd.pdf", 43))
    quoted = [f"{c.label} {c.text}".strip() for c in cands]
    assert 'When specified as "disabled", this service is not activated.' in quoted
    assert ("telnet_port [number] [Config Command] Specify or query the port on which to listen for incoming "
            "telnet connections.") in quoted
    assert "soft_reset_halt [Command] Requesting target halt and executing a soft reset." in quoted
    assert ("flash write_image [erase] [unlock] filename [offset] [type] [Command] Write the image filename to the "
            "current target’s flash bank(s).") in quoted  # a header of six words or more is no wrapped line either
    # a sentence that goes on an entry's description is quoted with the entry (session 53)
    assert ("soft_reset_halt [Command] Requesting target halt and executing a soft reset. This is often used when a "
            "target cannot be reset and halted. The num parameter is a value shown by flash banks.") in quoted
    assert not any(c.text.startswith(("telnet_port", "soft_reset_halt", "flash write_image")) for c in cands)
    best = rank_candidates("Which command sets the port for telnet connections?",
                           one_block(OPENOCD_TCP_PORTS, "7.3 TCP/IP Ports", "openocd.pdf", 43), embedder)[0]
    assert best.text.startswith("telnet_port [number] [Config Command]"), best.text
    # prose that ends with a bracketed word of its own is no header
    assert split_plain("See the reference card, where\nthe options are listed in the table [Appendix]",
                       newlines=True) == ["See the reference card, where\nthe options are listed in the table [Appendix]"]


@pytest.mark.parametrize("without", [True, False])
def test_the_manuals_name_in_a_question_does_not_choose_the_sentence(embedder, monkeypatch, without):
    """Seen asking Asymptote's manual: "What does the Asymptote command filldraw do?" is about
    filldraw; with the manual's name the embedder prefers the sentence that repeats the product's
    name. Sentences are compared with the question without the words that name the manual of the
    evidence (as search's highlights are)."""
    from mmrag_desktop.engine.answer import extractive

    monkeypatch.setattr(extractive, "COMPARE_WITHOUT_NAMES", without)
    block = one_block("What the Asymptote command asy does with a file of Asymptote commands is described here.\n"
                      "The filldraw command fills the interior of a path and then draws its boundary.",
                      "Drawing commands", "asymptote.pdf", 21)
    best = rank_candidates("What does the Asymptote command filldraw do?", block, embedder)[0]
    assert best.text.startswith("The filldraw command") == without, best.text


@pytest.mark.parametrize(("question", "first"), [
    ("How should I fix an IMPLICITSTATIC warning on a function that does not need static behaviour?",
     "If the function does not require static behavior, change it to “function automatic”."),
    ("How should I fix an IMPLICITSTATIC warning on a function that needs static behaviour?",
     "If the function requires static behavior, change it to “function static”."),
])
def test_of_two_sentences_that_differ_by_a_negation_the_question_s_polarity_wins(embedder, question, first):
    """Verilator's manual gives both pieces of advice; asked about a function that does not need static
    behaviour, the answer quoted "change it to function static" first: the embedder reads the two alike."""
    block = one_block("IMPLICITSTATIC\nWarns that the lifetime of a task or a function was not provided and so was "
                      "implicitly set to static.\nIf the function does not require static behavior, change it to "
                      "“function automatic”.\nIf the function requires static behavior, change it to “function static”.\n"
                      "Ignoring this warning will only suppress the lint check; it will simulate correctly.",
                      "Errors and Warnings", "verilator.pdf", 109)
    ranked = [c.text for c in rank_candidates(question, block, embedder)]
    advice = [t for t in ranked if t.startswith("If the function")]
    assert advice[0] == first, ranked


@pytest.mark.parametrize(("question", "licence_first"), [
    ("What is the default install prefix of PARI/GP?", False),
    ("Under which licence is PARI/GP distributed?", True),
])
def test_a_copyright_notice_answers_only_a_question_about_licences(embedder, question, licence_first):
    """The PARI/GP tutorial's copyright page repeats the product's name twice; it was the first sentence
    of the answer to "What is the default install prefix of PARI/GP?"."""
    from mmrag_desktop.engine.answer.evidence import pack_evidence

    notice = ("PARI/GP is Copyright (c) 2000-2022 The PARI Group. PARI/GP is free software; you can redistribute "
              "it and/or modify it under the terms of the GNU General Public License as published by the Free "
              "Software Foundation.")
    install = ("Note that if you want to install the end product in a nonstandard place, you can use the --prefix "
               "option (the default prefix is /usr/local).")
    blocks = pack_evidence([Hit(chunk_id=1, doc_id=1, doc="tutorial.pdf", page=2, bbox=None, kind="text", score=0.04,
                                text=notice, section="PARI / GP"),
                            Hit(chunk_id=2, doc_id=2, doc="INSTALL.pdf", page=2, bbox=None, kind="text", score=0.03,
                                text=install, section="2. Compiling the library")], 1000)
    best = rank_candidates(question, blocks, embedder)[0]
    assert best.text.startswith("PARI/GP is Copyright") is licence_first, best.text


@pytest.mark.parametrize(("question", "changelog_first"), [
    ("What does the IMPORTSTAR warning mean?", False),
    ("In which Verilator version was the IMPORTSTAR warning added?", True),
])
def test_a_change_log_entry_answers_questions_about_versions(embedder, question, changelog_first):
    """Verilator's manual is half change log: "• Add IMPORTSTAR warning on import::* inside $unit scope."
    was quoted first for what the warning means, and the warning's own entry not at all."""
    from mmrag_desktop.engine.answer.evidence import pack_evidence

    entry = "Ignoring this warning will only suppress the lint check.\nIMPORTSTAR\nWarns that an import {package}::* " \
            "statement is in $unit scope. This causes the imported symbols to pollute the global namespace."
    change = "Major:\n• Add IMPORTSTAR warning on import::* inside $unit scope.\n• Fix crash on empty modules."
    blocks = pack_evidence([Hit(chunk_id=1, doc_id=1, doc="verilator.pdf", page=156, bbox=None, kind="text", score=0.04,
                                text=change, section="Revision History and Change Log > Verilator 4.102 2020-10-15"),
                            Hit(chunk_id=2, doc_id=1, doc="verilator.pdf", page=109, bbox=None, kind="text", score=0.03,
                                text=entry, section="Errors and Warnings > Warnings")], 1000)
    best = rank_candidates(question, blocks, embedder)[0]
    assert ("Add IMPORTSTAR" in best.text) is changelog_first, best.text


VERILATOR_VPI = [
    Hit(chunk_id=1, doc_id=1, doc="verilator.pdf", page=89, bbox=None, kind="text", score=0.05,
        section="EXECUTABLE AND ARGUMENT REFERENCE > 12.1 verilator Arguments",
        text="--vpi\nEnable the use of VPI and linking against the verilated_vpi.cpp files."),
    Hit(chunk_id=2, doc_id=1, doc="verilator.pdf", page=165, bbox=None, kind="text", score=0.03,
        section="REVISION HISTORY > 18.1 Revision History and Change Log > 18.1.63 Verilator 3.878 2015-11-01",
        text="Major:\n\u2022 Add \u2013vpi flag, and fix VPI linkage. (#969) [Arthur Kahlich]\n"
             "\u2022 Support genvar indexes into arrayed cells.\n\u2022 Support VPI access to arrayed cells."),
]


def test_a_question_about_when_a_thing_came_is_answered_by_its_release(embedder):
    """Verilator's change log ("Which Verilator version introduced the --vpi flag?"): the option's entry
    in the reference (OPTION_BONUS) was quoted, not the change log's "• Add –vpi flag, and fix VPI
    linkage." (the option typeset with an en dash); and a change log's entry quoted alone ("• Support
    clocking blocks (#3674).") did not say which release: the chunk starts below the release's heading."""
    from mmrag_desktop.engine.answer import extractive

    blocks = pack_evidence(VERILATOR_VPI, 1000)
    assert [b.release for b in blocks] == ["", "Verilator 3.878 2015-11-01"]
    question = "Which Verilator version introduced the --vpi flag?"
    quoted = select_sentences(question, blocks, embedder, max_sentences=3)
    assert quoted[0].text.startswith("Verilator 3.878 2015-11-01: \u2022 Add \u2013vpi flag"), quoted[0].text
    # the release is named once, before its block's first entry quoted
    assert [c.text.count("Verilator 3.878") for c in quoted if c.block_id == 2] == [1] + [0] * (
        sum(c.block_id == 2 for c in quoted) - 1)
    old = extractive._ASKS_HISTORY
    try:  # without the rule the reference's entry comes first
        extractive._ASKS_HISTORY = re.compile(r"(?!)")
        assert rank_candidates(question, blocks, embedder)[0].text.startswith("--vpi Enable")
    finally:
        extractive._ASKS_HISTORY = old
    # what the option does: its entry, and no release
    best = rank_candidates("What does the --vpi option do?", blocks, embedder)[0]
    assert best.text.startswith("--vpi Enable"), best.text
    # "When did ...": a question about history too
    when = rank_candidates("When did Verilator start supporting genvar indexes into arrayed cells?", blocks, embedder)
    assert when[0].text == "Verilator 3.878 2015-11-01: \u2022 Support genvar indexes into arrayed cells.", when[0].text

    # the quote with its release is checked as the entry (verbatim), the release as the block's heading
    checker = SupportChecker(blocks, embedder)
    ok = checker.check(f"{quoted[0].text} [2]", quote=True)
    assert ok.supported and ok.quote and ok.missing == [] and ok.support.text.startswith("\u2022 Add")
    wrong = checker.check("Verilator 3.900 2016-01-01: \u2022 Add \u2013vpi flag, and fix VPI linkage. [2]", quote=True)
    assert not wrong.supported and "3.900" in wrong.missing
    # and its lines are found in the chunk without the release before them
    from mmrag_desktop.engine.answer.pipeline import _sentence_boxes

    lines = [{"p": 165, "b": (88, 180, 200, 190), "t": "Major:"},
             {"p": 165, "b": (88, 204, 336, 214), "t": "\u2022 Add \u2013vpi flag, and fix VPI linkage. (#969) [Arthur Kahlich]"},
             {"p": 165, "b": (88, 218, 336, 228), "t": "\u2022 Support genvar indexes into arrayed cells."}]
    assert _sentence_boxes(blocks[1], [quoted[0].text], lambda chunk_id: lines) == [(165, (88, 204, 336, 214))]


ELK_ROUTINES = [
    manual_hit("elk.pdf", 1499, 97, "7 Routine/Function Prologues > 7.94 hmlaa (Source File: hmlaa.f90)",
               "ld : leading dimension of h (in,integer)\nh : Hamiltonian matrix (inout,complex(*))\nDESCRIPTION:\n"
               "Calculates the APW-APW contribution to the Hamiltonian matrix.\nREVISION HISTORY:\n"
               "Created October 2002 (JKD)", 0.05),
    manual_hit("elk.pdf", 1555, 113, "7 Routine/Function Prologues > 7.140 olpistl (Source File: olpistl.f90)",
               "DESCRIPTION:\nComputes the interstitial contribution to the overlap matrix for the APW basis "
               "functions.", 0.04),
    manual_hit("elk.pdf", 12, 13, "3 Compiling and running Elk > 3.1 Introduction",
               "The Hamiltonian matrix is set up from the APW and local-orbital basis functions and diagonalised."),
]


def test_a_reference_entry_is_quoted_with_its_name(embedder):
    """Elk's routine prologues ("Which subroutine computes the APW-APW contribution to the Hamiltonian
    matrix?"): the description "Calculates the APW-APW contribution to the Hamiltonian matrix." never
    names the routine, its section heading does ("7.94 hmlaa (Source File: hmlaa.f90)"): the answer
    named no routine. The heading of a name in code is named before the block's first quote; a title
    ("3.1 Introduction") is not."""
    blocks = pack_evidence(ELK_ROUTINES, 1000)
    assert [b.entry for b in blocks] == ["hmlaa (Source File: hmlaa.f90)", "olpistl (Source File: olpistl.f90)", ""]
    question = "Which subroutine computes the APW-APW contribution to the Hamiltonian matrix?"
    quoted = select_sentences(question, blocks, embedder, max_sentences=3)
    assert quoted[0].text == "hmlaa (Source File: hmlaa.f90): Calculates the APW-APW contribution to the Hamiltonian matrix."
    # checked as the block's heading and a verbatim quote; a wrong name is not the heading
    checker = SupportChecker(blocks, embedder)
    ok = checker.check(f"{quoted[0].text} [1]", quote=True)
    assert ok.supported and ok.missing == []
    wrong = checker.check("hmlad (Source File: hmlad.f90): Calculates the APW-APW contribution to the Hamiltonian "
                          "matrix. [1]", quote=True)
    assert not wrong.supported
    # an unnumbered heading is a page of an alphabetical list, named by its first entry, not the quote's
    listed = pack_evidence([Hit(chunk_id=9 + i, doc_id=2, doc="Circuit_macros.pdf", page=78, bbox=None, kind="text",
                                score=0.05, section=section, text=f"R=reversed polarity (Section 4.{i})")
                            for i, section in enumerate(("19 List of macros > S s_ > se_", "19 List of macros > S s_"))],
                           1000)
    assert [b.entry for b in listed] == ["", ""]
    # a quote that names its entry already is not named twice
    named = pack_evidence([Hit(chunk_id=1, doc_id=1, doc="elk.pdf", page=97, bbox=None, kind="text", score=0.05,
                               section="7.94 hmlaa (Source File: hmlaa.f90)",
                               text="The routine hmlaa calculates the APW-APW contribution to the Hamiltonian.")], 1000)
    assert select_sentences(question, named, embedder)[0].text.startswith("The routine hmlaa")


def test_a_remark_between_a_term_and_its_description_is_quoted_with_both():
    """Verilator's options: "--debug-check" / "Rarely needed." / "Enable internal debugging assertion
    checks ...": the term labelled the remark, too short to quote, and the description was quoted alone."""
    cands = candidate_sentences(one_block("--debug-check\nRarely needed. Enable internal debugging assertion checks, "
                                          "without changing debug verbosity. Enabled automatically with --debug option.",
                                          "Verilator Arguments", "verilator.pdf", 75))
    quoted = [f"{c.label} {c.text}".strip() for c in cands]
    assert ("--debug-check Rarely needed. Enable internal debugging assertion checks, without changing debug "
            "verbosity.") in quoted, quoted


def test_an_example_between_a_warning_s_name_and_its_description_is_quoted_with_both():
    """Verilator's warnings: "MINTYPMAX" / "#(3:5:8) clk = ~clk;" / "Warns that minimum, typical, and
    maximum delay expressions are currently unsupported.": the description was quoted without the
    warning's name ("which warning does it give?" quoted STMTDLY's entry); code before a sentence of prose
    ("#include ..." / "VerilatedFstC* tfp = ...;" / "Currently, supporting FST and VCD ...") labels nothing."""
    text = ("Ignoring this warning will only suppress the lint check; it will simulate correctly.\nMINTYPMAX\n"
            "#(3:5:8) clk = ~clk;\nWarns that minimum, typical, and maximum delay expressions are currently "
            "unsupported. Verilator uses only the typical delay value.\nMODDUP")
    quoted = [f"{c.label} {c.text}".strip() for c in candidate_sentences(one_block(text, "List Of Warnings"))]
    assert ("MINTYPMAX #(3:5:8) clk = ~clk; Warns that minimum, typical, and maximum delay expressions are "
            "currently unsupported.") in quoted, quoted
    code = ('#include "verilated_fst_sc.h"\nVerilatedFstC* tfp = new VerilatedFstSc;\nCurrently, supporting FST '
            "and VCD in a single simulation is impossible, but such requirement should be rare.")
    (prose,) = [c for c in candidate_sentences(one_block(code, "FST Tracing")) if c.text.startswith("Currently")]
    assert prose.label == "", prose.label


def test_a_setting_s_name_or_a_credit_s_end_alone_on_its_line():
    """Gmsh's options: "Force font size of TeX strings to fontsize in the graphic window" (the end of
    Print.TexForceFontSize's entry) / "Print.TexWidthInMm" / "Width of tex graphics in mm ...": the
    unwrapping joined the name to the description above it, and the answer quoted "Force font size of TeX
    strings ... Print.TexWidthInMm Width of tex graphics ..." for the width's default."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("Force font size of TeX strings to fontsize in the graphic window\nPrint.TexWidthInMm\nWidth of tex "
            "graphics in mm (use 0 for the natural width inferred from the image\nwidth in pixels)\nDefault value: 150")
    assert unwrap_lines(text).split("\n") == [
        "Force font size of TeX strings to fontsize in the graphic window", "Print.TexWidthInMm",
        "Width of tex graphics in mm (use 0 for the natural width inferred from the image width in pixels)",
        "Default value: 150"]
    # nor a command's name with its arguments' placeholders (Yosys's command reference: "... on all loaded modules
    # read_rtlil [filename] Load modules ..." was one sentence, quoted as the -setattr option's, session 53)
    yosys = ("-setattr <attribute_name >\nset the specified attribute (to the value 1) on all loaded modules\n"
             "read_rtlil [filename]\nLoad modules from an RTLIL file to the current design.")
    assert unwrap_lines(yosys).split("\n")[2] == "read_rtlil [filename]"
    # a list item's lead-in wrapped before its last words, a capital and a colon, is one line (DRBD's "... initialize
    # your DRBD device as a new" / "Physical Volume:" / "# pvcreate /dev/drbd0": the command was cut from its item)
    drbd = ("\u2022 Now, on the node where you just promoted your resource, initialize your DRBD device as a new\n"
            "Physical Volume:\n# pvcreate /dev/drbd0\n\u2022 Create your VG:\n# vgcreate replicated /dev/drbd0\n"
            "\u2022 Install the packages\nNote:")
    assert unwrap_lines(drbd).split("\n") == [
        "\u2022 Now, on the node where you just promoted your resource, initialize your DRBD device as a new Physical "
        "Volume:", "# pvcreate /dev/drbd0", "\u2022 Create your VG:", "# vgcreate replicated /dev/drbd0",
        "\u2022 Install the packages", "Note:"]
    # a bracketed credit broken at the line end is joined, not read as the start of the next item
    # (Verilator's change log: "CAD] • Support timing controls ..." was quoted under release 5.002)
    credit = ("\u2022 Support the Active and NBA scheduling regions (#3278, #3384). [Geza Lore, Shunyao\nCAD]\n"
              "\u2022 Support timing controls (delays, event controls in any location, wait statements) and forks.")
    assert unwrap_lines(credit).split("\n") == [
        "\u2022 Support the Active and NBA scheduling regions (#3278, #3384). [Geza Lore, Shunyao CAD]",
        "\u2022 Support timing controls (delays, event controls in any location, wait statements) and forks."]
    # a wrapped sentence's last word is no setting's name
    assert unwrap_lines("The mesh size is given by the option called\nMesh.MeshSizeMax.").count("\n") == 0


def test_a_row_of_symbols_is_no_wrapped_line_of_the_sentence_below():
    """PETSc's block matrices kept a row of symbols in the text layer ("0 I 0 I 0 A−1 11 -A10 I 0 I"); the
    unwrapping joined it to the sentence below, and the answer about PCFIELDSPLIT opened with
    "0 I 0 I 0 A−1 11 -A10 I 0 I These can be accessed with -pc_fieldsplit_type ..."."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("A−1 00 0 -A01 0 I 0 A−1 00 0 .\n0 I 0 I 0 A−1 11 -A10 I 0 I\nThese can be accessed with "
            "-pc_fieldsplit_type or the function\nPCFieldSplitSetType(). The prefixes are set.")
    assert unwrap_lines(text).split("\n") == [
        "A−1 00 0 -A01 0 I 0 A−1 00 0 .", "0 I 0 I 0 A−1 11 -A10 I 0 I",
        "These can be accessed with -pc_fieldsplit_type or the function PCFieldSplitSetType(). The prefixes are set."]


def test_the_members_of_a_structure_are_quoted_one_by_one(embedder):
    """Ghostscript's color notes list gsicc_manager_t's members, a line each with its comment. The
    unwrapping joined them into one run-on line, quoted cut at the word budget before the member asked
    for ("Which field holds the special profile used to map gray to K?": "graytok_profile")."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    members = ["cmm_profile_t *default_gray; /* Default gray profile for device gray */",
               "cmm_profile_t *default_rgb; /* Default RGB profile for device RGB */",
               "cmm_profile_t *default_cmyk; /* Default CMYK profile for device CMKY */",
               "cmm_profile_t *lab_profile; /* Colorspace type ICC profile from LAB to LAB */",
               "cmm_profile_t *xyz_profile; /* RGB profile that hands back CIEXYZ values */",
               "cmm_profile_t *graytok_profile; /* A specialized profile for mapping gray to K */",
               "gsicc_devicen_t *device_n; /* A linked list of profiles for DeviceN support */"]
    text = "\n".join(members) + "\n} gsicc_manager_t;"  # the chunk opens inside the listing, as there
    assert unwrap_lines(text).split("\n") == [*members, "} gsicc_manager_t;"]
    block = one_block(text, "5 Details of objects and methods > 5.1 ICC Manager", "GS9_Color_Management.pdf", 23)
    best = rank_candidates("Which field of the gsicc_manager_t structure holds the special profile used to map gray to K?",
                           block, embedder)[0]
    assert best.text == members[5], best.text
    # a wrapped line of prose is still joined
    assert unwrap_lines("The profile for the gray to K mapping is kept in the manager\nfor every device.").count("\n") == 0


def test_a_reference_cards_lines_are_quoted_one_by_one(embedder):
    """The PARI/GP card's rows, a description and its command each, have no sentence ends: the unwrapping
    joined them and the whole column was one sentence, quoted cut at the word budget ("... get out of
    break loop break or <C-D> go up/down n frames dbg_up({n}), dbg_down set break point ..."). A chunk
    whose lines are mostly such rows (evidence.card_lines) is read line by line; prose that names a
    function is not."""
    from mmrag_desktop.engine.answer.evidence import card_lines, unwrap_lines

    rows = ["get out of break loop break or <C-D>", "go up/down n frames dbg_up({n}), dbg_down",
            "set break point breakpoint()", "examine object o dbg_x(o)", "current error data dbg_err()",
            "number of objects on heap and their size getheap()", "total size of objects on PARI stack getstack()"]
    text = "\n".join(rows)
    assert card_lines(rows) and unwrap_lines(text).split("\n") == rows
    block = one_block(text, "Debugger / break loop", "refcard.pdf", 1)
    best = rank_candidates("I'm in gp's break loop after an error; how do I look at the data of the current error?",
                           block, embedder)[0]
    assert best.text == "current error data dbg_err()", best.text
    prose = ["Two statistical functions are mean(x) which calculates the sample mean, which is the",
             "same as sum(x)/length(x), and var(x) which gives the sample variance of the values x",
             "of a vector. If the argument to var() is an n-by-p matrix the value is a p-by-p matrix",
             "that is the sample covariance matrix got by regarding the rows as independent vectors."]
    assert not card_lines(prose) and unwrap_lines("\n".join(prose)).count("\n") == 0


def test_an_option_s_default_field_is_quoted_with_its_name_and_description(embedder):
    """Gmsh's options appendix: "General.Light3Y" / "Y position of light source 3" / "Default value: 0.3" /
    "Saved in: General.OptionsFileName". The default line was too short to quote, the unwrapping joined
    the fields into one run-on line, and the answer quoted the descriptions of other lights."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("General.Light3Y\nY position of light source 3 in the graphics window of the program\nDefault value: 0.3\n"
            "Saved in: General.OptionsFileName\nGeneral.Light3Z\nZ position of light source 3\nDefault value: 1\n"
            "Saved in: General.OptionsFileName")
    assert unwrap_lines(text).split("\n")[1:3] == ["Y position of light source 3 in the graphics window of the program",
                                                    "Default value: 0.3"]
    block = one_block(text, "Appendix B Options > B.1 General options", "gmsh.pdf", 183)
    best = rank_candidates("What is the default Y position of light source 3 in Gmsh?", block, embedder)[0]
    assert best.text == ("General.Light3Y Y position of light source 3 in the graphics window of the program "
                         "Default value: 0.3"), best.text
    assert quote_text(best.text, 1) == best.text + " [1]"  # whole: no " ..." after the field


def test_a_question_the_manual_asks_is_not_quoted_as_an_answer(embedder, monkeypatch):
    """avr-libc's FAQ heading "How to add a raw binary image to linker output?" was quoted for the
    question it asks, above the sentences that answer it."""
    from mmrag_desktop.engine.answer import extractive

    block = one_block("How to add a raw binary image to linker output?\nThe GNU linker avr-ld cannot handle binary "
                      "data directly. However, there is a companion tool called avr-objcopy that converts a raw "
                      "binary file into a relocatable object file.", "FAQ", "avr-libc-user-manual.pdf", 71)
    question = "embed a raw binary file such as a bitmap in my AVR firmware image at link time"
    monkeypatch.setattr(extractive, "QUESTION_PENALTY", 0.0)
    assert rank_candidates(question, block, embedder)[0].text.endswith("?")  # the embedder alone
    monkeypatch.undo()
    assert not rank_candidates(question, block, embedder)[0].text.endswith("?")


def test_a_mail_quoted_in_a_faq_is_not_quoted_as_the_answer(embedder, monkeypatch):
    """flex's FAQ quotes a 1996 mail ("> I'm not sure how or where to submit bug reports ..."); for
    "Where do I report a bug in flex?" it was quoted first, above the manual's "Reporting Bugs"
    sentence. The asker's words lose as a question does; R's prompt and its code do not."""
    from mmrag_desktop.engine.answer import extractive

    manual = Hit(chunk_id=71, doc_id=1, doc="flex.pdf", page=9, bbox=None, kind="text", score=0.03,
                 section="2 Reporting Bugs", text="If you find a bug in flex, please report it using GitHub's issue "
                 "tracking facility at https://\ngithub.com/westes/flex/issues/")
    faq = Hit(chunk_id=571, doc_id=1, doc="flex.pdf", page=101, bbox=None, kind="text", score=0.02, section="FAQ > Is flex GNU or not?",
              text="> I'm not sure how or where to submit bug reports (documentation or\n> otherwise) for the GNU "
              "project stuff ...\nWell, strictly speaking flex isn't part of the GNU project.")
    blocks = pack_evidence([manual, faq], 1000)
    question = "Where do I report a bug in flex?"
    monkeypatch.setattr(extractive, "QUESTION_PENALTY", 0.0)
    assert rank_candidates(question, blocks, embedder)[0].text.startswith(">")  # the embedder alone
    monkeypatch.undo()
    ranked = rank_candidates(question, blocks, embedder)
    assert ranked[0].text.startswith("If you find a bug")
    assert extractive._quotes_a_mail("> I'm not sure how or where to submit bug reports.")
    assert not extractive._quotes_a_mail("> x <- c(10.4, 5.6, 3.1, 6.4, 21.7)")
    assert not extractive._quotes_a_mail("> help solve")  # a command and its word, no prose


def test_a_web_address_broken_after_its_scheme_is_one_word():
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("If you find a bug in flex, please report it using GitHub's issue tracking facility at https://\n"
            "github.com/westes/flex/issues/")
    assert unwrap_lines(text) == ("If you find a bug in flex, please report it using GitHub's issue tracking "
                                  "facility at https://github.com/westes/flex/issues/")
    # or at one of its dots or slashes (Asymptote's "To customize the key bindings, see: https://tiswww.case."
    # was quoted as a sentence of its own, the address cut at "case.")
    from mmrag_desktop.engine.sentence_split import split_sentences

    broken = "To customize the key bindings, see: https://tiswww.case.\nedu/php/chet/readline/rluserman.html"
    assert split_sentences(broken, newlines=True) == [broken]
    assert unwrap_lines(broken) == broken.replace("\n", "")
    assert unwrap_lines("The sources are at https://github.com/\nwestes/flex/ as before") == (
        "The sources are at https://github.com/westes/flex/ as before")


def test_a_declaration_is_quoted_with_the_description_below_it(embedder):
    """Asymptote's manual lists functions as a declaration line and its description: "Which function
    returns the real roots of a cubic equation?" was answered "This numerically robust solver returns the
    real roots of the cubic equation ..." without the function's name (its line ran on from the sentence
    above: no capital opens it)."""
    text = ("This numerically robust solver returns the complex roots of the quadratic equation\nax2 + bx + c = 0;\n"
            "real[] cubicroots(real a, real b, real c, real d);\n"
            "This numerically robust solver returns the real roots of the cubic equation\n"
            "ax3 + bx2 + cx + d = 0. Multiple roots are listed separately.")
    assert split_plain(text, newlines=True)[1] == "real[] cubicroots(real a, real b, real c, real d);"
    assert is_term_line("real[] cubicroots(real a, real b, real c, real d);")
    assert not is_term_line("draw(unitcircle);") and not is_term_line("Use the function (see Fig)")
    blocks = pack_evidence([hit(1, text, 81)], 1000)
    chosen = select_sentences("Which function returns the real roots of a cubic equation?", blocks, embedder,
                              max_sentences=1)
    assert chosen[0].text == ("real[] cubicroots(real a, real b, real c, real d); This numerically robust solver "
                              "returns the real roots of the cubic equation ax3 + bx2 + cx + d = 0.")
    # a declaration a lead-in introduced is the lead-in's: the paragraph after it is about something else
    led = ("A simpler interface for the case of a single patch is also available:\n"
           "void tensorshade(picture pic=currentpicture, path g, pen[] p);\n"
           "One can also smoothly shade the regions between consecutive paths of a sequence.")
    after = [c for c in candidate_sentences(pack_evidence([hit(1, led, 22)], 1000)) if c.text.startswith("One")]
    assert after and after[0].label == ""


def test_a_repeated_flag_is_a_level_of_the_flag_asked_for(embedder):
    """Asymptote's "-v" / "-vv" / ... list: "Which -v level shows the knot guide solver diagnostics?"
    quoted only "-v Display top-level module ...": "-vvvv" was taken for another option's entry."""
    text = ("Additional debugging output is produced with each additional -v option:\n"
            "-v Display top-level module and final output file names.\n"
            "-vv Also display imported and included module names and final LaTeX and dvips processing information.\n"
            "-vvv Also output LaTeX bidirectional pipe diagnostics.\n"
            "-vvvv Also output knot guide solver diagnostics.\n"
            "-vvvvv Also output Asymptote traceback diagnostics.\n"
            "-o Write the output to the named file.")
    blocks = pack_evidence([hit(1, text, 175)], 1000)
    chosen = select_sentences("Which -v level shows the knot guide solver diagnostics?", blocks, embedder,
                              max_sentences=3)
    assert "-vvvv Also output knot guide solver diagnostics." in [c.text for c in chosen]
    ranked = [c.text for c in rank_candidates("What does -v display?", blocks, embedder)]
    assert not any(t.startswith("-o ") for t in ranked)  # another option's entry stays out


def test_a_line_ending_in_an_abbreviation_goes_on_in_the_next():
    """Asymptote's manual: "... a relatively recent version (e.g." / "3.4.4 or later)." was quoted as
    "... you will need a relatively recent version (e.g." without the version asked for."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines
    from mmrag_desktop.engine.sentence_split import split_sentences

    text = ("If you are compiling Asymptote with gcc, you will need a relatively recent version (e.g.\n"
            "3.4.4 or later). For full interactive functionality, you will need version 4.3 or later.")
    first = split_sentences(unwrap_lines(text), newlines=True)[0]
    assert first == "If you are compiling Asymptote with gcc, you will need a relatively recent version (e.g. 3.4.4 or later)."
    # a sentence's own full stop still ends its line, before a number as before a capital
    assert unwrap_lines("The pins are listed in the table below this line.\n3 pins are spare.").count("\n") == 1
    assert unwrap_lines("Wait between the two steps for about 5 min.\nThe LED blinks.").count("\n") == 1


def test_a_full_stop_left_alone_by_a_joined_word_ends_the_line_above():
    """AVRDUDE: "... for this program-" / "mer." is joined at ingest to "... for this programmer" / ".",
    and the answer quoted "... for this programmer ." with a space before its full stop."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = "The -P portname option defaults to /dev/spidev0.0:/dev/gpiochip0 for this programmer\n.\nThe STK500 uses it."
    assert unwrap_lines(text) == ("The -P portname option defaults to /dev/spidev0.0:/dev/gpiochip0 for this "
                                  "programmer.\nThe STK500 uses it.")


def test_a_name_in_capitals_that_heads_a_section_is_a_reference_entry(embedder, monkeypatch):
    """gputils' manual heads each directive's entry with its name ("FILL", "__BADRAM"); "What does the
    FILL directive do in gpasm?" quoted "gpasm supports several directives for use with high level
    languages." and never the entry's "Generates <count> occurrences of ..."."""
    from mmrag_desktop.engine.answer import extractive

    hits = [gputils_hit(154, 23,
                section="gpasm > 2.3 Directives > FILL",
                text="<label> FILL <expression>,<count>\nGenerates <count> occurrences of the program word or byte "
                     "<expression>. If expression is enclosed by parentheses, expression is a line of assembly.\n"
                     "See also: DATA DW ORG"),
            gputils_hit(170, 29, score=0.02,
                section="gpasm > 2.3 Directives > 2.3.8 High level extensions",
                text="gpasm supports several directives for use with high level languages. These directives are "
                     "easily identified because they start with a dot.")]
    blocks = pack_evidence(hits, 1000)
    question = "What does the FILL directive do in gpasm?"
    monkeypatch.setattr(extractive, "titles_section", lambda section, name: False)
    assert not rank_candidates(question, blocks, embedder)[0].text.startswith("<label> FILL")  # without the rule
    monkeypatch.undo()
    best = rank_candidates(question, blocks, embedder)[0]
    assert best.text.startswith("<label> FILL <expression>,<count> Generates <count> occurrences"), best.text
    # a product's name heading the section that introduces it is no entry of what is asked
    kicad = pack_evidence([Hit(chunk_id=9, doc_id=1, doc="ngspice.pdf", page=9, bbox=None, kind="text", score=0.03,
                               section="Chapter 1 > KiCad", text="KiCad is an open source electronics design suite.")],
                          1000)
    assert not rank_candidates("Which ngbehavior flag makes ngspice compatible with KiCad?", kicad, embedder)[0].entry


def test_titles_section():
    from mmrag_desktop.engine.search.query import titles_section

    assert titles_section("gpasm > 2.3 Directives > FILL", "FILL")
    assert titles_section("gpasm > 2.3.7 __BADRAM", "__BADRAM")
    assert not titles_section("Network UPS Tools > UPS HOWTO", "UPS")
    assert not titles_section("FILL > Examples", "FILL")


def test_a_code_the_question_gives_is_answered_by_its_entry(embedder, monkeypatch):
    """"What does gpasm error 118 mean?" quoted "This chapter lists the error messages that gpasm
    produces." and "120 Call or jump not allowed ...", with error 118's entry in the evidence."""
    from mmrag_desktop.engine.answer import extractive

    hits = [gputils_hit(220, 36,
                section="gpasm > 2.5 Errors", text="This chapter lists the error messages that gpasm produces."),
            gputils_hit(222, 37, score=0.02,
                section="gpasm > 2.5 Errors",
                text="117 Address wrapped around 0.\n118 Overwriting previous address contents.\ngpasm was "
                     "instructed to write different values into the same address.\n120 Call or jump not allowed "
                     "at this address (must be in low half of page)\n121 Illegal label.")]
    blocks = pack_evidence(hits, 1000)
    question = "What does gpasm error 118 mean?"
    monkeypatch.setattr(extractive, "entry_codes", lambda plan: [])
    assert not rank_candidates(question, blocks, embedder)[0].text.startswith("118 ")  # without the rule
    monkeypatch.undo()
    # the entry's few words and the sentence after them (SHORT_ENTRY)
    assert rank_candidates(question, blocks, embedder)[0].text == ("118 Overwriting previous address contents. gpasm "
                                                                   "was instructed to write different values into the "
                                                                   "same address.")
    monkeypatch.setattr(extractive, "SHORT_ENTRY", 0)
    assert rank_candidates(question, blocks, embedder)[0].text == "118 Overwriting previous address contents."
    # nor is the entry of another code (the real list's 120 repeats 118's explanation)
    monkeypatch.undo()
    real = pack_evidence([hits[0], gputils_hit(222, 37, section="gpasm > 2.5 Errors", score=0.02,
                                               text="118 Overwriting previous address contents.\ngpasm was "
                                                    "instructed to write different values into the same address.\n"
                                                    "120 Call or jump not allowed at this address (must be in low "
                                                    "half of page) gpasm was instructed to write different values "
                                                    "into the same address.\n121 Illegal label.")], 1000)
    ranked = rank_candidates(question, real, embedder)
    assert ranked[0].text.startswith("118 ")
    assert not any(c.text.startswith("120 ") for c in ranked)  # another entry of the list asked from
    # without 118's entry in the evidence, the other codes' entries rank lower than they would
    others = pack_evidence([hits[0], gputils_hit(222, 37, section="gpasm > 2.5 Errors", score=0.02,
                                                 text="120 Call or jump not allowed at this address (must be in "
                                                      "low half of page) gpasm was instructed to write different "
                                                      "values into the same address.\n121 Illegal label.")], 1000)
    other = next(c.score for c in rank_candidates(question, others, embedder) if c.text.startswith("120 "))
    monkeypatch.setattr(extractive, "OTHER_ENTRY_PENALTY", 0.0)
    assert other < next(c.score for c in rank_candidates(question, others, embedder)
                        if c.text.startswith("120 ")) - 0.25


def test_the_description_of_another_code_is_not_quoted_for_the_code_asked(embedder):
    """"What does gpasm error 118 mean?" quoted error 118's entry, then "gpasm encountered an illegal
    label.": the description of error 121 under it, which reads like an answer without its code."""
    from mmrag_desktop.engine.answer.extractive import candidate_sentences, select_sentences

    block = pack_evidence([gputils_hit(222, 37, section="gpasm > 2.5 Errors",
                                       text="118 Overwriting previous address contents.\ngpasm was instructed to "
                                            "write different values into the same address.\n121 Illegal label.\n"
                                            "gpasm encountered an illegal label.\n123 Illegal directive (Not Valid "
                                            "for this processor).\nThe specified directive is not valid for this "
                                            "processor.")], 1000)
    illegal = "gpasm encountered an illegal label."
    assert {c.text: c.under for c in candidate_sentences(block)}[illegal] == "121"
    question = "What does gpasm error 118 mean?"
    ranked = rank_candidates(question, block, embedder)
    assert ranked[0].text.startswith("118 Overwriting") and ranked[0].entry
    assert illegal not in [c.text for c in ranked]
    assert "not valid for this processor" not in " ".join(c.text for c in ranked)
    # without a code in the question every entry's description is a sentence to quote
    assert illegal in [c.text for c in rank_candidates("What does gpasm do with illegal labels?", block, embedder)]
    quoted = [c.text for c in select_sentences(question, block, embedder, max_sentences=3)]
    assert quoted == ["118 Overwriting previous address contents. gpasm was instructed to write different values "
                      "into the same address."], quoted


def test_a_run_of_a_figure_s_ocr_labels_is_no_sentence_to_quote(embedder):
    """DDD's thread list (a screenshot): "By default, how long does DDD wait for the inferior debugger
    to reply?" quoted "Debugger agent running 6.Breakpoint handler cond. waiting 7. ...", a piece of
    the labels OCR read in the picture, as its fourth sentence."""
    from mmrag_desktop.engine.answer.extractive import candidate_sentences

    figure = Hit(chunk_id=7, doc_id=1, doc="ddd.pdf", page=115, bbox=(231, 402, 490, 583), kind="figure",
                 score=0.03, section="6 Running the Program > 6.9 Examining Threads",
                 text="Section: 6.9 Examining Threads\nThe Threads window lists the threads of the program.\n"
                      "Text in figure: DDD:Threads Threads Group system: 4.Finalizer thread cond. waiting 5. "
                      "Debugger agent running 6.Breakpoint handler cond. waiting 7. Close the window to resume the "
                      "program.")
    texts = [c.text for c in candidate_sentences(pack_evidence([figure], 1000))]
    assert "The Threads window lists the threads of the program." in texts  # the caption's prose is kept
    assert not any("running" in t or "Text in figure" in t for t in texts), texts
    # a sentence of prose that OCR read in the picture is quotable
    assert "Close the window to resume the program." in texts
    # the same words in a text block are sentences of the page
    page = one_block("Debugger agent running 6.Breakpoint handler cond. waiting 7. Close the window to resume the program.")
    assert any("Debugger agent running" in c.text for c in candidate_sentences(page))


def test_a_table_row_whose_first_cell_the_question_names_is_quoted_first(embedder):
    """siunitx's Table 14 ("What is the default value of uncertainty-mode ...?"): the caption "Table 14:
    Output options for numbers." and a sentence of prose ranked above the row "Option name:
    uncertainty-mode | Type: Choice | Default: compact", whose first cell the question names."""
    from mmrag_desktop.engine.answer import extractive

    table = ("Table 14: Output options for numbers.\nOption name | Type | Default\n"
             "Option name: uncertainty-descriptors | Type: Literal | Default: \u27e8none\u27e9\n"
             "Option name: uncertainty-mode | Type: Choice | Default: compact\n"
             "Option name: uncertainty-separator | Type: Literal | Default: \u27e8none\u27e9")
    prose = ("When input is given including a single uncertainty, it can be printed either with the uncertainty in "
             "brackets or as a separate number. The setting full prints the full value of the uncertainty.")
    def siunitx(chunk_id: int, page: int, kind: str, text: str) -> Hit:
        return Hit(chunk_id=chunk_id, doc_id=1, doc="siunitx.pdf", page=page, bbox=None, kind=kind,
                   score=0.05 - 0.01 * chunk_id, text=text, section="4.5 Printing numbers")

    blocks = pack_evidence([siunitx(1, 28, "table", table), siunitx(2, 30, "text", prose)], 1000)
    question = "What is the default value of uncertainty-mode in siunitx's number output options?"
    row = "Option name: uncertainty-mode | Type: Choice | Default: compact"
    ranked = rank_candidates(question, blocks, embedder)
    assert ranked[0].text == row, [c.text for c in ranked[:3]]
    bonus = extractive.ROW_KEY_BONUS
    try:
        extractive.ROW_KEY_BONUS = 0.0
        # without the rule (and without the bonus of a default stated, "Default: compact", session 53)
        assert rank_candidates(question, blocks, embedder, value_bonus=0.0)[0].text != row
    finally:
        extractive.ROW_KEY_BONUS = bonus
    # a word of the question written otherwise than the row's first cell names no row: "length" of "the
    # lossy line's conductance per unit length" is not ngspice's "LENGTH" parameter (the README's screenshot)
    txl = pack_evidence([Hit(chunk_id=3, doc_id=2, doc="ngspice.pdf", page=124, bbox=None, kind="table", score=0.04,
                             section="6.4.1 Lossy Transmission Line (TXL)",
                             text="Name | Parameter | Units/Type | Default | Example\n"
                                  "Name: G | Parameter: conductance/length | Units/Type: mhos/unit | Default: 0.0 | "
                                  "Example: 0.0\nName: LENGTH | Parameter: length of line | Units/Type: unit | "
                                  "Default: no default | Example: 1.0")], 1000)
    best = rank_candidates("What is the default value of the lossy line's conductance per unit length?", txl, embedder)
    assert best[0].text.startswith("Name: G |"), [c.text for c in best]
    # the rows of the options the question does not name gain nothing
    scores = {c.text: c.score for c in ranked}
    assert scores[row] - scores[row.replace("uncertainty-mode | Type: Choice | Default: compact",
                                            "uncertainty-separator | Type: Literal | Default: \u27e8none\u27e9")] > 0.2


def test_a_one_letter_parameter_the_question_names_is_its_row(embedder):
    """"What default value does the G parameter of the lossy transmission line model have?" quoted
    ngspice's LEN and ABS rows (page 121): a one-letter word was no name the question gives. A capital
    letter standing alone is (not "A" or "I": words)."""
    rows = [("R", "resistance/length", "Ω/unit", "0.0", "0.2"), ("L", "inductance/length", "H/unit", "0.0", "9.13e-9"),
            ("G", "conductance/length", "mhos/unit", "0.0", "0.0"), ("C", "capacitance/length", "F/unit", "0.0", "3.65e-12"),
            ("LEN", "length of line", "unit", "no default", "1.0")]
    ltra = pack_evidence([Hit(chunk_id=3, doc_id=2, doc="ngspice.pdf", page=121, bbox=None, kind="table", score=0.04,
                              section="6.2 Lossy Transmission Lines",
                              text="Name | Parameter | Units/Type | Default | Example\n" + "\n".join(
                                  f"Name: {n} | Parameter: {p} | Units/Type: {u} | Default: {d} | Example: {e}"
                                  for n, p, u, d, e in rows))], 1000)
    question = "What default value does the G parameter of the lossy transmission line model have?"
    best = rank_candidates(question, ltra, embedder)
    assert best[0].text.startswith("Name: G |"), [c.text for c in best]
    assert rank_candidates(question.replace("G", "C"), ltra, embedder)[0].text.startswith("Name: C |")


def test_a_name_written_with_its_sigil_is_quoted_with_its_entry(embedder):
    """Verilator's language extensions: "$stacktrace" alone on its line, its description under it. Asked
    "What does $stacktrace do in a Verilated model, and why might its output not match my SystemVerilog
    functions?", the sentences saying "Verilated model" and "SystemVerilog" came first and the entry
    fifth, without its name. The name with its sigil is a term line, and the entry of the name asked."""
    verilator = [manual_hit("verilator.pdf", 400, 67, "LANGUAGE EXTENSIONS",
                            "/*verilator tracing_on*/\nRe-enable waveform tracing for all future signals or "
                            "instances that are declared.\n$stacktrace\nCalled as a task, print a stack trace. "
                            "Called as a function, return a string with a stack trace. This relies on the C++ "
                            "system trace, which may give less meaningful results if the model is not compiled "
                            "with debug symbols.", 0.03),
                 manual_hit("verilator.pdf", 204, 34, "7.2 Coverage Analysis",
                            "Verilator supports adding code to the Verilated model to support SystemVerilog code "
                            "coverage. With --coverage, Verilator enables all forms of coverage.", 0.02),
                 manual_hit("verilator.pdf", 154, 27, "6.2 Connecting to C++",
                            "When the simulation is complete call the model's final() method to execute any "
                            "SystemVerilog final blocks, and complete any assertions.", 0.01)]
    question = ("What does $stacktrace do in a Verilated model, and why might its output not match my "
                "SystemVerilog functions?")
    best = rank_candidates(question, pack_evidence(verilator, 1000), embedder)[0]
    assert best.text.startswith("$stacktrace Called as a task, print a stack trace."), best.text
    assert best.entry


def test_the_sentence_that_states_what_is_asked_is_quoted(embedder, monkeypatch):
    """"What is the default radix of gpasm?": "The default radix is hexadecimal." ranked fifth and was
    then dropped as a repetition of the RADIX entry ("Selects the default radix from "oct" ... or "hex"
    for hexadecimal."), whose words it shares; the answer never said which radix is the default."""
    from mmrag_desktop.engine.answer import extractive

    hits = [gputils_hit(181, 27,
                section="gpasm > 2.3 Directives > RADIX",
                text="RADIX <symbol>\nSelects the default radix from \u201coct\u201d for octal, \u201cdec\u201d for decimal "
                     "or \u201chex\u201d for hexadecimal. gpasm uses this radix to interpret numbers that don\u2019t have "
                     "an explicit radix.\nSee also: LIST"),
            gputils_hit(95, 13, score=0.02,
                section="gpasm > 2.2 Syntax > 2.2.3 Numbers",
                text="When you write a number without a specifying prefix such as \u201c45\u201d, gpasm uses the current "
                     "radix (base) to interpret the number. You can change this radix with the RADIX directive, or "
                     "with the \u201c-r\u201d option on gpasm\u2019s command-line. The default radix is hexadecimal.")]
    blocks = pack_evidence(hits, 1000)
    question = "What is the default radix of gpasm?"
    chosen = select_sentences(question, blocks, embedder, max_sentences=4)
    assert "The default radix is hexadecimal." in [c.text for c in chosen], [c.text for c in chosen]
    monkeypatch.setattr(extractive, "STATES_BONUS", 0.0)
    monkeypatch.setattr(extractive, "_states", lambda q: None)
    assert "The default radix is hexadecimal." not in [c.text for c in select_sentences(question, blocks, embedder,
                                                                                        max_sentences=4)]
    monkeypatch.undo()
    assert extractive._states("What is the default radix of gpasm?").search("The default radix is hexadecimal.")
    assert extractive._states("What is the difference between floor and truncate?") is None
    # Gpredict: the clause after the first asks too, and "default value" states the default
    stated = extractive._states("How often can Gpredict check whether my TLE data is out of date, and what is the "
                                "default?")
    assert stated.search("Possible choices are: Daily, Weekly, Monthly, and Never. The default value is weekly.")
    assert not stated.search("First, you can determine how often Gpredict should check the age of the TLE data.")
    assert extractive._states("How often does it check?") is None


def test_a_tables_best_row_is_quoted_first(embedder):
    """"What direction hold time does the Xylotex XS-3525/8S-3 need?" quoted the ST L297 row first (it
    comes earlier in the table) and the Xylotex row after it: a user reads "Direction Hold: 4000" first."""
    # the rows as the table gave them: the Xylotex row has a cell of its own (the link its narrow column broke)
    rows = ("Manufacturer | Model | Step Time | Direction Hold | Spec Sheet\nManufacturer: ST | Model: L297 | Step Time: ? | "
            "Direction Hold: 4000 | Spec Sheet: http://www.st.com/stonline/books/pdf/docs/1334.pdf\nManufacturer: "
            "Xylotex | Model: XS-3525/8S-3 | Step Time: 2000 | Direction Hold: 200 | Spec Sheet: XS3525V202.pdf | "
            "http://www.xylotex.com/")
    blocks = pack_evidence([Hit(chunk_id=40, doc_id=1, doc="LinuxCNC_Integrator.pdf", page=11, bbox=None, kind="table",
                                score=0.03, text=rows, section="2 Stepper Drive Timing")], 1000)
    chosen = select_sentences("What direction hold time does the Xylotex XS-3525/8S-3 need?", blocks, embedder,
                              max_sentences=4)
    assert chosen[0].text.startswith("Manufacturer: Xylotex"), [c.text for c in chosen]


def test_a_name_in_lower_case_opening_its_section_is_no_sentence_cut_off():
    """"gpdasm is a disassembler for gputils." under "5.1 gpdasm" was quoted "... gpdasm is a ...", as if
    the chunk started mid-sentence."""
    blocks = one_block("gpdasm is a disassembler for gputils. It converts hex files into instructions.",
                       "Utilities > 5.1 gpdasm", "gputils.pdf", 47)
    assert candidate_sentences(blocks)[0].text == "gpdasm is a disassembler for gputils."
    cut = one_block("default value is 1.0e-12. The next option sets the limit.", "Options", "ngspice.pdf", 9)
    assert candidate_sentences(cut)[0].text.startswith("... default value")


def test_a_footnote_after_its_paragraph_is_no_wrapped_line():
    """gpsim's stopwatch page: the paragraph's cut-off last line "... The .rollover attribute is the" ran
    into the footnote the parser places after it, and the answer quoted "The .rollover attribute is the
    (2) The stopwatch is really a collection of attributes ..."."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("of the timer may be manipulated via the three attributes. The .rollover attribute is the\n"
            "(2) The stopwatch is really a collection of attributes and not a command.")
    assert unwrap_lines(text).split("\n")[1].startswith("(2) The stopwatch")
    assert unwrap_lines("as the figure shows in the equation numbered\n(2) for the case of two ports.") == \
        "as the figure shows in the equation numbered (2) for the case of two ports."


def test_a_contents_or_index_chunk_has_no_sentence_to_quote():
    """A hit search marks as navigation (a contents or index chunk) gives no candidate, whatever its
    lines look like ("ncpb, see normally closed push button" reads as prose)."""
    text = "ncpb, see normally closed push button\nncpbo, see normally closed push button open"
    index = Hit(chunk_id=7, doc_id=1, doc="circuitikzmanual.pdf", page=250, bbox=None, kind="text", score=0.03,
                text=text, section="Index of the components", navigation=True)
    assert candidate_sentences(pack_evidence([index], 1000)) == []
    assert candidate_sentences(one_block(text, "Index of the components")) != []


def test_list_items_and_a_synopsis_s_options_are_lines_of_their_own():
    """HackRF's FAQ: the list's last item ran into the paragraph after it ("• 4000 MHz to 6000 MHz: ...
    decreasing as frequency increases Through most of the frequency range ...") and hackrf_sweep's
    usage into one sentence of every option ("[-g gain_db] # ... [-w bin_width] # ... (-1) # one shot
    mode"). An item's wrapped line and an item ending in a word that cannot end it stay joined."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    faq = ("HackRF One's absolute maximum TX power varies by operating frequency:\n"
           "• 2150 MHz to 2750 MHz: 13 dBm to 15 dBm\n"
           "• 4000 MHz to 6000 MHz: -10 dBm to 0 dBm, generally decreasing as frequency increases\n"
           "Through most of the frequency range up to 4 GHz, the maximum TX power is between 0 and 10 dBm. The\n"
           "frequency range with best performance is 2150 MHz to 2750 MHz.")
    assert unwrap_lines(faq).split("\n")[1:] == [
        "• 2150 MHz to 2750 MHz: 13 dBm to 15 dBm",
        "• 4000 MHz to 6000 MHz: -10 dBm to 0 dBm, generally decreasing as frequency increases",
        "Through most of the frequency range up to 4 GHz, the maximum TX power is between 0 and 10 dBm. The "
        "frequency range with best performance is 2150 MHz to 2750 MHz."]
    usage = ("[-g gain_db] # RX VGA (baseband) gain, 0-62dB, 2dB steps\n"
             "[-w bin_width] # FFT bin width (frequency resolution) in Hz, 2445-5000000\n(-1) # one shot mode")
    assert len(unwrap_lines(usage).split("\n")) == 3
    item = ("• Enhanced frequency range: The RF performance of HackRF One is better than Jawbreaker, at the\n"
            "high and low ends of the range. It is supported by the\nHackRF One firmware since release 2014.04.1.")
    assert "\n" not in unwrap_lines(item)
    # a wrapped line opening with a minus in brackets is no option
    assert "\n" not in unwrap_lines("the Anlogic map keeps the blocks of the design\n(-no -auto -block if -nobram)")


def test_a_question_for_a_shortcut_prefers_the_sentence_that_gives_the_key(embedder):
    """Asymptote's "Which key binding compiles and displays the current buffer in emacs asy-mode?" quoted
    "Users of emacs can edit Asymptote code with the mode asy-mode, ..." before the sentence that names
    "C-c C-c"; a question for a key to press prefers the sentence that gives one."""
    from mmrag_desktop.engine.answer.extractive import _carries

    hits = [Hit(chunk_id=1, doc_id=1, doc="asymptote.pdf", page=12, bbox=None, kind="text", score=0.05,
                section="1.5 Editing modes",
                text="Users of emacs can edit Asymptote code with the mode asy-mode, which is installed and enabled "
                     "by default in the Debian package. Particularly useful key bindings in this mode are C-c C-c, "
                     "which compiles and displays the current buffer, and the key binding C-c ?, which shows the "
                     "available function prototypes for the command at the cursor.")]
    blocks = pack_evidence(hits, 1000)
    chosen = select_sentences("Which key binding compiles and displays the current buffer in emacs asy-mode?",
                              blocks, embedder)
    assert chosen[0].text.startswith("Particularly useful key bindings in this mode are C-c C-c")
    assert _carries("Finish ... returns (\u27e8F8\u27e9).", "key") and _carries("Exit ddd (Ctrl+Q).", "key")
    assert not _carries("Finish Continue running until just after function in the selected stack frame returns.", "key")
    assert not _carries("The C-code generator writes ANSI C.", "key")


def test_a_screenshot_s_ocr_text_is_short_in_the_evidence(embedder):
    """DDD's manual (no set's): "How do I turn on the machine code window in DDD?" quoted a screenshot's
    OCR text ("View Program Commands Status Source Data Help ... Lookup Firidx Break Uatch Print ..."):
    the two screenshots' 300 words each left no room in the evidence for the page text they stand for
    ("To enable machine-level support, select 'Source => Display Machine Code'."). A drawing's labels
    stay quotable (a cable's pins and wire colours are what its OCR text gives)."""
    from mmrag_desktop.engine.answer.evidence import OCR_WORDS

    menus = " ".join(["View Program Commands Status Source Data Help Lookup Firidx Break Uatch Print Displey"] * 25)
    shot = Hit(chunk_id=1, doc_id=1, doc="ddd.pdf", page=155, bbox=None, kind="figure", score=0.05,
               section="8.1 Examining Machine Code", text=f"Section: 8.1 Examining Machine Code\nText in figure: {menus}")
    page = Hit(chunk_id=2, doc_id=1, doc="ddd.pdf", page=155, bbox=None, kind="text", score=0.05,
               section="8.1 Examining Machine Code",
               text="To enable machine-level support, select 'Source => Display Machine Code'. With machine code "
                    "enabled, an additional machine code window shows up.")
    blocks = pack_evidence([shot, page], 200)
    assert len(blocks) == 2 and not blocks[1].truncated  # the page text fits after the screenshot
    ocr = next(line for line in blocks[0].text.split("\n") if line.startswith("Text in figure:"))
    assert len(ocr.split()) == OCR_WORDS + 3 + 1 and ocr.endswith(" ...")
    ranked = rank_candidates("How do I turn on the machine code window?", blocks, embedder)
    assert ranked[0].block_id == 2  # the page's text, not the menus read in the screenshot
    assert "To enable machine-level support, select 'Source => Display Machine Code'." in [c.text for c in ranked]


def test_a_lead_in_is_quoted_with_the_table_of_values_under_it():
    """gputils' manual (no set's): "What ERRORLEVEL setting makes gpasm print only errors ...?" quoted
    "Sets the types of messages that are printed. Setting Affect ..." and the row of setting 0, never
    "2 Errors printed." (three words: too short to be a sentence). A lead-in is quoted with the table of
    values under it, and a short row of such a table is a candidate of its own."""
    block = one_block("ERRORLEVEL {0 | 1 | 2 | +<msgnum> | -<msgnum>}[, ...]\nSets the types of messages that are "
                      "printed.\nSetting Affect\n0 Messages, warnings and errors printed.\n1 Warnings and error "
                      "printed.\n2 Errors printed.\n-<msgnum> Inhibits the printing of message <msgnum>.",
                      "3.4.2 Directives", "gputils.pdf", 23)
    texts = [c.text for c in candidate_sentences(block)]
    assert ("Sets the types of messages that are printed. Setting Affect 0 Messages, warnings and errors printed. "
            "1 Warnings and error printed. 2 Errors printed.") in texts
    assert "2 Errors printed." in texts  # a row, however short
    lone = one_block("The answer is 2 and nothing else.\n3 Errors printed.", "Notes")
    assert "3 Errors printed." not in [c.text for c in candidate_sentences(lone)]  # no row above it


def test_a_table_cell_that_gives_what_is_asked_is_quoted_first(embedder):
    """"What frequency range does the HackRF One cover?" quoted the FAQ's "Through most of the frequency
    range up to 4 GHz, the maximum TX power is ..." before the board table's row "Board: HackRF One |
    Frequency range: 1 MHz-6 GHz | ...". For "What X does ...?" as for "What is the X ...?", a cell
    "X: value" states X."""
    from mmrag_desktop.engine.answer import extractive

    faq = Hit(chunk_id=20, doc_id=1, doc="hackrf.pdf", page=21, bbox=None, kind="text", score=0.03,
              section="4 FAQ > 4.1 What is the Transmit Power of HackRF?",
              text="Through most of the frequency range up to 4 GHz, the maximum TX power is between 0 and 10 dBm. "
                   "The frequency range with best performance is 2150 MHz to 2750 MHz.")
    table = Hit(chunk_id=31, doc_id=1, doc="hackrf.pdf", page=50, bbox=None, kind="table", score=0.029,
                section="12 libhackRF API > 12.8 Enumerations",
                text="Board | Frequency range | Sample Rate\nBoard: Jawbreaker | Frequency range: 10 MHz\u20136 GHz | "
                     "Sample Rate: 20 Msps\nBoard: HackRF One | Frequency range: 1 MHz\u20136 GHz | Sample Rate: 20 Msps")
    question = "What frequency range does the HackRF One cover?"
    first = select_sentences(question, pack_evidence([faq, table], 1000), embedder, max_sentences=3)[0]
    assert first.text.startswith("Board: HackRF One | Frequency range: 1 MHz"), first.text
    stated = extractive._states(question)
    assert stated.search("Board: HackRF One | Frequency range: 1 MHz\u20136 GHz")
    assert not stated.search("Through most of the frequency range up to 4 GHz, the maximum TX power is 10 dBm.")
    assert extractive._states("What does the FILL directive do?") is None


def test_a_table_row_with_the_question_s_words_in_their_order_is_preferred(embedder, monkeypatch):
    """CircuiTikZ's switch table (no set's): "What is the alias of the normally closed push button?"
    quoted the row of the "normally open push button closed", the same words in another order. A
    table row holding a run of three or more of the question's words in their order gains
    PHRASE_BONUS; prose does not ("seven segment display" in a sentence about the display is no
    answer to what colour its lit segments are)."""
    from mmrag_desktop.engine.answer import extractive

    rows = ("normally open push button closed: Normally open push button (in closed position), type: path-style, "
            "nodename: pushbuttoncshape. Aliases: nopbc. Class: switches.\n"
            "normally closed push button open: Normally closed push button (in open position), type: path-style, "
            "nodename: ncpushbuttonoshape. Aliases: ncpbo. Class: switches.\n"
            "normally closed push button: Normally closed push button, type: path-style, nodename: "
            "ncpushbuttonshape. Aliases: ncpb. Class: switches.")
    table = Hit(chunk_id=9, doc_id=1, doc="circuitikzmanual.pdf", page=141, bbox=None, kind="table", score=0.03,
                section="4.21 Switches, buttons and jumpers > 4.21.1 Traditional switches", text=rows)
    question = "What is the alias of the normally closed push button?"
    first = rank_candidates(question, pack_evidence([table], 1000), embedder)[0]
    assert "Aliases: ncpb." in first.text, first.text
    monkeypatch.setattr(extractive, "PHRASE_BONUS", 0.0)
    assert "Aliases: ncpb." not in rank_candidates(question, pack_evidence([table], 1000), embedder)[0].text
    assert extractive._question_phrases(question) == ["normally closed push button"]


def test_an_option_list_s_entries_are_lines_of_their_own_and_the_one_asked_for_is_quoted_first(embedder):
    """PCB's manual (no set's), its colour options: "--crosshair-color <string>" / "Color of the crosshair.
    Default: '#ff0000'". The description line, six words without a full stop, swallowed the next option's
    line, and "What is the default crosshair color?" quoted overlapping runs ("... Default: '#e5e5e5'
    --crosshair-color <string> Color of the crosshair.", then "Default: '#e5e5e5' --crosshair-color
    ..."), the entry asked for after the "--black-color" entry above it."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    colours = ("--black-color <string>\nColor value for black. Default: \u2018#000000\u2019\n"
               "--background-color <string>\nBackground color of the canvas. Default: \u2018#e5e5e5\u2019\n"
               "--crosshair-color <string>\nColor of the crosshair. Default: \u2018#ff0000\u2019\n"
               "--cross-color <string>\nColor of the cross. Default: \u2018#cdcd00\u2019")
    lines = unwrap_lines(colours).split("\n")
    assert len(lines) == 8 and lines[4] == "--crosshair-color <string>"
    block = one_block(colours, "7 Command-Line Options > 7.5 Colors", "pcb.pdf", 52)
    chosen = select_sentences("What is the default crosshair color?", block, embedder, max_sentences=3)
    assert chosen[0].text == "--crosshair-color <string> Color of the crosshair. Default: \u2018#ff0000\u2019"
    assert len({c.position for c in chosen}) == len(chosen)  # no two quotes of the same line
    # an entry whose description is a short remark is quoted once with its name
    remark = one_block("--element-color <string>\nColor of components.\nDefault: \u2018#000000\u2019", "7.5 Colors")
    assert [c.text for c in candidate_sentences(remark)] == [
        "--element-color <string> Color of components. Default: \u2018#000000\u2019"]


def test_an_entry_the_question_names_by_its_kind_is_quoted_first(embedder):
    """PCB's and OpenOCD's manuals (no set's): "What does the ToggleVendor action do?" quoted what the
    actions of the HID interface are, not "Toggles the state of automatic drill size mapping." under
    "H.1.87 ToggleVendor"; "What does the jtag names command return?" quoted the JTAG chapter's
    introduction, not the entry "jtag names [Command] Returns the names of all current TAPs ..."."""
    from mmrag_desktop.engine.search.query import entries_named

    assert entries_named("What does the ToggleVendor action do?") == ["ToggleVendor"]
    assert entries_named("What does the jtag names command return?") == ["jtag names"]
    assert entries_named("How do I draw a line?") == []
    assert entries_named("The jtag names Command: what does it return?") == ["jtag names"]
    action = Hit(chunk_id=1, doc_id=1, doc="pcb.pdf", page=159, bbox=None, kind="text", score=0.04,
                 section="Appendix H Action Reference > H.1 Core actions > H.1.87 ToggleVendor",
                 text="\ufffd\nToggleVendor()\n\ufffd\nToggles the state of automatic drill size mapping.\nWhen drill mapping is "
                      "enabled, new instances of pins and vias will have their drill holes mapped to one of the "
                      "allowed drill sizes.")
    hid = Hit(chunk_id=2, doc_id=1, doc="pcb.pdf", page=160, bbox=None, kind="text", score=0.03,
              section="Appendix H Action Reference > H.2 common actions",
              text="This is one of a number of actions which are part of the HID interface. The core functions use "
                   "these actions to tell the current GUI when to change the presented information.")
    chosen = select_sentences("What does the ToggleVendor action do?", pack_evidence([hid, action], 1000), embedder)
    # (with its synopsis, framed by glyphs without a Unicode map: session 58's _framed_synopsis)
    assert chosen[0].text.startswith("ToggleVendor() Toggles the state of automatic drill size mapping. When drill mapping")
    assert chosen[0].entry
    jtag = one_block("Most general purpose JTAG commands have been presented earlier. Lower level JTAG commands, "
                     "as presented here, may be needed to work with targets which require special attention.\n"
                     "jtag names [Command]\nReturns the names of all current TAPs in the scan chain. Use jtag cget "
                     "or jtag tapisenabled to examine attributes and state of each TAP.", "17 JTAG Commands",
                     "openocd.pdf", 73)
    chosen = select_sentences("What does the jtag names command return?", jtag, embedder)
    assert chosen[0].text == "jtag names [Command] Returns the names of all current TAPs in the scan chain."
    assert chosen[0].entry


def test_a_lead_in_to_a_list_is_quoted_with_its_items(embedder):
    """OpenOCD's manual (no set's): "Which configparam must every TAP declaration give?" quoted "Every TAP
    requires at least the following configparams:" alone, and "What are the three kinds of configuration
    file subdirectories ...?" the lead-in without "1. interface ... 2. board ... 3. target ...", the
    second and third items run together. A lead-in is quoted with the items it introduces (a short
    item with its description on the next line) as far as PAIR_WORDS allow."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines
    from mmrag_desktop.engine.answer.extractive import PAIR_WORDS, list_items

    dirs = ("Three main types of non-user configuration file each have their own subdirectory in the scripts "
            "directory:\n1. interface \u2013 one for each different debug adapter;\n2. board \u2013 one for each "
            "different board\n3. target \u2013 the chips which integrate CPUs and other JTAG TAPs\n"
            "Best case: include just two files, and they handle everything else.")
    assert unwrap_lines(dirs).split("\n")[2:4] == ["2. board \u2013 one for each different board",
                                                   "3. target \u2013 the chips which integrate CPUs and other JTAG TAPs"]
    # a wrapped line that opens with a number is no item unless a list is under way
    assert "\n" not in unwrap_lines("The output stage is drawn in the schematic of Figure\n3. The input stage follows.")
    cands = candidate_sentences(one_block(dirs, "5.4 User Config Files", "openocd.pdf", 25))
    assert cands[0].text.startswith("Three main types") and cands[0].text.endswith("and other JTAG TAPs")
    assert "1. interface" in cands[0].text and cands[0].introduces
    taps = ("Every TAP requires at least the following configparams:\n\u2022 -irlen NUMBER\nThe length in bits of "
            "the instruction register, such as 4 or 5 bits.\nA TAP may also provide optional configparams:\n"
            "\u2022 -disable (or -enable)")
    chosen = select_sentences("Which configparam must every TAP declaration give?",
                              one_block(taps, "10.3 TAP Declaration Commands", "openocd.pdf", 74), embedder)
    assert chosen[0].text == ("Every TAP requires at least the following configparams: \u2022 -irlen NUMBER The length "
                              "in bits of the instruction register, such as 4 or 5 bits.")
    many = [f"\u2022 item number {i} of a long list of things" for i in range(12)]
    assert 0 < len(list_items(many, PAIR_WORDS)) < 12  # whole items within the budget
    assert list_items(["No list here.", "\u2022 late item"], PAIR_WORDS) == []


def test_a_list_item_ending_in_a_colon_does_not_take_the_next_item_as_its_own():
    """chemplants: "• To make the confrontation easier, the standard heat exchanger biphase is:" (its drawing
    below) was quoted with the next item, "• A pic can be rotated using the rotate transformation:", as one
    sentence. An item with the same bullet is a sibling, not an item the first introduces."""
    text = ("These two are the main transformations, summarised using a heat exchanger biphase as a model.\n"
            "\u2022 To make the confrontation easier, the standard heat exchanger biphase is:\n"
            "\u2022 A pic can be rotated using the rotate transformation:\n"
            "\\pic[rotate=90] at (0,0) {heat exchanger biphase};")
    texts = [c.text for c in candidate_sentences(one_block(text, "7.1 Useful Transformations", "chemplants.pdf", 59))]
    assert not any("is: \u2022 A pic" in t for t in texts), texts
    nested = "The filter takes two options:\n\u2022 distance, in metres;\n\u2022 minangle, in degrees."
    assert any(t.startswith("The filter takes two options: \u2022 distance")
               for t in (c.text for c in candidate_sentences(one_block(nested, "Bend", "gpsbabel.pdf", 141))))


def test_an_options_entry_with_a_description_of_two_words_is_quoted(embedder):
    """GPSBabel's options list: "-D Enable debugging." (three words) was too short to quote, and "Which
    command-line switch enables debugging output?" was answered "-V Print version number." first, the
    only entry left to take the option list's bonus. An option's entry with a description of two words
    is a sentence that can answer."""
    text = ("-x filter Run filter. Position of this in the command line does matter.\n-D Enable debugging. Not all "
            "formats support this. Zero means no debugging. Larger numbers mean more debugging.\n-h Print help.\n"
            "-V Print version number.")
    chosen = select_sentences("Which command-line switch enables debugging output?",
                              one_block(text, "List of Options", "gpsbabel.pdf", 28), embedder)
    assert chosen[0].text == "-D Enable debugging.", [c.text for c in chosen]
    assert "No -D." not in [c.text for c in candidate_sentences(one_block("No -D. Two words.", "Options", "g.pdf", 28))]


def test_a_lead_in_to_a_numbered_list_of_short_items_is_quoted_with_them(embedder):
    """stanli's manual (no set's): "... at what point in the recommended drawing order should the axes
    (\\daxis) be entered?" never quoted "The following order is recommended:" with "1. Points \\dpoint" /
    "2. Beams and bars \\dbeam" / "3. Axis \\daxis" ...: the splitter sets a short item's number apart
    ("1.", "Points \\dpoint"), so no item followed the lead-in, and items of two words are no sentences.
    The numbers are joined to their items, and the next item's number left at the chunk's end dropped."""
    from mmrag_desktop.engine.answer.extractive import numbered_items

    order = ("Since TikZ displays those elements at the bottom which are entered first, it must be ensured that the "
             "elements are entered in the correct order. The following order is recommended:\n1. Points \\dpoint\n"
             "2. Beams and bars \\dbeam\n3. Axis \\daxis\n4. Supports and bearings \\dsupport\n5. Joints \\dhinge\n"
             "6. Force and moments \\dload respectively \\dlineload\n7.")
    cands = candidate_sentences(one_block(order, "5.1.2 Order and input", "stanli.pdf", 37))
    lead = next(c for c in cands if c.text.startswith("The following order is recommended:"))
    assert lead.introduces and "2. Beams and bars \\dbeam 3. Axis \\daxis 4. Supports" in lead.text, lead.text
    assert lead.text.endswith("\\dlineload"), lead.text
    chosen = select_sentences("At what point in the recommended order should the axes (\\daxis) be entered?",
                              one_block(order, "5.1.2 Order and input", "stanli.pdf", 37), embedder)
    assert any("3. Axis \\daxis" in c.text for c in chosen), [c.text for c in chosen]
    assert numbered_items(["1.", "Points", "2.", "Beams 3."]) == ["1. Points", "2. Beams"]


def test_a_hexadecimal_code_the_question_gives_is_answered_by_its_entry(embedder):
    """PCB's object flags (no set's manual): "What does flag 0x0008 mean for pads?" quoted the 0x0010,
    0x0100, 0x0200 and 0x0080 entries that mention pads; "0x0008 nopaste For pads, ..." was fifth."""
    from mmrag_desktop.engine.answer.confidence import absent_names
    from mmrag_desktop.engine.search.query import entry_codes, plan_query

    assert entry_codes(plan_query("What does flag 0x0008 mean for pads?")) == ["0x0008"]
    flags = ("0x0004 found\nIf set, this object has been found by FindConnection().\n0x0008 hole\nFor pins and vias, "
             "this flag means that the pin or via is a hole without a copper annulus.\n0x0008 nopaste\nFor pads, set "
             "to prevent a solderpaste stencil opening for the pad.\n0x0010 pininpoly\nFor pins and pads, this flag is "
             "used internally to indicate that the pin or pad overlaps a polygon on some layer.\n0x0100 square\n"
             "For pins and pads, indicates a square (vs round) pin/pad.")
    block = one_block(flags, "9 File Formats > 9.9 Object Flags", "pcb.pdf", 98)
    chosen = select_sentences("What does flag 0x0008 mean for pads?", block, embedder, max_sentences=3)
    assert chosen[0].text == "0x0008 nopaste For pads, set to prevent a solderpaste stencil opening for the pad."
    assert absent_names("What does flag 0x0800 mean for pads?", [block[0].hit]) == ["0x0800"]


def test_a_bulleted_entry_is_answered_with_the_sentence_that_tells_it_apart(embedder):
    """OpenOCD's nand write options (no set's manual): "What does the oob_softecc_kw option of nand write
    do?" quoted general NAND sentences: "• oob_softecc_kw" was no entry (its bullet), and its first
    sentence is the one oob_softecc has too; the next one tells them apart. A heading in capitals (a
    running header, "LOSSY TRANSMISSION LINES") labels no sentence."""
    text = ("\u2022 oob_softecc\nFile has only page data, which is written. The OOB area is filled with 0xff, except "
            "for a standard 1-bit software ECC code stored in conventional locations.\n\u2022 oob_softecc_kw\nFile "
            "has only page data, which is written. The OOB area is filled with 0xff, except for a 4-bit software ECC "
            "specific to the boot ROM in Marvell Kirkwood SoCs.\nYou might need to force raw access to use this mode.")
    block = one_block(text, "12.6.2 Erasing, Reading, Writing to NAND Flash", "openocd.pdf", 131)
    best = select_sentences("What does the oob_softecc_kw option of nand write do?", block, embedder)[0]
    assert best.entry and best.text == ("\u2022 oob_softecc_kw File has only page data, which is written. The OOB area "
                                        "is filled with 0xff, except for a 4-bit software ECC specific to the boot "
                                        "ROM in Marvell Kirkwood SoCs.")
    assert not is_term_line("LOSSY TRANSMISSION LINES") and is_term_line("NOSTEPLIMIT")
    cands = candidate_sentences(one_block("6.2. LOSSY TRANSMISSION LINES\nThe following types of lines have been "
                                          "implemented so far:\n\u2022 RLC (uniform transmission line),\n\u2022 RC "
                                          "(uniform RC line)", "6.2 Lossy Transmission Lines"))
    assert cands[0].text.startswith("The following types") and not cands[0].label


def test_an_acronym_counts_as_the_words_it_spells(embedder, monkeypatch):
    """OpenOCD's TAP declaration (no set's manual): "What must the two least significant bits of the
    ircapture value be?" is answered by "JTAG requires the two LSBs of this value to be 01.", which
    shares two words with the question and ranked sixth. An acronym of three to five capitals counts
    as the run of question words it spells; two letters ("AC", "LM") spell too many."""
    from mmrag_desktop.engine.answer import extractive
    from mmrag_desktop.engine.answer.confidence import content_terms
    from mmrag_desktop.engine.answer.extractive import spelled_out

    assert spelled_out("What must the two least significant bits be?")["lsb"] == set(content_terms("least significant bits"))
    assert "ac" not in spelled_out("allowed conductance")
    block = one_block("The bit pattern loaded by the TAP into the JTAG shift register on entry to the ircapture "
                      "state, such as 0x01. JTAG requires the two LSBs of this value to be 01. By default, "
                      "-ircapture and -irmask are set up to verify that two-bit value.",
                      "10.3 TAP Declaration Commands", "openocd.pdf", 74)
    question = "What must the two least significant bits of the ircapture value be?"

    def score():
        return next(c.score for c in rank_candidates(question, block, embedder) if "LSBs" in c.text)

    with_acronyms = score()
    monkeypatch.setattr(extractive, "spelled_out", lambda q: {})
    assert with_acronyms > score() + 0.2


DOT_ENTRIES = ("ground. This is disabled by default, because dot on Windows does not seem to support this out of the box.\n"
               "Warning: Depending on the platform used, enabling this option may lead to badly anti-aliased labels.\n"
               "The default value is: NO.\n"
               "DOT_MULTI_TARGETS Set the DOT_MULTI_TARGETS tag to YES to allow dot to generate multiple output files "
               "in one run. This makes dot run faster, but since only newer versions of dot (>1.8.10) support this, "
               "this feature is disabled by default.\n"
               "The default value is: NO.\n"
               "GENERATE_LEGEND If the GENERATE_LEGEND tag is set to YES doxygen will generate a legend page.\n"
               "This tag is disabled by default only when UML_LOOK is set.")


def test_sentences_of_another_entry_are_not_quoted_for_the_entry_asked(embedder):
    """Doxygen's configuration reference: "Why is DOT_MULTI_TARGETS disabled by default?" quoted "This is
    disabled by default, because dot on Windows does not seem to support this out of the box." right after
    DOT_MULTI_TARGETS' entry: the sentence ends DOT_TRANSPARENT's entry, which the chunk opened inside."""
    from mmrag_desktop.engine.answer.extractive import candidate_sentences, select_sentences

    block = one_block(DOT_ENTRIES, "23.19 Configuration options related to the dot tool", "doxygen_manual.pdf", 171)
    windows = "This is disabled by default, because dot on Windows does not seem to support this out of the box."
    legend = "This tag is disabled by default only when UML_LOOK is set."
    under = {c.text: c.under for c in candidate_sentences(block)}
    assert under[windows] == "?" and under[legend] == "GENERATE_LEGEND"  # the block opens mid-sentence
    question = "Why is DOT_MULTI_TARGETS disabled by default?"
    ranked = rank_candidates(question, block, embedder)
    assert [c.text[:27] for c in ranked if c.entry] == ["DOT_MULTI_TARGETS Set the D"]
    assert windows not in [c.text for c in ranked] and legend not in [c.text for c in ranked]
    quoted = " ".join(c.text for c in select_sentences(question, block, embedder, max_sentences=3))
    assert "dot on Windows" not in quoted and "UML_LOOK" not in quoted and "(>1.8.10)" in quoted, quoted
    # a block that opens with a whole sentence may open with a section's introduction, which stays
    intro = one_block("In addition to the preprocessor macros indicated in the tables below, the preprocessor will "
                      "define the macros __AVR and __AVR__ when compiling for an AVR target.\n"
                      "-mmcu=architecture Compile code for architecture.\n-morder1 Use an alternative register "
                      "allocation order.", "Using the GNU tools", "avr-libc-user-manual.pdf", 87)
    texts = [c.text for c in rank_candidates("Which macros are defined with -mmcu?", intro, embedder)]
    assert any(t.startswith("In addition to the preprocessor macros") for t in texts), texts
    # without the asked entry in the evidence, no sentence is another entry's
    other = one_block(DOT_ENTRIES.replace("DOT_MULTI_TARGETS", "DOT_MULTI_OUTPUT"), "", "doxygen_manual.pdf", 171)
    assert {windows, legend} <= {c.text for c in rank_candidates(question, other, embedder)}


HMMER_OPTIONS = ("--watson Only search the top strand. By default both the query sequence and its reverse-complement "
                 "are searched.\n"
                 "--crick Only search the bottom (reverse-complement) strand. By default both the query sequence and "
                 "its reverse-complement are searched.\n"
                 "--cpu <n> Set the number of parallel worker threads to <n>. On multicore machines, the default is 2. "
                 "There is also a master thread, so the actual number of threads that HMMER spawns is <n>+1.")


def test_a_part_that_names_no_option_may_ask_for_another_entry(embedder):
    """Asked in session 68 (no set's): "With nhmmscan, how do I search only the reverse-complement strand of my query,
    and how many threads does HMMER actually start if I pass --cpu 4?" of HMMER's guide quoted only "--cpu <n>"'s
    entry: the question names "--cpu", and the sentences of every other option's entry were left out, "--crick Only
    search the bottom (reverse-complement) strand." among them. A question of two parts, one of which names no option,
    asks for an entry it does not name too; a question of one part about a named option still quotes its entry alone."""
    from mmrag_desktop.engine.answer.extractive import select_sentences

    block = one_block(HMMER_OPTIONS, "nhmmscan - search DNA sequence(s) against a DNA profile database",
                      "hmmer-userguide.pdf", 137)
    question = ("With nhmmscan, how do I search only the reverse-complement strand of my query, and how many threads "
                "does HMMER actually start if I pass --cpu 4?")
    quoted = " ".join(c.text for c in select_sentences(question, block, embedder, max_sentences=3))
    assert "--crick Only search the bottom" in quoted and "<n>+1" in quoted, quoted
    one = "How many threads does HMMER actually start if I pass --cpu 4, counting the master thread?"
    texts = [c.text for c in rank_candidates(one, block, embedder)]
    assert not any("strand" in t for t in texts), texts


def test_an_entry_goes_on_after_its_first_sentence_and_a_command_keeps_its_options(embedder):
    """gEDA PCB's options: "--bg-image <string> File name of an image ..." opens its entry with a
    placeholder, and "The image must be a color PPM image, in binary (not ASCII) format." is part of it;
    Yosys's "opt_merge [options] [selection]" entry lists its own options ("-keepdc Do not merge ..."),
    which are no other entry of the kind asked for."""
    bg = one_block("--background <string> Set the background colour of the canvas.\nThe default is black.\n"
                   "--bg-image <string> File name of an image to put into the background of the GUI canvas.\n"
                   "The image must be a color PPM image, in binary (not ASCII) format.\n"
                   "--black-color <string> Color value for black.", "General GUI Options", "pcb.pdf", 14)
    texts = [c.text for c in rank_candidates("What image format does the --bg-image option need?", bg, embedder)]
    assert "The image must be a color PPM image, in binary (not ASCII) format." in texts
    assert "The default is black." not in texts  # the --background entry's
    merge = one_block("opt_merge [options] [selection]\nThis pass identifies cells with identical type and input "
                      "signals. Such cells are then merged to one cell.\n-nomux Do not merge MUX cells.\n"
                      "-keepdc Do not merge flipflops with don't-care bits in their initial value.",
                      "C.122 opt_merge - consolidate identical cells", "yosys-manual.pdf", 190)
    texts = [c.text for c in rank_candidates("What does the yosys opt_merge pass do?", merge, embedder)]
    assert "-keepdc Do not merge flipflops with don't-care bits in their initial value." in texts


def test_the_sentence_that_says_how_is_quoted_with_the_one_before(embedder):
    """Doxygen's "Getting started": "How can I see the structure of an undocumented project?" quoted "If
    you start using doxygen for an existing project ..., you can still get an idea of what the structure
    is ..." without the next sentence, "To do so, you must set the EXTRACT_ALL tag ... to YES.", which
    the embedder ranks far lower (it names no structure)."""
    block = one_block("If you start using doxygen for an existing project (thus without any documentation that "
                      "doxygen is aware of), you can still get an idea of what the structure is and how the "
                      "documented result would look like. To do so, you must set the EXTRACT_ALL tag in the "
                      "configuration file to YES. Then, doxygen will pretend everything in your sources is "
                      "documented.", "3.2 Step 1: Creating a configuration file", "doxygen_manual.pdf", 31)
    texts = [c.text for c in rank_candidates("How can I see the structure of an undocumented project?", block, embedder)]
    assert texts[0].endswith("would look like. To do so, you must set the EXTRACT_ALL tag in the configuration file "
                             "to YES."), texts


def test_how_a_default_is_changed_is_quoted_with_the_default(embedder):
    """The FAUST quick reference (session 66): "Can I pass the same buffer as input and output to compute() for in-place
    processing, and how do I make the generated code use double-precision samples?" quoted "By default the generated
    code process float type samples." and "... one cannot safely write compute( count, inputs, inputs)." without the
    sentences after them that say how: "This can be changed using the -double option ..." and "The -inpl compilation
    option can be used for that, but only in scalar mode for now." """
    block = one_block("Note that by default inputs and outputs buffers are supposed to be distinct memory zones, so one "
                      "cannot safely write compute( count, inputs, inputs). The -inpl compilation option can be used for "
                      "that, but only in scalar mode for now. By default the generated code process float type samples. "
                      "This can be changed using the -double option (or even -quad in some backends). The FAUSTFLOAT "
                      "type used in the compute method is defined in architecture files.", "6.1 Generated code",
                      "faust-quick-reference.pdf", 61)
    question = ("Can I pass the same buffer as input and output to compute() for in-place processing, and how do I make "
                "the generated code use double-precision samples?")
    texts = [c.text for c in rank_candidates(question, block, embedder)]
    assert any(t.endswith("float type samples. This can be changed using the -double option (or even -quad in some "
                          "backends).") for t in texts), texts
    assert any(t.endswith("inputs, inputs). The -inpl compilation option can be used for that, but only in scalar mode "
                          "for now.") for t in texts), texts
    # a sentence that goes on about something else is no way of doing it, nor one that says what may befall it
    for after in ("The FAUSTFLOAT type used in the compute method is defined in architecture files.",
                  "This may be disabled in some architecture files for historical reasons."):
        other = one_block(f"By default the generated code process float type samples. {after}", "6.1 Generated code",
                          "faust-quick-reference.pdf", 61)
        assert "By default the generated code process float type samples." in [
            c.text for c in rank_candidates(question, other, embedder)]


def test_a_setting_s_row_ends_with_its_default(embedder):
    """tikz-timing's list of slope settings ("timing/lslope=<0.0 - 1.0> Setting Sets slope for logic
    transitions only. Default: 0.1" / "timing/dslope=..."): the line under a row that ends with its
    default was read as a wrapped line, and "Default: 0.1" then as the term line of dslope's row; the
    answer quoted "Default: 0.1 timing/dslope=... Sets slope for data transitions." and, overlapping it,
    "Default: 0.1 timing/dslope=... Default: 0.2 timing/zslope=...". Each row is a line and a sentence of
    its own with its default; a wrapped sentence that breaks after a number goes on."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    rows = ("TikZ Key Type Description\n"
            "timing/lslope=\u27e80.0 \u2013 1.0\u27e9 Setting Sets slope for logic transitions only. Default: 0.1\n"
            "timing/dslope=\u27e80.0 \u2013 1.0\u27e9 Setting Sets slope for data transitions. Default: 0.2\n"
            "timing/zslope=\u27e80.0 \u2013 1.0\u27e9 Setting Sets slope for Z transitions. Default: 0.05")
    assert unwrap_lines(rows).split("\n") == rows.split("\n")
    sentences = split_plain(rows, newlines=True)
    assert sentences[1:3] == ["Default: 0.1", "timing/dslope=\u27e80.0 \u2013 1.0\u27e9 Setting Sets slope for data transitions."]
    table = ("timing/rowdist=<distance> Setting Sets (baseline) distance between rows in a tikztimingtable. Default: 2\n"
             "(=2\u00d7signal height)\ntiming/coldist=<distance> Setting Sets distance between columns in a tikztimingtable.")
    assert unwrap_lines(table).split("\n")[-1].startswith("timing/coldist=")  # a note ends the row above too
    assert unwrap_lines("the maximum number of rows is raised to 12\nwhen the table is wider than the page.") == \
        "the maximum number of rows is raised to 12 when the table is wider than the page."
    slopes = pack_evidence([manual_hit("tikz-timing.pdf", 126, 30, "3 TikZ Keys > Slopes", rows)], 1000)
    chosen = select_sentences("What is the default slope for data transitions in tikz-timing?", slopes, embedder,
                              max_sentences=4)
    texts = [c.text for c in chosen]
    assert "timing/dslope=\u27e80.0 \u2013 1.0\u27e9 Setting Sets slope for data transitions. Default: 0.2" in texts, texts
    assert not any(t.startswith("Default:") for t in texts), texts


def test_a_quoted_letter_is_no_name_the_pages_must_repeat():
    """"Does the width of the background characters inside an 'O' overlay count towards the total width
    of the timing line?": the answering chunk of tikz-timing's "4.3 Overlays" never writes the O alone
    (the section's first paragraph does), and "not covered" was said for a name no hit mentions."""
    from mmrag_desktop.engine.answer.confidence import absent_names

    overlays = [manual_hit("tikz-timing.pdf", 149, 37, "4 Libraries > 4.3 Overlays",
                           "Please note that the width of the first argument is ignored and does not count to the "
                           "total width of the diagram line.")]
    question = "Does the width of the background characters inside an 'O' overlay count towards the total width?"
    assert absent_names(question, overlays) == []
    assert absent_names(question.replace("'O'", "'OV'"), overlays) == ["OV"]


def test_the_sentence_that_says_how_a_problem_is_solved_is_quoted_with_the_problem(embedder):
    """The Smooth Mach Dynamics guide: "How does Smooth Mach Dynamics deal with the non-objectivity of
    time-integrating the Cauchy stress rate?" quoted "(2.19) The problem is caused by the presence of
    finite rotations in the stress rate." without "As a solution, we adopt ...": a sentence that carries
    a number (the equation's) was never paired with the one that says how; and its acknowledgements
    ("... Institute for High-Speed Dynamics, who provided the resources ...") came first."""
    from mmrag_desktop.engine.answer.evidence import pack_evidence

    thanks = ("Acknowledgements go to Prof. Dr. Stefan Hiermaier at the Fraunhofer Ernst-Mach Institute for High-Speed "
              "Dynamics, who provided the resources and motivation for developing SMOOTH MACH DYNAMICS.")
    method = ("However, the time integration of the stress rate is plagued by the problem of non-objectivity, which "
              "can be summarised by the following inequality:\n(2.19)\nThe problem is caused by the presence of finite "
              "rotations in the stress rate. As a solution, we adopt the approach detailed in [24] and "
              "time-integrate an unrotated stress rate, which is obtained by subtracting the rotation components of "
              "the current deformation state.")
    blocks = pack_evidence([manual_hit("MACHDYN_LAMMPS_userguide.pdf", 257, 1, "Smooth Mach Dynamics", thanks, 0.04),
                            manual_hit("MACHDYN_LAMMPS_userguide.pdf", 316, 8, "2.3.2 Constitutive models and time "
                                       "integration of the stress rate", method)], 1000)
    question = "How does Smooth Mach Dynamics deal with the non-objectivity of time-integrating the Cauchy stress rate?"
    texts = [c.text for c in rank_candidates(question, blocks, embedder)]
    solved = next(t for t in texts if "finite rotations" in t)
    assert solved.endswith("subtracting the rotation components of the current deformation state."), texts
    assert texts.index(solved) < texts.index(thanks), texts
    assert rank_candidates("Who do the authors acknowledge for Smooth Mach Dynamics?", blocks, embedder)[0].text == thanks


def test_a_row_that_answers_another_part_of_the_question_is_no_duplicate(embedder):
    """tikz-timing's Table 2.1: "Which timing character draws a zero-width glitch, and which one represents
    a metastable condition?" quoted the G row and left the M row out as a sibling of it (rows with the same
    columns only differ in their values); it brings two of the question's words no quote has."""
    rows = [("H", "High"), ("L", "Low"), ("Z", "High Impedance"), ("X", "Undefined / Don't Care"),
            ("M", "Metastable Condition"), ("G", "Glitch (zero width)"), ("S", "Space (nothing)")]
    table = pack_evidence([manual_hit("tikz-timing.pdf", 37, 10, "2.1 Timing Characters",
                                      "Table 2.1: Timing Characters\nCharacter | Description\n" + "\n".join(
                                          f"Character: {c} | Description: {d}" for c, d in rows), kind="table")], 1000)
    both = [c.text for c in select_sentences("Which timing character draws a zero-width glitch, and which one "
                                             "represents a metastable condition?", table, embedder, max_sentences=4)]
    assert both[:2] == ["Character: G | Description: Glitch (zero width)",
                        "Character: M | Description: Metastable Condition"], both
    one = [c.text for c in select_sentences("Which timing character draws a zero-width glitch?", table, embedder,
                                            max_sentences=4)]
    assert [t for t in one if t.startswith("Character:")] == ["Character: G | Description: Glitch (zero width)"], one


def test_the_rows_of_the_commands_a_question_names_are_quoted(embedder):
    """Grace's Table 22: "What is the difference between the PAGE SIZE and PAGE RESIZE commands, and what
    units do they take?" quoted the PAGE SIZE row alone: a first cell "PAGE RESIZE xdim, ydim" (a command in
    capitals before its arguments) was not named by the question, and the row was a sibling of the one
    chosen. Both rows are named now, and a named row is no duplicate of its sibling."""
    rows = [("PAGE SIZE xdim, ydim", "set page dimensions (in pp) of all devices"),
            ("PAGE RESIZE xdim, ydim", "same as above plus rescale the current plot accordingly"),
            ('DEVICE "devname" PAGE SIZE xdim, ydim', "set page dimensions (in pp) of device devname"),
            ('DEVICE "devname" DPI dpi', "set device's dpi (dots per pixel)"),
            ('HARDCOPY DEVICE "devname"', "set device devname as current hardcopy device")]
    table = pack_evidence([manual_hit("grace-UsersGuide.pdf", 42, 10, "6.4 Device parameters",
                                      "Table 22: Device parameters\nCommand | Description\n" + "\n".join(
                                          f"Command: {c} | Description: {d}" for c, d in rows), kind="table")], 1000)
    texts = [c.text for c in select_sentences("What is the difference between the PAGE SIZE and PAGE RESIZE "
                                              "commands, and what units do they take?", table, embedder,
                                              max_sentences=4)]
    assert texts[:2] == [f"Command: {c} | Description: {d}" for c, d in rows[:2]], texts
    # a command in capitals the question does not write names no row ("DEVICE" of "DEVICE "devname" ...")
    one = [c.text for c in select_sentences("Which command sets the page size of every device?", table, embedder,
                                            max_sentences=4)]
    assert len([t for t in one if t.startswith("Command:")]) == 1, one


def test_a_comment_box_of_a_source_file_is_no_sentence_to_quote():
    """The Smooth Mach Dynamics guide's title page prints a source file's header; "* *** Smooth Mach
    Dynamics *** * * This file is part of the USER-SMD package for LAMMPS." was the first sentence of
    the answer to "What make commands build a serial LAMMPS executable ...?"."""
    assert not is_quotable("* *** Smooth Mach Dynamics *** * * This file is part of the USER-SMD package for LAMMPS.")
    assert not is_quotable("/*** Copyright (c) 2014 Georg C. Ganzenmueller ***/ This file is part of the package.")
    assert is_quotable("The product a * b * c is computed first, and the sum after it.")


def test_a_numbered_heading_is_no_wrapped_line():
    """The Smooth Mach Dynamics guide: "This EOS is implemented for pair_style smd/tlsph" (no full stop),
    the heading "9.1.4 *EOS_TAIT" and the section's first sentence were joined into one quote, "... smd/tlsph
    9.1.4 *EOS_TAIT This a general non-linear EOS ..."; a version number in a wrapped sentence still goes on."""
    from mmrag_desktop.engine.answer.evidence import unwrap_lines

    text = ("This EOS is implemented for pair_style smd/tlsph\n9.1.4 *EOS_TAIT\n"
            "This a general non-linear EOS which neglects thermal effects.")
    assert unwrap_lines(text) == text
    assert not is_term_line("9.1.4 *EOS_TAIT")  # and it is no term line the sentence after it is quoted with
    assert unwrap_lines("It needs a relatively recent version of the compiler, which is\n3.4.4 or later, and a linker.") \
        == "It needs a relatively recent version of the compiler, which is 3.4.4 or later, and a linker."


def test_a_row_whose_first_cell_lists_the_model_asked_is_quoted_first(embedder):
    """The Aprx manual's init-string table: asked "What init-string should I configure to switch a
    Kantronics KPC3 TNC into KISS mode?", the answer quoted the row of the KPC3+ ("DO NOT USE. The firmware
    has broken KISS.", the word KISS in it) instead of "Kantronics KPC3, Kantronics KAM Plus"'s own."""
    from mmrag_desktop.engine.answer import extractive

    table = ("TNC model | Init-string content\n"
             'TNC model: TNC2 | Init-string content: "\\x0dKISS ON\\x0dRESET\\x0d"\n'
             'TNC model: Kantronics KPC3, Kantronics KAM Plus | Init-string content: "\\x0dINTFACE KISS\\x0dRESET\\x0d"\n'
             "TNC model: Kantronics KPC3+ | Init-string content: DO NOT USE. The firmware has broken KISS.\n"
             'TNC model: uTNT+ | Init-string content: "\\x0dKISS ON\\x0d"')
    blocks = one_block(table, "3.6.2 Serial port init-strings", "aprx-manual.pdf", 22, kind="table")
    question = "What init-string should I configure to switch a Kantronics KPC3 TNC into KISS mode?"
    ranked = rank_candidates(question, blocks, embedder)
    assert ranked[0].text.startswith("TNC model: Kantronics KPC3, Kantronics KAM Plus |"), [c.text for c in ranked[:3]]
    bonus = extractive.ROW_KEY_BONUS
    try:
        extractive.ROW_KEY_BONUS = 0.0
        assert not rank_candidates(question, blocks, embedder)[0].text.startswith("TNC model: Kantronics KPC3,")
    finally:
        extractive.ROW_KEY_BONUS = bonus
    # asked about the KPC3+, its own row
    plus = rank_candidates(question.replace("KPC3 TNC", "KPC3+ TNC"), blocks, embedder)
    assert plus[0].text.startswith("TNC model: Kantronics KPC3+ |"), [c.text for c in plus[:3]]


def test_a_listing_closing_tag_is_no_term_of_the_sentence_after_it():
    """Aprx's "<interface>" ... "</interface>" listings, then prose: "</interface> The callsign parameter
    must be valid AX.25 callsign ..." was quoted with the closing tag as if it were the entry's name."""
    assert not is_term_line("</interface>") and not is_term_line("</digipeater>")
    text = ("<interface>\nax25-device callsign\ntx-ok boolean\n</interface>\nThe callsign parameter must be valid "
            "AX.25 callsign as it refers to Linux kernel AX.25\ndevice callsigns.")
    blocks = one_block(text, "3.6.9 Linux AX25-DEVICE", "aprx-manual.pdf", 28)
    texts = [c.text for c in candidate_sentences(blocks)]
    assert ("The callsign parameter must be valid AX.25 callsign as it refers to Linux kernel AX.25 device "
            "callsigns.") in texts, texts


def test_an_attribute_asked_for_is_a_name(embedder):
    """dotguide.pdf p14: "Which attribute makes the graph flow left to right instead of top to bottom ...?"
    quoted "Sometimes it is natural to make edges point from left to right ..." and the default, never
    "If rankdir=LR in the top-level graph, the drawing is rotated in this way.": an attribute is a name."""
    from mmrag_desktop.engine.answer.extractive import _asked_kind

    assert _asked_kind("Which attribute makes the graph flow left to right?") == "name"
    assert _asked_kind("What property holds the node's colour?") == "name"
    text = ("Sometimes it is natural to make edges point from left to right instead of from top to bottom. If "
            "rankdir=LR in the top-level graph, the drawing is rotated in this way. TB (top to bottom) is the "
            "default. The mode rankdir=BT is useful for drawing upward-directed graphs.\nIf center=true and the "
            "graph can be output on one page, using the default page size of 8.5 by 11 inches if page is not "
            "set, the graph is repositioned to be centered on that page.")
    blocks = one_block(text, "2.5 Drawing Orientation, Size and Spacing", "dotguide.pdf", 14)
    question = "Which attribute makes the graph flow left to right instead of top to bottom, and what is the default direction?"
    chosen = select_sentences(question, blocks, embedder)
    assert any("rankdir=LR" in c.text for c in chosen), [c.text for c in chosen]


def test_a_figures_ocr_text_is_no_wrapped_line_of_its_section_line():
    """MCU 8051 IDE's Figure 3.25, a screenshot of a hex editor under a section titled with a sentence
    ("In this IDE there are several hexadecimal editors used for various"): the "Section: ..." line and
    "Text in figure: ..." were joined as one wrapped line, the OCR text was no longer known as such, and
    the answer quoted "6059 8859 0070 Find Teal to find 0099 Wher Optiara ..." as a sentence."""
    text = ("Figure 3.25: MCU code memory editor\n"
            "Section: In this IDE there are several hexadecimal editors used for various\n"
            "Text in figure: Comemoryte-HouSo51OL Ele Eet Mode HEX 885989 1C 51 IDE! 6059 8859 0070 Find Teal to "
            "find 0099 Wher Optiara 8888 Lofvlow From-cuor LCALL unedher Curmari")
    blocks = one_block(text, "3.5.12 Hexadecimal editors", "mcu8051ide.en.pdf", 31, kind="figure")
    texts = [c.text for c in candidate_sentences(blocks)]
    assert "Figure 3.25: MCU code memory editor" in texts
    assert not any("Optiara" in t for t in texts), texts


def test_a_logical_level_written_log_dot_is_no_sentence_end():
    """MCU 8051 IDE's wire colours: "(GREEN == log. 0; RED == log. 1; GRAY == not connected, etc.)" was cut
    after each "log.", and the answer showed "(GREEN == log." [1] "1; GRAY == not connected, etc.)": read
    together, green is a logical one, the opposite of the manual."""
    text = ("All wires connected to specific GPIO lines are colored according to the voltage level present on "
            "them (GREEN == log. 0; RED == log. 1; GRAY == not connected, etc.) The keys are drawn in gray.")
    assert split_plain(text) == [text[:text.index(" The keys")], "The keys are drawn in gray."]
    assert split_plain("Write the result to the log. The next run appends to it.") == [
        "Write the result to the log.", "The next run appends to it."]


def test_an_instruction_row_without_column_names_is_quotable_and_named_by_its_mnemonic(embedder):
    """MCU 8051 IDE's instruction tables (Table D.1): on page 90 the rows carry no column names ("0xC4 |
    SWAP | A | 1 | 1"), and the rule against runs of a figure's bare labels dropped every one of them;
    "What opcode does SWAP A assemble to ...?" quoted XRL and ORL rows of page 89 instead."""
    from mmrag_desktop.engine.answer import extractive

    assert is_quotable("0xC4 | SWAP | A | 1 | 1")
    assert not is_quotable("4 5 3 6 2 7 1 8 Dual-in-Line")  # a figure's labels still are not
    table = ("Opcode | Mnemonic | Operands | Bytes | Flags | Cycles\n0xC2 | CLR | bit | 2 | 1\n"
             "0xC3 | CLR | C | 1 | CY | 1\n0xC4 | SWAP | A | 1 | 1\n0xC5 | XCH | A data | 2 | P | 1")
    named = ("Opcode | Mnemonic | Operands | Bytes | Flags Cycles\n"
             "Opcode: 0x6C | Mnemonic: XRL | Operands: A R4 | Bytes: 1 | Flags Cycles: P 1\n"
             "Opcode: 0x6D | Mnemonic: XRL | Operands: A R5 | Bytes: 1 | Flags Cycles: P 1\n"
             "Opcode: 0x4F | Mnemonic: ORL | Operands: A R7 | Bytes: 1 | Flags Cycles: P 1")
    section = "8051 Instructions in numerical Order"
    blocks = pack_evidence([manual_hit("mcu8051ide.en.pdf", 1, 90, section, table, 0.05, kind="table"),
                            manual_hit("mcu8051ide.en.pdf", 2, 89, section, named, 0.04, kind="table")], 1000)
    question = "What opcode does SWAP A assemble to, and how many cycles does it take?"

    def scores():
        return {c.text: c.score for c in rank_candidates(question, blocks, embedder)}

    with_bonus = scores()
    assert "0xC4 | SWAP | A | 1 | 1" in [c.text for c in select_sentences(question, blocks, embedder)]
    bonus = extractive.ROW_KEY_BONUS
    try:
        extractive.ROW_KEY_BONUS = 0.0
        without = scores()
    finally:
        extractive.ROW_KEY_BONUS = bonus
    # the row whose cell is the mnemonic asked gains the bonus, the others nothing (in the manual's
    # evidence, eight blocks, it decided whether the SWAP row was quoted at all)
    assert with_bonus["0xC4 | SWAP | A | 1 | 1"] - without["0xC4 | SWAP | A | 1 | 1"] == pytest.approx(bonus)
    assert with_bonus["0xC2 | CLR | bit | 2 | 1"] == pytest.approx(without["0xC2 | CLR | bit | 2 | 1"])
    assert with_bonus["Opcode: 0x6C | Mnemonic: XRL | Operands: A R4 | Bytes: 1 | Flags Cycles: P 1"] == pytest.approx(
        without["Opcode: 0x6C | Mnemonic: XRL | Operands: A R4 | Bytes: 1 | Flags Cycles: P 1"])


def test_a_list_of_names_with_their_codes_is_quoted_line_by_line(embedder):
    """GLE's font list ("PostScript Bookman-DemiItalic (psbdi)", a line per font): three words were too
    few to be a sentence, so "What is GLE's short font name for PostScript Bookman Demi Italic?" quoted
    the lines of another page that the PDF had set two to a line; and each line was the term line of the
    next, quoted two at a time."""
    fonts = ("PostScript Bookman-Light (psbl)\nPostScript Bookman-LightItalic (psbli)\n"
             "PostScript NewCenturySchlbk-Roman (psncsr)\nPostScript Bookman-Demi (psbd)\n"
             "PostScript Bookman-DemiItalic (psbdi)")
    blocks = one_block(fonts, "Font Tables", "gle-manual.pdf", 104)
    texts = [c.text for c in candidate_sentences(blocks)]
    assert "PostScript Bookman-DemiItalic (psbdi)" in texts, texts
    assert not any(t.count("(") > 1 for t in texts), texts
    chosen = [c.text for c in select_sentences("What is GLE's short font name for PostScript Bookman Demi Italic?",
                                               blocks, embedder)]
    assert "PostScript Bookman-DemiItalic (psbdi)" in chosen, chosen
    # a name alone with its code, no list around it, is no sentence
    lone = pack_evidence([Hit(chunk_id=2, doc_id=1, doc="gle-manual.pdf", page=5, bbox=None, kind="text", score=0.05,
                              text="The output goes to the printer.\nPostScript Times-Bold (pstb)\nThat is all.",
                              section="Fonts")], 1000)
    assert "PostScript Times-Bold (pstb)" not in [c.text for c in candidate_sentences(lone)]


def test_a_row_key_capitalised_as_a_cell_begins_is_the_word_asked(embedder):
    """MCU 8051 IDE's Table 4.1: "Which suffix letters mark an octal constant ...?" -- the row's key is
    "Octal", capitalised as a cell begins; the word is the question's (an ALL-CAPS "LENGTH" is still no
    "length", test above)."""
    from mmrag_desktop.engine.answer import extractive

    table = ("Table 4.1: Radix specifiers\nConstant type | Allowed digits | Radix specifier\n"
             "Constant type: Binary | Allowed digits: 0 .. 1 | Radix specifier: B\n"
             "Constant type: Octal | Allowed digits: 0 .. 7 | Radix specifier: O or Q\n"
             "Constant type: Decimal | Allowed digits: 0 .. 9 | Radix specifier: D or none")
    blocks = one_block(table, "4.3 Constants", "mcu8051ide.en.pdf", 41, kind="table")
    question = "Which suffix letters mark an octal constant in the built-in assembler?"
    octal = "Constant type: Octal | Allowed digits: 0 .. 7 | Radix specifier: O or Q"

    def score(row):
        return next(c.score for c in rank_candidates(question, blocks, embedder) if c.text == row)

    with_bonus = score(octal)
    bonus = extractive.ROW_KEY_BONUS
    try:
        extractive.ROW_KEY_BONUS = 0.0
        assert with_bonus - score(octal) == pytest.approx(bonus)
    finally:
        extractive.ROW_KEY_BONUS = bonus
    assert rank_candidates(question, blocks, embedder)[0].text == octal


def test_a_name_joining_the_questions_words_in_their_order_carries_them(embedder):
    """NETGEN's nglib result codes: "What numeric result codes does nglib return for an STL input error
    and for a volume meshing failure?" is answered by "NG_VOLUME_FAILURE = 2, NG_STL_INPUT_ERROR = 3",
    whose words are joined by underscores: none counted as a word of the question and the line ranked
    below the library's description. A name's words that stand side by side in the question count; the
    words of a name that the question only scatters do not (LD_LIBRARY_PATH for "library" and "user")."""
    from mmrag_desktop.engine.answer.extractive import _phrase_in_name

    text = ("The functionality of nglib is volume mesh generation by a domain given by a surface triangulation, "
            "and surface mesh generation from a domain described by an STL file.\n"
            "enum Ng_Result { NG_OK = 0, NG_SURFACE_INPUT_ERROR = 1, NG_VOLUME_FAILURE = 2, NG_STL_INPUT_ERROR = 3, "
            "NG_SURFACE_FAILURE = 4 };")
    best = rank_candidates("What numeric result codes does nglib return for an STL input error and for a volume "
                           "meshing failure?", one_block(text, "5 Nglib", "ng4.pdf", 36), embedder)[0]
    assert "NG_STL_INPUT_ERROR = 3" in best.text, best.text
    from itertools import pairwise

    from mmrag_desktop.engine.answer.confidence import content_terms

    def pairs(question: str) -> set[tuple[str, str]]:
        words = content_terms(question)
        return set(pairwise(words))

    assert _phrase_in_name("ld_library_path", pairs("Which library does a user set?")) == set()
    # two words are a parameter the question names, not a phrase of it (LAMMPS's "pair_coeff <i> <j>
    # contact_stiffness" is no better an answer to "How large should the contact stiffness be?" than "A
    # good choice for the contact stiffness is approximately one tenth to one half of ...")
    assert _phrase_in_name("contact_stiffness", pairs("How large should the contact stiffness be?")) == set()
    assert _phrase_in_name("r_library_search_path", pairs("the library search path")) == set(
        content_terms("library search path"))
    # and in camel case: "Ng_RestrictMeshSizeBox" for "how do I restrict the mesh size inside a box"
    assert _phrase_in_name("Ng_RestrictMeshSizeBox", pairs("How do I restrict the mesh size inside a box?")) == set(
        content_terms("restrict mesh size"))


def test_a_place_in_a_file_is_no_file_asked_for():
    """"Where in a flex input file am I not allowed to put C-style comments?" asks for a place in the
    file: taken for a file (or a name) asked for, the sentences that carry one ("/* a comment */
    do_my_thing( ...") were lifted over the ones that say where comments may not go."""
    assert _asked_kind("Where in a flex input file am I not allowed to put C-style comments?") == ""
    assert _asked_kind("Where does gnuplot write the fit log?") == "file"
    assert _asked_kind("Where is the startup file kept?") == "file"


FLEX_COMMENTS = [
    "Flex supports C-style comments, that is, anything between '/*' and '*/' is considered a comment.",
    "Whenever flex encounters a comment, it copies the entire comment verbatim to the generated source code.",
    "Comments may appear just about anywhere, but with the following exceptions:",
    "Comments may not appear in the Rules Section wherever flex is expecting a regular expression.",
    "This means comments may not appear at the beginning of a line, or immediately following a list of scanner states.",
    "Comments may not appear on an '%option' line in the Definitions Section.",
    "If you want to follow a simple rule, then always begin a comment on a new line, with one or more whitespace "
    "characters before the initial '/*'.",
    "This rule will work anywhere in the input file.",
]


def test_a_question_for_what_is_not_allowed_is_answered_by_what_forbids(embedder):
    """flex's comments: the embedder reads "Comments may not appear on an '%option' line" like "Flex
    supports C-style comments": for "... am I not allowed to put C-style comments?" the sentences that
    allow were quoted before the ones that forbid."""
    block = one_block("\n".join(FLEX_COMMENTS), "5.4 Comments in the Input", "flex.pdf", 14)
    q = "Where in a flex input file am I not allowed to put C-style comments?"
    chosen = select_sentences(q, block, embedder, max_sentences=3)
    assert sum("may not" in c.text for c in chosen) >= 2, [c.text for c in chosen]
    allowed = select_sentences("Where in a flex input file can I put C-style comments?", block, embedder, max_sentences=3)
    assert sum("may not" in c.text for c in allowed) < 2, [c.text for c in allowed]


def test_advice_asked_for_is_answered_by_the_sentence_that_gives_it(embedder):
    """NETGEN's IGES/STEP import: "... what does the manual suggest?" was answered by what IGES and STEP
    are and how to build with OpenCascade; the advice ("So is meshing fails, try repairing the model via
    IGES/STEP Topology Explorer/Doctor.", the manual's words) came fifth."""
    blocks = pack_evidence([
        manual_hit("ng4.pdf", 986, 17, "Other Geometry Formats > 3.1 Using IGES/STEP Geometries",
                   "IGES and STEP are standard exchange formats for CAD files. Contrary to the\n"
                   "STL format, IGES and STEP deliver an exact representation of the geometry\n"
                   "and do not approximate it. In order to use IGES/STEP geometries you have to\n"
                   "install NETGEN with the OpenCascade Geometry Kernel as described in 1.4.3.\n"
                   "Most solid modellers can export IGES or STEP files. However, often these files\n"
                   "are not as exact as a mesher needs them to be. So is meshing fails, try repairing\n"
                   "the model via IGES/STEP Topology Explorer/Doctor."),
        manual_hit("ng4.pdf", 947, 7, "Getting Started > 1.4 Installing NETGEN > 1.4.3 Adding IGES/STEP file support",
                   "NETGEN is capable of importing IGES and STEP geometry files. If you want to\n"
                   "use this functionality you have the add the OpenCascade library to your NET-\n"
                   "GEN distribution.\n"
                   "To compile NETGEN with OpenCascade for Windows just choose the project\n"
                   "settings \u201cRelease (OCC)\u201d and adjust the proper search paths.", 0.02)], 1000)
    q = "Netgen fails to mesh a STEP file exported from my CAD program; what does the manual suggest?"
    ranked = [c.text for c in rank_candidates(q, blocks, embedder)]
    assert any(t.startswith("So is meshing fails, try") for t in ranked[:3]), ranked


def test_the_manuals_own_question_is_answered_by_the_sentence_after_it(embedder):
    """flex's FAQ mails: "Which of these two are better: [Ff]oot or (F|f)oot ?" is asked in the manual
    and answered right after it ("From a performance point of view, they're equivalent ..."), which
    shares no word with "Is there any speed difference between writing [Ff]oot and (F|f)oot ...": the
    answer ranked below sentences about trailing context that name the patterns."""
    text = ("> 2. Which of these two are better: [Ff]oot or (F|f)oot ?\n"
            "From a performance point of view, they're equivalent (modulo presumably minor effects such as "
            "memory cache hit rates).\n"
            "Use of the '|' operator automatically makes the pattern variable length, so in this case '[Ff]oot' is "
            "preferred to '(F|f)oot' as trailing context.\n"
            "There is no performance penalty for rules that can not possibly match newlines.")
    q = "Is there any speed difference between writing [Ff]oot and (F|f)oot in a flex rule?"
    ranked = rank_candidates(q, one_block(text, "FAQ > unnamed-faq-62", "flex.pdf", 93), embedder)
    order = [c.text[:20] for c in ranked]
    answer = next(i for i, c in enumerate(ranked) if c.text.startswith("From a performance"))
    assert answer <= 1, order


def test_a_way_to_run_from_the_command_line_asks_for_an_option(embedder):
    """NETGEN's batch mode: "How do I run netgen from the command line so that it generates the mesh, saves
    it to a file and exits without opening the GUI?" asks for its command-line options ("-batchmode Exit
    after mesh generation."), which ranked below what NETGEN is and its window's buttons. And "what am I
    forgetting to call?" asks for a name (a function: yylex_destroy())."""
    q = ("How do I run netgen from the command line so that it generates the mesh, saves it to a file and exits "
         "without opening the GUI?")
    assert _asked_kind(q) == "option"
    assert _asked_kind("My flex scanner leaks 16 KB; what am I forgetting to call?") == "name"
    assert _asked_kind("How do I quit netgen?") == ""
    blocks = pack_evidence([
        manual_hit("ng4.pdf", 1, 23, "5 Netgen operations > 5.1 Command line arguments",
                   "You can use netgen in interactive mode using its menus, or, you can run netgen\n"
                   "in batch-mode using command line arguments."),
        manual_hit("ng4.pdf", 2, 5, "1 Getting Started > 1.1 What is NETGEN",
                   "NETGEN is an automatic mesh generation tool for two and three dimensions.\n"
                   "Netgen generates triangular or quadrilateral meshes in 2D, and tetrahedral meshes in 3D.", 0.025),
        manual_hit("ng4.pdf", 3, 23, "5 Netgen operations > 5.1 Command line arguments",
                   "Command line arguments are specified as -flag=value.\n\u2022 -help\nPrints the available command "
                   "line arguments\n\u2022 -geofile=filename\nSpecifies geometry file.\n\u2022 -meshfile=filename\n"
                   "Mesh file will be stored in file filename.\n\u2022 -batchmode\nExit after mesh generation. "
                   "Otherwise, the GUI will be started", 0.02)], 1000)
    chosen = [c.text for c in select_sentences(q, blocks, embedder, max_sentences=4)]
    assert any("-batchmode" in t for t in chosen), chosen



def test_an_extension_asked_for_is_a_file_name(embedder):
    """NETGEN's mesh size file: "What extension must a Netgen mesh size file have, ...?" asks for a file's
    name ("The file extension must be .msz."), which ranked below sentences about mesh sizes."""
    assert _asked_kind("What extension must a Netgen mesh size file have?") == "file"
    assert _asked_kind("Which file extension does gnuplot give its output?") == "file"
    assert _asked_kind("What does the extension do?") != "file"
    text = ("By means of a mesh size file you can provide a local mesh size density. The file extension must be "
            ".msz. If you want to use the mesh size file, you specify it in the Meshing Options dialog box, page "
            "Mesh Size.")
    blocks = pack_evidence([
        manual_hit("ng4.pdf", 1, 19, "4 Mesh and Solution Formats > 4.3 Mesh Size File Format", text),
        manual_hit("ng4.pdf", 2, 38, "A Nglib > Mesh Generation", "The user can specify the mesh size function by the "
                   "global parameter maximal mesh size, and can additionally restrict the mesh size in points or "
                   "cubes.", 0.025),
        manual_hit("ng4.pdf", 3, 5, "1 Getting Started", "The input for 2D is described by spline curves, and the input "
                   "for 3D problems is either defined by constructive solid geometries (CSG) or by the standard STL "
                   "file format.", 0.02)], 1000)
    chosen = [c.text for c in select_sentences("What extension must a Netgen mesh size file have, and what does each "
                                               "point entry in it specify?", blocks, embedder, max_sentences=2)]
    assert any(".msz" in t for t in chosen), chosen


def test_a_note_in_brackets_after_a_full_stop_is_its_sentences():
    """FreeDV's release notes (no set's): "• Fixed TX audio dropouts when using different sample rates. (PR #287)" /
    "• Remove sample rates above 48K from audio configuration. (PR #288)": the note was split from its item
    and read as the term of the next, and the answer quoted "(PR #287) • Remove sample rates above 48K ...",
    the wrong pull request. A note in brackets after a sentence's final punctuation is that sentence's."""
    text = ("2. Bugfixes:\n\u2022 Add missed UI disable on startup for 2020B mode. (PR #279)\n"
            "\u2022 Fixed TX audio dropouts when using different sample rates. (PR #287)\n"
            "\u2022 Remove sample rates above 48K from audio configuration. (PR #288)")
    texts = [c.text for c in candidate_sentences(one_block(text, "16.4 V1.8.4 October 2022", "freedv.pdf", 20))]
    assert "\u2022 Remove sample rates above 48K from audio configuration. (PR #288)" in texts, texts
    assert "\u2022 Fixed TX audio dropouts when using different sample rates. (PR #287)" in texts, texts
    assert not any(t.startswith("(PR") for t in texts), texts
    # a list's enumerator in brackets opens its item
    listed = "The options are these.\n(a)\nThe first option sets the width of the pulse in microseconds."
    assert any(t.startswith("The first option") for t in (c.text for c in candidate_sentences(one_block(listed))))


def test_a_later_chunk_of_an_entry_does_not_define_it(embedder):
    """Asked in session 64 (no set's) of the ngspice 39 manual: "How can I make a .param value available as a vector in
    my .control section ...?" quoted "Parameters may also have string values, but support is limited." first: the first
    sentence of prose of the .param line section's fifth chunk took the defining sentence's bonus, as if it opened the
    entry. A chunk with prose above it in its section (`Hit.prose_above`, set by the answer pipeline) defines nothing."""
    text = ("Parameters may also have string values, but support is limited.\n"
            "A parameter's value is fixed when the netlist is parsed and a vector of it is made by another command.")
    section = "2 Circuit Description > 2.9 .PARAM Parametric netlists > 2.9.1 .param line"
    question = "How can I make a .param value available as a vector in my .control section?"
    first = rank_candidates(question, one_block(text, section, "ngspice.pdf", 59), embedder)
    later = pack_evidence([replace(one_block(text, section, "ngspice.pdf", 59)[0].hit, prose_above=True)], 1000)
    ranked = rank_candidates(question, later, embedder)
    score = {c.text: c.score for c in first}
    assert first[0].text.startswith("Parameters may also have string values") and first[0].entry
    assert not any(c.entry for c in ranked)
    assert {c.text: c.score for c in ranked}[first[0].text] < score[first[0].text] - 0.5


def _has_chunk(library, chunk_id: int) -> bool:
    from mmrag_desktop.engine.errors import LibraryError

    try:
        library.chunk(chunk_id)
    except LibraryError:
        return False
    return True


def test_the_pipeline_tells_a_section_s_first_chunk_from_its_later_ones(library, tmp_path):
    import pymupdf

    from mmrag_desktop.engine.answer.pipeline import _lines_above

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 70), "2.9.1 The param line", fontsize=16)
    y = 100
    for i in range(30):
        page.insert_text((57, y), f"Sentence {i} of the entry says what the param line does with value number {i}.",
                         fontsize=10)
        y += 14
    page.insert_text((57, y + 20), "2.9.2 The csparam line", fontsize=16)
    page.insert_text((57, y + 50), "The csparam line makes a constant vector of a parameter.", fontsize=10)
    doc.save(tmp_path / "n.pdf")
    doc.close()
    assert [e.stage for e in library.add([tmp_path / "n.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    # (one hit per page: the section's chunks taken as hits, as the answer's search may find any of them)
    rows = [library.chunk(i) for i in range(1, 40) if _has_chunk(library, i)]  # (a new library's ids start at 1)
    hits = [Hit(chunk_id=r["id"], doc_id=r["doc_id"], doc="n.pdf", page=r["page"], bbox=None, kind=r["kind"],
                score=0.0, text=r["text"], section=r["section"]) for r in rows if r["kind"] == "text"]
    _lines_above(library, hits)
    entry = sorted((h for h in hits if h.section.endswith("The param line")), key=lambda h: h.chunk_id)
    assert len(entry) >= 2, [(h.chunk_id, h.section) for h in hits]
    assert not entry[0].prose_above and all(h.prose_above for h in entry[1:]), [(h.chunk_id, h.prose_above)
                                                                               for h in entry]
    other = [h for h in hits if h.section.endswith("The csparam line")]
    assert other and not any(h.prose_above for h in other), "a new section's first chunk"


def test_the_last_row_of_a_list_is_no_term_of_the_paragraph_below_it():
    """UMFPACK's table of sys values, printed without rules (session 65): "For which sys values does umfpack_solve do
    iterative refinement ...?" quoted "UMFPACK_Uat U.’x=b Iterative refinement can be optionally performed when ...":
    the table's last row was read as the term of a definition list whose description the paragraph below it was."""
    text = ("UMFPACK_Q_Uat QU.’x=b UMFPACK_Ut U’x=b\nUMFPACK_Uat U.’x=b\nIterative refinement can be optionally "
            "performed when sys is any of\nthe following:\nUMFPACK_A Ax=b\nUMFPACK_At A’x=b\nUMFPACK_Aat A.’x=b\n"
            "For the other values of the sys argument, iterative refinement is not\nperformed (Control "
            "[UMFPACK_IRSTEP], Ap, Ai, Ax, and Az are ignored).")
    cands = {c.text: c for c in candidate_sentences(one_block(text, "umfpack_*_solve", "UMFPACK.pdf", 58))}
    lead = next(c for t, c in cands.items() if t.startswith("Iterative refinement can be optionally performed"))
    after = next(c for t, c in cands.items() if t.startswith("For the other values of the sys argument"))
    assert lead.label == "" and after.label == "", (lead.label, after.label)
    # one term line above a description is still its term
    single = candidate_sentences(one_block("FIT_LOG\nSets the name of the log file the fit command writes.", "fit"))
    assert single[0].label == "FIT_LOG", single
