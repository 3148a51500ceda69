"""Small real PDFs for tests, generated with PyMuPDF.

Every `make_*` function writes one PDF to `path` and returns a `SamplePdf` whose `info`
holds what was drawn where (texts, boxes in PDF points, top-left origin) so tests can
assert on real content. Fonts: Helvetica ("helv"), Helvetica-Bold ("hebo"), Courier ("cour").

    from tests.pdf_factory import make_ruled_table_pdf
    sample = make_ruled_table_pdf(tmp_path / "t.pdf")
    sample.info["cells"]  # [[header texts], [row 1 texts], ...]
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PAGE_W, PAGE_H = 612.0, 792.0  # US Letter
MARGIN = 72.0
BODY_SIZE = 10.0
LEADING = 1.3  # baseline-to-baseline distance / font size

LOREM = (
    "The controller samples every input channel at a fixed rate and stores the readings in a ring "
    "buffer. When the buffer fills, the oldest readings are overwritten unless logging is enabled, "
    "in which case the firmware flushes them to the memory card first. Calibration constants are kept "
    "in non-volatile memory and survive a power cycle."
)


@dataclass
class SamplePdf:
    """A generated PDF: its `path` and an `info` dict describing the drawn content."""

    path: Path
    info: dict[str, Any] = field(default_factory=dict)


def write_lines(
    page: Any, x: float, y: float, lines: list[str], size: float = BODY_SIZE, font: str = "helv"
) -> float:
    """Write `lines` with baselines starting at `y`; returns the baseline y after the last line."""
    for text in lines:
        page.insert_text((x, y), text, fontsize=size, fontname=font)
        y += size * LEADING
    return y


def wrap(text: str, width_pt: float, size: float = BODY_SIZE) -> list[str]:
    """Break `text` into lines that fit `width_pt` in Helvetica at `size` (approximate)."""
    chars = max(10, int(width_pt / (size * 0.5)))
    return textwrap.wrap(text, chars)


def paragraph(page: Any, x: float, y: float, text: str, width: float, size: float = BODY_SIZE) -> float:
    """Write a wrapped paragraph; returns the baseline y for the next paragraph (one blank line after)."""
    y = write_lines(page, x, y, wrap(text, width, size), size)
    return y + size * 0.8


def _running_furniture(page: Any, number: int, header: str) -> None:
    page.insert_text((MARGIN, 40), header, fontsize=9, fontname="helv")
    page.insert_text((PAGE_W / 2 - 5, PAGE_H - 30), str(number), fontsize=9, fontname="helv")


def make_headings_pdf(path: Path, *, outline: bool = True, pages: int = 3) -> SamplePdf:
    """Chapters and sections set in larger / bold type, body paragraphs, a running header
    ("XR-200 User Manual") and page-number footers on every page; with `outline=True` the
    PDF gets bookmarks for the headings.

    info: "headings" = [(level, title, page)], "header" = running header text,
    "body_markers" = a distinctive word of each body paragraph, by page.
    """
    import pymupdf

    doc = pymupdf.open()
    headings: list[tuple[int, str, int]] = []
    markers: dict[int, list[str]] = {}
    header = "XR-200 User Manual"
    for p in range(1, pages + 1):
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        _running_furniture(page, p, header)
        y = MARGIN + 30
        title = f"{p} Chapter Number {p} Overview"
        page.insert_text((MARGIN, y), title, fontsize=20, fontname="hebo")
        headings.append((1, title, p))
        y += 36
        for s in (1, 2):
            word = f"marker{p}{s}"
            markers.setdefault(p, []).append(word)
            y = paragraph(page, MARGIN, y, f"{word} " + LOREM, PAGE_W - 2 * MARGIN)
            sec = f"{p}.{s} Section About Topic {p}{s}"
            y += 6
            page.insert_text((MARGIN, y), sec, fontsize=14, fontname="hebo")
            headings.append((2, sec, p))
            y += 22
        word = f"marker{p}9"
        markers[p].append(word)
        paragraph(page, MARGIN, y, f"{word} " + LOREM, PAGE_W - 2 * MARGIN)
    if outline:
        doc.set_toc([[lvl, title, pg] for lvl, title, pg in headings])
    doc.save(path)
    doc.close()
    return SamplePdf(path, {"headings": headings, "header": header, "body_markers": markers})


def make_two_column_pdf(path: Path) -> SamplePdf:
    """One page: a full-width title, then two text columns (gutter at x=306) of three
    paragraphs each. Paragraph texts start with "Left1".."Left3" / "Right1".."Right3".

    info: "title", "order" = the six paragraph markers in reading order, "gutter" = x.
    """
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    title = "Dual Column Layout Reference"
    page.insert_text((MARGIN, MARGIN), title, fontsize=18, fontname="hebo")
    col_w = (PAGE_W - 2 * MARGIN - 24) / 2
    order = []
    for side, x in (("Left", MARGIN), ("Right", MARGIN + col_w + 24)):
        y = MARGIN + 40
        for k in range(1, 4):
            marker = f"{side}{k}"
            order.append(marker)
            y = paragraph(page, x, y, f"{marker} paragraph: " + LOREM, col_w)
    doc.save(path)
    doc.close()
    return SamplePdf(path, {"title": title, "order": order, "gutter": PAGE_W / 2})


def make_page_break_pdf(path: Path, *, footnote: str = "") -> SamplePdf:
    """Two pages; one paragraph starts near the bottom of page 1 and continues at the top
    of page 2 (its sentence is cut mid-way). With `footnote`, page 1 ends with that note set as
    TeX sets one: a short rule, a small raised "1", the note's text smaller than the body.

    info: "first_part" (last line on page 1), "second_part" (first line on page 2), "footnote".
    """
    import pymupdf

    doc = pymupdf.open()
    p1 = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = paragraph(p1, MARGIN, MARGIN + 20, "Opening paragraph. " + LOREM, PAGE_W - 2 * MARGIN)
    lines = wrap("Spanning paragraph begins here. " + LOREM + " " + LOREM, PAGE_W - 2 * MARGIN)
    y = PAGE_H - MARGIN - (6 if footnote else 3) * BODY_SIZE * LEADING
    write_lines(p1, MARGIN, y, lines[:3])
    if footnote:
        foot = PAGE_H - MARGIN - 4
        p1.draw_line((MARGIN, foot - 12), (MARGIN + 150, foot - 12), width=0.4)
        p1.insert_text((MARGIN + 12, foot - 3), "1", fontsize=5.6, fontname="helv")
        p1.insert_text((MARGIN + 16, foot), footnote, fontsize=8, fontname="helv")
    p2 = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = write_lines(p2, MARGIN, MARGIN + 20, lines[3:])
    paragraph(p2, MARGIN, y + 12, "Closing paragraph. " + LOREM, PAGE_W - 2 * MARGIN)
    doc.save(path)
    doc.close()
    return SamplePdf(path, {"first_part": lines[2], "second_part": lines[3], "footnote": footnote})


TABLE_CELLS = [
    ["Pin", "Signal", "Voltage"],
    ["1", "VCC", "3.3 V"],
    ["2", "GND", "0 V"],
    ["3", "TXD", "0.998 V"],
    ["4", "RXD", "1.25 V"],
]


def make_ruled_table_pdf(path: Path, cells: list[list[str]] | None = None, *, rules: bool = True,
                         after: str = "") -> SamplePdf:
    """One page: a paragraph, the caption "Table 1: Connector pin assignment" above a fully
    ruled grid (header row bold), and a paragraph after it (`after`, or filler). `rules=False`
    draws the same table without any lines (a borderless table, as Texinfo manuals print them).

    info: "cells" (row-major texts), "bbox" (grid box), "caption", "cell_boxes"[r][c],
    "after" (the box of the paragraph after the table).
    """
    import pymupdf

    cells = cells or TABLE_CELLS
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = paragraph(page, MARGIN, MARGIN + 20, "Before the table. " + LOREM, PAGE_W - 2 * MARGIN)
    caption = "Table 1: Connector pin assignment"
    page.insert_text((MARGIN + 40, y + 4), caption, fontsize=BODY_SIZE, fontname="helv")
    x0, top = MARGIN + 40, y + 14
    col_w, row_h = 120.0, 20.0
    n_rows, n_cols = len(cells), len(cells[0])
    x1, bottom = x0 + n_cols * col_w, top + n_rows * row_h
    for r in range(n_rows + 1 if rules else 0):
        page.draw_line((x0, top + r * row_h), (x1, top + r * row_h), width=0.8)
    for c in range(n_cols + 1 if rules else 0):
        page.draw_line((x0 + c * col_w, top), (x0 + c * col_w, bottom), width=0.8)
    boxes = []
    for r, row in enumerate(cells):
        brow = []
        for c, text in enumerate(row):
            cx, cy = x0 + c * col_w, top + r * row_h
            page.insert_text(
                (cx + 5, cy + 14), text, fontsize=BODY_SIZE, fontname="hebo" if r == 0 else "helv"
            )
            brow.append((cx, cy, cx + col_w, cy + row_h))
        boxes.append(brow)
    end = paragraph(page, MARGIN, bottom + 30, after or "After the table. " + LOREM, PAGE_W - 2 * MARGIN)
    doc.save(path)
    doc.close()
    return SamplePdf(
        path, {"cells": cells, "bbox": (x0, top, x1, bottom), "caption": caption, "cell_boxes": boxes,
               "after": (MARGIN, bottom + 30 - BODY_SIZE, PAGE_W - MARGIN, end)}
    )


def make_vector_figure_pdf(path: Path) -> SamplePdf:
    """One page: a paragraph, a vector bar chart with axes, tick labels ("0", "50", "100"),
    an axis title ("Load percent") and a chart title ("Throughput"), the caption
    "Figure 1: Throughput versus load of the XR-200." below it, and a closing paragraph.

    info: "plot_box" (axes box), "labels" (label texts), "caption", "caption_y".
    """
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = paragraph(page, MARGIN, MARGIN + 20, "Introductory text. " + LOREM, PAGE_W - 2 * MARGIN)
    left, top, right, bottom = 180.0, y + 30, 430.0, y + 210
    page.draw_line((left, bottom), (right, bottom), width=1)
    page.draw_line((left, bottom), (left, top), width=1)
    heights = [40, 90, 130, 160, 120]
    for k, h in enumerate(heights):
        bx = left + 15 + k * 45
        page.draw_rect((bx, bottom - h, bx + 30, bottom), color=(0, 0, 0), fill=(0.3, 0.5, 0.8))
    page.draw_polyline(
        [(left + 30 + k * 45, bottom - h - 8) for k, h in enumerate(heights)], color=(0.8, 0, 0), width=1.2
    )
    labels = []
    for frac, text in ((0.0, "0"), (0.5, "50"), (1.0, "100")):
        ty = bottom - frac * (bottom - top)
        page.draw_line((left - 4, ty), (left, ty), width=1)
        page.insert_text((left - 22, ty + 3), text, fontsize=8, fontname="helv")
        labels.append(text)
    page.insert_text((left + 90, bottom + 14), "Load percent", fontsize=8, fontname="helv")
    page.insert_text((left + 95, top - 4), "Throughput", fontsize=9, fontname="hebo")
    labels += ["Load percent", "Throughput"]
    caption = "Figure 1: Throughput versus load of the XR-200."
    cap_y = bottom + 34
    page.insert_text((left, cap_y), caption, fontsize=BODY_SIZE, fontname="helv")
    paragraph(page, MARGIN, cap_y + 30, "Closing remarks. " + LOREM, PAGE_W - 2 * MARGIN)
    doc.save(path)
    doc.close()
    return SamplePdf(
        path,
        {"plot_box": (left, top, right, bottom), "labels": labels, "caption": caption, "caption_y": cap_y},
    )


def sample_image_png(width: int = 320, height: int = 200) -> bytes:
    """A synthetic photo-like PNG (gradient with shapes), made with Pillow."""
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height))
    px = img.load()
    for x in range(width):
        for y in range(height):
            px[x, y] = (x * 255 // width, y * 255 // height, 128)
    d = ImageDraw.Draw(img)
    d.ellipse((40, 40, 140, 140), fill=(250, 220, 0))
    d.rectangle((180, 60, 290, 170), fill=(20, 120, 40))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def make_raster_figure_pdf(path: Path) -> SamplePdf:
    """One page: a paragraph, a raster image (photo-like PNG) at "image_box", the caption
    "Fig. 2: Front panel of the XR-200." under it, a closing paragraph, and a 16 pt icon
    image that must not count as a figure.

    info: "image_box", "caption", "icon_box".
    """
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    y = paragraph(page, MARGIN, MARGIN + 20, "Panel overview. " + LOREM, PAGE_W - 2 * MARGIN)
    box = (156.0, y + 10, 456.0, y + 197.5)
    page.insert_image(pymupdf.Rect(box), stream=sample_image_png())
    caption = "Fig. 2: Front panel of the XR-200."
    page.insert_text((box[0], box[3] + 16), caption, fontsize=BODY_SIZE, fontname="helv")
    y = paragraph(page, MARGIN, box[3] + 50, "Panel details. " + LOREM, PAGE_W - 2 * MARGIN)
    icon = (MARGIN, y + 10, MARGIN + 16, y + 26)
    page.insert_image(pymupdf.Rect(icon), stream=sample_image_png(32, 32))
    doc.save(path)
    doc.close()
    return SamplePdf(path, {"image_box": box, "caption": caption, "icon_box": icon})


SCANNED_LINES = ["Maintenance schedule", "Replace the filter every 90 days.", "Check the fan speed monthly."]


def make_scanned_pdf(path: Path, lines: list[str] | None = None, dpi: int = 150) -> SamplePdf:
    """One page whose only content is a PNG image of rendered text (no text layer),
    as a scanner would produce. The text is drawn at 16 pt, so OCR reads it reliably.

    info: "lines" = [(text, bbox in points where the text was drawn)].
    """
    import pymupdf

    lines = lines or SCANNED_LINES
    src = pymupdf.open()
    page = src.new_page(width=PAGE_W, height=PAGE_H)
    y = 150.0
    for text in lines:
        page.insert_text((MARGIN, y), text, fontsize=16, fontname="helv")
        y += 40
    drawn = [
        (" ".join(s["text"] for s in ln["spans"]).strip(), tuple(ln["bbox"]))
        for b in page.get_text("dict")["blocks"]
        for ln in b.get("lines", [])
    ]
    png = page.get_pixmap(dpi=dpi).tobytes("png")
    src.close()
    doc = pymupdf.open()
    out = doc.new_page(width=PAGE_W, height=PAGE_H)
    out.insert_image(out.rect, stream=png)
    doc.save(path)
    doc.close()
    return SamplePdf(path, {"lines": drawn})


def make_encrypted_pdf(path: Path, password: str = "secret") -> SamplePdf:
    """A one-page PDF encrypted with AES-256 that needs `password` to open. info: "password"."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W, height=PAGE_H)
    page.insert_text((MARGIN, MARGIN), "Confidential calibration data.", fontsize=BODY_SIZE)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=password, owner_pw=password + "-owner")
    doc.close()
    return SamplePdf(path, {"password": password})


