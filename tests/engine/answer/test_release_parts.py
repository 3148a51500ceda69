"""A release history whose releases have parts of their own, and one titled "History of ... Versions" (session 63: the
FreedomBox Manual and Gri's reference manual, asked for the first time). FreedomBox heads each release's highlights
apart ("8 Release Notes > 8.48 FreedomBox 21.11 (2021-10-11) > 8.48.1 Highlights"), so "Which FreedomBox release fixed
the Tiny Tiny RSS daemon sometimes not running after startup?" was answered "• ttrss: Fix daemon not running sometimes
on startup ..." without the release; Gri titles its change log "13 History of Gri Versions", which was read as no
change log at all, so "Which Gri version added GNU readline ...?" quoted the entry without "Version 2.12.17". And
Gri's cross-references wrap inside their parentheses ("... Gri draws xy graphs (Chapter 5" / "[X-y Plots], page 19),
..."): "Can Gri draw pie charts?" quoted a sentence from "[X-y Plots], page 19), contour plots ..." on. Real MiniLM
embedder."""

from __future__ import annotations

import pytest

from mmrag_desktop.engine.answer.evidence import CHANGELOG, pack_evidence, section_release
from mmrag_desktop.engine.answer.extractive import select_sentences
from mmrag_desktop.engine.hits import Hit
from mmrag_desktop.engine.sentence_split import split_sentences


def hit(text: str, section: str, chunk_id: int, page: int, doc: str) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc=doc, page=page, bbox=(72.0, 100.0, 500.0, 300.0), kind="text",
               score=0.03, text=text, section=section)


@pytest.mark.parametrize(("heading", "log"), [
    ("13 History of Gri Versions", True), ("Release history", True), ("A history of changes", True),
    ("Version History", True),
    ("A brief history of Unix", False), ("History of the project", False), ("Command history", False),
])
def test_a_heading_naming_a_history_of_versions_heads_a_change_log(heading, log):
    assert bool(CHANGELOG.search(heading)) is log


@pytest.mark.parametrize(("section", "release"), [
    ("8 Release Notes > 8.48 FreedomBox 21.11 (2021-10-11) > 8.48.1 Highlights", "FreedomBox 21.11 (2021-10-11)"),
    ("8 Release Notes > 8.88 FreedomBox 20.2 (2020-02-10)", "FreedomBox 20.2 (2020-02-10)"),
    ("13 History of Gri Versions > 13.1 Stable Stream > 13.1.10 Version 2.2 > 13.1.10.7 Version 2.2.0 [1999 Mar 25]",
     "Version 2.2.0 [1999 Mar 25]"),
    ("Release Notes > Version 3.1 > Bug fixes > Known problems", "Version 3.1"),
    # no heading from the change log's on names a release: its release is printed in the text ("")
    ("13 History of Gri Versions > 13.1 Stable Stream", ""),
    ("Table of Contents > 2. NEWS", ""),
    # "Chapter 3" is no release; a heading above the change log's is not read
    ("Release Notes > Chapter 3 > Known issues", ""),
    ("Manual 2.4 > Release Notes > Highlights", ""),
    ("Usage > Bugs", None),
])
def test_a_release_is_named_by_the_nearest_heading_that_names_one(section, release):
    assert section_release(section) == release


RELEASE_NOTES = "8 Release Notes > 8.48 FreedomBox 21.11 (2021-10-11) > 8.48.1 Highlights"
TTRSS_FIX = ("\u2022 backups: Show proper error when SSH server is not reachable\n"
             "\u2022 ttrss: Fix daemon not running sometimes on startup\n"
             "\u2022 calibre: Add link to manual page")
TTRSS_APP = ("Tiny Tiny RSS is a news feed (RSS/Atom) reader and aggregator, designed to allow reading news from any "
             "location, while feeling as close to a real desktop application as possible.")


