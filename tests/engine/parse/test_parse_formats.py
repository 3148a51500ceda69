"""Parsers for standalone images, Markdown and Docling JSON, on real files made here.

OCR runs for real (RapidOCR through the engine's `Ocr`); images are drawn with Pillow,
so the tests know where each word is and check the OCR box lands there.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from mmrag_desktop.engine.elements import Block, PageContent
from mmrag_desktop.engine.errors import CorruptDocumentError, UnsupportedFileError
from mmrag_desktop.engine.parse import open_document
from mmrag_desktop.engine.parse.docling import open_docling
from mmrag_desktop.engine.parse.image import MAX_PIXELS, PNG_MAX_SIDE, name_to_words, open_image
from mmrag_desktop.engine.parse.markdown import open_markdown

DATA = Path(__file__).parents[2] / "data" / "formats"
DOCLING_FIXTURE = DATA / "timer_manual.docling.json"


# ---------------------------------------------------------------- helpers
@pytest.fixture(scope="module")
def ocr():
    """The engine's real OCR engine (RapidOCR PP-OCRv4 ONNX, from the installed package)."""
    pytest.importorskip("rapidocr_onnxruntime")
    from mmrag_desktop.engine.parse.ocr import Ocr

    return Ocr()


def font(size: int) -> ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1, bundled TrueType font
    except TypeError:  # pragma: no cover - older Pillow
        return ImageFont.truetype("DejaVuSans.ttf", size)


def draw_word(
    size: tuple[int, int], word: str, at: tuple[int, int], font_size: int
) -> tuple[Image.Image, tuple]:
    """A white image with `word` drawn in black at `at`; returns it and the ink box of the word."""
    im = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(im)
    f = font(font_size)
    d.text(at, word, fill="black", font=f)
    return im, d.textbbox(at, word, font=f)


def overlap(a, b) -> float:
    """Intersection over the smaller box's area."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / smaller if smaller > 0 else 0.0


def only_page(doc) -> PageContent:
    pages = list(doc.pages())
    assert len(pages) == 1
    return pages[0]


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
    )


def png_with_declared_size(w: int, h: int) -> bytes:
    """A structurally valid PNG header that declares w x h pixels but carries almost no data."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")
    )


# ---------------------------------------------------------------- images
def test_image_file_becomes_one_figure_page_with_ocr_text_where_drawn(tmp_path, ocr):
    folder = tmp_path / "datasheet_figures"
    folder.mkdir()
    path = folder / "pinout_atmega328-p.png"
    im, ink = draw_word((1000, 600), "VOLTAGE", (300, 250), 64)
    im.save(path)

    doc = open_image(path, ocr=ocr)
    assert (doc.kind, doc.title, doc.page_count) == ("image", "pinout_atmega328-p", 1)
    page = only_page(doc)
    assert (page.page, page.width, page.height) == (1, 1000.0, 600.0)
    assert page.ocr_used and not page.has_text_layer
    [block] = page.blocks
    assert block.kind == "figure" and block.figure is not None
    fig = block.figure
    assert fig.source == "image-file" and fig.bbox == (0.0, 0.0, 1000.0, 600.0) and fig.ocr_used
    assert [ln.text for ln in block.lines] == ["pinout atmega328 p", "datasheet figures"]
    with Image.open(io.BytesIO(fig.image_png)) as stored:
        assert stored.format == "PNG" and stored.size == (1000, 600)
    hits = [ln for ln in fig.label_lines if "VOLTAGE" in ln.text.upper()]
    assert hits, f"OCR did not read the drawn word: {[ln.text for ln in fig.label_lines]}"
    box = hits[0].bbox
    assert overlap(box, ink) > 0.7, (box, ink)
    assert abs(box[0] - ink[0]) < 25 and abs(box[1] - ink[1]) < 25
    assert "VOLTAGE" in fig.label_text.upper()


