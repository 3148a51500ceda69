"""Units of retrieval and chunking: query planning, fusion, MMR, highlight choice, chunk rules."""

from __future__ import annotations

import numpy as np
import pytest

from mmrag_desktop.engine.elements import Block, Figure, Line, PageContent, Table, TableCell
from mmrag_desktop.engine.errors import QueryError
from mmrag_desktop.engine.ingest.chunking import Chunker, group_key_for
from mmrag_desktop.engine.search.fusion import mmr, weighted_rrf
from mmrag_desktop.engine.search.highlight import choose_highlight, iou, lexical_overlap
from mmrag_desktop.engine.search.query import plan_query


def test_plan_query_quotes_everything_and_finds_identifiers():
    p = plan_query('What does ADCSRA do in "Fig. 4-12" of the ATmega328P? NEAR(x)')
    assert "ADCSRA" in p.identifiers and "ATmega328P" in p.identifiers
    assert "figure:4-12" in p.ref_keys
    # every FTS term is a quoted string literal: no bare operators
    for part in p.fts.split(" OR "):
        assert part.startswith('"') and part.endswith('"'), part
    assert '"near"' in p.fts.lower()


@pytest.mark.parametrize("q,intent", [("show me the block diagram of the PLL", "visual"),
                                      ("maximum ratings table for the regulator", "table"),
                                      ("how do I reset the device", "text"),
                                      # a disk, firmware or container image is no picture (the FreedomBox
                                      # Manual's VirtualBox screenshots came before its steps)
                                      ("how do I attach the downloaded image as the VM's disk", "text"),
                                      ("write the SD card image with dd", "text"),
                                      ("is there an official Docker image", "text"),
                                      ("export the block diagram as a PNG image", "visual"),
                                      ("which image shows the pinout", "visual"),
                                      # the operating system is no window (Dibbler's Windows NT4 steps came after
                                      # the manual's first figure)
                                      ("On Windows NT4, which buttons do I click to add the protocol?", "text"),
                                      ("screenshot of the GUI on Windows", "visual"),
                                      ("what does the Stats Window show", "visual")])
def test_intent(q, intent):
    assert plan_query(q).intent == intent


def test_plan_query_rejects_bad_input():
    for q in ("", "   ", "?!?!", "a" * 3000):
        with pytest.raises(QueryError):
            plan_query(q)


def test_weighted_rrf_and_weights():
    fused = weighted_rrf({"dense": [1, 2, 3], "keyword": [3, 1]}, {"dense": 1.0, "keyword": 0.5}, k=60)
    assert fused[1] == pytest.approx(1 / 61 + 0.5 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 0.5 / 61)
    assert max(fused, key=fused.get) == 1
    assert weighted_rrf({"dense": [1]}, {"dense": 0.0}) == {}


