"""Asked in session 66 (no set's): the nauty guide prints its utilities' help texts one after another, each opening
with a banner and a usage line ("===== addedgeg =====", "Usage: addedgeg [-lq] [-D#] ..."). "With addedgeg, how do I
add edges only where no new triangle is created and keep the maximum degree at most 4?" quoted genrang's "-R# : Make
regular of specified degree ..." first, and addedgeg's "-t Output has no new 3-cycle ..." not at all: the lines of
another program's help text than the one the question names are not its answer. Real library (SQLite, hnswlib,
PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.evidence import USAGE_LINE, pack_evidence
from mmrag_desktop.engine.answer.extractive import Candidate, _programs_named, rank_candidates
from mmrag_desktop.engine.hits import Hit

GENRANG = [
    "===== genrang =====",
    "Usage: genrang [-P#|-P#/#|-e#|-r#|-R#|-d#] [-l#] [-m#] [-t] [-T] [-a] [-s|-g|-z] n|n1,n2 num [outfile]",
    "Generate random graphs.",
    "-P#/# : Give edge probability; -P# means -P1/#.",
    "-e# : Give the number of edges",
    "-r# : Make regular of specified degree",
    "-R# : Make regular of specified degree but output as vertex count, edge count, then list of edges",
    "-d# : Make regular of specified degree (pseudorandom, faster but not uniform)",
    "-l# : Maximum loop multiplicity (default 0)",
    "-m# : Maximum multiplicity of non-loop edge (default and minimum 1)",
    "-t : Make a random spanning tree of a complete graph or complete bipartite graph",
    "-T : Make a random tournament (implies -z)",
    "-a : Make invariant under a random permutation",
    "-s : Write in sparse6 format (default); -g : Write in graph6 format",
    "-S# : Specify random generator seed (default nondeterministic)",
    "-q : suppress auxiliary output",
    "-x# : Add random edges while the maximum degree stays at most #",
]
ADDEDGEG = [
    "===== addedgeg =====",
    "Usage: addedgeg [-lq] [-D#] [-btfF] [-z#] [infile [outfile]]",
    "For each edge nonedge e, output G+e if it satisfies certain conditions",
    "The output file has a header if and only if the input file does.",
    "-l Canonically label outputs",
    "-D# Specify an upper bound on the maximum degree of the output",
    "-b Output has no new cycles of odd length",
    "-t Output has no new 3-cycle (triangle) if input doesn't",
    "-f Output has no new 4-cycle if input doesn't",
    "-z# Output has no new cycles of length less than #",
    "-q Suppress auxiliary information",
]


def test_the_lines_of_another_programs_help_text_are_not_its_answer(library, tmp_path):
    pages = [[(72, 72 + 14 * i, t) for i, t in enumerate(lines)] for lines in (ADDEDGEG, GENRANG)]
    pdf = write_pdf(tmp_path / "utilities.pdf", pages, fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "With addedgeg, how do I add edges only where no new triangle is created and keep "
                                        "the maximum degree at most 4?")
    assert not answer.insufficient_evidence, answer.text
    assert "3-cycle" in answer.text
    assert "-x#" not in answer.text, answer.text  # genrang's, whose words are the question's


def test_a_program_named_in_the_question():
    def under(program: str) -> Candidate:
        return Candidate(1, 0, "-D# Specify an upper bound", program=program)

    cands = [under("addedgeg"), under("genrang"), under("")]
    assert _programs_named("With addedgeg, how do I add edges?", cands) == {"addedgeg"}
    assert _programs_named("How do I use genrang-like options?", cands) == set()  # (a part of a word)
    assert [m.group(1) for m in USAGE_LINE.finditer("===== gentreeg =====\nUsage: gentreeg [-D#] n\nusage is free")] \
        == ["gentreeg", "gentreeg"]


def test_a_chunk_that_goes_on_another_programs_help_text_is_of_that_program(embedder):
    """The chunk of genrang's options below the one with its usage line: its program is the usage line above it
    (`Hit.usage_above`, which the pipeline reads from the chunks before it), and its lines rank below addedgeg's
    for a question that names addedgeg, whatever their words."""
    def hit(i: int, lines: list[str], above: str = "") -> Hit:
        return Hit(chunk_id=i, doc_id=1, doc="nug.pdf", page=80 + i, bbox=(72.0, 100.0, 500.0, 300.0), kind="text",
                   score=1.0 / i, text="\n".join(lines), section="23 Help texts for the utilities", usage_above=above)

    question = "With addedgeg, how do I add edges only where no new triangle is created and keep the maximum degree at most 4?"
    options = GENRANG[2:11]
    hits = [hit(1, options, above="Usage: genrang [-P#|-P#/#|-e#|-r#|-R#|-d#] n num [outfile]"), hit(2, ADDEDGEG)]
    blocks = pack_evidence(hits, 900)
    ranked = rank_candidates(question, blocks, embedder)
    assert ranked[0].program == "addedgeg", [(c.program, c.text[:40]) for c in ranked]
    assert next(c for c in ranked if "-R#" in c.text).program == "genrang"
    # and a quote of a help text says whose it is, unless it names the program itself
    options = "-e# : Give the number of edges"
    assert blocks[0].named(options) == f"genrang: {options}" and blocks[0].without_heading(f"genrang: {options}") == options
    assert blocks[1].named(ADDEDGEG[1]) == ADDEDGEG[1]
    # a usage line whose first word is a word of the dictionary names no program: prose, or a name that says nothing
    for line in ("Usage: The function takes two arguments.", "Usage: make [target]"):
        prose = pack_evidence([hit(3, [line, "It returns the sum of both."])], 900)[0]
        assert prose.program_of("It returns the sum of both.") == ""
        assert prose.named("It returns the sum of both.") == "It returns the sum of both."