def test_ocr_boxes_are_scaled_back_to_full_size_pixels_on_a_large_image(tmp_path, ocr):
    path = tmp_path / "wide.png"
    im, ink = draw_word((4800, 1200), "COUNTER", (2600, 500), 160)  # OCR copy is 2400 px wide
    im.save(path)
    page = only_page(open_image(path, ocr=ocr))
    assert (page.width, page.height) == (4800.0, 1200.0)
    fig = page.blocks[0].figure
    with Image.open(io.BytesIO(fig.image_png)) as stored:
        assert max(stored.size) == PNG_MAX_SIDE and stored.size == (1600, 400)
    hits = [ln for ln in fig.label_lines if "COUNTER" in ln.text.upper()]
    assert hits, [ln.text for ln in fig.label_lines]
    assert overlap(hits[0].bbox, ink) > 0.7, (hits[0].bbox, ink)


def test_exif_orientation_is_applied_and_jpeg_downscaled(tmp_path):
    path = tmp_path / "photo.jpg"
    im = Image.new("RGB", (4000, 1000), "white")
    ImageDraw.Draw(im).rectangle((0, 0, 400, 400), fill=(255, 0, 0))  # red in the stored top-left
    exif = Image.Exif()
    exif[0x0112] = 6  # display = stored rotated 90 degrees clockwise
    im.save(path, quality=90, exif=exif)

    page = only_page(open_image(path))
    assert (page.width, page.height) == (1000.0, 4000.0)  # oriented size
    fig = page.blocks[0].figure
    assert fig.label_lines == [] and not fig.ocr_used
    with Image.open(io.BytesIO(fig.image_png)) as stored:
        assert stored.size == (400, 1600)
        stored = stored.convert("RGB")
        # Rotated clockwise, the stored top-left corner shows at the top-right.
        r, g, b = stored.getpixel((390, 10))
        assert r > 200 and g < 60 and b < 60
        assert stored.getpixel((10, 10)) == (255, 255, 255) or sum(stored.getpixel((10, 10))) > 700


@pytest.mark.parametrize(
    "fmt,suffix", [("GIF", ".gif"), ("BMP", ".bmp"), ("WEBP", ".webp"), ("TIFF", ".tif")]
)
def test_other_image_formats_decode_through_the_dispatcher(tmp_path, fmt, suffix):
    path = tmp_path / f"board_layout{suffix}"
    Image.new("RGB", (320, 200), (10, 120, 200)).save(path, format=fmt)
    doc = open_document(path)
    assert doc.kind == "image" and doc.title == "board_layout"
    page = only_page(doc)
    assert (page.width, page.height) == (320.0, 200.0)
    assert Image.open(io.BytesIO(page.blocks[0].figure.image_png)).size == (320, 200)
    doc.close()