def test_mmr_prefers_diverse_items():
    v = np.array([[1, 0], [0.999, 0.04], [0, 1]], dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    assert mmr([10, 11, 12], np.array([1.0, 0.95, 0.9]), v, k=2, lam=0.7) == [10, 12]
    assert mmr([10, 11, 12], np.array([1.0, 0.95, 0.9]), v, k=2, lam=1.0) == [10, 11]


def test_highlight_picks_best_segment_lines_and_spans_pages():
    lines = [
        {"p": 3, "b": [72, 700, 500, 712], "t": "The reset pin must be held low", "s": [0]},
        {"p": 4, "b": [72, 72, 500, 84], "t": "for at least 10 microseconds.", "s": [0]},
        {"p": 4, "b": [72, 90, 500, 102], "t": "The LED blinks twice on start-up.", "s": [1]},
    ]
    seg = np.array([[1, 0], [0, 1]], dtype=np.float16)
    hl = choose_highlight("text", lines, None, seg, np.array([1.0, 0.0]), ["reset", "pin"], 3)
    assert [p for p, _ in hl.boxes] == [3, 4]
    assert hl.segment == 0
    # running text: the sentence after the best one comes along (answers follow the sentence that
    # restates the question); the last sentence has none after it
    assert hl.boxes[1] == (4, (72, 72, 500, 102))
    hl2 = choose_highlight("text", lines, None, seg, np.array([0.0, 1.0]), ["led"], 3)
    assert hl2.page == 4 and hl2.bbox == (72, 90, 500, 102)
    fig = choose_highlight("figure", lines, {"page": 5, "bbox": [10, 20, 300, 400]}, seg, np.array([1.0, 0]), [], 5)
    assert fig.page == 5 and fig.bbox == (10, 20, 300, 400)
    comp = {"p": 5, "b": [50, 60, 70, 80], "t": "reset button", "c": 1, "s": [2]}
    grounded = choose_highlight("figure", lines + [comp], {"page": 5, "bbox": [10, 20, 300, 400]}, seg,
                                np.array([1.0, 0]), ["where", "reset", "button"], 5)
    assert grounded.bbox == (50, 60, 70, 80), "the named component inside the figure is highlighted"
    only_p4 = choose_highlight("text", lines, None, seg, np.array([1.0, 0.0]), [], 3, pages=(4, 4))
    assert only_p4.page == 4


def test_a_sentence_with_the_opposite_of_a_query_word_is_not_the_highlight(embedder, monkeypatch):
    """The embedder reads "internal RAM" as near "external RAM" (sdccman.pdf: the __idata sentence
    outscored the __xdata one for "put a variable in external RAM on the 8051"); a sentence with
    the opposite of a query word and without the word itself loses ANTONYM_PENALTY."""
    from mmrag_desktop.engine.search import highlight

    sentences = ["Variables in this address space will be allocated into the internal ram of a 8051.",
                 "Variables in this address space will be placed in the external RAM."]
    lines = [{"p": 41, "b": [72, 100 + 40 * i, 500, 112 + 40 * i], "t": t, "s": [i]} for i, t in enumerate(sentences)]
    seg = embedder.encode(sentences)
    query = "In SDCC, how do I put a variable in external RAM on the 8051?"
    qvec, terms = embedder.encode([query])[0], plan_query(query).terms
    assert highlight.opposes(terms, sentences[0]) and not highlight.opposes(terms, sentences[1])
    monkeypatch.setattr(highlight, "ANTONYM_PENALTY", 0.0)
    assert choose_highlight("table", lines, None, seg, qvec, terms, 41).segment == 0  # the embedder alone
    monkeypatch.undo()
    assert choose_highlight("table", lines, None, seg, qvec, terms, 41).segment == 1


def test_a_box_that_ends_with_a_question_shows_the_answer_after_it(embedder):
    """AVRDUDE's FAQ asks before it answers, and its question restates the user's: the box showed
    "Problem: ... How to connect the pins?" alone, not the "Solution: ..." that says where the resistor
    goes. A list of questions (a FAQ's contents) shows no more than before."""
    sentences = ["Problem: I want to program an ATtiny4/5/9/10 device using a serial/parallel bitbang programmer.",
                 "How to connect the pins?",
                 "Solution: Since TPI has only 1 pin for bi-directional data transfer, both SDI and SDO pins "
                 "should be connected to the TPIDATA pin on the ATtiny device.",
                 "However, a 1K resistor should be placed between the SDO and TPIDATA."]
    lines = [{"p": 59, "b": [72, 100 + 14 * i, 500, 112 + 14 * i], "t": t, "s": [i]} for i, t in enumerate(sentences)]
    seg = embedder.encode(sentences)
    query = "hooking a bit-bang serial/parallel programmer to an ATtiny10 over TPI: what goes between the pins?"
    qvec, terms = embedder.encode([query])[0], plan_query(query).terms
    hl = choose_highlight("text", lines, None, seg, qvec, terms, 59)
    assert hl.segment == 0, "the problem restates the query best"
    assert hl.bbox == (72, 100, 500, 140), "the box goes on to the solution"
    faq = ["28. How do I use a #define'd constant in an asm statement?",
           "29. How to add a raw binary image to linker output?",
           "30. How do I perform a software reset of the AVR?",
           "31. I am using floating point math. Why is the compiled code so big?"]
    lines = [{"p": 56, "b": [72, 100 + 14 * i, 500, 112 + 14 * i], "t": t, "s": [i]} for i, t in enumerate(faq)]
    hl = choose_highlight("text", lines, None, embedder.encode(faq), embedder.encode([faq[1]])[0],
                          plan_query(faq[1]).terms, 56)
    assert hl.segment == 1 and hl.bbox == (72, 114, 500, 140), "the question and the one after, as before"


def test_table_highlight_is_a_row_not_the_repeated_caption():
    """The caption matches best (it names the table) and still ranks the chunk, but the box is the
    best row; with no row to show, the caption is the highlight."""
    lines = [{"p": 2, "b": [90, 680, 490, 690], "t": "Table 3: Overloaded operators and methods", "s": [0]},
             {"p": 2, "b": [90, 300, 440, 310], "t": "a * b mtimes Matrix multiplication", "s": [1]},
             {"p": 2, "b": [90, 312, 440, 322], "t": "a + b plus Binary addition", "s": [2]}]
    seg = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], dtype=np.float32)
    q = np.array([1.0, 0.0])
    hl = choose_highlight("table", lines, None, seg, q, ["overloaded", "multiplication"], 2)
    assert hl.bbox == (90, 300, 440, 310) and hl.segment == 1
    assert hl.score == pytest.approx(1.0 + 0.25 * 0.5)  # the chunk's score is still its best segment's
    as_text = choose_highlight("text", lines, None, seg, q, ["overloaded", "multiplication"], 2)
    assert as_text.segment == 0
    assert as_text.bbox == (90, 300, 490, 690), "as running text the next segment comes along"
    assert hl.boxes == [(2, (90, 300, 440, 310))], "a table row comes alone, without the next row"
    only_caption = choose_highlight("table", lines[:1], None, seg[:1], q, ["overloaded"], 2)
    assert only_caption.bbox == (90, 680, 490, 690)


