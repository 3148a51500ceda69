"""The PDF parser on real PDFs generated with PyMuPDF (tests/pdf_factory.py)."""

from __future__ import annotations

import re

import pytest
from pdf_factory import (
    make_corrupt_pdf,
    make_encrypted_pdf,
    make_headings_pdf,
    make_page_break_pdf,
    make_raster_figure_pdf,
    make_ruled_table_pdf,
    make_two_column_pdf,
    make_vector_figure_pdf,
    make_zero_page_pdf,
)

from mmrag_desktop.engine.errors import CorruptDocumentError, EncryptedDocumentError
from mmrag_desktop.engine.parse.pdf import open_pdf


def parse(path, **kw):
    with open_pdf(path, **kw) as doc:
        return list(doc.pages())


def _saved_and_parsed(doc, path):
    """The pages of the PyMuPDF document `doc`, saved to `path` and closed, as the parser reads them."""
    doc.save(str(path))
    doc.close()
    return parse(path)


def near(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def text_blocks(page):
    return [b for b in page.blocks if b.kind in ("text", "list", "code", "heading", "caption")]


@pytest.mark.parametrize("outline", [True, False])
def test_headings_levels_and_running_furniture(tmp_path, outline):
    sample = make_headings_pdf(tmp_path / "h.pdf", outline=outline)
    pages = parse(sample.path)
    assert [p.page for p in pages] == [1, 2, 3]
    assert all(p.width == 612 and p.height == 792 and p.rotation == 0 for p in pages)
    for page in pages:
        expected = [(lvl, title) for lvl, title, pg in sample.info["headings"] if pg == page.page]
        got = [(b.level, b.text) for b in page.blocks if b.kind == "heading"]
        assert got == expected
        texts = [b.text for b in page.blocks if b.kind == "text"]
        markers = sample.info["body_markers"][page.page]
        assert [t.split()[0] for t in texts] == markers
        all_text = "\n".join(b.text for b in page.blocks)
        # running header and page number are gone
        assert sample.info["header"] not in all_text
        assert not any(ln.text.strip() == str(page.page) for b in page.blocks for ln in b.lines)
        # reading order: heading, paragraph, heading, paragraph ...
        assert [b.kind for b in page.blocks] == ["heading", "text", "heading", "text", "heading", "text"]


def test_a_page_number_beside_a_running_header_below_the_margin_goes_with_it(tmp_path):
    """Ghostscript's color notes set "Artifex Software Inc. www.artifex.com" and the page number on one row
    at 12% of the page, below the margin band: the header was dropped as a repeated line, but its number
    stayed, was indexed and quoted ("34 void gscms_get_name2device_link(...)"). A page number on the row
    of a header dropped goes with it; a number in the text stays."""
    import pymupdf

    doc = pymupdf.open()
    for n in range(1, 6):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 100), "Artifex Software Inc. www.artifex.com", fontsize=10)
        page.insert_text((528, 100), str(n + 20), fontsize=10)
        for i in range(12):
            page.insert_text((72, 140 + 14 * i), f"Body line {i} of page {n} says what the profile manager does.", fontsize=10)
        page.insert_text((72, 330), "42", fontsize=10)  # a number standing in the text, not a page number
    path = tmp_path / "header.pdf"
    doc.save(str(path))
    doc.close()
    for page in parse(path):
        lines = [ln.text for b in page.blocks for ln in b.lines]
        assert not any("Artifex" in t for t in lines) and str(page.page + 20) not in lines, lines[:3]
        assert "42" in lines and lines[0].startswith("Body line 0"), lines[:3]


def test_short_paragraphs_of_a_manual_whose_listings_outweigh_its_prose_are_text(tmp_path):
    """stanli's and Yosys's manuals set more characters of 8 pt code than of 11 pt or 10 pt prose: the
    body size was taken from the code, and every paragraph of two or three lines, being larger, was read
    as a heading, so "Special additions ... are shown in orange, but are not in the sample code" was in
    no chunk's text. The body size is the prose's; the section titles stay headings."""
    import pymupdf

    TITLES = {1: "Beams and bars", 2: "Supports and bearings", 3: "Joints"}  # noqa: N806
    doc = pymupdf.open()
    for n in range(1, 4):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 130), f"{n}.1 {TITLES[n]}", fontsize=14, fontname="hebo")
        page.insert_text((72, 160), f"Special additions of page {n} are shown in orange, but are not in the", fontsize=11)
        page.insert_text((72, 174), "sample code available.", fontsize=11)
        for i in range(6):  # a paragraph of six lines: under half the characters, as in those manuals
            page.insert_text((72, 200 + 14 * i), f"Line {i} of the paragraph on beams tells how a bar is drawn.", fontsize=11)
        for i in range(14):
            page.insert_text((90, 300 + 10 * i), f"\\dbeam {{{i}}}{{ initial point }}{{ end point }}[ rounded ][ rounded ];",
                             fontsize=8, fontname="cour")
        page.insert_text((72, 480), f"{n}.2 Loads", fontsize=14, fontname="hebo")
        page.insert_text((72, 510), "The optional parameter orientation can be changed. The default", fontsize=11)
        page.insert_text((72, 524), "setting is above right, which means top right.", fontsize=11)
    for page in _saved_and_parsed(doc, tmp_path / "listings.pdf"):
        kinds = {b.text.split()[0]: b.kind for b in page.blocks}
        assert kinds["Special"] == kinds["The"] == "text", kinds
        assert [b.text for b in page.blocks if b.kind == "heading"] == [f"{page.page}.1 {TITLES[page.page]}",
                                                                          f"{page.page}.2 Loads"]
        assert any(b.kind == "code" and "dbeam" in b.text for b in page.blocks)


def test_two_columns_read_left_then_right(tmp_path):
    sample = make_two_column_pdf(tmp_path / "c.pdf")
    (page,) = parse(sample.path)
    assert page.blocks[0].kind == "heading" and page.blocks[0].text == sample.info["title"]
    paras = [b for b in page.blocks if b.kind == "text"]
    assert [b.text.split()[0] for b in paras] == [m + "" for m in sample.info["order"]]
    gutter = sample.info["gutter"]
    for b in paras:
        x0, _, x1, _ = b.bbox
        assert x1 < gutter or x0 > gutter  # no paragraph spans both columns
        assert "Left" not in b.text or "Right" not in b.text


def test_a_justified_line_set_word_by_word_above_a_listing_is_read_in_its_place(tmp_path):
    """Prawn's manual sets justified lines one word at a time; the words right of a narrow listing below them
    are no column of their own (they were read after the listing, and the paragraph lost them)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((66, 100), "Knowing that any extension we add to the text box class will take effect when we use the",
                     fontsize=11)
    x = 66.0
    for word in "text_box method. To add an extension all we need to do is append the".split():
        page.insert_text((x, 115), word, fontsize=11)
        x += pymupdf.get_text_length(word, fontsize=11) + 9
    page.insert_text((66, 130), "extensions array with a module.", fontsize=11)
    for i, code in enumerate(["module TriangleBox", "  def available_width", "    height + 25", "  end", "end",
                              "y_position = cursor - 10", "width = 100", "height = 100"]):
        page.insert_text((76, 170 + 12 * i), code, fontsize=9.5, fontname="cour")
    (parsed,) = _saved_and_parsed(doc, tmp_path / "justified.pdf")
    lines = [ln.text for b in parsed.blocks for ln in b.lines]
    assert "text_box method. To add an extension all we need to do is append the" in lines
    assert lines.index("extensions array with a module.") < lines.index("module TriangleBox")
    assert lines[-1] == "height = 100"


def test_paragraph_across_page_break_keeps_both_parts(tmp_path):
    sample = make_page_break_pdf(tmp_path / "b.pdf")
    p1, p2 = parse(sample.path)
    last, first = p1.blocks[-1], p2.blocks[0]
    assert last.kind == first.kind == "text"
    assert last.lines[-1].text == sample.info["first_part"]
    assert first.lines[0].text == sample.info["second_part"]
    assert last.lines[-1].page == 1 and first.lines[0].page == 2
    assert first.lines[0].bbox[1] < 120  # at the top of page 2, not dropped as a header


def test_a_running_header_below_the_margin_band_is_dropped(tmp_path):
    """gpsim's manual (LaTeX on letter paper, deep margins): "CHAPTER 15. THEORY OF OPERATION 61" stands
    at 14% of the page's height, below the margin band, and opened a chunk's sentence in answers
    ("THEORY OF OPERATION 61 Cycle break points are implemented with ..."). A body line at the same
    height on one page only stays, as does a heading line of one word."""
    import pymupdf

    doc = pymupdf.open()
    for n in range(4):
        page = doc.new_page(width=612, height=792)
        page.insert_text((134, 105), f"CHAPTER 15. THEORY OF OPERATION {60 + n}", fontsize=10, fontname="helv")
        top = "Breakpoints fall into three categories." if n == 2 else f"Body text of page {n + 1} opens here."
        page.insert_text((134, 135), top, fontsize=10, fontname="helv")
        page.insert_text((134, 150), "Cycle break points are implemented with a sorted doubly-linked list.",
                         fontsize=10, fontname="helv")
    first = doc.new_page(width=612, height=792)  # a chapter's first page: its title is the top line
    first.insert_text((134, 105), "Chapter 16", fontsize=14, fontname="helv")
    first.insert_text((134, 135), "Regression tests validate the simulator.", fontsize=10, fontname="helv")
    doc.save(tmp_path / "deep.pdf")
    pages = parse(tmp_path / "deep.pdf")
    texts = [[ln.text for b in p.blocks for ln in b.lines] for p in pages]
    assert not any("THEORY OF OPERATION" in t for page in texts for t in page), texts
    assert all(any(t.startswith("Cycle break points") for t in page) for page in texts[:4])
    assert "Breakpoints fall into three categories." in texts[2]
    assert "Chapter 16" in " ".join(texts[4])


def test_a_running_header_that_names_the_current_section_is_dropped(tmp_path):
    """ngspice's, SDCC's and GLE's headers name the section the page is in ("2.2. DOT COMMANDS", "1.3.
    DOCUMENTATION") and xfig's footers its heading ("Starting xfig"): a different text on every page, so no
    page repeats it, and chunks read "1.1. SIMULATION ALGORITHMS" inside their sentences. A title-like line
    set apart from the text, in the place of such lines on two neighbouring pages, is one too; a page's last
    line of prose in that place stays, as does a section's title where no page has a header."""
    import pymupdf

    WORDS = ["first", "second", "third", "fourth", "fifth"]  # (a line repeated at the top would be a header)
    sections = ["1.1. SIMULATION ALGORITHMS", "1.2. SUPPORTED ANALYSES", "1.3. ANALYSIS AT DIFFERENT TEMPERATURES",
                "1.4. CONVERGENCE", "1.5. NOISE ANALYSIS"]
    doc = pymupdf.open()
    for n, header in enumerate(sections):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 30), header, fontsize=9, fontname="helv")
        for i in range(40):
            page.insert_text((72, 70 + 16 * i), f"Line {i} of the {WORDS[n]} body text about the simulator.",
                             fontsize=10, fontname="helv")
        last = "and the stepsize is halved, and the analysis is tried again." if n == 4 else sections[n].title()
        page.insert_text((72, 760), last, fontsize=10, fontname="helv")
    doc.save(tmp_path / "sections.pdf")
    texts = [[ln.text for b in p.blocks for ln in b.lines] for p in parse(tmp_path / "sections.pdf")]
    assert not any(h in t for page in texts for t in page for h in sections), texts[0][:3]
    assert all(any(t.startswith(f"Line 0 of the {WORDS[n]}") for t in page) for n, page in enumerate(texts))
    # the bottom line: a section's title in the same place on the pages around is a footer; prose stays
    assert "and the stepsize is halved, and the analysis is tried again." in texts[4]
    assert not any(sections[n].title() in texts[n] for n in range(4))

    doc = pymupdf.open()  # no headers: each page opens with its section's title, set apart, in one place
    for n, title in enumerate(sections[:3]):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 40), title.title(), fontsize=14, fontname="hebo")
        for i in range(40):
            page.insert_text((72, 100 + 16 * i), f"Line {i} of the {WORDS[n]} section.", fontsize=10, fontname="helv")
    doc.save(tmp_path / "titles.pdf")
    texts = [[ln.text for b in p.blocks for ln in b.lines] for p in parse(tmp_path / "titles.pdf")]
    assert [page[0] for page in texts] == [t.title() for t in sections[:3]]


def _middle_pages_lines(doc, path) -> list[list[str]]:
    """The text lines of each page of `doc`, saved to `path` and parsed, but the first and last two (a page has
    two neighbours either side to compare its margins with)."""
    return [[ln.text for b in p.blocks for ln in b.lines] for p in _saved_and_parsed(doc, path)][2:-2]


