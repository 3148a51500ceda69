"""An entry a question names by its kind ("What does the SET directive do?"): dasm's manual heads each directive's
section with its name in capitals ("6.2.3 SET"), and "SET" is an acronym to the search (it leaves capitals alone:
"UPS" is no command), so the introduction to directives, which sets and directs a lot, came first and the SET
section eighth. A name the question gives with its kind, in capitals too, puts the section titled by that name alone
first. Real PDF with an outline, real SQLite FTS5, hnswlib and MiniLM."""

from __future__ import annotations

import pymupdf
import pytest
from conftest import extractive_answer

from mmrag_desktop.engine.search import searcher

INTRO = ["Also known as pseudo-ops, directives appear in the source code and tell the assembler what to do.",
         "Directives include macros, segment definitions, and setting the origin or location of code.",
         "If a label is present, its value is set to the current origin before or after the directive is processed.",
         "Some directives cannot have labels on the same line, and the set of those is stated with each directive.",
         "All directives can be prefixed with a dot for compatibility with other assemblers."]
DIRECTIVES = [("EQU", "symbol EQU exp", "The expression is evaluated and the result assigned to the symbol."),
              ("SET", "symbol SET exp", "Same as EQU, but the symbol may be reassigned later in the source."),
              ("ERR", "ERR", "Abort assembly. Useful in conjunction with conditionals to end an assembly if required."),
              ("ORG", "ORG exp", "Sets the current origin to the value of the expression for the code that follows.")]


def _manual(path):
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 60), "6 Directives", fontsize=16)
    for i, sentence in enumerate(INTRO):
        page.insert_text((72, 90 + 16 * i), sentence, fontsize=10)
    toc = [[1, "6 Directives", 1]]
    for n, (name, synopsis, text) in enumerate(DIRECTIVES, start=1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 80), f"6.2.{n} {name}", fontsize=14)
        page.insert_text((90, 110), synopsis, fontsize=11)
        page.insert_text((72, 134), text, fontsize=11)
        toc.append([2, f"6.2.{n} {name}", n + 1])
    doc.set_toc(toc)
    doc.save(str(path))
    doc.close()
    return path


@pytest.mark.parametrize("titled", [True, False])
def test_an_entry_named_by_its_kind_in_capitals_comes_first(library, tmp_path, monkeypatch, titled):
    monkeypatch.setattr(searcher, "NAMED_ENTRY_TITLES", titled)
    _manual(tmp_path / "dasm.pdf")
    assert [e.stage for e in library.add([tmp_path / "dasm.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    first = library.search("What does the SET directive do?", k=5)[0]
    assert (first.page == 3) is titled, (first.page, first.section)
    if titled:
        assert extractive_answer(library, "What does the SET directive do?").text.startswith(
            "symbol SET exp Same as EQU, but the symbol may be reassigned later in the source.")
        # capitals with no kind named, or a name no heading is alone, move nothing: "UPS" is no entry
        assert library.search("What does the UPS directive do?", k=5)[0].page != 3