def test_iou_and_lexical_overlap():
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0.0
    assert lexical_overlap(["voltages", "supply"], "Supply voltage is 5 V") == 1.0


def _line(text, page=1, y=100.0):
    return Line(text=text, page=page, bbox=(72, y, 500, y + 10))


@pytest.fixture
def chunker(embedder):
    return Chunker(embedder.count_tokens_batch, max_tokens=238, target_tokens=200)


def test_chunker_sections_tables_figures_and_references(chunker):
    page1 = PageContent(1, 612, 792, [
        Block("heading", [_line("3 Power", y=50)], level=1),
        Block("text", [_line("The board takes 5 V, see Figure 2 for the layout.", y=80)]),
        Block("heading", [_line("3.1 Pins", y=120)], level=2),
        Block("caption", [_line("Table 4: Pin map", y=140)], caption_of=4),
        Block("table", [], table=Table((72, 150, 500, 200), [
            TableCell(0, 0, "Pin", (72, 150, 200, 160)), TableCell(0, 1, "Name", (200, 150, 500, 160)),
            TableCell(1, 0, "1", (72, 160, 200, 170)), TableCell(1, 1, "VCC", (200, 160, 500, 170)),
            TableCell(2, 0, "2", (72, 170, 200, 180)), TableCell(2, 1, "GND", (200, 170, 500, 180)),
        ], n_rows=3, n_cols=2)),
        Block("figure", [_line("42", y=260)], figure=Figure((72, 250, 400, 400), "vector", [_line("42", y=260)])),
        Block("caption", [_line("Figure 2: Board layout", y=410)], caption_of=5),
    ])
    chunks = chunker.add_page(page1) + chunker.finish()
    kinds = [c.kind for c in chunks]
    assert kinds.count("table") == 1 and kinds.count("figure") == 1
    text = next(c for c in chunks if c.kind == "text")
    assert text.section == "3 Power"
    table = next(c for c in chunks if c.kind == "table")
    assert table.section == "3 Power > 3.1 Pins" and table.group_key == "table:4"
    assert "Pin: 1 | Name: VCC" in table.text and table.text.startswith("Table 4: Pin map")
    fig = next(c for c in chunks if c.kind == "figure")
    assert fig.group_key == group_key_for("Figure", "2") == "figure:2"
    assert "Referenced as: The board takes 5 V, see Figure 2" in fig.text
    assert fig.text.count("42") == 1, "label text must not be duplicated"
    assert fig.region == (1, (72, 250, 400, 400))


