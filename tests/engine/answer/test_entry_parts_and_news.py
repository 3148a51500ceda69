"""A reference entry's parts and a manual's NEWS (session 57: the libraw1394 manual and the Valgrind documentation, asked
for the first time). DocBook sets a function's entry as headings "raw1394_get_irm_id" > "Name" / "Synopsis" /
"Arguments" / "Returns" / "Description": a part's text names neither the function nor its part, and "How do I get the
node ID of the bus's isochronous resource manager?" was answered "... the node ID of the isochronous resource manager
of the bus the handle is connected to." without saying which call returns it. Valgrind's manual prints its NEWS (what
each release changed) as a chapter: "callgrind_annotate now inserts commas in call counts" came first for a question
about an option, as a change log's entries do only when a question asks about releases. And "what does a dot in a count
column mean?" is answered by the sentence that says what a dot stands for ("Events not applicable for a line are
represented by a dot."), which read less like the question than the page's other sentences about counts. Real MiniLM
embedder."""

from __future__ import annotations

import pytest

from mmrag_desktop.engine.answer.evidence import CHANGELOG, pack_evidence
from mmrag_desktop.engine.answer.extractive import _states, rank_candidates, select_sentences
from mmrag_desktop.engine.hits import Hit


def hit(text: str, section: str, chunk_id: int = 299, page: int = 38, doc: str = "libraw1394.pdf") -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc=doc, page=page, bbox=(72.0, 100.0, 500.0, 300.0), kind="text",
               score=0.03, text=text, section=section)


IRM_RETURNS = ("the node ID of the isochronous resource manager of the bus the handle is connected to. This value may\n"
               "change with every bus reset.")


@pytest.mark.parametrize(("section", "heading"), [
    ("Chapter 5. Function Reference > raw1394_get_irm_id > Returns", "raw1394_get_irm_id returns"),
    ("Chapter 5. Function Reference > raw1394_get_irm_id > Return Value", "raw1394_get_irm_id returns"),
    ("Chapter 5. Function Reference > raw1394_start_fcp_listen > Description", "raw1394_start_fcp_listen"),
    ("7 Routine/Function Prologues > 7.94 hmlaa (Source File: hmlaa.f90) > Description",
     "hmlaa (Source File: hmlaa.f90)"),
    ("HALCMD > halcmd - manipulate the LinuxCNC HAL > OPTIONS", "halcmd - manipulate the LinuxCNC HAL"),
    # the heading above a part is no entry unless it is a name in code; a part's name alone is no entry
    ("3. Data Structures and Program Flow > Description", ""),
    ("Introduction > Notes", ""),
    ("Chapter 5. Function Reference > raw1394_get_irm_id", ""),
])
def test_a_part_of_a_reference_entry_is_named_by_its_entry(section, heading):
    (block,) = pack_evidence([hit(IRM_RETURNS, section)], 1000)
    assert block.heading() == heading


def test_what_a_function_returns_is_quoted_with_the_function(embedder):
    q = "How do I get the node ID of the bus's isochronous resource manager, and can it change while my program runs?"
    blocks = pack_evidence([hit(IRM_RETURNS, "Chapter 5. Function Reference > raw1394_get_irm_id > Returns")], 1000)
    first = select_sentences(q, blocks, embedder)[0].text
    assert first.startswith("raw1394_get_irm_id returns: "), first
    assert "the node ID of the isochronous resource manager" in first


def test_a_part_that_names_its_entry_is_quoted_as_it_is(embedder):
    name = "raw1394_get_irm_id \u2014 get node ID of isochronous resource manager"
    blocks = pack_evidence([hit(name, "Chapter 5. Function Reference > raw1394_get_irm_id > Name")], 1000)
    assert select_sentences("Which call gives the node ID of the isochronous resource manager?", blocks,
                            embedder)[0].text == name


@pytest.mark.parametrize(("heading", "log"), [
    ("2. NEWS", True), ("3. OLDER NEWS", True), ("NEWS", True), ("Latest news", True),
    ("News and events of the project", False), ("Newsletters", False), ("8.2.3. Lock Contention", False),
])
def test_a_heading_that_is_only_news_heads_a_change_log(heading, log):
    assert bool(CHANGELOG.search(heading)) is log


def test_news_entries_come_after_the_manual_for_a_question_that_is_no_history(embedder):
    q = "Which option must I give callgrind_annotate when reading an xtree memory file?"
    news = hit("* callgrind_annotate now inserts commas in call counts, and sort the caller/callee lists in the call "
               "tree.", "Table of Contents > 2. NEWS", chunk_id=2400, page=233, doc="valgrind_manual.pdf")
    manual = hit("Note that due to xtree specificities, you must give the option --inclusive=yes to callgrind_annotate.",
                 "Table of Contents > 1. Valgrind User Manual > 2.9. Execution Trees", chunk_id=900, page=44,
                 doc="valgrind_manual.pdf")
    ranked = rank_candidates(q, pack_evidence([news, manual], 1000), embedder)
    assert "--inclusive=yes" in ranked[0].text, [c.text for c in ranked]
    # and a question about releases reads them first, as any change log's
    history = rank_candidates("In which release did callgrind_annotate start to insert commas in call counts?",
                              pack_evidence([news, manual], 1000), embedder)
    assert "inserts commas" in history[0].text, [c.text for c in history]


LINE_COUNTS = ("Each source file is clearly marked (User-annotated source) as having been chosen manually for annotation.\n"
               "If the file was found in one of the directories specified with the -I/--include option, the directory "
               "and file are\nboth given.\nEach line is annotated with its event counts. Events not applicable for a line "
               "are represented by a dot. This is useful\nfor distinguishing between an event which cannot happen, and "
               "one which can but did not.")
THRESHOLD = ("Threshold: cg_annotate by default omits functions that cause very low counts to avoid drowning you in "
             "information. In this case, cg_annotate shows summaries the functions that account for 99% of the Ir "
             "counts; Ir is chosen as the threshold event since it is the primary sort event.")


def test_what_a_mark_means_is_the_sentence_that_says_what_it_stands_for(embedder):
    q = "In cg_annotate's annotated source listing, what does a dot in a count column mean?"
    section = "5. Cachegrind > 5.2. Using Cachegrind, cg_annotate and cg_merge > 5.2.6. Line-by-line Counts"
    # (in the order search found them: page 107 first)
    blocks = pack_evidence([hit(LINE_COUNTS, section, chunk_id=1535, page=107, doc="valgrind_manual.pdf"),
                            hit(THRESHOLD, section, chunk_id=1520, page=105, doc="valgrind_manual.pdf")], 1000)
    ranked = rank_candidates(q, blocks, embedder)
    assert ranked[0].text == "Events not applicable for a line are represented by a dot.", [c.text for c in ranked]


@pytest.mark.parametrize(("question", "sentence", "says"), [
    ("What does a dot in a count column mean?", "Events not applicable for a line are represented by a dot.", True),
    ("What does a dash mean in the access counts?", 'A dash (-) means "zero".', True),
    ("What does an asterisk after a file name indicate?", "Modified files are marked with an asterisk.", True),
    ("What does a dot in a count column mean?", 'A dash (-) means "zero".', False),
    ("What does a dot in a count column mean?", "Each line is annotated with its event counts.", False),
])
def test_a_sentence_says_what_a_mark_stands_for(question, sentence, says):
    assert bool(_states(question).search(sentence)) is says
