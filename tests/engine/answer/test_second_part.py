"""A question of two parts whose first part draws every hit: the second part is searched alone in the same
manuals and the passage it finds first is evidence too (pipeline._part_hits; real PDF, SQLite,
hnswlib, MiniLM). The GNU PSPP manual (no set's): "If I use /METHOD=EXACT TIMER in NPAR TESTS without giving
a number, how long does a test run before it is abandoned, and what test proportion does /BINOMIAL assume
when p is omitted?" found five passages on exact tests and none on /BINOMIAL; the answer said nothing of
the test proportion."""

from __future__ import annotations

from dataclasses import replace

from conftest import write_pdf

EXACT = [
    ["Exact tests give more accurate results, but may take an unacceptably long time to perform. If the",
     "TIMER keyword is used, it sets a maximum time, after which the test is abandoned, and a warning",
     "message printed. The time, in minutes, should be specified in parentheses after the TIMER keyword.",
     "If the TIMER keyword is given without this figure, then a default value of 5 minutes is used."],
    ["Certain tests may take a long time to execute, if an exact figure is required. Therefore, by default",
     "asymptotic approximations are used unless the subcommand /METHOD=EXACT is specified. Exact tests give",
     "more accurate results, but may take an unacceptably long time to perform."],
    ["NPAR TESTS performs nonparametric tests. One or more tests may be specified by using the",
     "corresponding subcommand. If the /STATISTICS subcommand is also specified, then summary statistics",
     "are produced for each variable that is the subject of any test."],
    ["/METHOD=EXACT [TIMER [(n)]] asks NPAR TESTS for exact significance levels. A test that runs longer",
     "than the time the TIMER keyword gives is abandoned, and its asymptotic result is reported instead."],
]
OTHER = [
    ["CDF.NORMAL (x, mean, sd) gives the normal distribution function. The mean and the standard deviation",
     "of the distribution are its parameters; sd must be positive."],
    ["The MEANS procedure reports the mean, the count and the standard deviation of each cell of a table."],
]
BINOMIAL = ["The /BINOMIAL subcommand compares the observed distribution of a dichotomous variable with that of",
            "a binomial distribution. The variable p specifies the test proportion of the binomial distribution.",
            "The default value of 0.5 is assumed if p is omitted."]
FIRST = "If I use /METHOD=EXACT TIMER in NPAR TESTS without giving a number, how long does a test run before it is abandoned"
QUESTION = FIRST + ", and what test proportion does /BINOMIAL assume when p is omitted?"
DEFAULT = "The default value of 0.5 is assumed if p is omitted."