def make_corrupt_pdf(path: Path) -> SamplePdf:
    """A file with a PDF header followed by garbage (no objects, no xref)."""
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\nthis is not a pdf body\n")
    return SamplePdf(path)


def make_zero_page_pdf(path: Path) -> SamplePdf:
    """A syntactically valid PDF whose page tree is empty (PyMuPDF refuses to save one, so it is written by hand)."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return SamplePdf(path)


PLANT_PAGES = [
    ("Coolant pump", "The coolant pump delivers 12 litres per minute at 2 bar."),
    ("Relief valve", "The relief valve opens at 8 bar and closes again at 6 bar."),
    ("Fan filter", "Replace the fan filter mat every 2000 operating hours."),
]


def make_plant_manual(path: Path, pages: list[tuple[str, str]] = PLANT_PAGES) -> Path:
    """A small plant manual: one page per (title, body), title in bold, for retrieval tests."""
    import pymupdf

    doc = pymupdf.open()
    for title, body in pages:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), title, fontsize=16, fontname="hebo")
        page.insert_text((72, 130), body, fontsize=11)
    doc.save(str(path))
    doc.close()
    return path


def make_section_manual(path: Path, pages: list[tuple[str, str]]) -> Path:
    """One section per page: a bold 16 pt heading and a body paragraph wrapped in the page's text box."""
    import pymupdf

    doc = pymupdf.open()
    for heading, body in pages:
        page = doc.new_page()
        page.insert_text((72, 90), heading, fontsize=16, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, 110, 520, 760), body, fontsize=11)
    doc.save(str(path))
    doc.close()
    return path