def test_a_running_header_centred_or_flush_right_that_names_the_section_is_dropped(tmp_path):
    """NETGEN's manual (LaTeX): even pages carry "18  CHAPTER 3. OTHER GEOMETRY FORMATS", the chapter's title
    centred, odd ones "2.4. KNOWN PROBLEMS AND WORK-AROUNDS  15", the section's flush right: a different text
    and so a different left edge on every page, and a chapter of two pages shows its title once. The header
    stayed in the text ("... a spline patch by 3 d'Boor" / "18 CHAPTER 3. OTHER GEOMETRY FORMATS" / "points.")
    and was quoted ("OTHER GEOMETRY FORMATS points."). Lines centred alike or flush right alike stand in one
    place too."""
    import pymupdf

    headers = ["CHAPTER 2. CONSTRUCTIVE SOLID GEOMETRY (CSG)", "2.4. KNOWN PROBLEMS AND WORK-AROUNDS",
               "CHAPTER 3. OTHER GEOMETRY FORMATS", "3.2. USING SPLINE GEOMETRIES",
               "CHAPTER 4. MESH AND SOLUTION FORMATS", "4.5. SOLUTION FILE FORMAT",
               "CHAPTER 5. NETGEN OPERATIONS", "5.1. COMMAND LINE ARGUMENTS"]
    doc = pymupdf.open()
    for n, header in enumerate(headers):
        page = doc.new_page(width=612, height=792)
        width = pymupdf.get_text_length(header, fontname="helv", fontsize=10)
        # even pages: the chapter's title centred; odd ones: the section's flush right
        page.insert_text((306 - width / 2 if n % 2 == 0 else 522 - width, 80), header, fontsize=10, fontname="helv")
        for i in range(36):
            page.insert_text((90, 120 + 16 * i), f"Line {i} of page {14 + n}, the mesher's text about geometries.",
                             fontsize=10, fontname="helv")
    middle = _middle_pages_lines(doc, tmp_path / "netgen.pdf")
    assert not any(h in t for page in middle for t in page for h in headers), [page[:2] for page in middle]
    assert all(page[0].startswith("Line 0 of page") for page in middle), [page[:2] for page in middle]


def test_a_running_header_of_two_lines_that_names_the_section_is_dropped(tmp_path):
    """SCons' user guide (DocBook, Apache FOP): a long section title is its page's running header over two lines,
    flush right, 10 pt above the text ("Getting Values Set by Command-Line Options: the" / "GetOption Function"). Neither
    line was set apart from the text as a header of one line is, and the two ran on with the page's first paragraph:
    "Getting Values Set by Command-Line Options: the GetOption Function If, for example, you are using a POSIX shell
    ..." was quoted first."""
    import pymupdf

    titles = [("Controlling the Build From the Command Line: the", "SCONSFLAGS Variable"),
              ("Getting Values Set by Command-Line Options: the", "GetOption Function"),
              ("Setting Values of Command-Line Options: the", "SetOption Function"),
              ("Strings for Getting or Setting Values of Command-", "Line Options"),
              ("Adding Custom Command-Line Options: the", "AddOption Function"),
              ("Command-Line variable=value Build Variables", None)]
    doc = pymupdf.open()
    for n, (first, second) in enumerate(titles):
        page = doc.new_page(width=612, height=792)
        for k, text in enumerate(t for t in (first, second) if t):
            width = pymupdf.get_text_length(text, fontname="tiro", fontsize=10)
            page.insert_text((540 - width, 44 + 12 * k), text, fontsize=10, fontname="tiro")
        for i in range(40):
            page.insert_text((72, 80 + 12 * i), f"If, for example, line {i} of page {80 + n} says what the option does.",
                             fontsize=10, fontname="tiro")
    middle = _middle_pages_lines(doc, tmp_path / "scons.pdf")
    heads = {t for pair in titles for t in pair if t}
    assert not any(t in heads for page in middle for t in page), [page[:3] for page in middle]
    assert all(page[0].startswith("If, for example, line 0 of page") for page in middle), [page[:2] for page in middle]


def test_footnote_is_taken_out_of_the_text_flow(tmp_path):
    note = "A negative resistor can cause convergence problems."
    sample = make_page_break_pdf(tmp_path / "f.pdf", footnote=note)
    p1, p2 = parse(sample.path)
    notes = [b for b in p1.blocks if b.kind == "footnote"]
    assert [b.text for b in notes] == ["(1) " + note]  # the mark set apart, not "1A negative"
    assert notes[0].lines[0].note_mark == "1" and notes[0].lines[0].bbox[1] > 700
    prose = [b for b in p1.blocks if b.kind == "text"]
    assert prose[-1].lines[-1].text == sample.info["first_part"]
    assert all(note not in b.text for b in prose + p2.blocks)
    # the same page without the note has no footnote block, and body lines never open with a marker
    plain = parse(make_page_break_pdf(tmp_path / "p.pdf").path)
    assert not [b for p in plain for b in p.blocks if b.kind == "footnote"]
    assert not any(ln.note_mark for p in plain for b in p.blocks for ln in b.lines)


def test_ruled_table_cells_caption_and_no_duplicate_text(tmp_path):
    sample = make_ruled_table_pdf(tmp_path / "t.pdf")
    (page,) = parse(sample.path)
    tables = [i for i, b in enumerate(page.blocks) if b.kind == "table"]
    assert len(tables) == 1
    tb = page.blocks[tables[0]]
    table = tb.table
    assert (table.n_rows, table.n_cols) == (5, 3)
    assert [[c.text for c in row] for row in table.rows()] == sample.info["cells"]
    assert table.header_rows == 1
    gx0, gy0, gx1, gy1 = sample.info["bbox"]
    x0, y0, x1, y1 = table.bbox
    assert gx0 - 2 <= x0 and gy0 - 2 <= y0 and x1 <= gx1 + 2 and y1 <= gy1 + 2
    # each cell box contains the place where its text was drawn
    for cell in table.cells:
        drawn = sample.info["cell_boxes"][cell.row][cell.col]
        cx, cy = drawn[0] + 8, drawn[1] + 10
        assert cell.bbox[0] - 3 <= cx <= cell.bbox[2] + 3 and cell.bbox[1] - 3 <= cy <= cell.bbox[3] + 3
    assert "0.998 V" in tb.text
    # the caption goes with the table
    caps = [b for b in page.blocks if b.kind == "caption"]
    assert len(caps) == 1 and caps[0].text == sample.info["caption"]
    assert caps[0].caption_of == tables[0]
    # cell text is not repeated in text blocks
    body = " ".join(b.text for b in page.blocks if b.kind == "text")
    for word in ("VCC", "GND", "TXD", "RXD", "0.998"):
        assert word not in body
    assert body.startswith("Before the table.") and "After the table." in body


@pytest.fixture
def table_finders(monkeypatch):
    """How PyMuPDF's find_tables is called: "lines" for its line finder alone, "layout" for its
    layout model (a spy around the real method)."""
    import pymupdf

    calls: list[str] = []
    real = pymupdf.Page.find_tables

    def spy(self, **kwargs):
        calls.append("lines" if kwargs.get("use_layout") is False else "layout")
        return real(self, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "find_tables", spy)
    return calls


def test_a_full_grid_is_read_by_the_line_finder_alone(tmp_path, table_finders):
    sample = make_ruled_table_pdf(tmp_path / "t.pdf")
    (page,) = parse(sample.path)
    (table,) = [b.table for b in page.blocks if b.kind == "table"]
    assert [[c.text for c in row] for row in table.rows()] == sample.info["cells"]
    assert table_finders == ["lines"]  # no layout model (~0.3 s a page) for a grid the rules spell out


def test_rules_the_grid_does_not_explain_get_the_layout_model(tmp_path, table_finders):
    """Three more horizontal rules elsewhere (a rule-light table's top, middle and bottom rules)
    and the page goes to the layout model as before; the grid is still found."""
    import pymupdf

    sample = make_ruled_table_pdf(tmp_path / "t.pdf")
    doc = pymupdf.open(sample.path)
    for y in (560, 580, 640):
        doc[0].draw_line((120, y), (420, y), width=0.5)
    doc.save(tmp_path / "more.pdf")
    doc.close()
    (page,) = parse(tmp_path / "more.pdf")
    assert table_finders == ["lines", "layout"]
    assert any(b.table.n_rows == len(sample.info["cells"]) for b in page.blocks if b.kind == "table")


def test_rows_without_rules_between_them_are_not_read_as_one(tmp_path, table_finders):
    """A grid whose second row holds two entries per cell with no rule between them (Octave's
    distribution tables): the line finder would read one row, the layout model splits them."""
    import pymupdf

    doc = pymupdf.open()
    pg = doc.new_page(width=612, height=792)
    x0, cols, tops = 100.0, (0.0, 150.0, 300.0), (200.0, 220.0, 250.0)
    for y in tops:
        pg.draw_line((x0, y), (x0 + 300, y), width=0.8)
    for c in cols:
        pg.draw_line((x0 + c, tops[0]), (x0 + c, tops[-1]), width=0.8)
    pg.insert_text((x0 + 5, 214), "Distribution", fontsize=10)
    pg.insert_text((x0 + 155, 214), "Function", fontsize=10)
    for dy, (a, b) in zip((232, 245), (("Discrete", "discrete_rnd"), ("Empirical", "empirical_rnd")), strict=True):
        pg.insert_text((x0 + 5, dy), a, fontsize=10)
        pg.insert_text((x0 + 155, dy), b, fontsize=10)
    doc.save(tmp_path / "merged.pdf")
    doc.close()
    parse(tmp_path / "merged.pdf")
    assert table_finders == ["lines", "layout"]


def test_table_search_off_leaves_text(tmp_path):
    sample = make_ruled_table_pdf(tmp_path / "t.pdf")
    (page,) = parse(sample.path, tables="off")
    assert not [b for b in page.blocks if b.kind == "table"]
    assert "TXD" in " ".join(b.text for b in page.blocks)


def test_borderless_table_named_by_its_caption(tmp_path):
    """No rules to gate on, but the "Table 1:" caption sends the page to the layout model."""
    sample = make_ruled_table_pdf(tmp_path / "b.pdf", rules=False)
    with open_pdf(sample.path) as doc:
        (page,) = list(doc.pages())
        assert doc.stats["table_pages_checked"] == 0 and doc.stats["captioned_table_pages_checked"] == 1
    tables = [i for i, b in enumerate(page.blocks) if b.kind == "table"]
    assert len(tables) == 1
    table = page.blocks[tables[0]].table
    assert table.n_rows == len(sample.info["cells"])
    texts = [c.text for c in table.cells]
    for word in ("VCC", "GND", "TXD", "0.998 V"):
        assert any(word in t for t in texts)
    gx0, gy0, gx1, gy1 = sample.info["bbox"]
    x0, y0, x1, y1 = table.bbox
    assert gx0 - 5 <= x0 and gy0 - 5 <= y0 and x1 <= gx1 + 5 and y1 <= gy1 + 5
    caps = [b for b in page.blocks if b.kind == "caption"]
    assert len(caps) == 1 and caps[0].caption_of == tables[0]
    # without a caption naming it, a borderless table stays text (no layout model on every page)
    (plain,) = parse(sample.path, tables="lines")
    assert not [b for b in plain.blocks if b.kind == "table"]


def test_vector_figure_with_labels_and_caption(tmp_path):
    sample = make_vector_figure_pdf(tmp_path / "v.pdf")
    (page,) = parse(sample.path)
    figs = [i for i, b in enumerate(page.blocks) if b.kind == "figure"]
    assert len(figs) == 1
    fig = page.blocks[figs[0]].figure
    assert fig.source == "vector"
    px0, py0, px1, py1 = sample.info["plot_box"]
    x0, y0, x1, y1 = fig.bbox
    # covers the plot and its labels, but not the caption or the body text
    assert x0 <= px0 - 15 and y0 <= py0 - 8 and x1 >= px1 - 1 and y1 >= py1 + 10
    assert y1 < sample.info["caption_y"] - 10 and x1 - x0 < 300
    assert sorted(ln.text for ln in fig.label_lines) == sorted(sample.info["labels"])
    assert fig.image_png and fig.image_png.startswith(b"\x89PNG")
    caps = [b for b in page.blocks if b.kind == "caption"]
    assert [c.text for c in caps] == [sample.info["caption"]]
    assert caps[0].caption_of == figs[0]
    others = " ".join(b.text for b in page.blocks if b.kind in ("text", "caption"))
    for label in ("Load percent", "50 ", "100"):
        assert label not in others


def test_raster_figure_with_caption_ignores_icons(tmp_path):
    sample = make_raster_figure_pdf(tmp_path / "r.pdf")
    (page,) = parse(sample.path)
    figs = [i for i, b in enumerate(page.blocks) if b.kind == "figure"]
    assert len(figs) == 1  # the 16 pt icon is not a figure
    fig = page.blocks[figs[0]].figure
    assert fig.source == "raster"
    assert near(fig.bbox, sample.info["image_box"], 1.0)
    from io import BytesIO

    from PIL import Image

    img = Image.open(BytesIO(fig.image_png))
    assert 400 <= img.width <= 1000 and abs(img.width / img.height - 300 / 187.5) < 0.05
    caps = [b for b in page.blocks if b.kind == "caption"]
    assert [c.text for c in caps] == [sample.info["caption"]] and caps[0].caption_of == figs[0]


def test_an_image_drawn_on_many_pages_is_no_figure(tmp_path):
    """The xfig manual (htmldoc) draws its logo, "Xfig User Manual Version 3.2.8b", on each chapter's first
    page: 26 figure chunks, and "... does xfig keep a backup of the old version?" found one third. An image
    drawn on REPEATED_PAGES pages is a decoration; one drawn on fewer stays a figure."""
    from io import BytesIO

    import pymupdf
    from PIL import Image

    from mmrag_desktop.engine.parse.pdf_figures import REPEATED_PAGES

    def png(colour):
        buf = BytesIO()
        Image.new("RGB", (240, 120), colour).save(buf, format="PNG")
        return buf.getvalue()

    doc = pymupdf.open()
    logo = diagram = None
    for n in range(REPEATED_PAGES + 1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 80), f"Chapter {n + 1} of the manual, its first paragraph.", fontsize=11)
        rect = pymupdf.Rect(72, 100, 312, 220)
        logo = page.insert_image(rect, stream=png("red")) if logo is None else page.insert_image(rect, xref=logo)
        if n == 1:  # a diagram drawn twice (here and on the last page) is still a figure
            diagram = page.insert_image(pymupdf.Rect(72, 300, 312, 420), stream=png("blue"))
        if n == REPEATED_PAGES:
            page.insert_image(pymupdf.Rect(72, 300, 312, 420), xref=diagram)
    doc.save(tmp_path / "logo.pdf")
    pages = parse(tmp_path / "logo.pdf")
    figures = [[b.figure.bbox for b in p.blocks if b.kind == "figure"] for p in pages]
    assert not any(near(f, (72, 100, 312, 220), 2.0) for page in figures for f in page), figures
    assert [len(f) for f in figures] == [0, 1, 0, 0, 1]
    assert all(near(page[0], (72, 300, 312, 420), 2.0) for page in (figures[1], figures[4]))


