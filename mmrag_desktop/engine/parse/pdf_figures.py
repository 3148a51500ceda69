"""Figure regions of a PDF page: raster images (`get_image_info`) and vector drawings
(`cluster_drawings`), with the label text near them, rendered to a small PNG crop.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..elements import BBox, Line, box_inside
from .pdf_blocks import caption_kind

MIN_FIGURE_SIDE = 40.0  # pt: smaller images are icons, bullets, rules
REPEATED_PAGES = 4  # an image drawn on this many pages is a logo or a decoration, no figure
MERGE_GAP = 12.0  # pt: (a)/(b) sub-figures this close form one figure
MAX_TEXT_RATIO = 0.22  # word area / box area above this = table grid or framed text
LABEL_PAD = 14.0  # pt: axis labels and titles sit this close to the drawing
TABLE_RULE_PAD = 12.0  # pt: a table's rules run this far above and below its cells' text at most
CROP_DPI = 110
CROP_MAX_SIDE = 1000


def repeated_images(doc: Any) -> set[int]:
    """The images (xrefs) drawn on REPEATED_PAGES pages or more: a logo on each chapter's first page (the
    xfig manual's "Xfig User Manual Version 3.2.8b" 26 times, each a figure chunk that searches for "xfig"
    and "version" found), a page decoration. A page that cannot be read counts no image (pages() reports it)."""
    pages: dict[int, int] = {}
    for i in range(doc.page_count):
        try:
            drawn = {info["xref"] for info in doc[i].get_image_info(xrefs=True)}
        except Exception:  # noqa: BLE001 - a damaged page (loading it too) is reported when it is read
            continue
        for xref in drawn - {0}:
            pages[xref] = pages.get(xref, 0) + 1
    return {xref for xref, n in pages.items() if n >= REPEATED_PAGES}


def raster_regions(page: Any, width: float, height: float, skip: Collection[int] = ()) -> list[BBox]:
    """Boxes of the page's raster images, clipped to the page, icons and the images in `skip`
    (repeated_images) dropped, neighbours merged."""
    boxes: list[BBox] = []
    for info in page.get_image_info(xrefs=True):
        if info.get("xref") in skip:
            continue
        b = _clip(tuple(float(v) for v in info["bbox"]), width, height)  # type: ignore[arg-type]
        if b is None:
            continue
        w, h = b[2] - b[0], b[3] - b[1]
        if (w < MIN_FIGURE_SIDE and h < MIN_FIGURE_SIDE) or min(w, h) < 8:
            continue
        boxes.append(b)
    return merge_close(boxes, MERGE_GAP)


def image_coverage(page: Any, width: float, height: float) -> float:
    """Fraction of the page area covered by raster images (bounding-box union approximated by sum, capped at 1)."""
    area = 0.0
    for info in page.get_image_info():
        b = _clip(tuple(float(v) for v in info["bbox"]), width, height)  # type: ignore[arg-type]
        if b is not None:
            area += (b[2] - b[0]) * (b[3] - b[1])
    return min(1.0, area / max(1.0, width * height))


def vector_regions(
    clusters: list[BBox],
    words: list[tuple],
    exclude: list[BBox],
    width: float,
    height: float,
) -> list[BBox]:
    """Boxes of vector figures among drawing `clusters` (from `page.cluster_drawings`) that are not tiny, not the page frame,
    not inside an `exclude` region (tables), and not mostly text (grids, framed code)."""
    out: list[BBox] = []
    page_area = width * height
    for r in clusters:
        b = _clip(r, width, height)
        if b is None:
            continue
        w, h = b[2] - b[0], b[3] - b[1]
        area = w * h
        if (w < MIN_FIGURE_SIDE and h < MIN_FIGURE_SIDE) or min(w, h) < 10 or area > 0.8 * page_area:
            continue
        if any(_overlap_area(b, e) > 0.5 * area or _frames(b, e) for e in exclude):
            continue
        text_area = 0.0
        for wd in words:
            ov = _overlap_area(b, (wd[0], wd[1], wd[2], wd[3]))
            text_area += ov
        if text_area / area > MAX_TEXT_RATIO:
            continue
        out.append(b)
    return merge_close(out, 3.0)


def _frames(drawing: BBox, table: BBox) -> bool:
    """True when `drawing` is the grid of `table` (its cells' text box): the table lies inside it and it
    spans the table's rows and no more, however much wider the rules run than the text of the cells
    (a ruled table set across the text width with two short columns, the Smooth Mach Dynamics guide's
    "parameter | meaning" tables: the grid was a figure that took the line under it, "Note that a
    typical value is n = 7 ...", for a label). A figure that holds a small table is taller than it."""
    t_area = (table[2] - table[0]) * (table[3] - table[1])
    if t_area <= 0 or _overlap_area(drawing, table) < 0.8 * t_area:
        return False
    return drawing[3] - drawing[1] <= 1.25 * (table[3] - table[1]) + TABLE_RULE_PAD


def pad_with_labels(box: BBox, lines: list[Line]) -> BBox:
    """Grow a vector figure's box over short label lines (axis labels, titles) next to it.

    Caption lines, lines as wide as the figure (body text) and the last line of a paragraph of body text
    (_ends_a_paragraph) are never taken in.
    """
    for _ in range(2):
        grown = box
        limit = max(0.7 * (box[2] - box[0]), 40.0)
        for ln in lines:
            b = ln.bbox
            if box_inside(b, box) or caption_kind(ln.text) or (b[2] - b[0]) > limit:
                continue
            # (near lines only are compared with every line of the page)
            if _distance(box, b) <= LABEL_PAD and not _ends_a_paragraph(ln, lines, limit):
                grown = (min(grown[0], b[0]), min(grown[1], b[1]), max(grown[2], b[2]), max(grown[3], b[3]))
        if grown == box:
            break
        box = grown
    return box


def _ends_a_paragraph(ln: Line, lines: list[Line], limit: float) -> bool:
    """True when the line right above `ln`, at line spacing, is body text (wider than `limit`) that starts
    where `ln` does: `ln` is that paragraph's last line, not a label of the figure below (stanli's "To
    achieve the best possible appearance of the labels, ... the position can be" / "shifted with an
    optional parameter.", 4 pt above a drawing)."""
    b = ln.bbox
    height = b[3] - b[1]
    return any(o is not ln and o.bbox[2] - o.bbox[0] > limit and abs(o.bbox[0] - b[0]) <= 2.0
               and 0.0 <= b[1] - o.bbox[3] <= 0.8 * height for o in lines)


def lines_inside(box: BBox, lines: list[Line]) -> list[Line]:
    """Lines whose centre lies inside `box`."""
    out = []
    for ln in lines:
        cx, cy = (ln.bbox[0] + ln.bbox[2]) / 2, (ln.bbox[1] + ln.bbox[3]) / 2
        if box[0] <= cx <= box[2] and box[1] <= cy <= box[3]:
            out.append(ln)
    return out


def render_crop(page: Any, box: BBox, dpi: int = CROP_DPI, max_side: int = CROP_MAX_SIDE) -> bytes:
    """PNG bytes of the page region `box` at ~`dpi`, at most `max_side` pixels on its long side."""
    import pymupdf

    w, h = box[2] - box[0], box[3] - box[1]
    zoom = min(dpi / 72.0, max_side / max(1.0, w, h))
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=pymupdf.Rect(box), alpha=False)
    return pix.tobytes("png")


def merge_close(boxes: list[BBox], gap: float) -> list[BBox]:
    """Union boxes that overlap or lie within `gap` of each other, until none do."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                if _distance(boxes[i], boxes[j]) <= gap:
                    a, b = boxes[i], boxes[j]
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def _clip(b: BBox, width: float, height: float) -> BBox | None:
    c = (max(0.0, b[0]), max(0.0, b[1]), min(width, b[2]), min(height, b[3]))
    if c[2] - c[0] <= 0 or c[3] - c[1] <= 0:
        return None
    return c


def _overlap_area(a: BBox, b: BBox) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _distance(a: BBox, b: BBox) -> float:
    """Gap between two boxes (0 when they overlap)."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return max(dx, dy)
