"""Words hyphenated at a line end are joined before chunking (dehyphenate.py): the rules on their
own, then a real PDF through the real ingest, where keyword search must find the joined word."""

from __future__ import annotations

import pymupdf
import pytest

from mmrag_desktop.engine.elements import Line
from mmrag_desktop.engine.ingest.dehyphenate import Vocabulary, join_hyphenated
from mmrag_desktop.engine.models.text_embedder import words_of_vocab


def lines(*texts: str, mono: bool = False) -> list[Line]:
    return [Line(t, 1, (72.0, 100.0 + 12 * i, 500.0, 110.0 + 12 * i), mono=mono) for i, t in enumerate(texts)]


def joined(vocab: Vocabulary, *texts: str) -> list[str]:
    return [ln.text for ln in join_hyphenated(lines(*texts), vocab)]


def test_a_word_broken_by_typesetting_is_joined_and_its_tail_moves_up():
    v = Vocabulary()
    assert joined(v, "the resistance to be calcu-", "lated from geometric data.") == [
        "the resistance to be calculated", "from geometric data."]
    assert joined(v, "Invoking R from the command line is In-", "voking by name.") == [
        "Invoking R from the command line is Invoking", "by name."]  # "voking" is no word


def test_the_punctuation_that_closes_the_word_moves_up_with_its_tail():
    """dotguide.pdf p13: "... controlled by the pagedir at-" / "tribute. Output is always done ..." left
    ". Output is always done ..." on the next line: the full stop ended no sentence there, and the
    sentence that answers "in what order are the pages output?" ran from the line before."""
    v = Vocabulary()
    assert joined(v, "can be controlled by the pagedir at-", "tribute. Output is always done") == [
        "can be controlled by the pagedir attribute.", "Output is always done"]
    assert joined(v, "one can set margin=0, unfortu-", "nately, many bitmap printers") == [
        "one can set margin=0, unfortunately,", "many bitmap printers"]
    assert joined(v, "(as the de-", "fault) value") == ["(as the default)", "value"]
    assert joined(v, "a file named calcu-", "lated.c here") == ["a file named calculated", ".c here"]  # no closing mark


def test_a_name_with_underscores_broken_by_typesetting_moves_up_whole():
    """Ghostscript's color management notes: "This is used by gs-" / "icc_init_device_profile_struct,
    which will specify the default profile ..." moved only "icc" up: the chunk read "gsicc" and a line
    opening with "_init_device_profile_struct", and a question naming the function found no sentence
    that did (ngspice's "con-" / "sole_debug", Octave's "ma-" / "trix_type" and Yosys's "trans-" /
    "late_on" were broken the same way)."""
    v = Vocabulary()
    assert joined(v, "This is used by gs-", "icc_init_device_profile_struct, which will specify") == [
        "This is used by gsicc_init_device_profile_struct,", "which will specify"]
    assert joined(v, "the option con-", "sole_debug.") == ["the option console_debug."]
    assert joined(v, "the attribute trans-", "late_on is set") == ["the attribute translate_on", "is set"]


def test_the_document_and_the_dictionary_decide_where_a_hyphen_belongs():
    v = Vocabulary({"network", "mounted", "default", "post", "processing"})
    v.add(["The byte-compiled files are kept.", "Benchmarks follow."])
    assert joined(v, "a network-", "mounted disk") == ["a network-mounted", "disk"]  # two known words
    assert joined(v, "the de-", "fault value") == ["the default", "value"]  # a known word
    assert joined(v, "all byte-", "compiled code") == ["all byte-compiled", "code"]  # the document's compound
    assert joined(v, "Benchmark-", "ing shows") == ["Benchmarking", "shows"]  # a suffix
    assert joined(v, "pre- or post-", "processing steps") == ["pre- or post-processing", "steps"]
    assert joined(v, "either pre-", "or post-processing") == ["either pre-", "or post-processing"]  # hangs


def test_what_is_not_a_broken_word_is_left_alone():
    v = Vocabulary({"enable", "shared"})
    assert joined(v, "configure with --enable-", "shared to build") == ["configure with --enable-", "shared to build"]
    assert joined(v, "a value of -", "minus one") == ["a value of -", "minus one"]  # a dash, no word head
    assert joined(v, "see section 4-", "page 7") == ["see section 4-", "page 7"]
    assert joined(v, "the first one-", "Second line") == ["the first one-", "Second line"]  # capital: a new start
    code = lines("x = calcu-", "lated + 1", mono=True)
    assert join_hyphenated(code, v) == code


def test_a_word_doxygen_wrapped_with_its_arrow_mark_is_joined_without_it():
    """avr-libc's manual (doxygen) wraps long identifiers and URLs with an arrow and a hook, which
    the PDF gives as "\u2190-" or "\u2190\ufffd"; keyword search must find "__heap_end"."""
    v = Vocabulary()
    assert joined(v, "point to __heap_start and __\u2190-", "heap_end, respectively, where") == [
        "point to __heap_start and __heap_end,", "respectively, where"]
    assert joined(v, "use the bug tracker at https://savannah.nongnu.\u2190\ufffd", "org/bugs/ please") == [
        "use the bug tracker at https://savannah.nongnu.org/bugs/", "please"]
    code = lines("x = pgm_\u2190-", "read_byte(&table[i]);", mono=True)
    assert [ln.text for ln in join_hyphenated(code, v)] == ["x = pgm_read_byte(&table[i]);"]
    assert joined(v, "an arrow \u2190 in the middle", "stays") == ["an arrow \u2190 in the middle", "stays"]


def test_a_line_that_only_held_the_tail_is_dropped():
    out = join_hyphenated(lines("the resistance is calcu-", "lated", "next line."), Vocabulary())
    assert [ln.text for ln in out] == ["the resistance is calculated", "next line."]


def test_the_pieces_of_a_broken_word_are_not_learned_as_words():
    v = Vocabulary()
    v.add(["the resistance to be calcu-", "lated from data"])
    assert "calcu" not in v.words and "lated" not in v.words and {"resistance", "from"} <= v.words


def test_whole_words_of_a_tokenizer_vocabulary():
    assert words_of_vocab({"default": 1, "##lated": 2, "calcu": 3, "[CLS]": 4, "x": 5, "7up": 6}) == {"default", "calcu"}
    assert words_of_vocab({"\u2581Default": 1, "lated": 2, "\u2581a": 3}) == {"default"}
    assert words_of_vocab({"abc": 1}) == set()


def test_the_real_embedder_knows_common_words(embedder):
    words = embedder.known_words()
    assert {"default", "network", "however"} <= words and "calcu" not in words


@pytest.fixture()
def hyphen_pdf(tmp_path):
    path = tmp_path / "hyphen.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    text = ["The nominal resistance of the wire is calcu-", "lated from its length and the sheet resis-",
            "tance given in the model card. A network-", "mounted library works the same way."]
    for i, t in enumerate(text):
        page.insert_text((72, 100 + 14 * i), t, fontsize=11)
    doc.save(path)
    return path


def test_ingest_joins_the_words_and_search_finds_them(hyphen_pdf, library):
    for _ in library.add([hyphen_pdf]):
        pass
    (text,) = [r[0] for r in library.conn.execute("SELECT text FROM chunks")]
    assert "calculated" in text and "resistance" in text and "network-mounted" in text
    hits = library.search("calculated resistance", k=3)
    assert hits and "calculated" in hits[0].text and hits[0].page == 1
    assert library.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'calculated'").fetchone()[0] == 1
