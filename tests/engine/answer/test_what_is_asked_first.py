"""Session 48: the sentence a reader sees first should state what is asked. From the dev set (a later sentence stated
the fact): a table row whose first cell the question writes ("Threads: 8" for "... with 8 threads"), a default asked
for in other words ("... assumed when none is given"), a figure's caption in a block of its own; from Bacula's console
manual: the URLs a question asks for. Texts from the ngspice, Octave and Bacula manuals; real MiniLM embedder."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import (
    _ASKS_DEFAULT,
    _STATES_DEFAULT,
    _asked_kind,
    rank_candidates,
)
from mmrag_desktop.engine.hits import Hit


def hit(text: str, *, kind: str = "text", chunk_id: int = 1, page: int = 10, section: str = "") -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc="ngspice-manual.pdf", page=page, bbox=(72.0, 100.0, 500.0, 300.0),
               kind=kind, score=0.03, text=text, section=section)


THREADS = ("Table 16.1: OpenMP performance\n"
           "Threads | CPU time [s] | CPU time [s]\n"
           "CPU time [s]: Windows | CPU time [s]: Linux\n"
           "Threads: 1 | CPU time [s]: 65.4 | CPU time [s]: 69.3\n"
           "Threads: 6 | CPU time [s]: 33.6 | CPU time [s]: 33.6\n"
           "Threads: 8 | CPU time [s]: 32.4 | CPU time [s]: 32.4\n"
           "Threads: 12 | CPU time [s]: 35.7 | CPU time [s]: 31.7")
OPENMP = ("All other transistor models run as usual (without multithreading support).\nIf you run ./configure without "
          "--enable-openmp, you will get only the standard, not paralleled BSIM3 and BSIM4 models. If OpenMP is "
          "selected and the number of threads set to 1, there will be only a very slight CPU time disadvantage (typ. "
          "3%) compared to the old, non OpenMP build.")


def test_the_row_whose_first_cell_the_question_writes_comes_before_prose(embedder):
    """"CPU time of the OpenMP benchmark with 8 threads on Linux" was answered first by the prose about one thread;
    the row "Threads: 8 | ... 32.4" came third (its first cell, "8", is no word of two letters)."""
    section = "Chapter 16 > 16.10 Ngspice on multi-core processors using OpenMP > 16.10."
    blocks = pack_evidence([hit(THREADS, kind="table", chunk_id=2, page=347, section=section + "3 Some results"),
                            hit(OPENMP, chunk_id=3, page=348, section=section + "4 Usage")], 1000)
    best = rank_candidates("CPU time of the OpenMP benchmark with 8 threads on Linux", blocks, embedder)[0]
    assert best.text.startswith("Threads: 8 |"), best.text
    # written in symbols, the cell needs no column name: Octave's "[a, b]" row of its overloading table
    ops = ("Operation | Method | Description\n"
           "Operation: [a, b] | Method: horzcat (a, b) | Description: Horizontal concatenation\n"
           "Operation: [a; b] | Method: vertcat (a, b) | Description: Vertical concatenation")
    lead = ("The following table shows, for each built-in numerical operation, the corresponding function name to use "
            "when providing an overloaded method for a user class.")
    blocks = pack_evidence([hit(lead, chunk_id=4), hit(ops, kind="table", chunk_id=5)], 1000)
    best = rank_candidates("overloaded method name for horizontal concatenation [a, b] of objects", blocks, embedder)[0]
    assert best.text.startswith("Operation: [a, b] |"), best.text


def test_a_bare_number_of_another_column_names_no_row(embedder):
    """"8" is written, but neither as the column says ("Size") nor in symbols: no row is lifted by it."""
    sizes = "Size | Name\nSize: 8 | Name: byte\nSize: 16 | Name: halfword"
    blocks = pack_evidence([hit(sizes, kind="table", chunk_id=2), hit(OPENMP, chunk_id=3)], 1000)
    ranked = rank_candidates("CPU time of the OpenMP benchmark with 8 threads", blocks, embedder)
    assert not ranked[0].text.startswith("Size:"), ranked[0].text
    assert not any(c.named for c in ranked if c.text.startswith("Size: 8"))


def test_a_default_asked_for_in_other_words():
    for q in ("what circuit temperature is assumed when none is given",
              "which integration method does transient analysis use unless I change it",
              "What font does dot use for labels if I don't set any?", "what is the default radix",
              # BIRD's (s53): the field "Default: adaptive, ..." under "gc period time"
              "How often does BIRD run garbage collection if I leave the gc period unset?",
              "If I don't configure a router ID, which address does BIRD use?",
              "Which port is used when the listen address is not set?"):
        assert _ASKS_DEFAULT.search(q), q
    for q in ("Which language does doxygen assume for .ice files?", "how do I change the temperature",
              "How is the gc period set?", "How do I configure a router ID?"):
        assert not _ASKS_DEFAULT.search(q), q
    assert _STATES_DEFAULT.search("Circuit temperature has a default (nominal) value of 27°C (300.15 K).")
    assert _STATES_DEFAULT.search("The default value is XMU=0.5.")
    assert _STATES_DEFAULT.search("Default: adaptive, based on number of routing tables in the configuration.")
    assert not _STATES_DEFAULT.search("Sets the circuit temperature in degrees Celsius.")
    assert not _STATES_DEFAULT.search("switch (c) { case 1: x++; default: break; }")  # C's label is no field


def test_the_default_stated_comes_first_when_asked_for_in_other_words(embedder):
    """"what circuit temperature is assumed when none is given" was answered first by "Sets the circuit temperature
    in degrees Celsius."; the sentence with the default (27°C) was third."""
    option = ("TEMP=x Sets the circuit temperature in degrees Celsius. .temp 27 This card overrides the circuit "
              "temperature given in an .option line (15.1.1).")
    default = ("Temperature, in ngspice, is a property associated to the entire circuit, rather than an analysis "
               "option. Circuit temperature has a default (nominal) value of 27°C (300.15 K) that can be changed "
               "using the TEMP option in an .option control line (see 15.1.1) or by the .TEMP line (see 2.12), which "
               "has precedence over the .option TEMP line.")
    blocks = pack_evidence([hit(option, chunk_id=2, page=150), hit(default, chunk_id=3, page=40)], 1000)
    best = rank_candidates("what circuit temperature is assumed when none is given", blocks, embedder)[0]
    assert best.text.startswith("Circuit temperature has a default"), best.text


