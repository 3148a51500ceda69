"""Tables: a cheap gate on the page's vector drawings, then PyMuPDF's `find_tables`
only on pages that pass it (its line finder first, its layout model where the rules do not make
full grids); cell text from the page's words assigned by word centre
(`Table.extract()` mangles TeX numbers and drops ligatures).

Borderless tables have no rules to gate on. A page whose "Table N: ..." caption has no table
next to it gets one more look with the layout model (`find_captioned_tables`): captions are rare,
so the ~0.3 s per page is paid only where the document itself says there is a table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from ..elements import BBox, Line, Table, TableCell
from .pdf_captions import CAPTION_DISTANCE
from .pdf_lines import normalize_text

TableMode = Literal["layout", "lines", "off"]
RULE_MIN_LENGTH = 5.0
RULE_MAX_THICKNESS = 2.0


def _rule(item: tuple) -> tuple[str, float, float, float] | None:
    """One drawing item as a rule: ("h", x0, x1, y) for a horizontal segment or thin rectangle,
    ("v", 0, 0, 0) for a vertical one, ("box", 0, 0, 0) for a rectangle or quad framing an area,
    None for anything else (curves, short marks)."""
    op = item[0]
    if op == "l":
        p, q = item[1], item[2]
        dx, dy = abs(p.x - q.x), abs(p.y - q.y)
        if dy < 1 and dx > RULE_MIN_LENGTH:
            return "h", min(p.x, q.x), max(p.x, q.x), p.y
        if dx < 1 and dy > RULE_MIN_LENGTH:
            return "v", 0.0, 0.0, 0.0
    elif op == "re":
        r = item[1]
        if r.height <= RULE_MAX_THICKNESS and r.width > RULE_MIN_LENGTH:
            return "h", r.x0, r.x1, (r.y0 + r.y1) / 2
        if r.width <= RULE_MAX_THICKNESS and r.height > RULE_MIN_LENGTH:
            return "v", 0.0, 0.0, 0.0
        if r.width > RULE_MIN_LENGTH and r.height > RULE_MIN_LENGTH:
            return "box", 0.0, 0.0, 0.0
    elif op == "qu":
        return "box", 0.0, 0.0, 0.0
    return None


def count_rules(drawings: list[dict[str, Any]]) -> tuple[int, int]:
    """(horizontal, vertical) rule segments among the drawings; a rectangle counts as both."""
    h = v = 0
    for path in drawings:
        for item in path.get("items", ()):
            rule = _rule(item)
            if rule is None:
                continue
            if rule[0] == "h":
                h += 1
            elif rule[0] == "v":
                v += 1
            else:
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
    drawings: list[dict[str, Any]] | None = None,
) -> list[Table]:
    """Tables on a page that passed `has_ruling`.

    mode "layout": the line finder first (~50 ms); when it finds full grids (`_full_grid`) and the
    page's `drawings` hold no further horizontal rules outside them, those are the tables (the
    line finder splits their rows exactly where the layout model merges two rows into one cell).
    Otherwise PyMuPDF's layout model fused with the line finder (`union=True`, ~0.2-0.5 s per
    page) finds rule-light LaTeX/Texinfo tables and tells diagrams from tables. "lines" only the
    line finder; "off" finds none. Tables of one cell, or without text, are dropped (they are
    framed boxes, not tables).
    """
    if mode == "off":
        return []
    rules = _horizontal_rules(drawings or [])
    if mode == "layout":
        found = _grids(page, words, drawings, rules) or page.find_tables(union=True).tables
    else:
        found = page.find_tables(use_layout=False).tables
    out: list[Table] = []
    for t in found:
        table = _build_table(t, words, lines, page_no, rules)
        if table is not None:
            out.append(table)
    return out


def _grids(page: Any, words: list[tuple], drawings: list[dict[str, Any]] | None,
           rules: list[tuple[float, float, float]]) -> list[Any]:
    """The line finder's tables when they are full grids that account for the page's horizontal `rules`
    (see `find_ruled_tables`), else []. Not tried on a page whose drawings are mostly not rules (a plot
    drawn with thousands of short segments: the line finder takes seconds there and finds none)."""
    if drawings is None:
        return []
    h, v = count_rules(drawings)
    if h + v < GRID_RULE_SHARE * sum(len(path.get("items", ())) for path in drawings):
        return []
    grids = [t for t in page.find_tables(use_layout=False).tables if _full_grid(t, words)]
    if not grids or _rules_outside(rules, [t.bbox for t in grids], page.rect.height):
        return []
    return grids


def _full_grid(t: Any, words: list[tuple]) -> bool:
    """A table the line finder can be trusted with: two rows and two columns or more, text in at
    least half of its cells (a memory map or a schematic drawn with lines has mostly empty
    "cells"), no column without text (spacing columns of a rule-light table), and no row whose
    cells all hold two lines or more (rows without rules between them, read as one)."""
    if t.row_count < 2 or t.col_count < 2:
        return False
    boxes = _cell_boxes(t)
    lines = [len({(w[5], w[6]) for w in ws}) for ws in _cell_words([b for _, _, b in boxes], words)]
    if sum(1 for n in lines if n) * 2 < len(boxes):
        return False
    filled_cols = {ci for (_, ci, _), n in zip(boxes, lines, strict=True) if n}
    if len(filled_cols) < t.col_count:
        return False
    by_row: dict[int, list[int]] = {}
    for (ri, _, _), n in zip(boxes, lines, strict=True):
        if n:
            by_row.setdefault(ri, []).append(n)
    return not any(len(ns) >= 2 and min(ns) >= 2 for ns in by_row.values())


def _cell_boxes(t: Any) -> list[tuple[int, int, BBox]]:
    """(row, column, box) of each cell of a found table, row-major (merged cells are None there)."""
    return [(ri, ci, tuple(float(v) for v in cell))  # type: ignore[misc]
            for ri, row in enumerate(t.rows) for ci, cell in enumerate(row.cells) if cell is not None]


def _cell_words(boxes: list[BBox], words: list[tuple]) -> list[list[tuple]]:
    """The words of each box, assigned by word centre (a word to the first box holding it)."""
    out: list[list[tuple]] = [[] for _ in boxes]
    for w in words:
        cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
        for k, b in enumerate(boxes):
            if b[0] <= cx <= b[2] and b[1] <= cy <= b[3]:
                out[k].append(w)
                break
    return out


GRID_RULE_SHARE = 0.25  # of a page's drawing items that must be rules for the line finder to be tried
GRID_PAD = 3.0  # pt around a grid that its own outer rules may stick out by
MARGIN_SHARE = 0.1  # rules this close to the top or bottom edge of the page rule off running headers and footers


def _rules_outside(rules: list[tuple[float, float, float]], boxes: list[tuple], page_height: float) -> bool:
    """True when three or more of the page's horizontal `rules` lie outside every box (as many as the
    top, middle and bottom rules of a rule-light table): another table, or a diagram the line
    finder did not take as a grid. Rules of running headers and footers do not count."""
    outside = 0
    for x0, x1, y in rules:
        if not MARGIN_SHARE * page_height < y < (1 - MARGIN_SHARE) * page_height:
            continue
        if not any(b[1] - GRID_PAD <= y <= b[3] + GRID_PAD and min(x1, b[2]) > max(x0, b[0]) for b in boxes):
            outside += 1
            if outside >= 3:
                return True
    return False


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
                          captions: list[Line], known: list[Table],
                          drawings: list[dict[str, Any]] | None = None) -> list[Table]:
    """Borderless tables next to `captions` (see module doc), found by PyMuPDF's layout model.

    Tables overlapping an already `known` table or containing a caption line are dropped.
    """
    found = page.find_tables()
    rules = _horizontal_rules(drawings or [])
    out: list[Table] = []
    for t in found.tables:
        box = tuple(float(v) for v in t.bbox)
        if not any(_near(c.bbox, box) for c in captions):
            continue
        if any(_centre_in(c.bbox, box) for c in captions) or any(_centre_in(box, k.bbox) for k in known):
            continue
        table = _build_table(t, words, lines, page_no, rules)
        if table is not None:
            out.append(table)
    return out


def _near(caption: BBox, box: BBox) -> bool:
    """The caption sits just above or below the box and overlaps it horizontally."""
    gap = max(caption[1] - box[3], box[1] - caption[3], 0.0)
    return gap <= CAPTION_DISTANCE and min(caption[2], box[2]) > max(caption[0], box[0])


_BROKEN = re.compile(r"[A-Za-z0-9/]-$")  # a word broken at a cell's line end ("XS-" / "3525/8S-" / "3")


def _cell_text(words: list[tuple]) -> str:
    """The text of one cell's words (PyMuPDF word tuples in reading order). A narrow column breaks
    names and words at its edge: "XS-" / "3525/8S-" / "3" is "XS-3525/8S-3" (a name: the next line opens
    with a digit or a capital), "Engi-" / "neering" is "Engineering", a link's "uploads/-" / "msd542.pdf"
    is "uploads/msd542.pdf", and in a link the other hyphens are its own ("hobbycnc-" / "pro-")."""
    out = ""
    for i, w in enumerate(words):
        if i:
            prev = words[i - 1]
            if (w[5], w[6]) != (prev[5], prev[6]) and _BROKEN.search(out):
                link = "/" in out or "www." in out
                if out.endswith("/-") or (w[4][:1].islower() and not link):
                    out = out[:-1]
            else:
                out += " "
        out += w[4]
    return out


def _build_table(t: Any, words: list[tuple], lines: list[Line], page_no: int,
                 rules: list[tuple[float, float, float]] | None = None) -> Table | None:
    rows = t.rows
    n_rows = len(rows)
    n_cols = max((len(r.cells) for r in rows), default=0)
    if n_rows * n_cols < 2:
        return None
    boxes = _cell_boxes(t)
    texts = _cell_words([b for _, _, b in boxes], words)
    cells = _cells(boxes, texts)
    if sum(1 for c in cells if c.text) < 2:
        return None
    header_rows = _guess_header_rows(cells, lines, n_rows)
    mended = False
    unstacked = _unstacked_rows(boxes, texts, n_rows, n_cols, header_rows)
    if unstacked is not None:
        (boxes, texts), mended = unstacked, True
        n_rows = max(ri for ri, _, _ in boxes) + 1
    realigned = _rows_by_their_keys(boxes, texts, n_rows, n_cols, header_rows, rules or [])
    if realigned is not None:
        (boxes, texts), mended = realigned, True
        n_rows = max(ri for ri, _, _ in boxes) + 1
    wrapped = _wrapped_rows(boxes, texts, n_rows, n_cols, header_rows, rules or [])
    if wrapped is not None:
        (boxes, texts), mended = wrapped, True
        n_rows = max(ri for ri, _, _ in boxes) + 1
        n_cols = max(ci for _, ci, _ in boxes) + 1
    if mended:
        cells = _cells(boxes, texts)
    bbox: BBox = tuple(float(v) for v in t.bbox)  # type: ignore[assignment]
    return Table(bbox=bbox, cells=cells, n_rows=n_rows, n_cols=n_cols, header_rows=header_rows)


def _cells(boxes: list[tuple[int, int, BBox]], texts: list[list[tuple]]) -> list[TableCell]:
    cells: list[TableCell] = []
    for (ri, ci, b), ws in zip(boxes, texts, strict=True):
        cells.append(TableCell(row=ri, col=ci, text=normalize_text(_cell_text(_reading_order(ws))).strip(), bbox=b))
    return cells


def _reading_order(words: list[tuple]) -> list[tuple]:
    """A cell's words in PyMuPDF's reading order (block, line, word)."""
    return sorted(words, key=lambda w: (w[5], w[6], w[7]))


def _horizontal_rules(drawings: list[dict[str, Any]]) -> list[tuple[float, float, float]]:
    """(x0, x1, y) of the page's horizontal rules."""
    out = []
    for path in drawings:
        for item in path.get("items", ()):
            rule = _rule(item)
            if rule is not None and rule[0] == "h":
                out.append(rule[1:])
    return out


