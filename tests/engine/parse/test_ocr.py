"""OCR with the real RapidOCR models (rapidocr-onnxruntime ships them): scanned PDF pages
and image regions. Each OCR call takes about a second on these machines."""

from __future__ import annotations

import io

import pytest
from pdf_factory import SCANNED_LINES, make_scanned_pdf

from mmrag_desktop.engine.elements import Line
from mmrag_desktop.engine.parse.ocr import Ocr, OcrLine, ocr_region
from mmrag_desktop.engine.parse.pdf import open_pdf

pytestmark = pytest.mark.skipif(not Ocr.available(), reason="rapidocr-onnxruntime is not installed")


@pytest.fixture(scope="module")
def ocr():
    return Ocr()


def _words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


def test_scanned_page_is_ocrd_with_boxes_where_text_was_drawn(tmp_path, ocr):
    sample = make_scanned_pdf(tmp_path / "scan.pdf")
    with open_pdf(sample.path, ocr=ocr) as doc:
        (page,) = list(doc.pages())
        assert doc.stats["ocr_pages"] == 1
    assert page.has_text_layer is False and page.ocr_used is True
    lines = [ln for b in page.blocks for ln in b.lines]
    assert all(b.kind in ("text", "list") for b in page.blocks)
    assert len(lines) == len(SCANNED_LINES)
    for (drawn_text, drawn_box), got in zip(sample.info["lines"], lines, strict=True):
        # recognised text: allow OCR's spacing differences, require the words
        assert _words(got.text) == _words(drawn_text), (got.text, drawn_text)
        # boxes mapped back to PDF points land on the drawn text
        assert got.page == 1
        assert abs(got.bbox[0] - drawn_box[0]) < 8 and abs(got.bbox[2] - drawn_box[2]) < 12
        assert abs(got.bbox[1] - drawn_box[1]) < 8 and abs(got.bbox[3] - drawn_box[3]) < 8


def test_read_returns_pixel_boxes_from_bytes_and_images(ocr):
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (600, 120), "white")
    font = ImageFont.truetype("DejaVuSans.ttf", 32) if _has_dejavu() else ImageFont.load_default(size=32)
    ImageDraw.Draw(img).text((40, 40), "Torque 12 Nm", fill="black", font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    for source in (img, buf.getvalue()):
        lines = ocr.read(source)
        assert len(lines) == 1 and isinstance(lines[0], OcrLine)
        assert _words(lines[0].text) == {"torque", "12", "nm"}
        x0, y0, x1, y1 = lines[0].bbox
        assert 25 <= x0 <= 55 and 30 <= y0 <= 60 and 200 <= x1 <= 320 and 60 <= y1 <= 95
        assert 0.5 <= lines[0].score <= 1.0


def test_ocr_region_maps_crop_pixels_to_page_points(ocr):
    from PIL import Image, ImageDraw, ImageFont

    # A 300 x 100 pt region rendered at 2 px per point.
    img = Image.new("RGB", (600, 200), "white")
    font = ImageFont.truetype("DejaVuSans.ttf", 40) if _has_dejavu() else ImageFont.load_default(size=40)
    ImageDraw.Draw(img).text((100, 80), "VALVE A3", fill="black", font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    region = (100.0, 400.0, 400.0, 500.0)
    lines = ocr_region(ocr, buf.getvalue(), region, page=7)
    assert len(lines) == 1 and isinstance(lines[0], Line)
    ln = lines[0]
    assert ln.page == 7 and _words(ln.text) == {"valve", "a3"}
    # text drawn at pixel (100, 80) -> point (100 + 50, 400 + 40)
    assert abs(ln.bbox[0] - 150) < 8 and abs(ln.bbox[1] - 440) < 10
    assert (
        region[0] <= ln.bbox[0] < ln.bbox[2] <= region[2]
        and region[1] <= ln.bbox[1] < ln.bbox[3] <= region[3]
    )


def test_blank_image_gives_no_lines(ocr):
    from PIL import Image

    assert ocr.read(Image.new("RGB", (200, 100), "white")) == []


def test_available_is_cheap_and_true_here():
    import sys

    assert Ocr.available() is True
    # checking availability does not import the heavy package
    if "rapidocr_onnxruntime" not in sys.modules:
        Ocr.available()
        assert "rapidocr_onnxruntime" not in sys.modules


def test_missing_package_raises_model_error(monkeypatch):
    import sys

    from mmrag_desktop.engine.errors import ModelError

    # Python's own way to make a package unimportable: a None entry in sys.modules.
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)
    assert Ocr.available() is False
    with pytest.raises(ModelError) as ei:
        Ocr()
    assert ei.value.role == "ocr" and "rapidocr-onnxruntime" in str(ei.value)


def _has_dejavu() -> bool:
    from PIL import ImageFont

    try:
        ImageFont.truetype("DejaVuSans.ttf", 10)
        return True
    except OSError:
        return False


def test_latin_text_loses_the_chinese_characters_the_model_reads_into_it():
    """PP-OCRv4 reads Chinese and English; on DDD's screenshots and NUT's scanned cable drawing it read
    a mark or a smudge as a Chinese character now and then ("12\u5428 BROWN", "\u7684" alone on a line in a
    menu bar), and answers quoted them. (No real image makes the model misread on demand, so the cleanup
    is tested on the strings it produced.) An image of Chinese text keeps its characters."""
    from mmrag_desktop.engine.parse.ocr import latin_text

    menus = ["View Program Commands Status Source Data Help", "\u7684", "? ():", "\u5a01 9888408x0", "12\u5428 BROWN"]
    assert latin_text(menus) == ["View Program Commands Status Source Data Help", "", "? ():", "9888408x0",
                                 "12 BROWN"]
    assert latin_text(["\uff08list+)0804ab78"]) == ["(list+)0804ab78"]  # a fullwidth bracket as its ASCII
    chinese = ["\u538b\u529b\u4f20\u611f\u5668 MPX5010", "\u8f93\u51fa\u7535\u538b"]
    assert latin_text(chinese) == chinese
    assert latin_text(["Vout = 5 V"]) == ["Vout = 5 V"]