def test_the_second_part_of_a_question_is_searched_alone_when_no_hit_carries_it(library, tmp_path):
    from mmrag_desktop.engine.answer.evidence import pack_evidence
    from mmrag_desktop.engine.answer.extractive import second_part, select_sentences
    from mmrag_desktop.engine.answer.pipeline import SECOND_PART_AT, _part_hits

    pages = [*EXACT, *OTHER, BINOMIAL]
    pdf = write_pdf(tmp_path / "stats.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(p)] for p in pages],
                    fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    assert second_part(QUESTION) == "what test proportion does /BINOMIAL assume when p is omitted?"
    # the case: the first part draws the hits, none of which says what the second part asks
    hits = library.search(FIRST + "?", k=SECOND_PART_AT)
    assert not any("BINOMIAL" in h.text for h in hits), [h.text[:60] for h in hits]
    found = _part_hits(library, QUESTION, hits)
    assert len(found) == 1 and DEFAULT in " ".join(found[0].text.split()), found
    # quoted among the sentences for the first part, in the place the pipeline gives it
    blocks = pack_evidence([*hits[:SECOND_PART_AT], *found, *hits[SECOND_PART_AT:]], 10**6)
    chosen = [c.text for c in select_sentences(QUESTION, blocks, library.embedder, max_sentences=4)]
    assert any(DEFAULT in t for t in chosen), chosen
    # without the second search the sentence is not there to quote
    alone = [c.text for c in select_sentences(QUESTION, pack_evidence(hits, 10**6), library.embedder, max_sentences=4)]
    assert not any(DEFAULT in t for t in alone), alone
    # nothing is searched again for a question of one part, nor when a hit already says it
    assert _part_hits(library, FIRST + "?", hits) == []
    assert _part_hits(library, QUESTION, [*hits, *found]) == []
    # unless the evidence never holds that hit: one after the first MAX_BLOCKS hits is never read (FAUST's "... handle
    # active widgets, passive widgets and widgets layout.", a companion placed ninth, held the part answered)
    from mmrag_desktop.engine.answer.evidence import MAX_BLOCKS
    filler = [replace(hits[i % len(hits)], chunk_id=-10 - i) for i in range(MAX_BLOCKS)]
    late = replace(found[0], chunk_id=-3)
    assert [h.chunk_id for h in _part_hits(library, QUESTION, [*filler, late])] == [found[0].chunk_id]
    assert _part_hits(library, QUESTION, [*filler[:-1], late]) == []
    # but a screenshot's words or a contents line that name the terms say nothing of them
    shot = replace(hits[0], chunk_id=-1, kind="figure", text="Text in figure: /BINOMIAL test proportion assumed p omitted")
    toc = replace(hits[0], chunk_id=-2, navigation=True, text="15.11.1 Binomial test proportion assumed . . . 176")
    assert [h.chunk_id for h in _part_hits(library, QUESTION, [*hits, shot, toc])] == [found[0].chunk_id]
    # and so is a first part that no hit carries (MPICH's "What optimization level are the MPICH libraries
    # compiled with by default, and how do I build them with -O3 ...?" found the -O3 passages only)
    turned = "What test proportion does /BINOMIAL assume when p is omitted, and i" + FIRST[1:] + "?"
    assert [h.chunk_id for h in _part_hits(library, turned, hits)] == [found[0].chunk_id]


VARIABLES = [
    ["Variable expansion is somewhat similar to Unix shell variable expansion. When using variable expansion",
     "characters in a Volume Label Format record, the format should always be enclosed in double quotes.",
     "For example, ${HOME} will be replaced by your home directory as defined in the environment."],
    ["To create an ISO date: DLT-${Year}-${Month:p/2/0/r}-${Day:p/2/0/r} on 20 June 2003 would give",
     "DLT-2003-06-20. Quoting the label format keeps the shell from expanding the variables itself."],
    ["Counters are defined by the Counter resources in the Director's conf file. A counter variable is",
     "incremented by postfixing a plus sign after the variable name in the label format."],
    ["Internal variables are read-only, and may be related to the current job, or maybe special variables",
     "such as the date and time. The following variables are available: Year - the full year; Month - the",
     "current month 1-12; Day - the day of the month 1-31; Hour - the hour 0-24; Minute - the current minute."],
]
FILLER = ["The Storage daemon writes each job's data to a volume mounted in one of its devices, and it asks",
          "the operator to mount another volume when the one in the drive is full or was not found in the pool.",
          "A pool groups the volumes that jobs may write to, and its resource says how many of them it may hold,",
          "whether they are recycled, and how long the catalog keeps the records of the files saved on them.",
          "The Director reads its resources from its configuration file at start-up and when it is reloaded.",
          "Messages of every daemon go to the destinations its Messages resource names: the console, a file,",
          "the system log or an address, each with the classes of messages it is to receive from the daemons."]
LABEL_FIRST = "When I put variables in a Volume Label Format, do I need to quote the format"
LABEL_QUESTION = LABEL_FIRST + ", and which date and time variables can I use?"


def test_a_hit_that_carries_one_term_of_a_part_of_two_does_not_answer_it(library, tmp_path):
    """Bacula's miscellaneous guide: "When I put variables in a Volume Label Format, do I need to quote the format,
    and which date and time variables can I use?" was held answered by "To create an ISO date: DLT-${Year}-..."
    (one of "date" and "time"); the list of the variables, which a search for the second part alone finds first,
    was never among the evidence. A hit has a part of two terms or more when a sentence carries two of them."""
    from mmrag_desktop.engine.answer.pipeline import _part_hits

    # each passage a page of its own, under a paragraph on other things (a page's few lines would be one chunk)
    pages = [[*FILLER[k:], *FILLER[:k], *p] for k, p in enumerate(VARIABLES)]
    pdf = write_pdf(tmp_path / "misc.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(p)] for p in pages],
                    fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    hits = [h for h in library.search(LABEL_FIRST + "?", k=4) if h.page != 4][:3]
    assert any(h.page == 2 for h in hits), [h.page for h in hits]  # the ISO date example, "date" and no "time"
    found = _part_hits(library, LABEL_QUESTION, hits)
    assert [h.page for h in found] == [4], [(h.page, h.text[:50]) for h in found]
    assert _part_hits(library, LABEL_QUESTION, [*hits, *found]) == []  # the list found, nothing more to search


def test_a_second_part_may_open_with_any_auxiliary_verb():
    """UMFPACK (session 65): "What do the di, dl, zi and zl variants of the UMFPACK routines stand for, and may I
    analyze with one variant and factorize with another?" was read as a question of one part ("and may" opened
    none); FireHOL's "... and may they go into a router block ...?" likewise."""
    from mmrag_desktop.engine.answer.extractive import second_part

    assert second_part("What do the di, dl, zi and zl variants stand for, and may I analyze with one variant and "
                       "factorize with another?") == "may I analyze with one variant and factorize with another?"
    for verb in ("must", "might", "shall", "did", "was", "were"):
        assert second_part(f"Which option sets the limit, and {verb} it be given twice?").startswith(verb)
    # "and" inside a part opens no other part
    assert second_part("What do the di, dl, zi and zl variants stand for?") == ""
    assert second_part("Can I install it and maybe run it later?") == ""