def test_a_drawing_in_the_running_header_or_footer_is_no_figure(tmp_path):
    """Bacula's manuals draw their logo as vector shapes in the running header (left on even pages, right on odd),
    the SCons user guide its logo and a rule in the footer: every page had a "figure" of the logo (SCons: 340
    figure chunks), and in search such a "figure", of no words but its section's, stood before the page's text. A
    drawing in a margin band where a neighbouring page has the same one is furniture; a drawing in the body, or
    in a margin band on one page only, stays a figure."""
    import pymupdf

    def logo(page, x):  # a small emblem of a few shapes, as a vector logo is drawn
        page.draw_circle((x + 20, 36), 14, color=(0.8, 0.1, 0.1), fill=(0.8, 0.1, 0.1))
        page.draw_rect((x, 22, x + 40, 50), color=(0, 0, 0), width=1)

    doc = pymupdf.open()
    for n in range(5):
        page = doc.new_page(width=595, height=842)
        logo(page, 28 if n % 2 == 0 else 527)  # left on odd page numbers, right on even ones
        page.draw_line((72, 790), (523, 790), color=(0.5, 0.5, 0.5), width=1)  # the footer's rule
        page.draw_rect((480, 796, 523, 822), color=(0.2, 0.2, 0.6), fill=(0.2, 0.2, 0.6))  # and its badge
        page.insert_text((72, 120), f"Chapter {n + 1}. The console commands and what they do.", fontsize=11)
        if n == 2:  # a diagram in the body
            page.draw_rect((150, 300, 450, 500), color=(0, 0, 0), fill=(0.2, 0.4, 0.8))
            page.draw_circle((300, 400), 60, color=(0, 0, 0))
        if n == 4:  # a stamp at the foot of the last page only
            page.draw_rect((150, 770, 330, 830), color=(0, 0.5, 0), width=2)
            page.draw_circle((240, 800), 24, color=(0, 0.5, 0), fill=(0, 0.5, 0))
    pages = _saved_and_parsed(doc, tmp_path / "logos.pdf")
    figures = [[b.figure.bbox for b in p.blocks if b.kind == "figure"] for p in pages]
    assert [len(f) for f in figures] == [0, 0, 1, 0, 1], figures
    assert near(figures[2][0], (150, 300, 450, 500), 3.0)
    assert near(figures[4][0], (150, 770, 330, 830), 3.0)  # the stamp drawn once is a figure


@pytest.mark.parametrize("underscored", [True, False])
def test_a_ruled_box_round_the_running_header_is_no_table(tmp_path, underscored):
    """code_saturne's theory guide draws a ruled box of three cells round its running header ("EDF R&D | Code Saturne
    Theory Guide | Code Saturne documentation Page 65/428") atop each of its 428 pages, its lower lines a few points
    below the margin band: 335 of its 398 "tables" were the header, and for any question naming code_saturne they
    stood first in search. A ruled box that lies in the page's top fifth, half its lines running header, is furniture
    with all its lines, whether it is read as a table (the guide's underscores, "Code_Saturne", drawn as rules make
    its third horizontal rule) or as a figure (a box of two rules); a table in the body stays one."""
    import pymupdf

    def ruled(page, x0, y0, widths, height):  # a row of cells, each rule a line of its own as LaTeX draws them
        x1 = x0 + sum(widths)
        page.draw_line((x0, y0), (x1, y0), width=0.4)
        page.draw_line((x0, y0 + height), (x1, y0 + height), width=0.4)
        x = x0
        for w in [0, *widths]:
            x += w
            page.draw_line((x, y0), (x, y0 + height), width=0.4)

    doc = pymupdf.open()
    for n in range(5):
        page = doc.new_page(width=612, height=792)
        shift = 2.2 * (n % 2)  # the box a little lower on every other page, as the guide's is
        ruled(page, 80, 35 + shift, [120, 210, 130], 54)
        page.insert_text((97, 73.5 + shift), "EDF R&D", fontsize=9)
        page.insert_text((216, 76 + shift), "Code Saturne Theory Guide", fontsize=11)
        page.insert_text((461, 52.5 + shift), "Code Saturne", fontsize=9)
        page.insert_text((456, 70 + shift), "documentation", fontsize=9)
        page.insert_text((461, 81 + shift), f"Page {n + 64}/428", fontsize=9)
        if underscored:
            page.draw_line((244, 74.5 + shift), (247.5, 74.5 + shift), width=0.4)
            page.draw_line((480, 52 + shift), (482.5, 52 + shift), width=0.4)
        page.insert_text((92, 140), f"{n + 7}.1 The standard model of section {n + 7}", fontsize=12)
        page.insert_text((92, 170), "The constants of the model are given in the table below.", fontsize=10)
        if n in (1, 3):  # a plot in the page's bottom fifth, the example's first line the same on both pages
            page.draw_rect((100, 660, 300, 770), color=(0, 0, 0), width=1)
            page.draw_circle((200, 700), 20, color=(0.8, 0.1, 0.1))
            for i, tick in enumerate(("2", "4", "6", "8")):
                page.insert_text((120 + 40 * i, 690), f"{tick}.5", fontsize=8)
            page.insert_text((110, 760), "% Preamble: pgfplotsset width 7cm", fontsize=8)
        if n == 2:  # a table in the body
            ruled(page, 150, 300, [60, 60, 60], 40)
            page.draw_line((150, 320), (330, 320), width=0.4)
            for i, (name, value) in enumerate([("C_mu", "0.09"), ("C_e1", "1.44"), ("C_e2", "1.92")]):
                page.insert_text((156 + 60 * i, 314), name, fontsize=10)
                page.insert_text((156 + 60 * i, 334), value, fontsize=10)
    pages = _saved_and_parsed(doc, tmp_path / "boxed_header.pdf")
    tables = [[b.text for b in p.blocks if b.kind == "table"] for p in pages]
    assert [len(t) for t in tables] == [0, 0, 1, 0, 0], tables
    assert "1.44" in tables[2][0] and "C_mu" in tables[2][0]
    text = "\n".join(b.text for p in pages for b in p.blocks)
    assert "Theory Guide" not in text and "/428" not in text and "EDF" not in text, text
    # nor a figure; a plot in the page's bottom fifth with a line its neighbours repeat stays one
    assert [sum(b.kind == "figure" for b in p.blocks) for p in pages] == [0, 1, 0, 1, 0], text
    assert all("The constants of the model" in "\n".join(b.text for b in p.blocks) for p in pages)


