"""Tables: a cheap gate on the page's vector drawings, then PyMuPDF's `find_tables`
only on pages that pass it; cell text from the page's words assigned by word centre
(`Table.extract()` mangles TeX numbers and drops ligatures).

Borderless tables have no rules to gate on. A page whose "Table N: ..." caption has no table
next to it gets one more look with the layout model (`find_captioned_tables`): captions are rare,
so the ~0.3 s per page is paid only where the document itself says there is a table.
"""

from __future__ import annotations

from typing import Any, Literal

from ..elements import BBox, Line, Table, TableCell
from .pdf_captions import CAPTION_DISTANCE
from .pdf_lines import normalize_text

TableMode = Literal["layout", "lines", "off"]
RULE_MIN_LENGTH = 5.0
RULE_MAX_THICKNESS = 2.0


def count_rules(drawings: list[dict[str, Any]]) -> tuple[int, int]:
    """(horizontal, vertical) rule segments among the drawings; a rectangle counts as both."""
    h = v = 0
    for path in drawings:
        for item in path.get("items", ()):
            op = item[0]
            if op == "l":
                p, q = item[1], item[2]
                dx, dy = abs(p.x - q.x), abs(p.y - q.y)
                if dy < 1 and dx > RULE_MIN_LENGTH:
                    h += 1
                elif dx < 1 and dy > RULE_MIN_LENGTH:
                    v += 1
            elif op == "re":
                r = item[1]
                if r.height <= RULE_MAX_THICKNESS and r.width > RULE_MIN_LENGTH:
                    h += 1
                elif r.width <= RULE_MAX_THICKNESS and r.height > RULE_MIN_LENGTH:
                    v += 1
                elif r.width > RULE_MIN_LENGTH and r.height > RULE_MIN_LENGTH:
                    h += 2
                    v += 2
            elif op == "qu":
                h += 2
                v += 2
    return h, v


def has_ruling(drawings: list[dict[str, Any]]) -> bool:
    """The gate: at least 3 horizontal and 2 vertical rule segments on the page."""
    h, v = count_rules(drawings)
    return h >= 3 and v >= 2


def find_ruled_tables(
    page: Any,
    words: list[tuple],
    lines: list[Line],
    page_no: int,
    mode: TableMode = "layout",
) -> list[Table]:
    """Tables on a page that passed `has_ruling`.

    mode "layout" uses PyMuPDF's layout model fused with the line finder (`union=True`,
    ~0.3-1 s per page, finds rule-light LaTeX/Texinfo tables); "lines" only the line
    finder (~50 ms, needs full grids); "off" finds none. Tables of one cell, or without
    text, are dropped (they are framed boxes, not tables).
    """
    if mode == "off":
        return []
    if mode == "layout":
        found = page.find_tables(union=True)
    else:
        found = page.find_tables(use_layout=False)
    out: list[Table] = []
    for t in found.tables:
        table = _build_table(t, words, lines, page_no)
        if table is not None:
            out.append(table)
    return out


def uncaptioned_table_captions(lines: list[Line], tables: list[Table]) -> list[Line]:
    """Lines that start a strong "Table N: ..." caption with no found table within
    CAPTION_DISTANCE (the distance captions are linked over, pdf_captions.py)."""
    from .pdf_blocks import CAPTION_STRONG, caption_kind

    out = []
    for ln in lines:
        if caption_kind(ln.text) != "table" or not CAPTION_STRONG.match(ln.text):
            continue
        if not any(_near(ln.bbox, t.bbox) for t in tables):
            out.append(ln)
    return out


