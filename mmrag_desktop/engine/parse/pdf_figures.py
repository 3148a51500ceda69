"""Figure regions of a PDF page: raster images (`get_image_info`) and vector drawings
(`cluster_drawings`), with the label text near them, rendered to a small PNG crop.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..elements import BBox, Line, box_inside, union_bbox
from .pdf_blocks import caption_kind

MIN_FIGURE_SIDE = 40.0  # pt: smaller images are icons, bullets, rules
REPEATED_PAGES = 4  # an image drawn on this many pages is a logo or a decoration, no figure
MERGE_GAP = 12.0  # pt: (a)/(b) sub-figures this close form one figure
MAX_TEXT_RATIO = 0.22  # word area / box area above this = table grid or framed text
LABEL_PAD = 14.0  # pt: axis labels and titles sit this close to the drawing
PIECE_GAP = 6.0  # pt: the parts of a small drawing (a symbol, its dimension lines) this close form one drawing
ROW_GAP = 60.0  # pt: a small drawing this close beside a figure, in its row, is part of it (a symbol's variants)
MAX_PIECES = 400  # small drawings on a page beyond this are not joined (a page of drawn glyphs)
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
        if _small(b) or min(b[2] - b[0], b[3] - b[1]) < 8:
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
    not inside an `exclude` region (tables), and not mostly text (grids, framed code).

    Small clusters within PIECE_GAP are one drawing first: `cluster_drawings` cuts a 26 pt symbol from the
    dimension lines 4-6 pt beside it (chemplants' units drawn with their measures, each piece under
    MIN_FIGURE_SIDE, and the labels "8 mm", "10 mm", "t", "o" were read as a sentence of the text). A small
    drawing in a figure's row, within ROW_GAP beside it, is part of that figure (the same unit drawn plain,
    measured and with its nodes, side by side)."""
    boxes = [b for r in clusters if (b := _clip(r, width, height)) is not None]
    small = [b for b in boxes if _small(b)]
    if 1 < len(small) <= MAX_PIECES:
        boxes = [b for b in boxes if not _small(b)] + merge_close(small, PIECE_GAP)
    out: list[BBox] = []
    row: list[BBox] = []  # small drawings that may join a figure beside them
    page_area = width * height
    for b in boxes:
        w, h = b[2] - b[0], b[3] - b[1]
        area = w * h
        if min(w, h) < 10 or area > 0.8 * page_area:
            continue
        if any(_overlap_area(b, e) > 0.5 * area or _frames(b, e) for e in exclude):
            continue
        if _text_ratio(b, words) > MAX_TEXT_RATIO:
            continue
        (row if _small(b) else out).append(b)
    return merge_close([_with_row(b, row, words) for b in out], 3.0)


def _small(b: BBox) -> bool:
    return b[2] - b[0] < MIN_FIGURE_SIDE and b[3] - b[1] < MIN_FIGURE_SIDE


def _text_ratio(b: BBox, words: list[tuple]) -> float:
    area = (b[2] - b[0]) * (b[3] - b[1])
    return sum(_overlap_area(b, (wd[0], wd[1], wd[2], wd[3])) for wd in words) / max(area, 1e-6)


def _with_row(box: BBox, row: list[BBox], words: list[tuple]) -> BBox:
    """`box` grown over the small drawings of `row` that sit beside it in its row (each within ROW_GAP of the
    box grown so far, at least half its height inside the box's band), while the box stays mostly drawing."""
    grown = True
    while grown:
        grown = False
        for t in row:
            if box_inside(t, box):
                continue
            band = min(box[3], t[3]) - max(box[1], t[1])
            gap = max(t[0] - box[2], box[0] - t[2])
            if band < 0.5 * (t[3] - t[1]) or gap > ROW_GAP:
                continue
            union = union_bbox([box, t])
            if union is not None and _text_ratio(union, words) <= MAX_TEXT_RATIO:
                box, grown = union, True
    return box


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
                grown = union_bbox([grown, b]) or grown
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
    """Union boxes that overlap or lie within `gap` of each other, until none do (rounds of joining the
    connected groups: the same boxes as joining pairs one at a time, in n^2 per round, not n^3)."""
    boxes = list(boxes)
    while True:
        n = len(boxes)
        parent = list(range(n))
        for i in range(n):
            for j in range(i + 1, n):
                if _distance(boxes[i], boxes[j]) <= gap:
                    parent[_root(parent, j)] = _root(parent, i)
        groups: dict[int, list[BBox]] = {}
        for i, b in enumerate(boxes):
            groups.setdefault(_root(parent, i), []).append(b)
        if len(groups) == n:
            return boxes
        boxes = [u for g in groups.values() if (u := union_bbox(g)) is not None]


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


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
