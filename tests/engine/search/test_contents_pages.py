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
    row = {"meta": "{}", "text": "\n".join(CONTENTS[:2] + ["6 avr-libc and assembler programs 27"])}
    assert _navigation(row)
    assert _navigation({"meta": '{"nav": true}', "text": "anything"})
    prose = {"meta": "{}", "text": "\n".join(BODY)}
    assert not _navigation(prose)


def test_the_body_ranks_above_a_contents_page_without_page_numbers(library, tmp_path):
    pdf = write_pdf(tmp_path / "libc.pdf", [[(72, 80 + 18 * i, t) for i, t in enumerate(CONTENTS)],
                                            [(72, 80 + 18 * i, t) for i, t in enumerate(BODY)]])
    added = list(library.add([pdf]))
    assert [e.stage for e in added if e.stage in ("done", "failed")] == ["done"]
    hits = library.search("storing and retrieving strings in the program space", k=2)
    assert [h.page for h in hits] == [2, 1]