RULE_SNAP = 3.0  # pt: a row boundary this close to a horizontal rule is the rule's
WRAPPED_WORDS = 4  # words on a line of prose a cell's text wrapped after (a value is a word or three)


def _rows_by_their_keys(boxes: list[tuple[int, int, BBox]], texts: list[list[tuple]], n_rows: int, n_cols: int,
                        header_rows: int, rules: list[tuple[float, float, float]],
                        ) -> tuple[list[tuple[int, int, BBox]], list[list[tuple]]] | None:
    """Rows of a table without rules between them, mended where the layout model cut them off
    their keys (a LaTeX settings table: "key | description" with descriptions of several lines;
    tikz-timing's Table 4.7 came out as "half width char | width, as long this is not overwritten
    ..." -- the last line of the row above -- and "" | "to count down. Default: 1" as rows of their
    own). Across a boundary no rule draws, the lines of a cell that continue the text of the cell
    above (its last line was full: the next line's first word would not have fitted on it) belong
    to that cell: those above a row's first-column text move up to the row above, and a row with
    an empty first column made only of such lines joins the row above. None when nothing moves
    (every ruled grid, and every row whose cells start where its key does)."""
    grid: dict[tuple[int, int], tuple[list[float], list[tuple]]] = {}
    for (ri, ci, b), ws in zip(boxes, texts, strict=True):
        grid[(ri, ci)] = (list(b), list(ws))
    if n_cols < 2 or len(grid) != n_rows * n_cols or n_rows - header_rows < 2:
        return None
    ruled = _ruled_across(grid, rules)
    body = range(header_rows, n_rows)
    right = {c: max((w[2] for r in body for w in grid[(r, c)][1]), default=0.0) for c in range(n_cols)}
    rows = [[grid[(r, c)] for c in range(n_cols)] for r in range(n_rows)]
    changed = False
    out_rows = rows[:header_rows + 1]
    for r in range(header_rows + 1, n_rows):
        row, above = rows[r], out_rows[-1]
        if ruled(row[0][0][1]):
            out_rows.append(row)
            continue
        key = row[0][1]
        top = min((w[1] for w in key), default=None)
        ups = {c: [w for w in row[c][1] if top is None or (w[1] + w[3]) / 2 < top] for c in range(1, n_cols)}
        going = {c: up for c, up in ups.items() if up and _continues(above[c][1], up, right[c])}
        if top is None and len(going) < sum(1 for up in ups.values() if up):
            going = {}  # a row without a key joins the row above whole, or not at all
        for c, up in going.items():
            above[c][1].extend(up)
            row[c][1][:] = [w for w in row[c][1] if w not in up]
        moved = bool(going)
        if not moved:
            out_rows.append(row)
            continue
        changed = True
        if top is None and not any(cell[1] for cell in row):
            for c in range(n_cols):
                above[c][0][3] = row[c][0][3]
            continue
        cut = top - 1.0 if top is not None else row[0][0][1]
        for c in range(n_cols):
            above[c][0][3] = cut
            row[c][0][1] = cut
        out_rows.append(row)
    if not changed:
        return None
    new_boxes = [(r, c, tuple(cell[0])) for r, row in enumerate(out_rows) for c, cell in enumerate(row)]
    new_texts = [cell[1] for row in out_rows for cell in row]
    return new_boxes, new_texts  # type: ignore[return-value]


