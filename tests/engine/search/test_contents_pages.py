"""A contents page whose dot leaders lost their page numbers ("5.4 Storing and Retrieving Strings
in the Program Space . . . . . .", avr-libc's real contents) is navigation too: the body page that
answers ranks above it (real PDF, real SQLite FTS5, real MiniLM)."""

from __future__ import annotations

from conftest import write_pdf

from mmrag_desktop.engine.search.searcher import _navigation

LEADERS = " ." * 30
CONTENTS = [f"5.{i} {title}{LEADERS}" for i, title in enumerate(
    ["Storing and Retrieving Strings in the Program Space", "Caveats", "A Note On Const", "Program Space Utilities",
     "Storing Data in Program Space", "Reading Strings from Program Space"], start=1)]
BODY = ["Strings are kept in flash with the PROGMEM attribute:",
        "const char greeting[] PROGMEM = \"Hello\";",
        "Such a string is read back with the pgm_read_byte macro or copied with strcpy_P."]


def test_leader_lines_without_page_numbers_are_navigation():
    row = {"meta": "{}", "section": "", "text": "\n".join(CONTENTS[:2] + ["6 avr-libc and assembler programs 27"])}
    assert _navigation(row)
    assert _navigation({"meta": '{"nav": true}', "section": "", "text": "anything"})
    prose = {"meta": "{}", "section": "5 Data in Program Space", "text": "\n".join(BODY)}
    assert not _navigation(prose)


def test_a_chunk_of_a_contents_or_index_section_is_navigation():
    """GNU Prolog's contents (no set's): one entry wrapped over three lines, leaders on the last
    only ("8.14.6 write_term/3, ..., writeq/1," / "write_canonical/2, ..., print/2," / "print/1 . . .
    107"), ranked first for "What does write_canonical do in GNU Prolog?". Its section says what it is."""
    entry = "8.14.6 write_term/3, write_term/2, writeq/1,\nwrite_canonical/2, write_canonical/1,\nprint/1" + LEADERS + " 107"
    for section in ("GNU PROLOG > Contents", "Table of Contents", "Index", "R Introduction > Appendix D Function and "
                    "variable index", "OpenOCD Concept Index", "List of Figures"):
        assert _navigation({"meta": "{}", "section": section, "text": entry}), section
    for section in ("8.14.6 write_term/3", "Indexing vectors", "Contents of the package", "Index registers",
                    "Array index"):
        assert not _navigation({"meta": "{}", "section": section, "text": "\n".join(BODY)}), section


def test_prose_under_a_section_titled_index_or_contents_is_no_navigation():
    """gnuplot's section on the keyword of "plot 'file' index 4:5" is titled "Index"; the PARI/GP
    tutorial has no outline, so every chunk after its contents page sat under "Table of Contents"
    and lost 0.4 of its score. Under such a title a chunk is navigation only when its lines read as
    entries (dot leaders, or a quarter of them ending in a page number)."""
    keyword = ("The index keyword allows you to select specific data sets in a multi-data-set file.\n"
               "Data sets are separated by pairs of blank records. index <m> selects only set <m>.\n"
               "Example:\nplot 'file' index 4:5\nFollowing C indexing, the index 0 is the first data set.")
    tutorial = ("floor is the mathematician's integer part, not to be confused with truncate, which is the computer\n"
                "scientist's: floor(-3.4) is equal to -4 whereas truncate(-3.4) is equal to -3. You get a more\n"
                "cryptic error message, which you would immediately understand if you had read the additional")
    assert not _navigation({"meta": "{}", "section": "Commands > Plot > Data > Index", "text": keyword})
    assert not _navigation({"meta": "{}", "section": "PARI / GP > Home Page: > Table of Contents", "text": tutorial})
    index = "index keyword, 111\nindex of data sets, 112\nindexing, C style\ninfinite loops, 97"
    assert _navigation({"meta": "{}", "section": "Index", "text": index})
    wrapped = "adapter gpio [ tdo | tdi | tms | tck |\nswdio | swdio_dir | swclk | srst |\n-init-input ]" + LEADERS + " 3"
    assert _navigation({"meta": "{}", "section": "Command and Driver Index", "text": wrapped})


