"""A chunk of a few words ("Portability / GNU Prolog predicates.", the end of a predicate's entry
that its Errors table cut off) is found by its section title alone and says nothing: asking GNU
Prolog's manual "How do I read a term from standard input?" put four of them in the top five. Such a
hit becomes the entry before it in its section, keeping its rank (searcher.TINY_WORDS); a real PDF
with a ruled table, SQLite, hnswlib, MiniLM."""

from __future__ import annotations

import pytest

from mmrag_desktop.engine.search import searcher

# (heading, body lines) of two entries of GNU Prolog's manual, one a page, each with its Errors table
ENTRIES = [
    ("8.14.3 read_token/2, read_token/1", [
        "Templates", "read_token(+stream_or_alias, ?nonvar)", "Description",
        "read_token(SorA, Token) succeeds if Token unifies with the next token read from the stream SorA.",
        "read_token/1 applies to the current input stream, the standard input unless set_input/1 changed it."]),
    ("8.14.4 char_conversion/2", [
        "Templates", "char_conversion(+character, +character)", "Description",
        "char_conversion(InChar, OutChar) updates the character conversion table used when terms are read.",
        "Every InChar read is taken as OutChar from then on."]),
]
ERRORS = [("Condition", "Error"), ("SorA is a variable", "instantiation_error"),
          ("SorA is not a stream", "domain_error(stream_or_alias, SorA)")]


def _manual(path):
    import pymupdf

    doc = pymupdf.open()
    for heading, body in ENTRIES:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 80), heading, fontsize=14, fontname="hebo")
        y = 104
        for line in body:
            page.insert_text((72, y), line, fontsize=10)
            y += 14
        page.insert_text((72, y + 6), "Errors", fontsize=10, fontname="hebo")
        top = y = y + 20
        for a, b in ERRORS:  # a ruled table: the text flow is cut in two around it
            page.insert_text((78, y + 12), a, fontsize=10)
            page.insert_text((300, y + 12), b, fontsize=10)
            y += 18
        for r in range(len(ERRORS) + 1):
            page.draw_line((72, top + 18 * r), (520, top + 18 * r))
        for x in (72, 290, 520):
            page.draw_line((x, top), (x, y))
        page.insert_text((72, y + 20), "Portability", fontsize=10, fontname="hebo")
        page.insert_text((72, y + 34), "GNU Prolog predicates.", fontsize=10)
    doc.set_toc([[1, heading, n] for n, (heading, _) in enumerate(ENTRIES, start=1)])
    doc.save(str(path))
    doc.close()
    return path


@pytest.mark.parametrize("tiny_words", [searcher.TINY_WORDS, 0])
def test_a_fragment_of_a_few_words_shows_the_entry_it_ends(library, tmp_path, monkeypatch, tiny_words):
    assert searcher.TINY_WORDS > 0  # the engine's setting is on
    monkeypatch.setattr(searcher, "TINY_WORDS", tiny_words)
    assert [e.stage for e in library.add([_manual(tmp_path / "gprolog.pdf")]) if e.stage in ("done", "failed")] == ["done"]
    fragments = [r[0] for r in library.conn.execute("SELECT text FROM chunks WHERE kind = 'text'")
                 if len(r[0].split()) <= 6]
    assert fragments == ["Portability\nGNU Prolog predicates."]  # the table cut read_token's entry in two
    hits = library.search("How do I read a token in GNU Prolog?", k=3)
    first = hits[0]
    assert first.page == 1, [h.text for h in hits]  # the page of read_token's entry, either way
    if tiny_words:
        assert first.text.startswith("Templates\nread_token(+stream_or_alias, ?nonvar)")
        assert not any(h.text in fragments for h in hits)
    else:  # the test of the old way: the fragment is the hit
        assert first.text in fragments