def _ruled_across(grid: dict[tuple[int, int], tuple[list[float], list[tuple]]], rules: list[tuple[float, float, float]]
                  ) -> Callable[[float], bool]:
    """A test of whether a horizontal rule of `rules` crosses most of the table's width at a height."""
    x0, x1 = min(b[0] for b, _ in grid.values()), max(b[2] for b, _ in grid.values())

    def ruled(y: float) -> bool:
        return any(abs(ry - y) <= RULE_SNAP and min(rx1, x1) - max(rx0, x0) > 0.5 * (x1 - x0)
                   for rx0, rx1, ry in rules)

    return ruled


_BROKEN_WORD = re.compile(r"[A-Za-z]{2}-$")  # "re-" of "re-" / "striction" in a narrow column


def _open_bracket(text: str) -> bool:
    return sum(map(text.count, "([{")) > sum(map(text.count, ")]}"))


def _wrapped_rows(boxes: list[tuple[int, int, BBox]], texts: list[list[tuple]], n_rows: int, n_cols: int,
                  header_rows: int, rules: list[tuple[float, float, float]],
                  ) -> tuple[list[tuple[int, int, BBox]], list[list[tuple]]] | None:
    """Rows of a table without rules between them where the layout model read each line of cells of
    several lines as a row of its own (Grace's Table 21, LaTeX paragraph columns between a header rule and
    a closing rule: "RUNAVG (set, | running average of set using" and "npoints) | npoints number of
    points"; "RESTRICT (set, | filter set according to logical re-", "restriction) | striction. The original
    set will be" and " | overwritten"). A row goes on into the next while its first cell leaves a bracket
    open or one of its cells ends with a word broken at a hyphen; once a table has such rows, a row whose
    first cell is empty or opens with a bracket ("INTERPOLATE" / "(set, mesh, method,") goes on the row
    above too. None when no row is joined (every ruled grid, and every table without such a row)."""
    if n_cols < 2 or n_rows - header_rows < 2:
        return None
    rows: list[dict[int, tuple[list[float], list[tuple]]]] = [{} for _ in range(n_rows)]
    for (ri, ci, b), ws in zip(boxes, texts, strict=True):
        rows[ri][ci] = (list(b), list(ws))
    ruled = _ruled_across({(r, c): cell for r, row in enumerate(rows) for c, cell in row.items()}, rules)

    def text(cell: tuple[list[float], list[tuple]] | None) -> str:
        return _cell_text(_reading_order(cell[1])) if cell else ""

    out_rows = rows[:header_rows + 1]
    wrapped = False
    for line_above, row in zip(rows[header_rows:], rows[header_rows + 1:], strict=False):
        above = out_rows[-1]
        key = text(row.get(0))
        goes_on = (_open_bracket(text(above.get(0)))
                   or any(_BROKEN_WORD.search(text(cell)) for cell in line_above.values())
                   or (wrapped and key[:1] in ("", "(")))
        top = min((cell[0][1] for cell in row.values()), default=0.0)
        if not goes_on or not row or ruled(top):
            out_rows.append(row)
            continue
        wrapped = True
        bottom = max(cell[0][3] for cell in row.values())
        for c, (b, ws) in row.items():
            if c in above:
                above[c][1].extend(ws)
            else:
                above[c] = (list(b), list(ws))
        for c in above:
            above[c][0][3] = max(above[c][0][3], bottom)
    if not wrapped:
        return None
    out_rows = _columns_under_names(out_rows, header_rows, n_cols)
    new_boxes = [(r, c, tuple(row[c][0])) for r, row in enumerate(out_rows) for c in sorted(row)]
    new_texts = [row[c][1] for row in out_rows for c in sorted(row)]
    return new_boxes, new_texts  # type: ignore[return-value]