def test_chunker_marks_table_of_contents(chunker):
    toc = PageContent(2, 612, 792, [Block("text", [
        _line(f"{i} Chapter title number {i} . . . . . . . . . . {i * 7}", y=60 + 12 * i) for i in range(1, 12)])])
    chunks = chunker.add_page(toc) + chunker.finish()
    assert chunks and all(c.meta.get("nav") for c in chunks)


def test_chunker_splits_long_text_within_budget(chunker, embedder):
    sentence = "The watchdog timer resets the controller when the firmware stops responding in time. "
    page = PageContent(1, 612, 792, [Block("text", [_line(sentence, y=50 + i) for i in range(60)])])
    chunks = chunker.add_page(page) + chunker.finish()
    assert len(chunks) > 3
    for c in chunks:
        assert embedder.count_tokens(c.text) <= 238
    # consecutive chunks overlap by a little (the last line of one starts the next)
    assert chunks[1].lines[0].bbox == chunks[0].lines[-1].bbox


def test_a_text_tables_rules_do_not_fill_the_chunk(chunker, embedder):
    """GNU PSPP's manual (no set's) prints its output tables as text ("+----------+--+--------+"): each rule
    line cost a word piece a character, a chunk held four lines of a table, and "... 17 of them were born
    after December 31, 1999." was a chunk apart from the table of the 17. The chunk budget and the embedder
    read a run of rule characters as its first (chunking.blank_rules, same length: offsets stay true)."""
    from mmrag_desktop.engine.ingest.chunking import blank_rules
    from mmrag_desktop.engine.ingest.pipeline import embed_text_of

    rule = "+------------------------+--+--------+-------+-------+-------+"
    assert blank_rules(rule) == "+-                       +--+-       +-      +-      +-      +" and len(blank_rules(rule)) == len(rule)
    assert blank_rules("a -- b, x = 3, =====") == "a -- b, x = 3, =    "  # a dash pair is no rule
    table = ["From Result 13.1 one can see that there are 56 persons listed in the dataset, and 17 of",
             "them were born after December 31, 1999.", "Salaries of personnel born after December 31 1999",
             "Descriptive Statistics", rule, "| | N| Mean |Std Dev|Minimum|Maximum|", rule,
             "|Annual salary before tax|17|31828.59|4454.80|$23,451|$39,504|", "|Valid N (listwise) |17| | | | |",
             "|Missing N (listwise) | 0| | | | |", rule, "Result 13.1: Salary descriptives after SELECT IF."]
    assert sum(embedder.count_tokens_batch(table)) > 200  # the case: as written, more than a chunk's budget
    page = PageContent(1, 612, 792, [Block("text", [_line(t, y=50 + 12 * i) for i, t in enumerate(table)])])
    (chunk,) = chunker.add_page(page) + chunker.finish()
    assert "17 of" in chunk.text and "31828.59" in chunk.text
    text, offset = embed_text_of(chunk)
    assert embedder.count_tokens(text) <= 238 and rule not in text and len(text) == offset + len(chunk.text)


