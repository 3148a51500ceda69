"""Reading order on a page: find columns from the x-positions of lines, then read each
column top to bottom.

A gutter is a vertical strip in the middle of the content that (almost) no line crosses.
Items that cross it (titles, full-width figures) split the page into horizontal sections;
inside a section the left column is read before the right one. Columns are searched for
recursively, so three-column pages work too. Columns of short lines that stand row by row
beside each other are a table without rules, read row by row (`_table_rows`), and so are a
definition list's terms beside or above their descriptions (`_definition_list`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from ..elements import BBox

MIN_GUTTER = 6.0  # pt: narrower gaps are word spacing, not a gutter
MIN_COLUMN_ITEMS = 3
# columns of a borderless table (AVRDUDE's part list, "m328p" beside "ATmega328P"; its STK600 cards):
# nearly every line has a partner on the same row across the gutter, and few lines fill their column
# as a text column's lines do; a back-of-book index looks the same but its entries end in page numbers
ROW_PARTNERS = 0.9
FULL_LINE = 0.8  # a line at least this share of its column's width fills it
FULL_LINES_MAX = 0.5
_INDEX_ENTRY = re.compile(r",\s*[0-9ivxlc]+(?:\s*[-\u2013]\s*[0-9ivxlc]+)?\s*$")
INDEX_ENTRIES_MAX = 0.2
# dot leaders (". . . . 29", "......"): an index's, a table of contents' or a change history's entries
# run to their page numbers so; when both sides of a gutter hold LEADERS_MIN lines with them, the sides
# are two columns of such a list, not a table without rules (ltxdoc's change history: "v1.0" beside
# "v2.0" and every entry beside the one across the gutter, once read row by row across both)
_LEADER = re.compile(r"(?:\.\s?){4,}")
LEADERS_MIN = 3
# a row's cells stand on one line: a line and its partner across the gutter share their tops, bottoms
# or middles (within ROW_OFFSET pt) for ROW_ALIGNED of the lines: 85-100% of the lines of the tables
# without rules in the bench and asked manuals (the lowest, GLPK's sensitivity report); 25-76% of the
# columns of the PARI/GP reference card, each set on its own
ROW_OFFSET = 1.0
ROW_ALIGNED = 0.8
# a heading of a table's sections ("Input/Output", "Metacommands & Defaults", "PORT_TABLE:"): a few
# words, a capital first, no sentence end, at the rows' left edge (within EDGE pt) or left of it; or a
# numbered heading there
_HEADING = re.compile(r"^[A-Z][^.!?;]{0,60}$")
EDGE = 2.0
_NUMBERED_HEADING = re.compile(r"^\d+(?:\.\d+)*\.?\s+[A-Z]")  # "2.2.1 Unibus and Qbus DMA Devices"
# a cell's wrapped line: below a row's line (or another wrapped line) at its left edge, less than
# WRAP_GAP of its own height apart (GNU MathProg's built-in functions: "atan(y, x)" beside three lines)
WRAP_GAP = 0.5
# a definition list (Octave's property values: "fill" beside the paragraph that says what it does):
# its terms are at most TERMS_SHARE of its descriptions' lines, stand apart (at most APART_SHARE of
# them with the next term within a line's height below) and nearly all (ROW_PARTNERS) beside a line
TERMS_SHARE = 0.5
APART_SHARE = 0.5


def reading_segments(boxes: list[BBox], texts: list[str] | None = None) -> list[list[int]]:
    """Group item indices into column segments in reading order.

    Returns a list of segments; each segment is a list of indices into `boxes` forming
    one column run, ordered top to bottom (items on the same row left to right).
    Consecutive items of one segment may be joined into paragraphs; items of different
    segments never should. `texts` (the items' text, "" for a region) tell a back-of-book
    index's columns from a table's.
    """
    out: list[list[int]] = []
    _order(list(range(len(boxes))), boxes, out, 0, texts)
    return [seg for seg in out if seg]


def _order(idx: list[int], boxes: list[BBox], out: list[list[int]], depth: int, texts: list[str] | None) -> None:
    if len(idx) < 2 * MIN_COLUMN_ITEMS or depth > 3:
        out.append(_rows_top_down(idx, boxes))
        return
    g = _find_gutter(idx, boxes, texts)
    if g is None:
        out.append(_rows_top_down(idx, boxes))
        return
    left = [i for i in idx if boxes[i][2] <= g]
    right = [i for i in idx if boxes[i][0] >= g]
    spanning = sorted((i for i in idx if boxes[i][0] < g < boxes[i][2]), key=lambda i: boxes[i][1])
    # Sections: column content between consecutive spanning items.
    cuts = [boxes[i][1] for i in spanning]
    sections: list[tuple[list[int], list[int]]] = [([], []) for _ in range(len(spanning) + 1)]
    for side, items in ((0, left), (1, right)):
        for i in items:
            yc = _middle(boxes[i])
            k = sum(1 for c in cuts if c < yc)
            sections[k][side].append(i)
    for k, (lft, rgt) in enumerate(sections):
        for col in (lft, rgt):
            if col:
                _order(col, boxes, out, depth + 1, texts)
        if k < len(spanning):
            if k and not (lft or rgt) and out and out[-1][-1] == spanning[k - 1]:
                # spanning lines with no column content between them are one run: a caption set across the page's
                # width over two lines ("TABLE I. Average kinetic, ... fix nve/asphere" / "& fix langevin and the
                # DOT-C integrator ...", LAMMPS' CG-DNA guide) was two paragraphs
                out[-1].append(spanning[k])
            else:
                out.append([spanning[k]])


def _find_gutter(idx: list[int], boxes: list[BBox], texts: list[str] | None = None) -> float | None:
    """x of a gutter that separates two real columns, or None."""
    x0 = min(boxes[i][0] for i in idx)
    x1 = max(boxes[i][2] for i in idx)
    span = x1 - x0
    if span < 100:
        return None
    n = int(span) + 2
    cover = [0] * (n + 1)
    for i in idx:
        a = int(boxes[i][0] - x0)
        b = int(boxes[i][2] - x0) + 1
        cover[max(0, a)] += 1
        cover[min(n, b)] -= 1
    run = 0
    cov = []
    for v in cover[:n]:
        run += v
        cov.append(run)
    lo, hi = int(0.2 * span), int(0.8 * span)
    allowed = max(0, len(idx) // 5)
    best: tuple[float, float, int] | None = None  # (width, centre, coverage)
    start = None
    for x in range(lo, hi + 1):
        low = cov[x] <= allowed
        if low and start is None:
            start = x
        if (not low or x == hi) and start is not None:
            end = x if not low else x + 1
            width = end - start
            if width >= MIN_GUTTER:
                c = min(cov[start:end])
                cand = (width - 4.0 * c, x0 + _emptiest(cov, start, end, c), c)
                if best is None or cand[0] > best[0]:
                    best = cand
            start = None
    if best is None:
        return None
    g = best[1]
    left = [i for i in idx if boxes[i][2] <= g]
    right = [i for i in idx if boxes[i][0] >= g]
    if len(left) < MIN_COLUMN_ITEMS or len(right) < MIN_COLUMN_ITEMS:
        return None
    if _one_row(left, boxes) or _one_row(right, boxes):
        # a column has more than one row: the words of a justified line that a PDF sets one by one ("to", "do",
        # "is", "append", "the" at the end of a line of Prawn's manual, code and its output below on the left)
        # were read after everything left of them
        return None
    lw = max(boxes[i][2] for i in left) - min(boxes[i][0] for i in left)
    rw = max(boxes[i][2] for i in right) - min(boxes[i][0] for i in right)
    if lw < 0.25 * span or rw < 0.25 * span:
        return None  # a narrow key column beside values: a list, not two text columns
    # The columns must stand side by side, not one above the other.
    ly0, ly1 = min(boxes[i][1] for i in left), max(boxes[i][3] for i in left)
    ry0, ry1 = min(boxes[i][1] for i in right), max(boxes[i][3] for i in right)
    overlap = min(ly1, ry1) - max(ly0, ry0)
    if overlap < 0.3 * min(ly1 - ly0, ry1 - ry0):
        return None
    across = [i for i in idx if boxes[i][0] < g < boxes[i][2]]
    if _table_rows(left, right, boxes, texts, across) or _definition_list(left, right, boxes, across):
        return None
    return g


def _one_row(items: list[int], boxes: list[BBox]) -> bool:
    """True when every item of `items` shares one visual row with the first."""
    return all(same_row(boxes[items[0]], boxes[i]) for i in items[1:])


def _emptiest(cov: list[int], start: int, end: int, c: int) -> float:
    """The middle of the widest stretch of `cov[start:end]` that `c` lines (its fewest) cross: where a
    gutter of a run that holds more than one stands. A run of few lines can span a whole column of
    a reference card, whose descriptions stand apart from their commands (the PARI/GP card: the
    run from the first column's end to the third's start, with the second column's descriptions
    and commands inside it; its middle fell between those and cut every column into bands)."""
    best, best_w, s = (start + end) / 2, -1, None
    for x in range(start, end + 1):
        if x < end and cov[x] == c:
            if s is None:
                s = x
        elif s is not None:
            if x - s > best_w:
                best, best_w = (s + x) / 2, x - s
            s = None
    return best


def _table_rows(left: list[int], right: list[int], boxes: list[BBox], texts: list[str] | None,
                across: Sequence[int] = ()) -> bool:
    """True when the two sides of a gutter are columns of a table without rules, not of text:
    nearly every line has a partner on its row across the gutter (ROW_PARTNERS), or over it
    (`across`, the lines that cross the gutter: a cell too long for its column, "x\\/y, x\\y, x%y,
    divrem(x, y)" beside "Euclidean quotient, remainder"); the lines above the first row, a heading
    of the table's sections (plain or numbered) at or left of the rows' left edge, a paragraph's last
    line below a line that crosses the gutter and a cell's wrapped lines are none of its rows (each
    alone on its row). A line and the nearest of its partners stand on one line (ROW_ALIGNED: the
    columns of a reference card, each set on its own, drift by up to half a line as their headings
    come). Few lines fill their side (FULL_LINES_MAX), and the lines are no index entries ("Loop
    reversing, 33, 110")."""
    offsets: list[tuple[float, float, float]] = []  # a line and its partner: their tops, bottoms, middles
    crossing = [boxes[j] for j in across]
    for side, other in ((left, right), (right, left)):
        partners_of = {i: [j for j in (*other, *across) if same_row(boxes[i], boxes[j])] for i in side}
        edge = min((boxes[i][0] for i in side if partners_of[i]), default=0.0)  # the rows' left edge
        lines = others = 0  # lines with a partner; a title, headings and a cell's wrapped lines
        above: tuple[BBox, bool] | None = None  # the line above and whether it was a row's or a cell's
        for i in sorted(side, key=lambda i: boxes[i][1]):
            partners = partners_of[i]
            box = boxes[i]
            if partners:
                lines += 1
                # the row's next cell: the partner nearest across the gutter
                j = min(partners, key=lambda j: boxes[j][0] - box[2] if side is left else box[0] - boxes[j][2])
                offsets.append((box[1] - boxes[j][1], box[3] - boxes[j][3], _middle(box) - _middle(boxes[j])))
                above = (box, True)
                continue
            # the lines above the first row (the title of a section: "12.2.2" / "Summer" above ngspice's
            # "NAME_TABLE:" and its rows) and a cell's wrapped line are no rows
            wrapped = lines == 0 or (above is not None and above[1] and abs(box[0] - above[0][0]) <= EDGE
                                     and box[1] - above[0][3] <= WRAP_GAP * (box[3] - box[1]))
            heading = (texts is not None and i < len(texts) and box[0] - edge <= EDGE
                       and bool(_HEADING.match(texts[i]) or _NUMBERED_HEADING.match(texts[i])))
            # and a paragraph's last line below a line that crosses the gutter ("... peripherals with only
            # 18b addressing capability" / "memory.", simh's manual above its device table)
            heading = heading or _last_line(box, crossing)
            others += wrapped or heading
            above = (box, lines > 0 and wrapped)
        if lines < ROW_PARTNERS * (len(side) - others):
            return False
        x0, x1 = min(boxes[i][0] for i in side), max(boxes[i][2] for i in side)
        full = sum(1 for i in side if boxes[i][2] - boxes[i][0] >= FULL_LINE * (x1 - x0))
        if full > FULL_LINES_MAX * len(side):
            return False
    # a row's cells share their tops, their bottoms or their middles (a cell with a subscript or a
    # tall sign is a line higher or deeper than its neighbours)
    if not offsets or sum(1 for o in offsets if min(map(abs, o)) <= ROW_OFFSET) < ROW_ALIGNED * len(offsets):
        return False
    if texts is not None:
        lines = [texts[i] for i in left + right if i < len(texts)]
        if sum(1 for t in lines if _INDEX_ENTRY.search(t)) > INDEX_ENTRIES_MAX * len(lines):
            return False
        if all(sum(1 for i in side if i < len(texts) and _LEADER.search(texts[i])) >= LEADERS_MIN
               for side in (left, right)):
            return False
    return True


def _definition_list(left: list[int], right: list[int], boxes: list[BBox], across: Sequence[int] = ()) -> bool:
    """True when the left side holds the terms of a definition list and the right their descriptions:
    few terms, apart from each other, each beside the first line of its description or just above it
    (a term too wide for its place stands on a line of its own: Octave's "discard"; its description
    may cross the gutter, `across`). A paragraph's last line below a line that crosses the gutter
    ("are" below "... Valid properties") is no term. Such a list is read row by row, each term
    before its description, not all terms before all descriptions."""
    if len(left) > TERMS_SHARE * len(right):
        return False
    others = [boxes[j] for j in (*right, *across)]
    crossing = [boxes[j] for j in across]
    terms = sorted((boxes[i] for i in left if not _last_line(boxes[i], crossing)), key=lambda b: b[1])
    if len(terms) < MIN_COLUMN_ITEMS:
        return False
    near = sum(1 for a, b in pairwise(terms) if b[1] - a[3] < b[3] - b[1])
    if near > APART_SHARE * (len(terms) - 1):
        return False
    described = sum(1 for t in terms
                    if any(same_row(t, o) or (o[0] > t[0] + EDGE and 0 <= o[1] - t[3] < t[3] - t[1])
                           for o in others))
    return described >= ROW_PARTNERS * len(terms)


def _last_line(box: BBox, above: Sequence[BBox]) -> bool:
    """True when a line is a paragraph's last: just below one of the lines `above`, at its left edge."""
    gap = WRAP_GAP * (box[3] - box[1])  # (lines set tighter than their boxes overlap)
    return any(-gap <= box[1] - b[3] <= gap and abs(box[0] - b[0]) <= EDGE for b in above)


def _middle(box: BBox) -> float:
    """The vertical middle of a box."""
    return (box[1] + box[3]) / 2


def _rows_top_down(idx: list[int], boxes: list[BBox]) -> list[int]:
    """Sort top to bottom; items whose vertical centres fall in one row go left to right."""
    by_top = sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0]))
    out: list[int] = []
    row: list[int] = []
    row_y1 = -1e9
    for i in by_top:
        yc = _middle(boxes[i])
        if row and yc <= row_y1:
            row.append(i)
            row_y1 = max(row_y1, min(boxes[i][3], yc + 1))
            continue
        out.extend(sorted(row, key=lambda j: boxes[j][0]))
        row = [i]
        row_y1 = yc + max(1.0, (boxes[i][3] - boxes[i][1]) / 2) * 0.8
    out.extend(sorted(row, key=lambda j: boxes[j][0]))
    return out


def same_row(a: BBox, b: BBox) -> bool:
    """True when two line boxes share a visual row (vertical overlap > half the smaller height)."""
    ov = min(a[3], b[3]) - max(a[1], b[1])
    return ov > 0.5 * min(a[3] - a[1], b[3] - b[1])