def test_multipage_tiff_yields_one_page_per_frame(tmp_path):
    path = tmp_path / "scan.tiff"
    frames = [Image.new("L", (300, 400), 255), Image.new("L", (500, 200), 0)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    doc = open_image(path)
    assert doc.page_count == 2
    pages = list(doc.pages())
    assert [(p.page, p.width, p.height) for p in pages] == [(1, 300.0, 400.0), (2, 500.0, 200.0)]


def test_truncated_png_is_a_corrupt_document(tmp_path):
    good = io.BytesIO()
    im, _ = draw_word((400, 300), "X", (10, 10), 40)
    im.save(good, format="PNG")
    path = tmp_path / "broken.png"
    path.write_bytes(good.getvalue()[: len(good.getvalue()) // 2])
    with pytest.raises(CorruptDocumentError) as e1:
        open_image(path)
    assert "damaged or truncated" in e1.value.reason
    with pytest.raises(CorruptDocumentError):
        open_document(path)


def test_text_file_named_jpg_is_refused(tmp_path):
    path = tmp_path / "photo.jpg"
    path.write_text("this is not a picture, just some text\n" * 20)
    with pytest.raises(CorruptDocumentError) as e1:
        open_image(path)
    assert "not an image" in e1.value.reason
    with pytest.raises(CorruptDocumentError) as e2:
        open_document(path)
    assert "image" in e2.value.reason


@pytest.mark.timeout(60)  # decoding 3,600 MP would take far longer (and gigabytes): refused from the header
@pytest.mark.parametrize("w,h", [(9500, 9000), (20000, 20000), (60000, 60000)])
def test_decompression_bomb_headers_are_refused_without_decoding(tmp_path, w, h):
    # 85.5 MP: above our limit, below Pillow's warning; 400 MP: Pillow warns;
    # 3600 MP: Pillow's own DecompressionBombError. All must be a clear engine error.
    assert w * h > MAX_PIXELS
    path = tmp_path / "bomb.png"
    path.write_bytes(png_with_declared_size(w, h))
    for opener in (open_image, open_document):
        with pytest.raises(CorruptDocumentError) as e:
            opener(path)
        assert "too large" in e.value.reason, e.value.reason


def test_name_to_words():
    assert name_to_words("pinout_atmega328-p") == "pinout atmega328 p"
    assert name_to_words("BoardLayout.rev2") == "Board Layout rev2"
    assert name_to_words("") == ""


# ---------------------------------------------------------------- markdown
MD_SOURCE = """\
---
title: Front matter is skipped
---
<!-- an HTML comment
over two lines -->
Timers and Counters
===================

The prescaler divides the **system clock**, see [the datasheet](http://example.org "ds")
and the `TCCR0B_CS` bits for snake_case_names.

## Register summary <!-- inline comment -->

- Normal mode counts up
  and wraps at 0xFF.
- CTC mode clears on match
1. first numbered step
2) second numbered step

```c
TCCR0A = _BV(WGM01); <!-- kept in code -->
```

    indented_code_line();

Table 3: Register addresses.

| Register | Address | Notes |
|:---------|--------:|-------|
| TCCR0A   | 0x44    | mode \\| bits |
| OCR0A    | 0x47    |

> Quoted warning about
> reserved bits.

$$
f_{OC0A} = \\frac{f_{clk}}{2 N (1 + OCR0A)}
$$

![Pin diagram of the timer](img/pins.png "Timer pins")
*Figure 1: Timer output pins.*

![Absent drawing](img/absent.png)

Fig. 2 - caption of the absent drawing.

<figure>
<img src="img/pins.png" alt="HTML pin image">
<figcaption>Figure 3: The same pins via HTML</figcaption>
</figure>

Waveform generation
-------------------

### Closing hashes ###

Last paragraph mentions compare match.
"""


def _md_blocks(doc) -> tuple[PageContent, list[Block]]:
    page = only_page(doc)
    return page, page.blocks


def test_markdown_every_construct(tmp_path, ocr):
    (tmp_path / "img").mkdir()
    im, _ = draw_word((600, 300), "RESET", (150, 100), 72)
    im.save(tmp_path / "img" / "pins.png")
    path = tmp_path / "chapter_timers.md"
    path.write_text(MD_SOURCE, encoding="utf-8")
    source_lines = MD_SOURCE.split("\n")

    doc = open_markdown(path, ocr=ocr)
    assert (doc.kind, doc.title, doc.page_count) == ("markdown", "Timers and Counters", 1)
    page, blocks = _md_blocks(doc)
    assert (page.page, page.width, page.height) == (1, 0.0, 0.0)
    kinds = [b.kind for b in blocks]
    texts = [b.text for b in blocks]
    all_text = "\n".join(texts)

    assert (
        "Front matter" not in all_text and "HTML comment" not in all_text and "inline comment" not in all_text
    )
    headings = [(b.level, b.text) for b in blocks if b.kind == "heading"]
    assert headings == [
        (1, "Timers and Counters"),
        (2, "Register summary"),
        (2, "Waveform generation"),
        (3, "Closing hashes"),
    ]
    para = next(b for b in blocks if b.kind == "text" and "prescaler" in b.text)
    assert para.text == (
        "The prescaler divides the system clock, see the datasheet and the TCCR0B_CS bits for snake_case_names."
    )
    assert para.lines[0].bbox == (0.0, 9.0, 0.0, 10.0)

    [lst] = [b for b in blocks if b.kind == "list"]
    assert [ln.text for ln in lst.lines] == [
        "Normal mode counts up and wraps at 0xFF.",
        "CTC mode clears on match",
        "first numbered step",
        "second numbered step",
    ]
    assert lst.lines[0].bbox == (0.0, 14.0, 0.0, 15.0)

    code = [b for b in blocks if b.kind == "code"]
    assert [b.text for b in code] == ["TCCR0A = _BV(WGM01); <!-- kept in code -->", "indented_code_line();"]
    assert all(ln.mono for b in code for ln in b.lines)

    [table_block] = [b for b in blocks if b.kind == "table"]
    t = table_block.table
    assert (t.n_rows, t.n_cols, t.header_rows) == (3, 3, 1)
    assert [[c.text for c in row] for row in t.rows()] == [
        ["Register", "Address", "Notes"],
        ["TCCR0A", "0x44", "mode | bits"],
        ["OCR0A", "0x47", ""],
    ]
    assert t.rows()[1][0].bbox == (0.0, 30.0, 0.0, 30.0)
    table_caption = blocks[blocks.index(table_block) - 1]
    assert table_caption.kind == "caption" and table_caption.caption_of == blocks.index(table_block)

    quote = next(b for b in blocks if "Quoted warning" in b.text)
    assert quote.kind == "text" and quote.text == "Quoted warning about reserved bits."

    [formula] = [b for b in blocks if b.kind == "formula"]
    assert formula.text == "f_{OC0A} = \\frac{f_{clk}}{2 N (1 + OCR0A)}"
    assert formula.lines[0].bbox == (0.0, 36.0, 0.0, 38.0)

    figures = [i for i, k in enumerate(kinds) if k == "figure"]
    assert len(figures) == 3
    f1, f2, f3 = (blocks[i] for i in figures)
    assert [ln.text for ln in f1.lines] == ["Pin diagram of the timer", "Timer pins"]
    assert f1.figure.source == "markdown" and f1.figure.bbox == (0.0, 40.0, 0.0, 40.0)
    assert blocks[figures[0] + 1].kind == "caption" and blocks[figures[0] + 1].caption_of == figures[0]
    assert blocks[figures[0] + 1].text == "Figure 1: Timer output pins."
    with Image.open(io.BytesIO(f1.figure.image_png)) as stored:
        assert stored.size == (600, 300)
    assert f1.figure.ocr_used and "RESET" in f1.figure.label_text.upper()
    assert all(ln.bbox == (0.0, 40.0, 0.0, 40.0) for ln in f1.figure.label_lines)
    # A missing image is not an error: alt text kept, the problem noted.
    assert [ln.text for ln in f2.lines] == ["Absent drawing"] and f2.figure.image_png is None
    assert any("img/absent.png" in w for w in doc.warnings)
    assert blocks[figures[1] + 1].kind == "caption" and blocks[figures[1] + 1].caption_of == figures[1]
    assert [ln.text for ln in f3.lines] == ["HTML pin image"] and f3.figure.image_png is not None
    cap3 = next(b for b in blocks if b.text == "Figure 3: The same pins via HTML")
    assert cap3.kind == "caption" and cap3.caption_of == figures[2]

    assert blocks[-1].text == "Last paragraph mentions compare match."
    # Every line points at source lines that really contain its first word.
    for b in blocks:
        for ln in b.lines:
            x0, first, x1, last = ln.bbox
            assert x0 == x1 == 0.0 and 1 <= first <= last <= len(source_lines), (ln.text, ln.bbox)
            word = ln.text.split()[0].strip("*_`|,.:")
            window = "\n".join(source_lines[int(first) - 1 : int(last)])
            assert word in window, (ln.text, ln.bbox, window)

    # Same file through the dispatcher (no OCR): same structure.
    via = open_document(path)
    assert via.kind == "markdown" and [b.kind for b in only_page(via).blocks] == kinds


def test_markdown_code_inside_list_items_math_forms_and_code_span_links(tmp_path):
    src = (
        "1. Install it:\n"
        "   ```sh\n"
        "   make install\n"
        "   ```\n"
        "   Then run the self test.\n"
        "2. Done.\n"
        "\n"
        "> \\[!TIP]\n"
        "> Use [`pyenv-win`](https://example.org/pyenv-win) on Windows.\n"
        "\n"
        "\\[\n"
        "x^2 + y^2\n"
        "\\]\n"
        "\n"
        "$$ e = m c^2 $$\n"
    )
    path = tmp_path / "install.md"
    path.write_text(src)
    blocks = only_page(open_markdown(path)).blocks
    assert [(b.kind, b.text) for b in blocks] == [
        ("list", "Install it:"),
        ("code", "make install"),
        ("list", "Then run the self test.\nDone."),
        ("text", "[!TIP] Use pyenv-win on Windows."),
        ("formula", "x^2 + y^2"),
        ("formula", "e = m c^2"),
    ]
    assert blocks[1].lines[0].bbox == (0.0, 3.0, 0.0, 3.0)


def test_markdown_title_falls_back_to_stem_and_latin1_decodes(tmp_path):
    path = tmp_path / "notes_on_pwm.md"
    path.write_bytes("Caf\xe9 au lait \xb0C r\xe9sistance\n\n## Sub\n".encode("latin-1"))
    doc = open_markdown(path)
    assert doc.title == "notes_on_pwm"
    blocks = only_page(doc).blocks
    assert blocks[0].text == "Café au lait °C résistance"
    assert (blocks[1].kind, blocks[1].level) == ("heading", 2)


def test_markdown_utf16_with_bom(tmp_path):
    path = tmp_path / "u16.md"
    path.write_bytes("# Überschrift\n\nText mit Ümlauten.\n".encode("utf-16"))
    doc = open_markdown(path)
    assert doc.title == "Überschrift"


def test_binary_file_named_md_is_corrupt(tmp_path):
    path = tmp_path / "oops.md"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(CorruptDocumentError) as e:
        open_markdown(path)
    assert "binary" in e.value.reason
    with pytest.raises(CorruptDocumentError):
        open_document(path)


@pytest.mark.timeout(300)  # linear time: a quadratic parser would not finish a megabyte (speed: bench/)
def test_markdown_parse_speed_on_one_megabyte(tmp_path, capsys):
    body = MD_SOURCE.split("===================\n", 1)[1]
    chunks = []
    size = 0
    i = 0
    while size < 1_000_000:
        part = f"\n# Chapter {i}\n\n" + body.replace("img/", f"img{i}/")
        chunks.append(part)
        size += len(part.encode())
        i += 1
    path = tmp_path / "book.md"
    path.write_text("".join(chunks), encoding="utf-8")
    t0 = time.perf_counter()
    doc = open_markdown(path)
    page = only_page(doc)  # no image files exist: each is noted, none loaded
    dt = time.perf_counter() - t0
    n_lines = sum(len(b.lines) for b in page.blocks)
    with capsys.disabled():
        print(
            f"\n[markdown speed] {path.stat().st_size / 1e6:.2f} MB, {len(page.blocks)} blocks, "
            f"{n_lines} lines parsed in {dt:.2f} s ({path.stat().st_size / 1e6 / dt:.2f} MB/s)"
        )
    assert sum(1 for b in page.blocks if b.kind == "heading" and b.level == 1) == i


# ---------------------------------------------------------------- docling
def test_docling_fixture_reading_order_geometry_and_links():
    doc = open_docling(DOCLING_FIXTURE)
    assert (doc.kind, doc.title, doc.page_count) == ("docling", "Timer/Counter User Manual", 2)
    p1, p2 = list(doc.pages())
    assert (p1.page, p1.width, p1.height) == (1, 612.0, 792.0)
    assert (p2.page, p2.width, p2.height) == (2, 595.0, 842.0)

    all_text = " ".join(b.text for p in (p1, p2) for b in p.blocks)
    assert "Rev. B" not in all_text and "Page 2" not in all_text  # page header/footer skipped

    b = p1.blocks
    assert [(x.kind, x.level) for x in b] == [
        ("heading", 1),
        ("heading", 2),
        ("text", 0),
        ("list", 0),
        ("table", 0),
        ("caption", 0),
        ("footnote", 0),
        ("text", 0),
    ]
    # BOTTOMLEFT -> top-left: y0 = 792 - t, y1 = 792 - b.
    assert b[0].lines[0].bbox == (72.0, 792.0 - 720.0, 540.0, 792.0 - 700.0)
    assert b[1].lines[0].bbox == (72.0, 112.0, 300.0, 126.0)
    assert [ln.text for ln in b[3].lines] == [
        "Normal mode counts upwards.",
        "CTC mode clears on compare match.",
    ]
    table = b[4].table
    assert table.bbox == (72.0, 292.0, 400.0, 352.0)
    assert (table.n_rows, table.n_cols, table.header_rows) == (3, 2, 1)
    assert [[c.text for c in r] for r in table.rows()] == [
        ["Register", "Address"],
        ["TCCR0A", "0x44"],
        ["OCR0A", "0x47"],
    ]
    assert table.rows()[2][1].bbox == (236.0, 332.0, 400.0, 352.0)
    assert b[5].text == "Table 1: Timer register addresses" and b[5].caption_of == 4
    # The footnote came after page-2 items in the body, yet lands on page 1.
    assert b[6].text.startswith("Addresses are given") and b[6].lines[0].bbox == (72.0, 712.0, 500.0, 722.0)
    # No provenance: page 1, empty box.
    assert b[7].text.startswith("Document revision") and b[7].lines[0].bbox == (0.0, 0.0, 0.0, 0.0)

    c = p2.blocks
    assert [(x.kind, x.level) for x in c] == [
        ("heading", 3),
        ("figure", 0),
        ("caption", 0),
        ("code", 0),
        ("formula", 0),
    ]
    assert c[0].lines[0].bbox == (72.0, 60.0, 320.0, 76.0)  # TOPLEFT passes through
    fig = c[1].figure
    assert fig.source == "docling" and fig.bbox == (100.0, 200.0, 400.0, 450.0)
    assert fig.label_text == "OC0A" and fig.label_lines[0].bbox == (120.0, 220.0, 160.0, 232.0)
    assert c[2].caption_of == 1 and c[2].text.startswith("Figure 4")
    assert c[3].lines[0].mono and c[4].text.startswith("f_{OC0A}")

    via = open_document(DOCLING_FIXTURE)
    assert via.kind == "docling" and via.page_count == 2


def test_docling_embedded_picture_and_missing_page_size(tmp_path):
    data = json.loads(DOCLING_FIXTURE.read_text())
    buf = io.BytesIO()
    Image.new("RGB", (300, 250), (0, 200, 0)).save(buf, format="PNG")
    data["pictures"][0]["image"] = {
        "mimetype": "image/png",
        "dpi": 72,
        "size": {"width": 300.0, "height": 250.0},
        "uri": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode(),
    }
    del data["pages"]["1"]  # page 1 BOTTOMLEFT boxes now need an estimated height
    for cell in data["tables"][0]["data"]["table_cells"]:
        del cell["bbox"]  # optional in the schema: cells then use the table's box
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    doc = open_document(path)
    p1, p2 = list(doc.pages())
    assert any("page 1 has no size" in w for w in doc.warnings)
    assert p1.height == 770.0  # the highest coordinate on page 1 (the skipped page header's top)
    assert p1.blocks[0].lines[0].bbox == (72.0, 50.0, 540.0, 70.0)
    table = next(b.table for b in p1.blocks if b.kind == "table")
    assert {c.bbox for c in table.cells} == {table.bbox} and table.bbox == (72.0, 270.0, 400.0, 330.0)
    png = p2.blocks[1].figure.image_png
    assert png is not None and Image.open(io.BytesIO(png)).size == (300, 250)


def test_docling_bad_inputs(tmp_path):
    truncated = tmp_path / "cut.json"
    truncated.write_text(DOCLING_FIXTURE.read_text()[:500])
    with pytest.raises(CorruptDocumentError):
        open_document(truncated)
    with pytest.raises(CorruptDocumentError):
        open_docling(truncated)
    other = tmp_path / "package.json"
    other.write_text(json.dumps({"name": "x", "version": "1.0.0"}))
    with pytest.raises(UnsupportedFileError):
        open_document(other)
    with pytest.raises(CorruptDocumentError):
        open_docling(other)