def _columns_under_names(rows: list[dict[int, tuple[list[float], list[tuple]]]], header_rows: int, n_cols: int
                         ) -> list[dict[int, tuple[list[float], list[tuple]]]]:
    """`rows` with each column that has no name in the header rows joined to the named column on its left:
    the layout model splits a narrow column of justified text at its wide gaps (Grace's "Example" column
    came out as three, "RUNMED | (S0," over " 100)"). Unchanged without header rows."""
    named = [c for c in range(n_cols) if c == 0 or any(rows[r].get(c) and rows[r][c][1] for r in range(header_rows))]
    if not header_rows or len(named) == n_cols:
        return rows
    owner = {c: max(n for n in named if n <= c) for c in range(n_cols)}
    out = []
    for row in rows:
        joined: dict[int, tuple[list[float], list[tuple]]] = {}
        for c in sorted(row):
            b, ws = row[c]
            n = named.index(owner[c])
            if n in joined:
                jb, jws = joined[n]
                joined[n] = ([min(jb[0], b[0]), min(jb[1], b[1]), max(jb[2], b[2]), max(jb[3], b[3])], jws + ws)
            else:
                joined[n] = (list(b), list(ws))
        out.append(joined)
    return out


def _lines_of(words: list[tuple]) -> list[list[tuple]]:
    """A cell's words grouped into its text lines, top to bottom (centres within 2 pt)."""
    out: list[list[tuple]] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        cy = (w[1] + w[3]) / 2
        if out and abs((out[-1][0][1] + out[-1][0][3]) / 2 - cy) < 2.0:
            out[-1].append(w)
        else:
            out.append([w])
    return out