def test_a_chunks_overlap_with_the_next_opens_with_a_whole_declaration(embedder):
    """Ghostscript's color management notes list functions as a declaration over two lines and a
    description. A chunk ended with "int gsicc_init_device_profile_struct(gx_device * dev, char
    *profile_name," / "gsicc_profile_types_t profile_type);", the next began with the second line
    only and went on with "This sets the device profiles. If the device does not have a defined
    profile, then a default one is selected.": the chunk that says what the function does never
    named it. The overlap goes back to the line that opens the bracket the overlap's first line closes."""
    filler = ["This sets the black point compensation for a particular object type."] * 3
    declaration = ["int gsicc_init_device_profile_struct(gx_device * dev, char *profile_name,",
                   "gsicc_profile_types_t profile_type);"]
    description = "This sets the device profiles. If the device does not have a defined profile, a default one is selected."
    cost = [n + 1 for n in embedder.count_tokens_batch(filler + declaration)]
    # the chunk closes before the description; only the declaration's last line fits the plain overlap
    chunker = Chunker(embedder.count_tokens_batch, max_tokens=238, target_tokens=sum(cost), overlap_tokens=cost[-1])
    texts = filler + declaration + [description]
    page = PageContent(1, 612, 792, [Block("text", [_line(t, y=50 + 12 * i) for i, t in enumerate(texts)])])
    first, second = chunker.add_page(page) + chunker.finish()
    assert [ln.text for ln in first.lines][-2:] == declaration and description not in first.text
    assert [ln.text for ln in second.lines] == [*declaration, description]
    # a remark in brackets that prose goes on with is no declaration: the overlap stays as it was
    remark = ["The characters ( ) , [ ] are not allowed in a node name, especially when code",
              "models are used (they have their special meanings then and act as string", "delimiters)."]
    cost = [n + 1 for n in embedder.count_tokens_batch(filler + remark)]
    chunker = Chunker(embedder.count_tokens_batch, max_tokens=238, target_tokens=sum(cost), overlap_tokens=cost[-1])
    texts = filler + remark + [description]
    page = PageContent(1, 612, 792, [Block("text", [_line(t, y=50 + 12 * i) for i, t in enumerate(texts)])])
    first, second = chunker.add_page(page) + chunker.finish()
    assert [ln.text for ln in second.lines] == [remark[-1], description]


def test_chunk_segments_do_not_split_after_abbreviations(chunker):
    """Chunk segments come from the shared splitter (sentence_split.py): "Fig. 3" and "approx. 5 V"
    stay inside their sentence; a real full stop, a ';' or ':' before a capital still cut."""
    lines = ["See Fig. 3 for details. Use an approx. 5 V supply for the board.",
             "Note: The pins of No. 4 are e.g. the inputs; Pin 2 is ground."]
    page = PageContent(1, 612, 792, [Block("text", [_line(t, y=50 + 20 * i) for i, t in enumerate(lines)])])
    (chunk,) = chunker.add_page(page) + chunker.finish()
    segments = [chunk.text[a:b] for a, b in chunk.segments]
    assert segments == ["See Fig. 3 for details.", "Use an approx. 5 V supply for the board.", "Note:",
                        "The pins of No. 4 are e.g. the inputs;", "Pin 2 is ground."]
    assert chunk.segment_lines() == [[0], [0], [1], [1], [1]]
    for text in ("See Fig. 3 for details.", "approx. 5 V supply"):
        (c,) = chunker.add_page(PageContent(2, 612, 792, [Block("text", [_line(text)])])) + chunker.finish()
        assert [c.text[a:b] for a, b in c.segments] == [text]