def test_the_body_ranks_above_a_contents_page_without_page_numbers(library, tmp_path):
    pdf = write_pdf(tmp_path / "libc.pdf", [[(72, 80 + 18 * i, t) for i, t in enumerate(CONTENTS)],
                                            [(72, 80 + 18 * i, t) for i, t in enumerate(BODY)]])
    added = list(library.add([pdf]))
    assert [e.stage for e in added if e.stage in ("done", "failed")] == ["done"]
    hits = library.search("storing and retrieving strings in the program space", k=2)
    assert [h.page for h in hits] == [2, 1]


# HackRF's contents (Sphinx's LaTeX, Debian's hackrf-doc): chapter lines have no dot leaders, and the
# page is cut into chunks of a few lines, some with one leader line only
HACKRF_CONTENTS = ["19 Hardware Components 63", "19.1 Block Diagram" + LEADERS + " 64", "20 Enclosure Options 65",
                   "21 HackRF One's Buttons 67", "22 External Clock Interface (CLKIN and CLKOUT) 69",
                   "23 Expansion Interface 71"]


def test_contents_lines_without_leaders_next_to_one_with_them_are_navigation():
    """The chunk's lines were quoted as an answer: "64 20 Enclosure Options 65 21 HackRF One's Buttons
    67 ..." for "How do I turn on CLKOUT on HackRF One?". Lines that end in numbers without any
    leader line stay body text (a list of pin counts)."""
    section = "HackRF > Great Scott Gadgets > USER DOCUMENTATION"
    assert _navigation({"meta": "{}", "section": section, "text": "\n".join(HACKRF_CONTENTS)})
    assert _navigation({"meta": "{}", "section": section, "text": "\n".join(HACKRF_CONTENTS[-2:] + ["23.1 P9 Baseband"
                                                                                                  + LEADERS + " 71"])})
    pins = "The QFP package has 44\npins and the DIP package has 40\nThe PLCC package has 44"
    assert not _navigation({"meta": "{}", "section": section, "text": pins})


def test_an_index_titled_index_of_something_is_navigation():
    """CircuiTikZ's index is "Index of the components"; its lines "ncpb, see normally closed push button"
    were quoted for "What is the alias of the normally closed push button?"."""
    entries = "mslstub, 124\nmsport, 124\nncpb, see normally closed push button\nncs, see normal closed switch\nnfet, 99"
    assert _navigation({"meta": "{}", "section": "Index of the components", "text": entries})
    assert not _navigation({"meta": "{}", "section": "Index of the components", "text": "\n".join(BODY)})


def test_an_answer_never_quotes_a_contents_page(library, tmp_path):
    """The contents page (under a heading that is not "Contents", most chapter lines without leaders)
    gives hits marked `navigation`, and the extractive answer quotes the body (real PDF, SQLite, MiniLM)."""
    import pymupdf

    titles = ["Hardware Components", "Enclosure Options", "HackRF One's Buttons",
              "External Clock Interface (CLKIN and CLKOUT)", "Expansion Interface", "Hardware Triggering",
              "RF Shield Installation Instructions", "Opera Cake"]
    contents = []
    for i, title in enumerate(titles):
        contents.append(f"{19 + i} {title} {63 + 2 * i}")
        if i % 3 == 0:
            contents.append(f"{19 + i}.1 Overview{LEADERS} {63 + 2 * i}")
    body = ["To activate CLKOUT, use hackrf_clock -o 1. To switch it off, use hackrf_clock -o 0.",
            "HackRF One produces a 10 MHz clock signal on CLKOUT, a 3.3 V square wave.",
            "The CLKIN port is a high impedance input that expects a 3.3 V square wave at 10 MHz."]
    doc = pymupdf.open()
    for heading, lines in (("User Documentation", contents), ("22 External Clock Interface", body)):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 60), heading, fontsize=18)
        for i, text in enumerate(lines):
            page.insert_text((72, 90 + 18 * i), text, fontsize=11)
    doc.save(tmp_path / "hackrf.pdf")
    doc.close()
    assert [e.stage for e in library.add([tmp_path / "hackrf.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    question = "How do I turn on the External Clock Interface CLKOUT?"
    hits = library.search(question, k=5)
    assert {h.page: h.navigation for h in hits} == {2: False, 1: True}

    from mmrag_desktop.engine.answer import pipeline

    answer = pipeline.ask(library, question, mode="extractive")
    assert answer.text.startswith("To activate CLKOUT, use hackrf_clock -o 1."), answer.text
    assert {c.page for c in answer.citations} == {2}