def test_an_entry_of_a_release_headed_in_parts_is_quoted_with_its_release(embedder):
    blocks = pack_evidence([
        hit(TTRSS_APP, "5 Apps > 5.40 Tiny Tiny RSS (News Feed Reader)", chunk_id=700, page=120,
            doc="freedombox-manual.pdf"),
        hit(TTRSS_FIX, RELEASE_NOTES, chunk_id=2100, page=251, doc="freedombox-manual.pdf"),
    ], 1000)
    assert [b.release for b in blocks] == ["", "FreedomBox 21.11 (2021-10-11)"]
    quoted = select_sentences("Which FreedomBox release fixed the Tiny Tiny RSS daemon sometimes not running after "
                              "startup?", blocks, embedder, max_sentences=3)
    fix = [c.text for c in quoted if "ttrss" in c.text]
    assert fix and fix[0].startswith("FreedomBox 21.11 (2021-10-11): \u2022 ttrss: Fix daemon"), [c.text for c in quoted]


def test_a_history_of_versions_is_a_change_log(embedder):
    readline = "\u2022 Add GNU readline support so that interactive mode will have history, command editing, etc."
    section = ("13 History of Gri Versions > 13.1 Stable Stream > 13.1.1 Version 2.12 > "
               "13.1.1.10 Version 2.12.17 [2008 May 29 Oak Apple Day (England)")
    blocks = pack_evidence([hit(readline, section, chunk_id=1900, page=219, doc="gri.pdf")], 1000)
    assert blocks[0].in_changelog
    quoted = select_sentences("Which Gri version added GNU readline so interactive mode has command history and line "
                              "editing?", blocks, embedder, max_sentences=2)
    assert quoted[0].text.startswith("Version 2.12.17 [2008 May 29 Oak Apple Day (England): \u2022 Add GNU readline"), \
        quoted[0].text


GRI_CAPABILITIES = ("Capabilities of Gri are those scientists commonly want, since Gri was written by a\n"
                    "scientist. It is not so useful for business people \u2013 e.g., Gri draws xy graphs (Chapter 5\n"
                    "[X-y Plots], page 19), contour plots (Chapter 6 [Contour Plots], page 23), and image plots\n"
                    "(Chapter 7 [Images], page 29), but it will not draw pie-charts unless you teach it how.\n"
                    "The list of capabilities of Gri is similar to many packages, but")


def test_a_line_break_inside_a_parenthesis_ends_no_sentence():
    sentences = split_sentences(GRI_CAPABILITIES, newlines=True)
    assert sentences[1].startswith("It is not so useful for business people"), sentences
    assert sentences[1].endswith("unless you teach it how."), sentences
    assert len(sentences) == 3, sentences


@pytest.mark.parametrize(("text", "n"), [
    # lines that close what they open are items of their own
    ("Set the speed (in baud)\nParity (none by default)\nStop bits", 3),
    # a heading of few words before a parenthesis is no prose going on
    ("Introduction\n(This chapter is informative.)", 2),
    # a line ending in prose before a cross-reference's parenthesis on the next goes on
    ("The value is read from the file named by the setting\n(see Section 4) and checked.", 1),
    ("The value is read from the file named by the setting\n(where n is 7, 8, ...) and checked.", 2),
    # only a cross-reference's parenthesis cut by the line break joins the lines: a note's or code's does not
    ("Include it several times in a program (possibly from another\nHeader) before you build.", 2),
    ("Read the options of the loader, as the chapter says (see Section\n4.2 [Options], page 12), and go on.", 1),
    ("6> ssh:chk_algos_opts(\n[{modify_algorithms,", 2),
])
def test_what_a_line_break_before_or_inside_a_parenthesis_is(text, n):
    assert len(split_sentences(text, newlines=True)) == n, split_sentences(text, newlines=True)


def test_a_sentence_wrapped_inside_its_cross_references_is_quoted_whole(embedder):
    blocks = pack_evidence([hit(GRI_CAPABILITIES, "1 Introduction", chunk_id=2086, page=17, doc="gri.pdf")], 1000)
    quoted = select_sentences("Can Gri draw pie charts or 3-D business graphics, or is it meant only for science-style "
                              "plots?", blocks, embedder, max_sentences=2)
    pie = [c.text for c in quoted if "pie-charts" in c.text]
    assert pie and pie[0].startswith("It is not so useful for business people"), [c.text for c in quoted]