def test_a_caption_in_a_block_of_its_own_is_the_figure_asked_for(embedder):
    """"diagram of the VBIC self-heating thermal network": the caption "Figure 8.2: VBIC thermal network" is a
    block of its own (kind "caption"); only figure blocks' captions were lifted, so another figure's caption came
    first ("Figure 8.3: The equivalent circuit of HICUM/L2 without the self-heating ... networks.")."""
    blocks = pack_evidence([
        hit("Figure 8.3: The equivalent circuit of HICUM/L2 without the self-heating, NQS and noise correlation "
            "networks.", kind="figure", chunk_id=2, page=146),
        hit("The following example is showing a simplified thermal network covering the thermal resistances and "
            "capacitors of junction-case and case-ambient transitions including a heat-sink.", chunk_id=3, page=145),
        hit("Figure 8.2: VBIC thermal network", kind="caption", chunk_id=4, page=144),
    ], 1000)
    best = rank_candidates("diagram of the VBIC self-heating thermal network", blocks, embedder)[0]
    assert best.text.startswith("Figure 8.2"), best.text


def test_the_row_whose_cell_says_the_words_asked_comes_first(embedder):
    """"diode model parameter for saturation current and its default": the row "Parameter: Saturation current" was
    second, after a sentence on the saturation current's temperature dependence; "Sidewall saturation current" is
    another parameter and gains nothing."""
    rows = ("Name | Parameter | Units | Default | Example | Scale factor\n"
            "Name: IS (JS) | Parameter: Saturation current | Units: A | Default: 1.0e-14 | Example: 1.0e-16 | "
            "Scale factor: area\n"
            "Name: JSW | Parameter: Sidewall saturation current | Units: A | Default: 0.0 | Example: 1.0e-15 | "
            "Scale factor: perimeter")
    prose = ("The temperature dependence of the saturation current is defined by the parameters eg, the energy, and "
             "xti, the saturation current temperature exponent.")
    blocks = pack_evidence([hit(rows, kind="table", chunk_id=2, page=129, section="7.1.2 Diode Model (D)"),
                            hit(prose, chunk_id=3, page=128, section="7.1.2 Diode Model (D)")], 1000)
    ranked = rank_candidates("diode model parameter for saturation current and its default", blocks, embedder)
    assert ranked[0].text.startswith("Name: IS (JS) |"), ranked[0].text
    assert not next(c for c in ranked if c.text.startswith("Name: JSW")).named


def test_urls_asked_for_are_paths():
    """"Which URLs should they use now to authorize and to get a token?" asked for nothing in particular; "Authorization
    URL: /oauth/authorize Access Token URL: /oauth/token" was left out for sentences about OAuth2 in general."""
    assert _asked_kind("Our own scripts use OAuth2. Which URLs should they use now to authorize?") == "file"
    assert _asked_kind("What endpoint returns the token?") == "file"
    assert _asked_kind("What address does the bootloader start at?") != "file"