def _unstacked_rows(boxes: list[tuple[int, int, BBox]], texts: list[list[tuple]], n_rows: int, n_cols: int,
                    header_rows: int) -> tuple[list[tuple[int, int, BBox]], list[list[tuple]]] | None:
    """Rows the layout model read as one where no rule parts them: every cell of the row holds the
    same number of lines, line beside line, and no line goes on from the one above it (lower case after
    a full line of prose). MCU 8051 IDE's Table 4.1 was one row, "Binary Octal Decimal Hexadecimal |
    0 .. 1 0 .. 7 0 .. 9 0 .. 9, A .. F | B O or Q D or none H"; now four, "Octal | 0 .. 7 | O or Q".
    None when no row is split."""
    grid = {(ri, ci): (b, ws) for (ri, ci, b), ws in zip(boxes, texts, strict=True)}
    if n_cols < 2 or len(grid) != n_rows * n_cols:
        return None
    out_boxes: list[tuple[int, int, BBox]] = []
    out_texts: list[list[tuple]] = []
    changed = False
    r_out = 0
    for r in range(n_rows):
        cells = [grid[(r, c)] for c in range(n_cols)]
        split = _stacked(cells) if r >= header_rows else None
        if split is None:
            for c, (b, ws) in enumerate(cells):
                out_boxes.append((r_out, c, b))
                out_texts.append(ws)
            r_out += 1
            continue
        changed = True
        bands, per_cell = split
        for i, (top, bottom) in enumerate(bands):
            for c, (b, _) in enumerate(cells):
                out_boxes.append((r_out, c, (b[0], top, b[2], bottom)))
                out_texts.append(per_cell[c][i])
            r_out += 1
    return (out_boxes, out_texts) if changed else None


