"""A chunk of a few words ("Portability / GNU Prolog predicates.", the end of a predicate's entry
that a table cut off from the rest) is matched by its section title alone: asking GNU Prolog's
manual "How do I read a term from standard input?" put four of them in the top five. Such a chunk
loses part of its score (searcher.TINY_WORDS, TINY_PENALTY); a real PDF, SQLite, hnswlib, MiniLM."""

from __future__ import annotations

import pytest

from mmrag_desktop.engine.search import searcher

# (level, heading, body lines) of a page of GNU Prolog's manual
ENTRIES = [
    (1, "8.14.3 read_token/2, read_token/1", ["Portability", "GNU Prolog predicates."]),
    (1, "8.14.1 read_term/3, read_term/2, read/2, read/1", [
        "read_term(SorA, Term, Options) is true if Term unifies with the next term read from the stream",
        "associated with the stream-term or alias SorA according to the options given by Options.",
        "read(SorA, Term) is equivalent to read_term(SorA, Term, []). read_term/2 and read/1 apply to the",
        "current input stream, which is the standard input unless it was changed with set_input/1."]),
    (1, "8.14.4 char_conversion/2", [
        "char_conversion(InChar, OutChar) updates the character conversion table used when terms are",
        "read, so that every InChar read is taken as OutChar from then on."]),
]


def _manual(path):
    import pymupdf

    doc = pymupdf.open()
    toc = []
    for n, (level, heading, body) in enumerate(ENTRIES, start=1):  # one entry a page: one hit a page
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 80), heading, fontsize=14, fontname="hebo")
        toc.append([level, heading, n])
        for i, line in enumerate(body):
            page.insert_text((72, 104 + 14 * i), line, fontsize=10)
    doc.set_toc(toc)
    doc.save(str(path))
    doc.close()
    return path


@pytest.mark.parametrize("tiny_words", [searcher.TINY_WORDS, 0])
def test_a_chunk_of_a_few_words_does_not_outrank_the_entry(library, tmp_path, monkeypatch, tiny_words):
    assert searcher.TINY_WORDS > 0  # the engine's setting is on
    monkeypatch.setattr(searcher, "TINY_WORDS", tiny_words)
    doc = _manual(tmp_path / "gprolog.pdf")
    assert [e.stage for e in library.add([doc]) if e.stage in ("done", "failed")] == ["done"]
    hits = library.search("How do I read a term from standard input in GNU Prolog?", k=3)
    tiny = [h for h in hits if len(h.text.split()) <= 6]
    assert tiny, [h.text for h in hits]  # the short chunk is a hit, and it is indexed on its own
    first = hits[0]
    assert first.text.startswith("read_term(SorA, Term, Options)") == bool(tiny_words), [h.text for h in hits]