def test_chunker_footnotes_end_their_chunk_and_stay_within_budget(chunker, embedder):
    sentence = "The relay closes when the coil current exceeds the pick-up value of the contactor. "
    note = "This note explains the pick-up current of every relay family the vendor sold in that decade. "
    page = PageContent(1, 612, 792, [
        Block("text", [_line("Relays switch the pump.", y=60)]),
        Block("footnote", [Line(f"({i}) {note}", 1, (72, 700 + i, 500, 708 + i), note_mark=str(i))
                           for i in range(1, 13)]),
    ])
    nxt = PageContent(2, 612, 792, [Block("text", [_line(sentence, page=2, y=60)])])
    chunks = chunker.add_page(page) + chunker.add_page(nxt) + chunker.finish()
    # the text before the notes opens the first chunk, every note is kept once, no chunk is truncated
    assert chunks[0].text.startswith("Relays switch the pump.")
    assert sum(c.text.count(note.strip()) for c in chunks) == 12
    assert all(embedder.count_tokens(c.text) <= 238 for c in chunks)


def test_a_quantity_is_searched_in_every_way_manuals_write_it():
    from mmrag_desktop.engine.search.query import quantity_forms

    assert quantity_forms("can the inputs take 5V?") == ["5v", "5 v", "5 volt"]
    assert quantity_forms("a 5 V supply") == quantity_forms("5 volts") == ["5v", "5 v", "5 volt"]
    assert quantity_forms("3.3V logic, 100mA out, a 10 kHz clock") == [
        "3.3v", "3.3 v", "3.3 volt", "100ma", "100 ma", "100 milliamp", "10khz", "10 khz", "10 kilohertz"]
    assert quantity_forms("3 A fuse") == ["3a", "3 a", "3 amp"]
    assert quantity_forms("version 2 and 3 a second time; R2 at pin 5") == []  # an article, no units


def test_a_quantity_written_one_way_finds_a_page_that_writes_it_another(library, tmp_path):
    from conftest import write_pdf

    inputs = write_pdf(tmp_path / "inputs.pdf", [[(72, 110, "The analog inputs accept up to 5 volts against ground.")]])
    outputs = write_pdf(tmp_path / "outputs.pdf", [[(72, 110, "The digital outputs deliver 3 mA, 5 of them in all.")]])
    assert [e.stage for e in library.add([inputs, outputs]) if e.stage in ("done", "failed")] == ["done", "done"]
    for query in ("which pins take 5V", "which pins take 5 V"):
        hits = library.search(query, k=2)
        assert hits[0].doc == "inputs.pdf" and hits[0].sources.get("exact") == 1, (query, hits[0].sources)
        assert all("exact" not in h.sources for h in hits if h.doc == "outputs.pdf")


def test_a_sign_written_alone_is_searched_by_its_name(library, tmp_path):
    """GAP's tutorial (asked in session 67, no set's): "When GAP prints a list with a ~ in one of its positions, what
    does that mean?" never found "Now the tilde in the fourth position of lll denotes the object that is currently
    printed": the tokenizer drops the sign and the embedder reads nothing in it. A sign written alone is searched
    by its name too; inside a formula or a word it is not."""
    from conftest import write_pdf

    tilde = write_pdf(tmp_path / "tilde.pdf", [[(72, 110, "A list may even be part of itself."),
                                                (72, 126, "Now the tilde in the fourth position denotes the object "
                                                          "that is currently printed.")]])
    lists = write_pdf(tmp_path / "lists.pdf", [[(72, 110, "GAP prints a list with its entries in brackets, in the "
                                                          "positions they hold; holes print as nothing.")]])
    assert [e.stage for e in library.add([tilde, lists]) if e.stage in ("done", "failed")] == ["done", "done"]
    hits = library.search("What does a ~ stand for?", k=2)  # (no other word of it on either page)
    assert [h.doc for h in hits if "keyword" in h.sources] == ["tilde.pdf"], [(h.doc, h.sources) for h in hits]
    assert hits[0].doc == "tilde.pdf"
    from mmrag_desktop.engine.search.query import symbols_named

    assert symbols_named("a list with a ~ in one of its positions") == ["tilde"]
    assert symbols_named("use '*' or \"^ label\"") == ["asterisk", "caret"]
    assert symbols_named("x^2, a~b and A*B") == []