def _stacked(cells: list[tuple[BBox, list[tuple]]]
             ) -> tuple[list[tuple[float, float]], list[list[list[tuple]]]] | None:
    """The (top, bottom) bands of the lines of a row whose cells stand line beside line (see
    `_unstacked_rows`) and each cell's lines (`_lines_of`), or None."""
    per_cell = [_lines_of(ws) for _, ws in cells]
    k = len(per_cell[0])
    if k < 2 or any(len(ls) != k for ls in per_cell):
        return None
    centres = [[sum((w[1] + w[3]) / 2 for w in ln) / len(ln) for ln in ls] for ls in per_cell]
    if any(abs(cs[i] - centres[0][i]) > 2.0 for cs in centres for i in range(k)):
        return None
    for ls in per_cell:
        for above, below in zip(ls, ls[1:], strict=False):
            if len(above) >= WRAPPED_WORDS and min(below, key=lambda w: w[0])[4][:1].islower():
                return None  # a line of prose wrapped onto the next
    top, bottom = cells[0][0][1], cells[0][0][3]
    cuts = [(max(w[3] for ls in per_cell for w in ls[i]) + min(w[1] for ls in per_cell for w in ls[i + 1])) / 2
            for i in range(k - 1)]
    edges = [top, *cuts, bottom]
    return list(zip(edges, edges[1:], strict=False)), per_cell


def _continues(above: list[tuple], below: list[tuple], right: float) -> bool:
    """The words `below` continue the text `above` in one column: the last line above was a full line
    of prose (WRAPPED_WORDS words or more, and the first word below would not have fitted at its end)
    and the line below goes on in lower case (not yosys' "[N/A]" under "[N/A]", nor gnuplot's
    "{/Times*2 abc}" under "{/Times abc}", nor a pin "pa3" under "PA2": cells of their own whose key
    spans both rows)."""
    if not above or not below:
        return False
    last = _lines_of(above)[-1]
    first = min(_lines_of(below)[0], key=lambda w: w[0])
    if len(last) < WRAPPED_WORDS or not first[4].lstrip("([{'\"\u2018\u201c")[:1].islower():
        return False
    return max(w[2] for w in last) + (first[2] - first[0]) >= right - 1.0


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