def test_caption_without_region_is_unlinked(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Some text about the device and its modes of operation.", fontsize=10)
    page.insert_text((72, 300), "Figure 7: Wiring diagram (see the appendix).", fontsize=10)
    doc.save(tmp_path / "c.pdf")
    (pc,) = parse(tmp_path / "c.pdf")
    caps = [b for b in pc.blocks if b.kind == "caption"]
    assert len(caps) == 1 and caps[0].caption_of is None
    assert caps[0].text.startswith("Figure 7:")


def test_ligatures_are_expanded(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    # the HTML layout engine sets "fi", "fl", "ffi" as ligature glyphs
    page.insert_htmlbox(pymupdf.Rect(72, 72, 500, 200), "<p>The firmware flushes the office file.</p>")
    assert "\ufb01" in page.get_text("text", flags=pymupdf.TEXT_PRESERVE_LIGATURES)
    doc.save(tmp_path / "l.pdf")
    (pc,) = parse(tmp_path / "l.pdf")
    assert "firmware flushes the office file." in pc.blocks[0].text


def test_a_minus_sign_before_a_letter_is_a_hyphen(tmp_path):
    """groff sets every hyphen of a manual page as a minus sign (U+2212), so LinuxCNC's manual pages
    read "iocontrol.0.start\u2212change" and "\u2212\u2212help": "When is the iocontrol.0.start-change pin
    asserted?" named a pin no chunk spelled that way. Before a digit the minus of a number stays."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_htmlbox(pymupdf.Rect(72, 72, 500, 200), "<p>iocontrol.0.start\u2212change is asserted at the start "
                        "of M6; run with \u2212\u2212help; the output swings to \u22125 V.</p>")
    doc.save(tmp_path / "m.pdf")
    (pc,) = parse(tmp_path / "m.pdf")
    assert "iocontrol.0.start-change is asserted" in pc.blocks[0].text and "--help" in pc.blocks[0].text
    assert "\u22125 V" in pc.blocks[0].text


def test_page_without_text_layer_and_no_ocr(tmp_path):
    from pdf_factory import make_scanned_pdf

    sample = make_scanned_pdf(tmp_path / "s.pdf")
    (page,) = parse(sample.path)
    assert page.has_text_layer is False and page.ocr_used is False and page.blocks == []


def test_encrypted_pdf_needs_password(tmp_path):
    sample = make_encrypted_pdf(tmp_path / "e.pdf")
    with pytest.raises(EncryptedDocumentError) as ei:
        open_pdf(sample.path)
    assert "password" in str(ei.value)


def test_corrupt_and_empty_files(tmp_path):
    bad = make_corrupt_pdf(tmp_path / "bad.pdf")
    with pytest.raises(CorruptDocumentError):
        open_pdf(bad.path)
    zero = make_zero_page_pdf(tmp_path / "zero.pdf")
    with pytest.raises(CorruptDocumentError) as ei:
        open_pdf(zero.path)
    assert "no pages" in str(ei.value)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(CorruptDocumentError):
        open_pdf(empty)


def test_caption_between_two_figures_goes_to_the_figure_above(tmp_path):
    """Figure captions sit below their figure: a caption slightly closer to the next figure
    still belongs to the one above it (octave manual, Figure 29.1)."""
    import pymupdf

    from mmrag_desktop.engine.parse.pdf import open_pdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.draw_rect((150, 80, 450, 300), color=(0, 0, 0), fill=(0.2, 0.4, 0.8))  # upper figure
    page.draw_line((160, 290), (440, 100), color=(1, 0, 0), width=2)
    page.insert_text((160, 330), "Figure 7.1: Upper chart of the comparison.", fontsize=10)
    page.draw_rect((150, 340, 450, 560), color=(0, 0, 0), fill=(0.8, 0.4, 0.2))  # lower figure
    page.draw_line((160, 550), (440, 350), color=(0, 1, 0), width=2)
    path = tmp_path / "two-figures.pdf"
    doc.save(str(path))
    doc.close()
    pdf = open_pdf(path)
    try:
        blocks = next(iter(pdf.pages())).blocks
    finally:
        pdf.close()
    caps = [b for b in blocks if b.kind == "caption"]
    figs = [i for i, b in enumerate(blocks) if b.kind == "figure"]
    assert len(caps) == 1 and len(figs) == 2, [(b.kind, b.bbox) for b in blocks]
    target = blocks[caps[0].caption_of]
    assert target.bbox[3] < 320, f"caption linked to the lower figure {target.bbox}"


def test_the_last_line_of_a_paragraph_just_above_a_drawing_stays_with_the_paragraph(tmp_path):
    """stanli's "To achieve the best possible appearance of the labels, ... the position can be" / "shifted
    with an optional parameter." sat 4 pt above a drawing: the short last line was taken in as the figure's
    label, and the chunk read "... the position can be Now the point labeling can be switched off". SCons'
    user guide lost the last line of a paragraph to an empty frame below it 28 times. A short line that ends
    the paragraph of body text right above it is no label; a short label line beside the drawing still is."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    body = ["Now the only missing parts are the names of nodes and bars, then the construction is completed.",
            "To achieve the best possible appearance of the labels, can the labels (notation) the position can be"]
    for i, t in enumerate(body):
        page.insert_text((60, 100 + 14 * i), t, fontsize=10)
    page.insert_text((60, 128), "shifted with an optional parameter.", fontsize=10)
    page.draw_rect((80, 134, 520, 330), color=(0, 0, 0), width=1)  # the drawing, 4 pt below the last line
    page.draw_line((90, 320), (510, 150), color=(1, 0, 0), width=2)
    page.insert_text((300, 343), "q = 10 kN/m", fontsize=8)  # a label under the drawing
    page.insert_text((60, 400), "Now the point labeling can be switched off and the construction is finished.", fontsize=10)
    (page,) = _saved_and_parsed(doc, tmp_path / "labels.pdf")
    blocks = page.blocks
    (fig,) = [b for b in blocks if b.kind == "figure"]
    text = "\n".join(b.text for b in blocks if b.kind == "text")
    assert "the position can be\nshifted with an optional parameter." in text, [(b.kind, b.text) for b in blocks]
    assert fig.bbox[1] > 130 and fig.bbox[3] >= 343, fig.bbox  # the label below is the figure's


def test_a_row_of_small_drawings_with_dimension_lines_is_one_figure(tmp_path):
    """chemplants draws each unit three times in a row, 26-28 pt each: plain, with dimension lines 4-6 pt
    beside it ("8 mm", "10 mm") and with its nodes ("t", "o", "l", "r", "b"). `cluster_drawings` cut every
    piece under MIN_FIGURE_SIDE, no figure was found, and "8 mm t o 10 mm 6 mm l r b 10 mm" ran into the
    paragraph below. The pieces form one drawing, the drawings of its row one figure; a small icon alone
    in the text is still none."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((80, 100), "and yields a circle, in which centre there is the anchor, with a squared vertex:",
                     fontsize=10)
    for x0 in (196, 281, 366):  # the symbol three times
        page.draw_circle((x0 + 13, 140), 11, color=(0, 0, 0), width=1)
        page.draw_polyline([(x0 + 2, 165), (x0 + 13, 150), (x0 + 24, 165), (x0 + 2, 165)], color=(0, 0, 0))
    for (xa, ya), (xb, yb) in (((281, 122), (307, 122)), ((273, 128), (273, 165)), ((313, 140), (313, 165))):
        # the middle one's dimension lines, with their end ticks
        page.draw_line((xa, ya), (xb, yb), color=(0, 0, 0), width=0.4)
        for x, y in ((xa, ya), (xb, yb)):
            tick = ((x, y - 2.5), (x, y + 2.5)) if ya == yb else ((x - 2.5, y), (x + 2.5, y))
            page.draw_line(*tick, color=(0, 0, 0), width=0.4)
    page.insert_text((285, 118), "8 mm", fontsize=6)
    page.insert_text((384, 124), "t o", fontsize=6)
    page.insert_text((358, 143), "l", fontsize=6)
    page.insert_text((395, 143), "r", fontsize=6)
    page.insert_text((377, 173), "b", fontsize=6)
    page.insert_text((80, 200), "where the measure on the right indicates the distance from the inlet of the fan.",
                     fontsize=10)
    page.draw_rect((80, 240, 88, 248), color=(0, 0, 0), width=0.5)  # a small box before a line of text
    page.insert_text((92, 247), "A special node is defined for the fan: the outlet node.", fontsize=10)
    (page,) = _saved_and_parsed(doc, tmp_path / "units.pdf")
    blocks = page.blocks
    (fig,) = [b for b in blocks if b.kind == "figure"]
    assert fig.bbox[0] <= 199 and fig.bbox[2] >= 390, fig.bbox
    assert {"8 mm", "t o", "b"} <= {ln.text for ln in fig.lines}, [ln.text for ln in fig.lines]
    text = " ".join(b.text for b in blocks if b.kind != "figure")
    assert " mm" not in text and not re.search(r"\bt o\b", text), text
    assert "the outlet node." in text


def test_a_monospaced_term_set_against_its_description_reads_apart(tmp_path):
    """GPSBabel's manual (DocBook through Apache FOP) prints its options' list as "-DEnable debugging.",
    "-x filterRun filter.": the term in Courier, its description in Times, no space between them. The
    option was one word with its description's first word, and "Which switch enables debugging?" never
    found "-D". A capitalised word of prose right after a monospaced term starts a word of its own; code
    followed by punctuation or a lower-case ending stays as printed."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 100
    for term, rest in (("-D", "Enable debugging. Zero means no debugging."), ("-x filter", "Run filter."),
                       ("make", "s are run twice."), ("gpsbabel", ", the converter.")):
        page.insert_text((120, y), term, fontname="cour", fontsize=10)
        page.insert_text((120 + pymupdf.get_text_length(term, "cour", 10), y), rest, fontname="tiro", fontsize=10)
        y += 20
    (page,) = _saved_and_parsed(doc, tmp_path / "options.pdf")
    text = "\n".join(b.text for b in page.blocks)
    assert "-D Enable debugging." in text and "-x filter Run filter." in text, text
    assert "makes are run twice." in text and "gpsbabel, the converter." in text, text


def _one_page_blocks(path):
    from mmrag_desktop.engine.parse.pdf import open_pdf

    pdf = open_pdf(path)
    try:
        return next(iter(pdf.pages())).blocks
    finally:
        pdf.close()


@pytest.mark.parametrize("between", [False, True])
def test_a_caption_far_below_its_diagram_is_linked_unless_text_lies_between(tmp_path, between):
    """A diagram's labels can hang below its drawn region, putting its caption 40-70 pt below what
    was boxed (yosys manual, Figures 8 and 11): linked when nothing else lies between them."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.draw_rect((150, 80, 450, 300), color=(0, 0, 0), fill=(0.2, 0.4, 0.8))
    page.draw_line((160, 290), (440, 100), color=(1, 0, 0), width=2)
    if between:
        page.insert_text((160, 330), "The paragraph that follows the diagram explains its parts.", fontsize=10)
    page.insert_text((160, 358), "Figure 3.1: General data flow of a synthesis tool.", fontsize=10)
    path = tmp_path / "far.pdf"
    doc.save(str(path))
    doc.close()
    blocks = _one_page_blocks(path)
    (cap,) = [b for b in blocks if b.kind == "caption"]
    assert 40 < cap.bbox[1] - 300 < 72
    if between:
        assert cap.caption_of is None
    else:
        assert cap.caption_of is not None and blocks[cap.caption_of].kind == "figure"


def _framed_page(path, *, mono: bool, inner: str = ""):
    """A paragraph, then a ruled frame (four lines, as LaTeX draws a listing's box) around lines of
    text in Courier (`mono`) or Helvetica; `inner` draws a shape inside, as a diagram has: "circle"
    (a curve) or "boxes" (two rectangles joined by a line: straight lines only)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "The flatten command is described below in its synopsis box.", fontsize=10)
    x0, y0, x1, y1 = 72.0, 110.0, 520.0, 230.0
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        page.draw_line(a, b, width=0.6)
    code = ["1 flatten [options] [selection]", "2", "3 This pass flattens the design by replacing cells",
            "4 by their implementation.", "5", "6     -wb", "7         Ignore the whitebox attribute."]
    for i, line in enumerate(code):
        page.insert_text((80, 128 + 14 * i), line, fontsize=9, fontname="cour" if mono else "helv")
    if inner == "circle":
        page.draw_circle((470, 170), 20)
    elif inner == "boxes":
        page.draw_rect((400, 130, 440, 150))
        page.draw_rect((400, 190, 440, 210))
        page.draw_line((420, 150), (420, 190))
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize("mono,inner,figure", [(True, "", False), (False, "", False), (True, "circle", True),
                                               (False, "boxes", True)])
def test_a_frame_around_code_is_text_not_a_figure(tmp_path, mono, inner, figure):
    """The Yosys manual's command reference (synopsis boxes of monospaced text in a ruled frame)
    was indexed as 350 figures: their text was embedded as figure labels and search could not find
    the commands. HackRF's manual (Sphinx) frames each command ("hackrf_spiflash -w
    hackrf_one_usb.bin") in a box, in a font that says nothing of being monospaced: 24 commands were
    figures, left out of the text that introduces them. A frame that holds text and nothing drawn
    but its own border is text; a frame holding a drawn shape stays a figure."""
    (page,) = parse(_framed_page(tmp_path / "f.pdf", mono=mono, inner=inner))
    figures = [b for b in page.blocks if b.kind == "figure"]
    text = " ".join(b.text for b in page.blocks if b.kind in ("text", "code"))
    assert bool(figures) == figure
    assert ("This pass flattens the design" in text) == (not figure)


def test_a_shaded_box_around_a_command_is_text(tmp_path):
    """Sphinx's literal block as HackRF's manual draws it: a white filled rectangle and four border
    lines around one short command line (the text covers a seventh of the box); the line belongs to
    the paragraph that introduces it. A box around a one-word label ("prod") stays a drawing."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 150), "To update the firmware on a working HackRF One, use the hackrf_spiflash program:",
                     fontsize=10)
    for y, text in ((169.0, "hackrf_spiflash -w hackrf_one_usb.bin"), (260.0, "prod")):
        page.draw_rect((69.0, y, 543.0, y + 18.0), color=None, fill=(0.97, 0.97, 0.97))
        for a, b in (((68.8, y), (68.8, y + 18)), ((543.2, y), (543.2, y + 18)), ((68.6, y - 0.2), (543.4, y - 0.2)),
                     ((68.6, y + 18.2), (543.4, y + 18.2))):
            page.draw_line(a, b, width=0.4)
        page.insert_text((72, y + 13), text, fontsize=9, fontname="helv")
    doc.save(tmp_path / "s.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "s.pdf")
    text = " ".join(b.text for b in parsed.blocks if b.kind in ("text", "code"))
    figures = [b.text for b in parsed.blocks if b.kind == "figure"]
    assert "hackrf_spiflash -w hackrf_one_usb.bin" in text
    assert not any("hackrf_spiflash" in f for f in figures) and any("prod" in f for f in figures)


def test_a_listing_shaded_line_by_line_is_text(tmp_path):
    """LaTeX's listings as the Dibbler user's guide prints its configuration examples: each line on a grey band as wide
    as the text, no border. The end of an example carried over to a page's top (its lines indented past the margin
    the code check looks for) was read as a figure, and its lines were left out of the example. Bands as wide as the
    box are its background; bars of a chart, each as wide as its value, stay a drawing."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    code = ["        pd-pool 2222:2222:2222:2222:2222::/80", "        pd-pool 1111:1111:1111:1111:1111::/80",
            "        pd-length 96", "        T1 11111", "    }", "}"]
    for i, line in enumerate(code):
        y = 60.0 + 13.5 * i
        page.draw_rect((57.0, y, 555.0, y + 13.5), color=None, fill=(0.9, 0.9, 0.9))
        page.insert_text((62 + 6 * (len(line) - len(line.lstrip())), y + 10), line.strip(), fontsize=9,
                         fontname="helv")
    page.insert_text((57, 180), "5.3.15 Example 15: Inactive mode", fontsize=11)
    page.insert_text((57, 200), "The same behaviour has been added for the server.", fontsize=10)
    for i, (width, label) in enumerate(((300.0, "relay one 120 ms"), (180.0, "relay two 80 ms"),
                                        (420.0, "relay three 190 ms"))):
        y = 300.0 + 30 * i
        page.draw_rect((100.0, y, 100.0 + width, y + 18), color=None, fill=(0.2, 0.4, 0.8))
        page.insert_text((104, y + 13), label, fontsize=9, fontname="helv")
    page.draw_line((100, 294), (100, 394), width=0.8)  # the chart's axis
    page.draw_line((100, 394), (530, 394), width=0.8)
    doc.save(tmp_path / "l.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "l.pdf")
    text = " ".join(b.text for b in parsed.blocks if b.kind in ("text", "code"))
    figures = [b.text for b in parsed.blocks if b.kind == "figure"]
    assert "pd-pool 1111:1111:1111:1111:1111::/80" in text and "pd-length 96" in text, text
    assert not any("pd-pool" in f for f in figures), figures
    assert any("relay two" in f for f in figures), figures


def test_font_names_tell_monospaced_type():
    """Nimbus Mono L (the Courier clone of TeX and AsciiDoc manuals: NUT, SDCC, avr-libc) carries
    no monospace flag; its name says it."""
    from mmrag_desktop.engine.parse.pdf_lines import _font_style

    assert _font_style("TKYBBY+NimbusMonL-Regu") == (False, True)
    assert _font_style("NFMLHH+NimbusMonL-Bold") == (True, True)
    assert _font_style("CMTT10")[1] and not _font_style("NimbusSanL-Regu")[1] and not _font_style("Times-Roman")[1]
    # Asciidoctor PDF's M+ 1mn (DRBD's listings: "chkconfig drbd off" was prose) and cm-super's typewriter
    assert _font_style("ABCDEF+mplus1mn-regular")[1] and _font_style("SFTT1000")[1] and _font_style("CMSLTT10")[1]
    assert not _font_style("NotoSerif")[1] and not _font_style("SFRM1000")[1] and not _font_style("SFSS1000")[1]


def test_a_listing_s_line_numbers_are_not_text(tmp_path):
    """The Yosys manual numbers every line of its command reference in a proportional font beside
    monospaced code: "3 This pass identifies wires ..." was indexed and quoted with the 3. Row
    labels of data printed in the code's own font stay."""
    import pymupdf

    doc = pymupdf.open()
    pg = doc.new_page(width=612, height=792)
    code = ["opt_clean [options] [selection]", "", "This pass identifies wires and cells that are unused",
            "and removes them.", "", "-purge also remove internal nets"]
    for i, text in enumerate(code):
        y = 120 + 12 * i
        pg.insert_text((68, y), str(i + 1), fontsize=9, fontname="helv")
        if text:
            pg.insert_text((90, y), text, fontsize=9, fontname="cour")
    for i, row in enumerate(["01 52.00 111.0 830", "02 54.75 128.0 710", "03 57.50 101.0 1000"]):
        pg.insert_text((90, 300 + 12 * i), row, fontsize=9, fontname="cour")
    doc.save(tmp_path / "listing.pdf")
    doc.close()
    (page,) = parse(tmp_path / "listing.pdf")
    texts = [ln.text for b in page.blocks for ln in b.lines]
    assert "This pass identifies wires and cells that are unused" in texts
    assert "opt_clean [options] [selection]" in texts
    assert not any(t.strip().isdigit() or t[:2] in {"1 ", "3 ", "4 ", "6 "} for t in texts)
    assert "01 52.00 111.0 830" in texts


def _raise(page, x, baseline, base: str, exponent: str, size: float = 10.0) -> None:
    """Draw `exponent` raised and smaller right after `base` drawn at (x, baseline), as TeX sets 10^6."""
    import pymupdf

    page.insert_text((x + pymupdf.get_text_length(base, fontname="helv", fontsize=size), baseline - 0.36 * size),
                     exponent, fontsize=0.75 * size, fontname="helv")


def test_an_exponent_is_not_read_as_more_digits(tmp_path):
    """ngspice's scale-factor table prints 10 with a raised 6 for Meg; PyMuPDF's words and lines read
    "106", a number the manual never states. Table cells and lines mark the exponent: "10^6"."""
    import pymupdf

    rows = [("Suffix", "Name", "Factor", ""), ("Meg", "Mega", "10", "6"), ("K", "Kilo", "10", "3"),
            ("m", "milli", "10", "-3")]
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    x0, top, col_w, row_h = 100.0, 100.0, 120.0, 20.0
    for r in range(len(rows) + 1):
        page.draw_line((x0, top + r * row_h), (x0 + 3 * col_w, top + r * row_h), width=0.8)
    for c in range(4):
        page.draw_line((x0 + c * col_w, top), (x0 + c * col_w, top + len(rows) * row_h), width=0.8)
    for r, (*texts, exponent) in enumerate(rows):
        for c, text in enumerate(texts):
            page.insert_text((x0 + c * col_w + 5, top + r * row_h + 14), text, fontsize=10, fontname="helv")
            if c == 2 and exponent:
                _raise(page, x0 + c * col_w + 5, top + r * row_h + 14, text, exponent)
    page.insert_text((72, 300), "Vectors hold at most 2", fontsize=10, fontname="helv")
    _raise(page, 72, 300, "Vectors hold at most 2", "31")
    page.insert_text((72, 330), "Each page holds 10 records.", fontsize=10, fontname="helv")
    doc.save(tmp_path / "scale.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "scale.pdf")
    table = next(b for b in parsed.blocks if b.kind == "table").table
    assert [[c.text for c in row][2] for row in table.rows()] == ["Factor", "10^6", "10^3", "10^-3"]
    text = " ".join(ln.text for b in parsed.blocks for ln in b.lines)
    assert "at most 2^31" in text and "231" not in text
    assert "Each page holds 10 records." in text


def test_a_footnote_reference_is_no_part_of_its_word(tmp_path):
    """tikz-relay's manual reads "an anchor named2 output 1 is automatically placed": the raised 2 refers
    to the page's footnote 2, and "named2" is no word anyone searches or reads. A raised number right
    after a word of three letters or more, whose mark opens a footnote of the page, is left out of the
    line; a raised digit after a symbol of two letters is an exponent still ("L = uN2A"), and so is one
    whose number no footnote of the page carries."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    width = pymupdf.get_text_length
    x, y = 72.0, 100.0
    head = "Each relay coil has an anchor named"
    page.insert_text((x, y), head, fontsize=10, fontname="helv")
    _raise(page, x, y, head, "2")
    page.insert_text((x + width(head, fontname="helv", fontsize=10) + 5, y), "output 1 on its right side.",
                     fontsize=10, fontname="helv")
    formula = "The inductance is L = uN"
    page.insert_text((x, 130), formula, fontsize=10, fontname="helv")
    _raise(page, x, 130, formula, "2")
    page.insert_text((x + width(formula, fontname="helv", fontsize=10) + 4, 130), "A over the length.",
                     fontsize=10, fontname="helv")
    other = "The frame is drawn thin"
    page.insert_text((x, 160), other, fontsize=10, fontname="helv")
    _raise(page, x, 160, other, "3")
    page.insert_text((x + width(other, fontname="helv", fontsize=10) + 4, 160), "by default.", fontsize=10,
                     fontname="helv")
    for i in range(12):  # body text down the page, so that the note sits in the lower part
        page.insert_text((x, 200 + 22 * i), f"Body line {i} of the page with some words in it.", fontsize=10,
                         fontname="helv")
    page.insert_text((x, 700), "2", fontsize=6, fontname="helv")
    page.insert_text((x + 5, 703), "The anchor is placed by the library itself.", fontsize=8, fontname="helv")
    doc.save(tmp_path / "note.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "note.pdf")
    texts = [ln.text for b in parsed.blocks for ln in b.lines]
    assert "Each relay coil has an anchor named output 1 on its right side." in texts
    assert any("uN2A" in t for t in texts)  # a symbol of two letters: no note reference
    assert any("thin3" in t for t in texts)  # no footnote 3 on the page
    notes = [b for b in parsed.blocks if b.kind == "footnote"]
    assert notes and notes[0].lines[0].text.startswith("(2) The anchor")


def test_an_underscore_drawn_as_a_rule_reads_as_an_underscore(tmp_path):
    """TeX's OT1 fonts draw "\\_" as a short rule on the baseline, no glyph: GNU Prolog's manual read
    "fd labeling(+fd variable list)" and "flag max atom" (gnuplot's and Octave's manuals too). A rule
    in a word gap is an underscore; a gap holding a space besides the rule keeps it ("argument_ and");
    a long rule under a heading is no underscore."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    width = pymupdf.get_text_length

    def rule(x, y):  # 5 pt wide, 0.4 pt thick, on the baseline at y
        page.draw_rect(pymupdf.Rect(x + 0.5, y + 0.8, x + 5.5, y + 1.2), color=None, fill=(0, 0, 0))

    x = 72.0
    for n, piece in enumerate(["fd", "labeling(+fd", "variable", "list)"]):
        page.insert_text((x, 100), piece, fontsize=10, fontname="cour")
        x += width(piece, fontname="cour", fontsize=10)
        if n < 3:
            rule(x, 100)
            x += 6.0  # MuPDF reads the gap as a space
    before = "completes argu with argument"
    page.insert_text((72, 130), before + "  and emits a beep", fontsize=10, fontname="cour")
    rule(72 + width(before, fontname="cour", fontsize=10), 130)  # over the first of two spaces
    page.insert_text((72, 160), "Stack sizes", fontsize=10, fontname="helv")
    page.draw_rect(pymupdf.Rect(72, 161, 140, 161.6), color=None, fill=(0, 0, 0))
    x0, top, col_w, row_h = 100.0, 200.0, 120.0, 20.0  # a ruled table of prose: "atoms | 32768 | MAX_ATOM"
    rows = [("Stack", "Size", "Variable"), ("local", "16384", "LOCALSZ"), ("global", "32768", "GLOBALSZ"),
            ("atoms", "32768", "MAX")]
    for r in range(len(rows) + 1):
        page.draw_line((x0, top + r * row_h), (x0 + 3 * col_w, top + r * row_h), width=0.8)
    for c in range(4):
        page.draw_line((x0 + c * col_w, top), (x0 + c * col_w, top + len(rows) * row_h), width=0.8)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((x0 + c * col_w + 5, top + r * row_h + 14), cell, fontsize=10, fontname="helv")
    x = x0 + 2 * col_w + 5 + width("MAX", fontname="helv", fontsize=10)
    rule(x, top + 3 * row_h + 14)
    page.insert_text((x + 6, top + 3 * row_h + 14), "ATOM", fontsize=10, fontname="helv")
    doc.save(tmp_path / "underscores.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "underscores.pdf")
    texts = [ln.text for b in parsed.blocks if b.kind != "table" for ln in b.lines]
    assert "fd_labeling(+fd_variable_list)" in texts
    assert "completes argu with argument_ and emits a beep" in texts
    assert "Stack sizes" in texts
    table = next(b for b in parsed.blocks if b.kind == "table").table
    assert [c.text for c in table.rows()[3]] == ["atoms", "32768", "MAX_ATOM"]


@pytest.mark.parametrize("outline", [False, True])
def test_a_numbered_line_set_larger_than_the_text_is_a_heading_without_an_outline(tmp_path, outline):
    """The PARI/GP tutorial has no outline; its chapters are "1. Greetings!." in 13 pt bold over
    11 pt text. They were read as list items, so every chunk after the contents page sat under
    "Table of Contents". With an outline the outline names the headings (Yosys's numbered steps are
    set larger than its text and are list items)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "Table of Contents", fontsize=11, fontname="hebo")
    page.insert_text((72, 100), "1. Greetings . . . . . . . . . . . . . . 2", fontsize=11)
    page = doc.new_page(width=595, height=842)
    y = 80
    for text, size, font in [
        ("1. Greetings.", 13, "hebo"),
        ("So you are sitting in front of your workstation with the calculator started.", 11, "helv"),
        ("Type the commands below and look at what each of them prints on the screen.", 11, "helv"),
        ("1. Type the number one and press the return key at the prompt.", 11, "helv"),
        ("2. Warming up.", 13, "hebo"),
        ("Another thing you had better get used to pretty fast is error messages.", 11, "helv"),
        ("Try to divide one by zero and read the message the calculator prints.", 11, "helv"),
    ]:
        page.insert_text((72, y), text, fontsize=size, fontname=font)
        y += 22
    if outline:
        doc.set_toc([[1, "Table of Contents", 1]])
    doc.save(str(tmp_path / "tutorial.pdf"))
    doc.close()

    body = parse(tmp_path / "tutorial.pdf")[1]
    kinds = [(b.kind, b.text.split("\n")[0]) for b in body.blocks]
    numbered_steps = ("list", "1. Type the number one and press the return key at the prompt.")
    assert numbered_steps in kinds
    if outline:
        assert not [k for k in kinds if k[0] == "heading"]
    else:
        assert [t for k, t in kinds if k == "heading"] == ["1. Greetings.", "2. Warming up."]


def test_a_cell_rejoins_names_and_words_its_column_broke():
    """LinuxCNC's drive timing table: a narrow column printed "XS-" / "3525/8S-" / "3" and "Engi-" /
    "neering"; the cell read "XS- 3525/8S- 3", so "XS-3525/8S-3" asked about matched no row."""
    from mmrag_desktop.engine.parse.pdf_tables import _cell_text

    def cell(*lines):  # PyMuPDF word tuples: (x0, y0, x1, y1, text, block, line, word)
        return [(0, 0, 1, 1, w, 0, ln, i) for ln, words in enumerate(lines) for i, w in enumerate(words.split())]

    assert _cell_text(cell("XS-", "3525/8S-", "3")) == "XS-3525/8S-3"
    assert _cell_text(cell("Lin Engi-", "neering")) == "Lin Engineering"
    assert _cell_text(cell("http://www.st.com/-", "stonline/-", "docs/-", "1334.pdf")) == "http://www.st.com/stonline/docs/1334.pdf"
    assert _cell_text(cell("products/hobbycnc-", "pro-", "chopper")) == "products/hobbycnc-pro-chopper"
    assert _cell_text(cell("Rising", "Edge")) == "Rising Edge"


def _columns_page(path, pairs: list[tuple[str, str]], right_x: float = 240):
    """One page: a heading, then `pairs` set as two columns without rules (a key at x=90, its value at
    `right_x` on the same baseline), as Texinfo prints a @multitable."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "Supported parts", fontsize=14, fontname="hebo")
    for i, (key, value) in enumerate(pairs):
        page.insert_text((90, 110 + 14 * i), key, fontsize=10)
        page.insert_text((right_x, 110 + 14 * i), value, fontsize=10)
    doc.save(str(path))
    doc.close()
    return path


PARTS = [("m1284p", "ATmega1284P"), ("m128a", "ATmega128A"), ("m16", "ATmega16"), ("m162", "ATmega162"),
         ("m164p", "ATmega164P"), ("m168", "ATmega168"), ("m168pb", "ATmega168PB"), ("m2560", "ATmega2560 (**)"),
         ("m32", "ATmega32"), ("m324pa", "ATmega324PA"), ("m328p", "ATmega328P"), ("m48", "ATmega48"),
         ("m64", "ATmega64"), ("m644p", "ATmega644P"), ("m8", "ATmega8"), ("m88pb", "ATmega88PB")]


def test_columns_of_a_table_without_rules_are_read_row_by_row(tmp_path):
    """AVRDUDE's part list (and simh's register tables, SDCC's install defaults): two columns of short
    lines side by side, a part id and its name on one baseline. Read as text columns, every id came
    before every name ("m1280 m1281 m1284 ... AT90USB82 ATmega103 ..."), and "Which part id is the
    ATmega328P?" could not be answered from any line. Such columns are a table: read row by row."""
    (page,) = parse(_columns_page(tmp_path / "parts.pdf", PARTS))
    lines = [ln.text for b in page.blocks for ln in b.lines]
    for key, value in PARTS:
        assert f"{key} {value}" in lines, lines[:8]


CARD = [  # three columns of a reference card: (heading, [(description, command), ...]) each
    [("Help", [("describe function", "?function"), ("extended description of a keyword", "??keyword"),
               ("list of relevant help topics for a pattern", "???pattern")]),
     ("Input/Output", [("previous result, the result before", "%, %`"), ("n-th result since startup", "%n"),
                       ("separate multiple statements on line", ";"), ("one-line comment, rest of line ignored", "\\\\")]),
     ("Metacommands & Defaults", [("set default d to val", "default(d, val)"), ("toggle timer on/off", "#"),
                                  ("print defaults", "\\d"), ("set n significant digits / bits", "\\p n, \\pb n"),
                                  ("read file into GP", "\\r filename")])],
    [("Operators", [("basic operations", "+, -, *, /, ^"), ("Euclidean quotient, remainder", "x\\/y, x\\y, x%y, divrem(x, y)"),
                    ("shift x left or right n bits", "shift(x, n)"), ("maximum of x and y", "max(x, y)")]),
     ("Select Components", [("n-th component of x", "component(x, n)"), ("row m or column n of matrix x", "x[m,], x[, n]"),
                            ("numerator/denominator of x", "numerator(x), denominator(x)")]),
     ("Random Numbers", [("random integer/prime in [0, N[", "random(N)"), ("get/set random seed", "getrand, setrand(s)"),
                         ("random prime", "randomprime(N)")])],
    [("Character strings", [("convert to TeX representation", "strtex(x)"), ("split string / join strings", "strsplit, strjoin"),
                            ("string from bytes / from format+args", "strchr, strprintf")]),
     ("Conjugates and Lifts", [("conjugate of a number x", "conj(x)"), ("norm of x, product with conjugate", "norm(x)"),
                               ("lift of x from Mods and p-adics", "lift, centerlift(x)"), ("recursive lift", "liftall")]),
     ("Lists, Sets & Maps", [("intersection of sets x and y", "setintersect(x, y)"), ("union of sets x and y", "setunion(x, y)"),
                             ("create empty list: L = List()", "List()"), ("append x to list L", "listput(L, x, {i})")])],
]


def test_a_reference_cards_columns_are_read_one_after_the_other_each_row_whole(tmp_path):
    """The PARI/GP reference card: landscape pages of three columns, each a list of a description and
    its command on one line under headings (a long command starts left of its column's commands). The
    columns' rows stand on lines of their own (each column's headings shift them), but nearly every line
    had a partner across a gutter: the page was read as one table without rules, rows across the
    columns ("[a, b;c, d] convert to TeX representation strtex(x)"), and where a column's descriptions and
    commands were taken for two text columns every description came before every command. Questions
    about the card found no line that held both. Each column is read after the one on its left, a
    description with its command."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    for k, column in enumerate(CARD):
        x, y = 18 + 277 * k, 40 + 3.2 * k  # the columns' rows stand a third of a line apart
        for heading, rows in column:
            page.insert_text((x, y), heading, fontsize=9, fontname="hebo")
            y += 12.5 + 1.1 * k
            for desc, cmd in rows:
                page.insert_text((x, y), desc, fontsize=7)
                width = pymupdf.get_text_length(cmd, fontname="cour", fontsize=7)
                page.insert_text((min(x + 167, x + 245 - width), y), cmd, fontsize=7, fontname="cour")
                y += 9.5
            y += 3
    path = tmp_path / "card.pdf"
    (parsed,) = _saved_and_parsed(doc, path)
    lines = [ln.text for b in parsed.blocks for ln in b.lines]
    for column in CARD:
        for _, rows in column:
            for desc, cmd in rows:
                assert f"{desc} {cmd}" in lines, lines[:12]
    last_of = [lines.index(" ".join(col[-1][1][-1])) for col in CARD]
    first_of = [lines.index(" ".join(col[0][1][0])) for col in CARD]
    assert last_of[0] < first_of[1] and last_of[1] < first_of[2], lines


def test_a_table_without_rules_under_a_title_with_headings_and_wrapped_cells_is_read_row_by_row(tmp_path):
    """ngspice's XSPICE model tables (and GNU MathProg's built-in functions): a key and its value on one
    line, under a section title and headings ("NAME_TABLE:", "PARAMETER_TABLE:") that stand alone on
    their line, some values wrapped over two lines. Those lines have no partner across the gutter, so
    the columns were read one after the other ("Parameter_Name:" / "Description:" / ... then "in_offset"
    / "input offset vector"). The title, the headings and a cell's wrapped lines are no rows: the table
    is read row by row."""
    import pymupdf

    rows = [("NAME_TABLE:", None), ("C_Function_Name:", "cm_summer"), ("Spice_Model_Name:", "summer"),
            ("Description:", '"A summer block"'), ("PARAMETER_TABLE:", None), ("Parameter_Name:", "in_offset"),
            ("Description:", ['"input offset vector,', 'added to each input"']), ("Data_Type:", "real"),
            ("Default_Value:", "0.0"), ("Vector:", "yes"), ("Vector_Bounds:", "in"),
            ("Parameter_Name:", "in_gain"), ("Description:", ['"input gain vector,', 'one gain for each input"']),
            ("Data_Type:", "real"), ("Default_Value:", "1.0"), ("Null_Allowed:", "yes")]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 70), "12.2.2", fontsize=12, fontname="hebo")
    page.insert_text((121, 70), "Summer", fontsize=12, fontname="hebo")
    y = 100
    for key, value in rows:
        page.insert_text((100, y), key, fontsize=10, fontname="cour")
        for i, part in enumerate([value] if isinstance(value, str) else value or []):
            page.insert_text((240, y + 14 * i), part, fontsize=10)
        y += 14 * max(1, len(value) if isinstance(value, list) else 1)
    path = tmp_path / "model.pdf"
    (parsed,) = _saved_and_parsed(doc, path)
    lines = [ln.text for b in parsed.blocks for ln in b.lines]
    for key, value in rows:
        if value is not None:
            first = value if isinstance(value, str) else value[0]
            assert f"{key} {first}" in lines, lines


def test_an_index_and_text_columns_stay_columns(tmp_path):
    """A back-of-book index stands row by row too, but its entries end in page numbers: read column
    by column, each entry whole; two columns of text fill their width and stay columns."""
    entries = [(f"{w} options, {10 + i}", f"{w.upper()} register, {120 + i}, {130 + i}")
               for i, w in enumerate("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split())]
    (page,) = parse(_columns_page(tmp_path / "index.pdf", entries, right_x=320))
    lines = [ln.text for b in page.blocks for ln in b.lines]
    assert all(left in lines and right in lines for left, right in entries), lines[:6]
    assert lines.index(entries[-1][0]) < lines.index(entries[0][1])  # the left column first


def test_a_change_historys_two_columns_stay_columns(tmp_path):
    """ltxdoc's change history (bytefield's, pages 53-54): entries in two columns, each running to its
    page number over dot leaders, one beside the other on every row. Read as a table without rules,
    each row joined an entry of the left column to one of the right ("v1.0 v2.0", "General: Initial
    version . . . 1 \\bytefieldsetup: Introduced this"), and no entry could be quoted whole. Dot
    leaders on both sides make them columns of a list, read one after the other."""
    def column(words: list[str], first: int) -> list[str]:
        lines = []
        for i, w in enumerate(words):
            lines += [f"v1.{first + i}", f"\\{w}: Bug fix:", "Swapped the order of", f"arguments to {w} . . . . {10 + i}"]
        return lines

    left = column("alpha beta gamma delta".split(), 0)
    right = column("epsilon zeta eta theta".split(), 4)
    (page,) = parse(_columns_page(tmp_path / "history.pdf", list(zip(left, right, strict=True)), right_x=320))
    lines = [ln.text for b in page.blocks for ln in b.lines]
    assert all(line in lines for line in left + right), lines[:6]
    assert lines.index(left[-1]) < lines.index(right[0])  # the left column first


def test_a_sentence_with_a_long_path_in_typewriter_type_is_prose(tmp_path):
    """AVRDUDE's "The -P portname option defaults to /dev/spidev0.0:/dev/gpiochip0 for this program-"
    / "mer.": most of its characters are monospaced, so the line was code, a block of its own; the
    broken word was never joined and the sentence never whole. A line with three or more words in a
    proportional font is prose; a line of code stays code."""
    import pymupdf

    from mmrag_desktop.engine.parse.pdf_lines import lines_from_dict

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    x = 72
    for text, font in (("The ", "helv"), ("-P portname", "cour"), (" defaults to ", "helv"),
                       ("/dev/spidev0.0:/dev/gpiochip0", "cour"), (" for this program-", "helv")):
        page.insert_text((x, 100), text, fontsize=10, fontname=font)
        x += pymupdf.get_text_length(text, fontname=font, fontsize=10)
    page.insert_text((72, 113), "mer.", fontsize=10, fontname="helv")
    page.insert_text((90, 140), "avrdude -c linuxspi -P /dev/spidev0.0:/dev/gpiochip0 -p m328p", fontsize=10,
                     fontname="cour")
    doc.save(str(tmp_path / "mixed.pdf"))
    doc.close()
    with pymupdf.open(str(tmp_path / "mixed.pdf")) as d:
        lines = lines_from_dict(d[0].get_text("dict"), 1)
    prose = next(ln for ln in lines if ln.text.startswith("The -P"))
    code = next(ln for ln in lines if ln.text.startswith("avrdude"))
    assert not prose.mono and code.mono, (prose, code)
    (parsed,) = parse(tmp_path / "mixed.pdf")
    assert any(b.kind == "text" and "program-" in b.text and "mer." in b.text for b in parsed.blocks), \
        [(b.kind, b.text) for b in parsed.blocks]


def test_the_grid_of_a_ruled_table_wider_than_its_text_is_no_figure(tmp_path):
    """The Smooth Mach Dynamics guide sets "parameter | meaning" tables across the text width with
    two short columns, the verticals of each row drawn apart: the table's box is its cells' text,
    the grid ran 300 pt further right, was taken for a vector figure, and the line under it, "Note
    that a typical value is n = 7 ...", became that figure's label (never quoted, never a sentence)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 100), "Pressure is computed from the bulk modulus. This keyword must be followed by 1 number:",
                     fontsize=10, fontname="helv")
    x0, x1, split, top, row_h = 72.0, 523.0, 150.0, 112.0, 16.0
    rows = [("parameter", "meaning"), ("n", "Tait exponent n"), ("K", "bulk modulus")]
    for y in (top, top + row_h, top + len(rows) * row_h):  # rules: top, under the header, bottom
        page.draw_line((x0, y), (x1, y), width=0.4)
    for r in range(len(rows)):  # as LaTeX draws them: each row's verticals apart
        for x in (x0 + 0.2, split, x1 - 0.2):
            page.draw_line((x, top + r * row_h + 0.2), (x, top + (r + 1) * row_h), width=0.4)
    for r, (name, meaning) in enumerate(rows):
        page.insert_text((x0 + 4, top + r * row_h + 12), name, fontsize=10, fontname="helv")
        page.insert_text((split + 4, top + r * row_h + 12), meaning, fontsize=10, fontname="helv")
    note = "Note that a typical value is n = 7 for hydraulic simulations of water."
    page.insert_text((72, top + len(rows) * row_h + 11), note, fontsize=10, fontname="helv")
    doc.save(tmp_path / "grid.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "grid.pdf")
    kinds = [b.kind for b in parsed.blocks]
    assert "figure" not in kinds and kinds.count("table") == 1
    assert note in [ln.text for b in parsed.blocks if b.kind == "text" for ln in b.lines]
    table = next(b for b in parsed.blocks if b.kind == "table").table
    assert [c.text for c in table.rows()[1]] == ["n", "Tait exponent n"]


SETTINGS = [
    ("char=<char>", "Defines the given char to be a counter meta-character. If it is an upper case character the "
                    "lower case character will produce the same output but with the half width, as long as this "
                    "is not overwritten with the half width char key."),
    ("half width char=<char>", "Defines the given char to be the half width version of the counter value. By "
                               "default this is the lower case version of the counter character given with char."),
    ("increment=<expression>", "Sets the increment which is added every time the counter character is used. This "
                               "can be a formula whose result is truncated to an integer. The increment can be "
                               "negative which causes the counter to count down. Default: 1"),
    ("max value=<expression>", "Sets the maximum counter value. Default: not set"),
]


def _settings_table(path, rows, *, justify: bool = True) -> None:
    """A LaTeX settings table as tikz-timing prints them (Table 4.7): rules above and below the header
    and at the end, none between the rows; a key in the first column, its description wrapped (and
    justified) in the second."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    x0, xk, xd, x1 = 72.0, 76.0, 230.0, 540.0
    page.insert_text((200, 90), "Table 4.7: Settings for Counter Meta-Characters", fontsize=10)
    page.draw_line((x0, 100), (x1, 100), width=0.8)
    page.insert_text((xk, 112), "Key name", fontsize=10)
    page.insert_text((xd, 112), "Description", fontsize=10)
    page.draw_line((x0, 117), (x1, 117), width=0.5)
    y = 120.0
    for key, desc in rows:
        page.insert_text((xk, y + 10), key, fontsize=9, fontname="cour")
        align = pymupdf.TEXT_ALIGN_JUSTIFY if justify else pymupdf.TEXT_ALIGN_LEFT
        left = page.insert_textbox(pymupdf.Rect(xd, y, x1 - 4, y + 200), desc, fontsize=10, align=align)
        y += 200 - left + 1
    page.draw_line((x0, y + 2), (x1, y + 2), width=0.8)
    page.insert_text((72, y + 30), "After the table comes a paragraph of ordinary prose.", fontsize=10)
    doc.save(path)
    doc.close()


def test_a_description_wrapped_over_several_lines_stays_in_its_key_row(tmp_path):
    """tikz-timing's Table 4.7: without rules between the rows the layout model cut one row per line,
    and "" | "negative which causes the counter to count down. Default: 1" was a row of its own (an
    answer quoted "Description: to count down. Default: 1" without the key it belongs to)."""
    _settings_table(tmp_path / "s.pdf", SETTINGS)
    (page,) = parse(tmp_path / "s.pdf")
    (table,) = [b.table for b in page.blocks if b.kind == "table"]
    rows = [[c.text for c in row] for row in table.rows()]
    assert rows[0] == ["Key name", "Description"]
    assert [r[0] for r in rows[1:]] == [k for k, _ in SETTINGS]
    for (_, desc), row in zip(SETTINGS, rows[1:], strict=True):
        assert row[1] == desc
    # each row's box runs from its key down to the next key
    boxes = [row[0].bbox for row in table.rows()[1:]]
    assert all(a[3] <= b[1] + 0.5 for a, b in zip(boxes, boxes[1:], strict=False))


def test_rows_that_start_a_new_value_under_an_empty_key_stay_rows(tmp_path):
    """A key that spans rows (a port and its pins): the second pin's row has no key, but its cells do
    not continue the cells above (the line above was not full, or the line opens with no lower-case
    word), so it stays a row of its own."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((200, 90), "Table 2: Port pins", fontsize=10)
    page.draw_line((72, 100), (540, 100), width=0.8)
    for x, head in ((76, "Port"), (200, "Pin"), (330, "Function")):
        page.insert_text((x, 112), head, fontsize=10)
    page.draw_line((72, 117), (540, 117), width=0.5)
    rows = [("PORTA", "PA0", "ADC0 input"), ("", "PA1", "ADC1 input"), ("", "PA2", "analog comparator input"),
            ("", "pa3", "spare"), ("PORTB", "PB0", "timer output")]
    for i, row in enumerate(rows):
        for x, text in zip((76, 200, 330), row, strict=True):
            if text:
                page.insert_text((x, 130 + 14 * i), text, fontsize=10)
    page.draw_line((72, 204), (540, 204), width=0.8)
    doc.save(tmp_path / "p.pdf")
    doc.close()
    (parsed,) = parse(tmp_path / "p.pdf")
    (table,) = [b.table for b in parsed.blocks if b.kind == "table"]
    assert [[c.text for c in row] for row in table.rows()][1:] == [list(r) for r in rows]


def test_the_lines_above_a_rows_key_go_to_the_row_above():
    """The layout model cut tikz-timing's Table 4.7 a line too late: "half width char=<char>" stood
    beside "width, as long this is not overwritten with the half with char key." (the last line of the
    row above) and its own first line. Words as PyMuPDF gives them: (x0, y0, x1, y1, text, block, line, n)."""
    from mmrag_desktop.engine.parse.pdf_tables import _cells, _rows_by_their_keys

    def line(x0, y, text, block, n):
        out, x = [], x0
        for k, w in enumerate(text.split()):
            out.append((x, y, x + 6.0 * len(w), y + 10.0, w, block, n, k))
            x += 6.0 * len(w) + 3.0
        return out

    col0, col1 = (100.0, 280.0), (280.0, 560.0)
    desc = line(280, 100, "Defines the given char to be a counter meta-character of the", 1, 0)
    right = max(w[2] for w in desc)
    boxes = [(0, 0, (*col0[:1], 80.0, col0[1], 95.0)), (0, 1, (col1[0], 80.0, col1[1], 95.0)),
             (1, 0, (col0[0], 95.0, col0[1], 127.0)), (1, 1, (col1[0], 95.0, col1[1], 127.0)),
             (2, 0, (col0[0], 127.0, col0[1], 160.0)), (2, 1, (col1[0], 127.0, col1[1], 160.0))]
    texts = [line(100, 82, "Key name", 0, 0), line(280, 82, "Description", 0, 1),
             line(100, 100, "char=<char>", 2, 0),
             desc + line(280, 114, "same output but with half the width, as long this is not", 1, 1),
             line(100, 142, "half width char=<char>", 3, 0),
             line(280, 128, "overwritten by the half width char key.", 1, 2) + line(280, 142, "Defines the half width"
                                                                                          " version.", 4, 0)]
    assert max(w[2] for w in texts[3]) <= right + 1
    mended = _rows_by_their_keys(boxes, texts, 3, 2, 1, [])
    assert mended is not None
    cells = {(c.row, c.col): c for c in _cells(*mended)}
    assert cells[(1, 1)].text.endswith("as long this is not overwritten by the half width char key.")
    assert cells[(2, 1)].text == "Defines the half width version."
    assert cells[(1, 1)].bbox[3] == cells[(2, 1)].bbox[1] < 142.0
    # a rule drawn at the boundary keeps the rows as the finder cut them
    assert _rows_by_their_keys(boxes, texts, 3, 2, 1, [(100.0, 560.0, 127.0)]) is None
    # a row without a key joins the row above whole or not at all: here its third cell starts a value
    # of its own ("PA2" under "PA1") while its second goes on from the row above
    boxes3 = [(r, c, (100.0 + 150 * c, 80.0 + 30 * r, 250.0 + 150 * c, 110.0 + 30 * r)) for r in range(3) for c in range(3)]
    texts3 = [line(100, 82, "Port", 0, 0), line(250, 82, "Description", 0, 1), line(400, 82, "Pin", 0, 2),
              line(100, 112, "PORTA", 2, 0), desc, line(400, 112, "PA1", 5, 0),
              [], line(280, 142, "overwritten by the half width char key.", 1, 2), line(400, 142, "PA2", 6, 0)]
    texts3[4] = [(w[0] - 30, 112.0, w[2] - 30, 122.0, *w[4:]) for w in desc]
    right3 = max(w[2] for w in texts3[4])
    assert right3 > 0 and _rows_by_their_keys(boxes3, texts3, 3, 3, 1, []) is None


def _booktabs_table(path, header, rows, xs, *, leading: float = 10.5) -> None:
    """A table with a rule above and below its header and one at its end, none between its rows."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((230, 95), "Table 4.1: Radix specifiers", fontsize=10)
    page.draw_line((150, 102), (470, 102), width=0.8)
    for x, text in zip(xs, header, strict=True):
        page.insert_text((x, 114), text, fontsize=10)
    page.draw_line((150, 118), (470, 118), width=0.5)
    for i, row in enumerate(rows):
        for x, text in zip(xs, row, strict=True):
            page.insert_text((x, 130 + leading * i), text, fontsize=10)
    page.draw_line((150, 124 + leading * len(rows)), (470, 124 + leading * len(rows)), width=0.8)
    page.insert_text((72, max(200, 144 + leading * len(rows))),
                     "Numeric constants consist of digits followed by the radix specifier.", fontsize=10)
    doc.save(path)
    doc.close()


def test_rows_set_line_by_line_without_rules_are_rows(tmp_path):
    """MCU 8051 IDE's Table 4.1 came out as one row, "Binary Octal Decimal Hexadecimal | 0 .. 1 0 .. 7 0 .. 9
    0 .. 9, A .. F | B O or Q D or none H": "Which suffix marks an octal constant?" had no row to quote."""
    rows = [("Binary", "0 .. 1", "B"), ("Octal", "0 .. 7", "O or Q"), ("Decimal", "0 .. 9", "D or none"),
            ("Hexadecimal", "0 .. 9, A .. F", "H")]
    _booktabs_table(tmp_path / "r.pdf", ("Constant type", "Allowed digits", "Radix specifier"), rows, (155, 260, 370))
    (page,) = parse(tmp_path / "r.pdf")
    (table,) = [b.table for b in page.blocks if b.kind == "table"]
    assert [[c.text for c in row] for row in table.rows()][1:] == [list(r) for r in rows]
    tops = [row[0].bbox[1] for row in table.rows()[1:]]
    assert tops == sorted(tops) and len(set(tops)) == len(rows)


def test_the_lines_of_cells_of_several_lines_are_one_row(tmp_path):
    """Grace's Table 21 (a rule under the header and one at the end, none between rows) came out as a row per
    line: "RESTRICT (set, | filter set according to logical re- | RESTRICT (S0," then "restriction) |
    striction. The original set will be | S0.X < 0)" and " | overwritten |": "How do I filter set S0 so that
    only the points with negative X remain?" quoted pieces of rows. A row goes on while its first cell leaves a
    bracket open or a cell ends with a broken word, then while the first cell is empty."""
    lines = [("RUNAVG (set,", "running average of set using", "RUNAVG (S0, 100)"),
             ("npoints)", "npoints number of points", ""),
             ("RESTRICT (set,", "filter set according to logical re-", "RESTRICT (S0,"),
             ("restriction)", "striction. The original set will be", "S0.X < 0)"),
             ("", "overwritten", ""),
             ("INTEGRATE (set)", "cumulative integral of set", "INTEGRATE (S0)")]
    _booktabs_table(tmp_path / "g.pdf", ("Statement", "Description", "Example"), lines, (155, 245, 400), leading=13.6)
    (page,) = parse(tmp_path / "g.pdf")
    (table,) = [b.table for b in page.blocks if b.kind == "table"]
    assert [[c.text for c in row] for row in table.rows()][1:] == [
        ["RUNAVG (set, npoints)", "running average of set using npoints number of points", "RUNAVG (S0, 100)"],
        ["RESTRICT (set, restriction)", "filter set according to logical restriction. The original set will be "
         "overwritten", "RESTRICT (S0, S0.X < 0)"],
        ["INTEGRATE (set)", "cumulative integral of set", "INTEGRATE (S0)"]]


def test_a_column_without_a_name_joins_the_named_one_on_its_left():
    """Grace's Table 21: the layout model split the narrow "Example" column of justified text at its wide
    gaps, "RUNMED" | "" | "(S0," over "100)" | "" | "": once its rows are joined, a column without a name in
    the header goes with the named column on its left ("RUNMED (S0, 100)"). Words as PyMuPDF gives them:
    (x0, y0, x1, y1, text, block, line, n)."""
    from mmrag_desktop.engine.parse.pdf_tables import _cells, _wrapped_rows

    def word(x, y, text, block, n):
        return (x, y, x + 6.0 * len(text), y + 10.0, text, block, 0, n)

    xs = (100.0, 200.0, 300.0, 360.0, 420.0)  # Statement | Description | Example | (none) | (none)
    boxes = [(r, c, (xs[c], 80.0 + 14 * r, xs[c + 1], 94.0 + 14 * r)) for r in range(3) for c in range(4)]
    texts = [[word(100, 82, "Statement", 0, 0)], [word(200, 82, "Description", 0, 1)], [word(300, 82, "Example", 0, 2)], [],
             [word(100, 96, "RUNMED", 1, 0), word(140, 96, "(set,", 1, 1)], [word(200, 96, "running", 1, 2)],
             [word(300, 96, "RUNMED", 1, 3)], [word(360, 96, "(S0,", 1, 4)],
             [word(100, 110, "npoints)", 2, 0)], [word(200, 110, "median", 2, 1)], [word(300, 110, "100)", 2, 2)], []]
    joined = _wrapped_rows(boxes, texts, 3, 4, 1, [])
    assert joined is not None
    rows: dict[int, list[str]] = {}
    for c in _cells(*joined):
        rows.setdefault(c.row, []).append(c.text)
    assert rows == {0: ["Statement", "Description", "Example"], 1: ["RUNMED (set, npoints)", "running median",
                                                                   "RUNMED (S0, 100)"]}


def test_a_row_whose_cells_wrap_prose_line_beside_line_stays_one_row(tmp_path):
    """Two cells whose text wraps onto the same number of lines are one row: the second lines go on in
    lower case after full lines of prose."""
    rows = [("The supply voltage of the board", "Five volts are applied to the"),
            ("measured at the connector", "board through the barrel jack")]
    _booktabs_table(tmp_path / "w.pdf", ("Quantity measured", "How it is applied"), rows, (155, 320))
    (page,) = parse(tmp_path / "w.pdf")
    tables = [b.table for b in page.blocks if b.kind == "table"]
    for table in tables:
        texts = [[c.text for c in row] for row in table.rows()]
        assert ["measured at the connector", "board through the barrel jack"] not in texts, texts


def _type3_page(path, pieces: list[tuple[float, float, bytes]], rules: bytes = b"",
                glyphs: dict[int, str] | None = None) -> None:
    """One page with `pieces` (x, baseline, codes) set in a Type 3 font whose glyphs are named "a28"
    and so on, with no ToUnicode map, as dvips writes TeX's bitmap fonts: MuPDF reads each code as
    the character of that number. `rules` is drawing operators put before the text; `glyphs` names
    some codes' glyphs otherwise (MuPDF reads a known name as its character)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    codes = sorted({c for _, _, text in pieces for c in text})
    name = {c: (glyphs or {}).get(c, f"a{c}") for c in codes}
    procs = {}
    for c in codes:
        procs[c] = doc.get_new_xref()
        doc.update_object(procs[c], "<<>>")
        doc.update_stream(procs[c], b"500 0 0 0 400 600 d1 0 0 400 600 re f")
    font = doc.get_new_xref()
    doc.update_object(font, (
        "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 0 500 600]"
        f" /FirstChar {codes[0]} /LastChar {codes[-1]}"
        " /Widths [" + " ".join("500" if c in procs else "0" for c in range(codes[0], codes[-1] + 1)) + "]"
        " /Encoding << /Type /Encoding /Differences [" + " ".join(f"{c} /{name[c]}" for c in codes) + "] >>"
        " /CharProcs << " + " ".join(f"/{name[c]} {x} 0 R" for c, x in procs.items()) + " >> >>"))
    page_xref = page.xref
    doc.xref_set_key(page_xref, "Resources", f"<< /Font << /F1 {font} 0 R >> >>")
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, rules + b"".join(
        f"BT /F1 10 Tf {x} {y} Td <{text.hex()}> Tj ET ".encode() for x, y, text in pieces))
    doc.xref_set_key(page_xref, "Contents", f"{content} 0 R")
    doc.save(path)


def test_tex_font_codes_without_a_unicode_map_are_read(tmp_path):
    """Grace's user's guide is set in dvips' Type 3 fonts (T1 encoding, no ToUnicode map): MuPDF read
    "\\x1cle" for "file", "con\\x1cguration", "di\\x1berent", and ngspice's manual "\\x15enable-osdi" and
    "\\x11a new plot\\x11": no search for "file" or "configuration" found those pages. The f-ligatures,
    dashes and quotes of T1 are read; OT1's ligatures (0x0B-0x0F) only next to a letter."""
    _type3_page(tmp_path / "t1.pdf", [(72, 700, b"Save the \x1cle; the con\x1cguration di\x1bers; run with \x15help "
                                              b"\x10quoted\x11 o\x0ece >\x17> out")])
    (pc,) = parse(tmp_path / "t1.pdf")
    text = " ".join(b.text for b in pc.blocks)
    assert "Save the file; the configuration differs; run with \u2013help \u201cquoted\u201d office >> out" in text


def test_the_pieces_of_a_tall_brace_are_no_text(tmp_path):
    """bytefield's word-group braces are drawn with the Symbol font's pieces, which MuPDF reads as Adobe's
    private-use characters: "a misaligned 64-bit value \uf8f4 \uf8f4 \uf8f4 ... were taken". The pieces are
    dropped; the Symbol font's registered sign is kept as one."""
    _type3_page(tmp_path / "b.pdf", [(72, 700, b"a misaligned 64-bit value \xf0 \xf1 \xf1 \xf2 were taken\xf3")],
                glyphs={0xF0: "bracelefttp", 0xF1: "braceex", 0xF2: "braceleftmid", 0xF3: "registersans"})
    (pc,) = parse(tmp_path / "b.pdf")
    assert "a misaligned 64-bit value were taken\u00ae" in " ".join(b.text for b in pc.blocks)


def test_tex_font_codes_are_read_in_table_cells(tmp_path):
    """A table's cells are read from MuPDF's word list, which splits a word at a TeX font's code and
    loses it: Grace's Table 24 read "de ne new vector variable" for "define new vector variable"."""
    grid = b"0.5 w " + b"".join(f"72 {y} m 400 {y} l S ".encode() for y in (720, 700, 680, 660))
    grid += b"".join(f"{x} 660 m {x} 720 l S ".encode() for x in (72, 180, 400))
    _type3_page(tmp_path / "t.pdf", [(76, 706, b"Statement"), (184, 706, b"Description"),
                                     (76, 686, b"DEFINE var"), (184, 686, b"de\x1cne new scalar variable"),
                                     (76, 666, b"SET \x1dag"), (184, 666, b"set the o\x1bset \x1cle")], grid)
    (pc,) = parse(tmp_path / "t.pdf")
    (table,) = [b.table for b in pc.blocks if b.kind == "table"]
    texts = {c.text for c in table.cells}
    assert {"define new scalar variable", "SET flag", "set the offset file"} <= texts


MOVMAX = [  # Octave's "Endpoints" values: a term, beside or above its description (ar-/ray wrapped)
    ('"shrink" (default)', ["The window is truncated at the beginning and end of the",
                            "array to exclude elements for which there is no source data.",
                            "For example, with a window of length 3, y(1) = max (x(1:2))."]),
    ('"discard"', ["Any y values that use a window extending beyond the original",
                   "data array are deleted. For example, with a 10-element data",
                   "vector and a window of length 3, the output will contain only",
                   "8 elements."]),
    ('"fill"', ["Any window elements outside the data array are replaced",
                "by NaN. For example, with a window of length 3, y(1) =",
                "max ([NaN, x(1:2)]), and y(end) = max ([x(end-1:end), NaN])."]),
    ("user_value", ["Any window elements outside the data array are replaced",
                    "by the specified value user_value which must be a numeric",
                    "scalar. A common choice for user_value is 0."]),
    ('"same"', ["Any window elements outside the data array are replaced by",
                "the value of x at the boundary."]),
    ('"periodic"', ["The window is wrapped so that any missing data elements",
                    "are taken from the other side of the data."]),
]


def test_a_definition_lists_terms_are_read_each_before_its_description(tmp_path):
    """Octave's movmax: the values of a property, a term at the left of each description, beside its
    first line or, when wider than its place, on a line of its own above it. The terms stand apart left
    of a gutter the descriptions never cross, so the page was read as two columns: every term
    ("discard", "fill", user_value, "same") before every description, none beside what it names. A
    definition list's terms are few, apart, each beside or just above its description: read row by row."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((119, 108), "The calculation can be controlled by specifying property/value pairs. Valid properties",
                     fontsize=10)
    page.insert_text((119, 121), "are", fontsize=10)
    page.insert_text((119, 140), '"Endpoints"', fontsize=10, fontname="cour")
    page.insert_text((176, 153), "This property controls how results are calculated at the boundaries", fontsize=10)
    page.insert_text((176, 166), "(endpoints) of the window. Possible values are:", fontsize=10)
    y = 186.0
    for term, lines in MOVMAX:
        page.insert_text((176, y), term, fontsize=10, fontname="cour")
        if pymupdf.get_text_length(term, fontname="cour", fontsize=10) > 50:
            y += 13  # too wide for its place: the description starts on the line below
        for line in lines:
            page.insert_text((244, y), line, fontsize=10)
            y += 13
        y += 7
    path = tmp_path / "movmax.pdf"
    (parsed,) = _saved_and_parsed(doc, path)
    text = "\n".join(ln.text for b in parsed.blocks for ln in b.lines)
    at = 0
    for term, lines in MOVMAX:  # each term after the description above it, before its own
        t, first = text.find(term, at), text.find(lines[0], at)
        assert 0 <= t < first, (term, text)
        at = text.find(lines[-1], first)


def test_notes_in_the_left_margin_stay_out_of_the_lines_beside_them(tmp_path):
    """LaTeX's doc class prints each macro a paragraph describes in the left margin, right-aligned ("\\fpure" /
    "\\fmix" beside "Different textbooks use different modifications ..."; the thermodynamics package's manual):
    read as one row with the line beside it, every such sentence had a macro's name inside it ("so it \\fmix is
    recommended"). The notes are left out; a term left-aligned before its description (a man page's "-v Verbose
    output"), a numbered list's right-aligned numbers and a graph's labels left of its drawing stay."""
    import pymupdf

    font = pymupdf.Font("helv")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    body = ["Different textbooks use different modifications of the symbol f for fugacity, so it",
            "is recommended to use the macro fpure to denote the pure-component fugacity",
            "and fmix to denote the mixture fugacity. Similarly, the pure-component fugacity"]
    for i, line in enumerate(body):
        page.insert_text((133, 140 + 14 * i), line, fontsize=10)
    for i, note in enumerate(("\\fpure", "\\fmix", "\\phipure")):  # right-aligned at x = 123
        page.insert_text((123 - font.text_length(note, fontsize=9), 140 + 14 * i), note, fontsize=9)
    page.insert_text((133, 250), "A paragraph with a single note beside its first line, a macro name.", fontsize=10)
    page.insert_text((123 - font.text_length("\\cPs", fontsize=9), 250), "\\cPs", fontsize=9)
    # a man page's options, left-aligned terms beside their descriptions
    page.insert_text((72, 320), "-v", fontsize=10)
    page.insert_text((133, 320), "Verbose output, one line for each file read.", fontsize=10)
    page.insert_text((72, 334), "-q", fontsize=10)
    page.insert_text((133, 334), "Quiet output, errors only and nothing more.", fontsize=10)
    # a numbered list, its numbers right-aligned left of the items
    for i, n in enumerate(("9.", "10.")):
        page.insert_text((123 - font.text_length(n, fontsize=10), 380 + 14 * i), n, fontsize=10)
        page.insert_text((133, 380 + 14 * i), f"Item {n} of the list says what to do next.", fontsize=10)
    # a graph's labels left of its drawing, beside no line of text
    for i, label in enumerate(("past", "future")):
        page.insert_text((123 - font.text_length(label, fontsize=9), 460 + 60 * i), label, fontsize=9)
    page.draw_rect(pymupdf.Rect(140, 450, 400, 540), color=(0, 0, 0))
    (parsed,) = _saved_and_parsed(doc, tmp_path / "margin_notes.pdf")
    text = "\n".join(b.text for b in parsed.blocks)
    assert "so it\nis recommended" in text or "so it is recommended" in text, text
    for note in ("\\fpure", "\\fmix", "\\phipure", "\\cPs"):
        assert note not in text, text
    assert "fpure to denote" in text  # the body's own words stay
    assert re.search(r"-v\s+Verbose output", text) and re.search(r"-q\s+Quiet output", text), text
    assert re.search(r"9\.\s+Item 9\.", text) and re.search(r"10\.\s+Item 10\.", text), text
    assert "past" in text and "future" in text, text


def test_a_caption_in_capitals_and_an_accent_set_before_its_letter(tmp_path):
    """LAMMPS' CG-DNA guide is set in the APS style: "FIG. 1. Overview of oxDNA2 model: (a) Nucleotide" / "geometry
    with base vector b ...". "FIG." was no caption's label: the first line went into the figure's box as a label and
    the rest of the caption into the text around it. TeX also sets an accent as a glyph of its own before its letter:
    the text read "Debye-H\u00a8uckel" and "6.3 \u02daA"."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "The model has three interaction sites, shown in the figure below.", fontsize=10)
    page.draw_rect(pymupdf.Rect(120, 120, 300, 260), color=(0, 0, 0), fill=(0.8, 0.3, 0.3))
    page.draw_circle((210, 190), 40, color=(0, 0, 0), fill=(0.2, 0.6, 0.8))
    page.insert_text((205, 150), "n", fontsize=8)
    caption = ["FIG. 1. Overview of the model: (a) Nucleotide", "geometry with base vector b and base normal n.",
               "The backbone site is at the centre of the red sphere."]
    for i, line in enumerate(caption):
        page.insert_text((72, 290 + 11 * i), line, fontsize=9)
    page.insert_text((72, 360), "Electrostatics follow a Debye-H\u00a8uckel potential in the r\u00b4egime of low salt.",
                     fontsize=10)
    page.insert_text((72, 400), "TABLE II. Timings of the two models on one core.", fontsize=9)
    page.insert_text((72, 430), "Conflicts with: \u00a8ci-debian-altroot--.*$ when that job is defined.", fontsize=10)
    (parsed,) = _saved_and_parsed(doc, tmp_path / "aps.pdf")
    caps = [b for b in parsed.blocks if b.kind == "caption"]
    assert caps and " ".join(caps[0].text.split()) == " ".join(caption), caps
    figure = parsed.blocks[caps[0].caption_of]
    assert figure.kind == "figure" and "FIG" not in figure.text
    text = " ".join(b.text for b in parsed.blocks)
    assert "Debye-H\u00fcckel potential in the r\u00e9gime" in text, text
    assert "\u00a8ci-debian-altroot--.*$" in text, text  # in a word of code no accent (NUT's regex caret, "\u02c6ci-")
    assert any(b.kind == "caption" and b.text.startswith("TABLE II.") for b in parsed.blocks)


def test_lines_across_both_columns_one_after_another_are_one_paragraph(tmp_path):
    """LAMMPS' CG-DNA guide (two columns) sets a table's caption across the page's width over two lines: "TABLE I.
    Average kinetic, rotational, potential and total energy for the standard LAMMPS integrator fix nve/asphere" / "&
    fix langevin and the DOT-C integrator nve/dotc/langevin for different timestep sizes." Each line across the
    gutter was a segment of its own, so the caption ended after its first line and "& fix langevin ..." opened the
    text below it. Lines across the gutter with no column text between them are one run."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for col, x in enumerate((57, 307)):
        for i in range(8):
            page.insert_text((x, 80 + 12 * i), f"Column {col + 1} line {i + 1} of the text above the table.", fontsize=9)
    page.insert_text((57, 200), "TABLE I. Average kinetic, rotational, potential and total energy for the standard "
                     "integrator fix nve/asphere", fontsize=9)
    page.insert_text((57, 211), "& fix langevin and the DOT-C integrator nve/dotc/langevin for different timestep sizes.",
                     fontsize=9)
    for col, x in enumerate((57, 307)):
        for i in range(8):
            page.insert_text((x, 240 + 12 * i), f"Column {col + 1} line {i + 9} of the text below the table.", fontsize=9)
    (parsed,) = _saved_and_parsed(doc, tmp_path / "spanning.pdf")
    caption = next(b for b in parsed.blocks if b.text.startswith("TABLE I."))
    assert caption.text.endswith("for different timestep sizes."), [b.text for b in parsed.blocks]
    assert not any(b.text.startswith("& fix") for b in parsed.blocks)
    # the columns are read as before, left before right
    texts = [b.text for b in parsed.blocks if b.text.startswith("Column")]
    assert texts[0].startswith("Column 1 line 1") and "Column 2 line 1" in texts[1], texts


def test_options_set_right_aligned_left_of_their_descriptions_stay(tmp_path):
    """HMMER's user's guide sets each manual page's options right-aligned in a column left of their descriptions, in
    a small monospaced font ("--watson" / "--crick" / "--cpu <n>" beside "Only search the top strand. ..."). They were
    read as notes in the margin and dropped: no chunk of its 40 manual pages named an option it describes, and "how
    do I search only the reverse-complement strand?" was answered "Only search the bottom (reverse-complement)
    strand." without "--crick". An option stays with its description; a right-aligned column of notes is still left
    out."""
    import pymupdf

    mono = pymupdf.Font("cour")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    rows = [("--watson", ["Only search the top strand. By default both the query se-",
                          "quence and its reverse-complement are searched."]),
            ("--crick", ["Only search the bottom (reverse-complement) strand. By",
                         "default both the query sequence and its reverse-complement"]),
            ("--cpu <n>", ["Set the number of parallel worker threads to <n>. On mul-",
                           "ticore machines, the default is 2. There is also a master"])]
    y = 150
    for term, lines in rows:
        page.insert_text((171 - mono.text_length(term, fontsize=7), y), term, fontsize=7, fontname="cour")
        for line in lines:
            page.insert_text((180, y), line, fontsize=10)
            y += 13
        y += 8
    font = pymupdf.Font("helv")
    body = ["Different textbooks use different modifications of the symbol f for fugacity, so it",
            "is recommended to use the macro fpure to denote the pure-component fugacity"]
    for i, (line, note) in enumerate(zip(body, ("fpure", "fmix"), strict=True)):  # notes without a backslash
        page.insert_text((180, 400 + 14 * i), line, fontsize=10)
        page.insert_text((171 - font.text_length(note, fontsize=9), 400 + 14 * i), note, fontsize=9)
    (parsed,) = _saved_and_parsed(doc, tmp_path / "options.pdf")
    text = " ".join(" ".join(b.text.split()) for b in parsed.blocks)
    for term, lines in rows:
        assert f"{term} {lines[0]}" in text, text
    assert "so it is recommended" in text and "fmix" not in text, text  # (the body names "fpure", not "fmix")
