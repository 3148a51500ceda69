"""Asked in session 52 (no set's): the microHOPE user's manual and GetDP's reference manual wrap sentences before a
capitalised name ("Moving data from R16 to DDRB and" / "PORTB is done using both ..."), and a small library of two
manuals never writes ordinary words such as "matter", "steady" or "bears"."""

from __future__ import annotations

from conftest import write_pdf

from mmrag_desktop.engine.answer.confidence import assess, common_word
from mmrag_desktop.engine.sentence_split import split_sentences


def test_a_line_that_ends_with_a_small_word_goes_on_past_a_capitalised_name():
    """Answers split evidence at line breaks (its lines may be list items, rows or headings) unless a lower-case word
    follows: "Moving data from R16 to DDRB and" and "PORTB is done using both the I/O space address ..." were two
    sentences, and the second was quoted as if whole. A line that ends with an article, a preposition or a
    conjunction, or with a comma after prose, goes on; so does one set in capitals (the GPL's "... SHOULD THE" /
    "PROGRAM PROVE DEFECTIVE, ...")."""
    text = ("Examine the listing. Moving data from R16 to DDRB and\n"
            "PORTB is done using both the I/O space address and the memory space address.")
    assert split_sentences(text, newlines=True) == [
        "Examine the listing.",
        "Moving data from R16 to DDRB and\nPORTB is done using both the I/O space address and the memory space address."]
    caps = "IS WITH YOU. SHOULD THE\nPROGRAM PROVE DEFECTIVE, YOU ASSUME THE COST OF ALL NECESSARY SERVICING,\nREPAIR."
    assert split_sentences(caps, newlines=True)[-1].startswith("SHOULD THE\nPROGRAM PROVE DEFECTIVE")
    assert split_sentences(caps, newlines=True)[-1].endswith("SERVICING,\nREPAIR.")
    # headings, rows and items still end at their line
    assert split_sentences("Installation\nRun the installer first.", newlines=True) == [
        "Installation", "Run the installer first."]
    assert split_sentences("Current in A\nVoltage in V\nPower in W", newlines=True) == [
        "Current in A", "Voltage in V", "Power in W"]
    assert split_sentences("Options: fast,\nSlow mode", newlines=True) == ["Options: fast,", "Slow mode"]


def test_a_common_word_the_library_never_writes_asks_less_of_the_score(library, tmp_path):
    """"Does upper or lower case matter for labels and for instruction mnemonics in microHOPE assembly code?" was "not
    covered" (0.61 against the 0.65 an unknown word asks): the manual never writes "matter", but says "The
    instruction and operand is not case sensitive but the labels are case sensitive". A common English word
    written in lower case asks only a tenth more than the threshold; a rarer word ("watchdog") or a capitalised
    name ("Python") asks as before."""
    lines = ["Assembly language programs are written with one instruction per line.",
             "The instruction and operand is not case sensitive but the labels are case sensitive,",
             "so Lab1 is not the same as lab1. Comments start with a semicolon and end with the line.",
             "Labels mark the address of an instruction and end with a colon. Mnemonics may be written",
             "in upper or lower case letters, and the assembler turns the code into machine words."]
    pdf = write_pdf(tmp_path / "asm.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    question = "Does upper or lower case matter for labels and instruction mnemonics in assembly code?"
    hits = library.search(question, k=5)
    report = assess(question, hits, library.embedder, term_df=library.term_df)
    assert "matter" in report.unknown and all(common_word(w, question) for w in report.unknown), report.unknown
    assert report.unknown == ["matter"] and not report.insufficient, report
    # the same score with an unknown word that is no common one: the margin asked is the usual one
    bar = {"threshold": report.score - 0.15}
    assert not assess(question, hits, library.embedder, term_df=library.term_df, **bar).insufficient
    rare = question.replace("matter", "matter in watchdog")
    assert assess(rare, hits, library.embedder, term_df=library.term_df, **bar).insufficient
    assert common_word("matter", question) and not common_word("watchdog", rare)
    assert not common_word("python", "Can I script it with Python?") and common_word("python", "a python script")