def find_captioned_tables(page: Any, words: list[tuple], lines: list[Line], page_no: int,
                          captions: list[Line], known: list[Table]) -> list[Table]:
    """Borderless tables next to `captions` (see module doc), found by PyMuPDF's layout model.

    Tables overlapping an already `known` table or containing a caption line are dropped.
    """
    found = page.find_tables()
    out: list[Table] = []
    for t in found.tables:
        box = tuple(float(v) for v in t.bbox)
        if not any(_near(c.bbox, box) for c in captions):
            continue
        if any(_centre_in(c.bbox, box) for c in captions) or any(_centre_in(box, k.bbox) for k in known):
            continue
        table = _build_table(t, words, lines, page_no)
        if table is not None:
            out.append(table)
    return out


def _near(caption: BBox, box: BBox) -> bool:
    """The caption sits just above or below the box and overlaps it horizontally."""
    gap = max(caption[1] - box[3], box[1] - caption[3], 0.0)
    return gap <= CAPTION_DISTANCE and min(caption[2], box[2]) > max(caption[0], box[0])


def _build_table(t: Any, words: list[tuple], lines: list[Line], page_no: int) -> Table | None:
    rows = t.rows
    n_rows = len(rows)
    n_cols = max((len(r.cells) for r in rows), default=0)
    if n_rows * n_cols < 2:
        return None
    boxes: list[tuple[int, int, BBox]] = []
    for ri, row in enumerate(rows):
        for ci, cell in enumerate(row.cells):
            if cell is not None:
                boxes.append((ri, ci, tuple(float(v) for v in cell)))  # type: ignore[arg-type]
    texts: dict[int, list[tuple]] = {k: [] for k in range(len(boxes))}
    for w in words:
        cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
        for k, (_, _, b) in enumerate(boxes):
            if b[0] <= cx <= b[2] and b[1] <= cy <= b[3]:
                texts[k].append(w)
                break
    cells: list[TableCell] = []
    for k, (ri, ci, b) in enumerate(boxes):
        ws = sorted(texts[k], key=lambda w: (w[5], w[6], w[7]))
        text = normalize_text(" ".join(w[4] for w in ws)).strip()
        cells.append(TableCell(row=ri, col=ci, text=text, bbox=b))
    if sum(1 for c in cells if c.text) < 2:
        return None
    bbox: BBox = tuple(float(v) for v in t.bbox)  # type: ignore[assignment]
    return Table(
        bbox=bbox,
        cells=cells,
        n_rows=n_rows,
        n_cols=n_cols,
        header_rows=_guess_header_rows(cells, lines, n_rows),
    )


def _guess_header_rows(cells: list[TableCell], lines: list[Line], n_rows: int) -> int:
    """Leading rows set in bold (up to 3); otherwise 1 when the first row is non-numeric text."""
    if n_rows < 2:
        return 0
    bold_rows = 0
    for r in range(min(3, n_rows - 1)):
        row_cells = [c for c in cells if c.row == r and c.text]
        inside = [ln for ln in lines for c in row_cells if _centre_in(ln.bbox, c.bbox)]
        if inside and all(ln.bold for ln in inside):
            bold_rows += 1
        else:
            break
    if bold_rows:
        return bold_rows
    first = [c.text for c in cells if c.row == 0 and c.text]
    numeric = sum(1 for t in first if t.replace(".", "").replace(",", "").replace("-", "").isdigit())
    return 1 if first and numeric < len(first) / 2 else 0


def table_lines(table: Table, page_no: int, lines: list[Line]) -> list[Line]:
    """One `Line` per non-empty cell (cell box, cell text), row-major; size from the page lines."""
    out: list[Line] = []
    for c in sorted(table.cells, key=lambda c: (c.row, c.col)):
        if not c.text:
            continue
        inside = [ln for ln in lines if _centre_in(ln.bbox, c.bbox)]
        size = max((ln.size for ln in inside), default=0.0)
        bold = bool(inside) and all(ln.bold for ln in inside)
        mono = bool(inside) and all(ln.mono for ln in inside)
        out.append(Line(text=c.text, page=page_no, bbox=c.bbox, size=size, bold=bold, mono=mono))
    return out


def _centre_in(inner: BBox, outer: BBox) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]
