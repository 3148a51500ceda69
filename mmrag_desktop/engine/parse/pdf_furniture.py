"""Running headers, footers and page numbers: lines in the top or bottom margin band (or a page's
top line of words a little below it) that repeat (digits ignored) at the same height on nearby
pages, lone page numbers in the bands, and headers that name the current section (title-like lines
set apart from the text, in the same place on nearby pages, whatever they say).

Works on a small window of neighbouring pages, so a whole document is never held.
"""

from __future__ import annotations

import re

from ..elements import Line

MARGIN_FRACTION = 0.1  # top / bottom tenth of the page
Y_TOLERANCE = 4.0
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$", re.I
)

# (normalised text, y centre, left edge, right edge, set apart) of margin lines
Signature = list[tuple[str, float, float, float, bool]]
# a running header or footer that names the current section ("2.4. DRAWING A SIMPLE GRAPH", htmldoc's
# footer "Starting xfig") changes from page to page: a margin line set apart from the page's text, title-like,
# in the same place (height, and left edge, right edge or centre) as such a line on SLOT_PAGES neighbouring
# pages is one too
SLOT_PAGES = 2
SET_APART = 1.5  # line heights between a header (footer) and the text below (above) it
LARGER = 1.25  # a line this much taller than the page's middle line is a title, no header
MATE_GAP = 0.5  # line heights between the lines of a running header of two lines (header_mates)
SET_APART_LINES = 0.5  # line heights between such a header and the text below (above) it
_SENTENCE_INSIDE = re.compile(r"[a-z]{2,}[.!?]\s+[A-Z]")


HEADER_FRACTION = 0.2  # a page's top line of words within this share of the page may be a running header
_WORD = re.compile(r"[A-Za-z]{2,}")


def in_margin(line: Line, height: float) -> bool:
    """True when the line lies in the top or bottom margin band of a page of `height`."""
    return _in_bands(line.bbox[1], line.bbox[3], height)


def _in_bands(y0: float, y1: float, height: float, fraction: float = MARGIN_FRACTION) -> bool:
    """True when what spans `y0` to `y1` lies wholly in the top or bottom `fraction` (the margin band) of a page of
    `height`."""
    return y1 <= height * fraction or y0 >= height * (1 - fraction)


def _centre(line: Line) -> float:
    return (line.bbox[1] + line.bbox[3]) / 2


def drawing_mark(drawing: dict) -> tuple[int, int, int, int]:
    """Where a drawing (of `page.get_drawings()`) lies, to the point: the same logo or rule on two pages has
    the same mark."""
    r = drawing["rect"]
    return round(r.x0), round(r.y0), round(r.x1), round(r.y1)


def margin_marks(drawings: list[dict], height: float) -> frozenset[tuple[int, int, int, int]]:
    """The marks (`drawing_mark`) of the drawings that lie wholly in the top or bottom margin band of a page of
    `height`: a running header's or footer's logo and rules, when a neighbouring page has them too."""
    return frozenset(drawing_mark(d) for d in drawings if _in_bands(d["rect"].y0, d["rect"].y1, height))


def margin_lines(lines: list[Line], height: float) -> list[Line]:
    """The lines that may be running headers, footers or page numbers: those in the margin bands,
    and the page's top line when it holds two words or more within HEADER_FRACTION of the page
    (gpsim's manual, LaTeX on letter paper with deep margins, puts "CHAPTER 15. THEORY OF OPERATION
    61" at 14% of the page's height)."""
    top = min(map(_centre, lines), default=0.0)
    return [ln for ln in lines if in_margin(ln, height) or (
        abs(_centre(ln) - top) <= Y_TOLERANCE and ln.bbox[3] <= height * HEADER_FRACTION
        and len(_WORD.findall(ln.text)) >= 2)]


def signature(lines: list[Line], height: float) -> Signature:
    """The margin lines of a page as (text with digits replaced by '#', y centre, left edge, right edge,
    set apart: _set_apart and _title_like), in margin_lines' order."""
    margins = margin_lines(lines, height)
    if not margins:
        return []
    heights = sorted(ln.bbox[3] - ln.bbox[1] for ln in lines)
    middle = heights[len(heights) // 2]
    return [(_DIGITS.sub("#", ln.text.lower()).strip(), _centre(ln), ln.bbox[0], ln.bbox[2],
             _title_like(ln.text) and _set_apart(ln, lines, height, middle)) for ln in margins]


def _title_like(text: str) -> bool:
    """True for a line that could be a section's title: it opens with a capital or a number and holds no
    sentence end and ends with no punctuation (not a page's last line of prose: "... and tag the arrow
    number 3,", "This command sets the label for the y axis. Please see set xlabel (p. 215).")."""
    text = text.strip()
    return bool(text) and (text[0].isupper() or text[0].isdigit()) and text[-1] not in ".,;:!?(" \
        and not _SENTENCE_INSIDE.search(text)


def _set_apart(line: Line, lines: list[Line], height: float, middle: float) -> bool:
    """True when `line` is the page's last line (first, in the top band), apart from lines beside it, at
    least SET_APART of its heights below (above) the text, and set no larger than the page's text
    (`middle`, the page's middle line height: a title at the top of each page is no header). A header of two
    lines (`header_mates`: "Getting Values Set by Command-Line Options: the" / "GetOption Function", flush right
    atop SCons' pages) is set apart as one."""
    if line.bbox[3] - line.bbox[1] > LARGER * middle:
        return False
    group = header_mates(line, lines, height)
    ids = {id(ln) for ln in group}
    top, bottom = min(ln.bbox[1] for ln in group), max(ln.bbox[3] for ln in group)
    others = [ln for ln in lines if id(ln) not in ids and not any(abs(_centre(ln) - _centre(g)) <= Y_TOLERANCE
                                                                   for g in group)]
    if _centre(line) > height / 2:
        if any(_centre(ln) > bottom for ln in others):
            return False
        gap = top - max((ln.bbox[3] for ln in others), default=float("-inf"))
    else:
        if any(_centre(ln) < top for ln in others):
            return False
        gap = min((ln.bbox[1] for ln in others), default=float("inf")) - bottom
    # (a header of two lines stands closer to the text: SCons' are 10 pt above it, three quarters of a line)
    return gap >= (SET_APART if len(group) == 1 else SET_APART_LINES) * (line.bbox[3] - line.bbox[1])


def header_mates(line: Line, lines: list[Line], height: float) -> list[Line]:
    """`line` and the lines of its margin band it runs on with: in the same place (`_same_place`), each at most
    MATE_GAP of its height from the one before (a running header of two lines), top to bottom; [line] when it is
    in no margin band."""
    if not in_margin(line, height):
        return [line]
    top_band = _centre(line) < height / 2
    # the lines that may join: of the same band, in the same place
    candidates = [ln for ln in lines if ln is not line and in_margin(ln, height) and (_centre(ln) < height / 2) == top_band
                  and _same_place(line.bbox[0], line.bbox[2], ln.bbox[0], ln.bbox[2])]
    group = [line]
    grown = True
    while grown:
        grown = False
        for ln in [ln for ln in candidates if not any(ln is g for g in group)]:
            h = ln.bbox[3] - ln.bbox[1]
            if any(-h * MATE_GAP <= ln.bbox[1] - g.bbox[3] <= h * MATE_GAP or -h * MATE_GAP <= g.bbox[1] - ln.bbox[3]
                   <= h * MATE_GAP for g in group):
                group.append(ln)
                grown = True
    return sorted(group, key=lambda ln: ln.bbox[1])


def _same_place(x0: float, x1: float, a: float, b: float) -> bool:
    """True when two lines (left and right edges) stand in one place: flush left, flush right or centred
    alike (LaTeX's headers: "16 CHAPTER 2. CONSTRUCTIVE SOLID GEOMETRY (CSG)" on the left of even pages,
    "2.4. KNOWN PROBLEMS AND WORK-AROUNDS 15" flush right on odd ones; NETGEN's centred chapter titles)."""
    return (abs(x0 - a) <= Y_TOLERANCE or abs(x1 - b) <= Y_TOLERANCE
            or abs((x0 + x1) / 2 - (a + b) / 2) <= Y_TOLERANCE)


def furniture_ids(lines: list[Line], height: float, neighbours: list[Signature], own: Signature) -> set[int]:
    """ids of the lines to drop: margin lines repeated on a neighbouring page, lone page numbers, and
    title-like lines set apart in the place of such lines (flush left, flush right or centred alike) on
    SLOT_PAGES neighbouring pages (a header naming the current section). `own` is the page's signature
    (of these `lines`)."""
    drop: set[int] = set()
    headers: list[Line] = []  # dropped lines set apart as a header is
    for ln, (key, yc, x0, x1, apart) in zip(margin_lines(lines, height), own, strict=True):
        if apart:
            headers.append(ln)
        if _PAGE_NUMBER.match(ln.text.strip()):
            drop.add(id(ln))
        elif any(any(t == key and abs(y - yc) <= Y_TOLERANCE for t, y, _, _, _ in sig) for sig in neighbours):
            drop.add(id(ln))
        elif apart and sum(any(their_apart and abs(y - yc) <= Y_TOLERANCE and _same_place(x0, x1, a, b)
                               for _, y, a, b, their_apart in sig) for sig in neighbours) >= SLOT_PAGES:
            drop.add(id(ln))
    # the second line of a running header dropped here is the header's too ("GetOption Function" below "Getting Values
    # Set by Command-Line Options: the", SCons' user guide; it ran on as a sentence with the page's first paragraph)
    for ln in [ln for ln in headers if id(ln) in drop]:
        drop.update(id(m) for m in header_mates(ln, lines, height) if not _SENTENCE_INSIDE.search(m.text))
    # the page number beside a running header dropped here, on its row below the margin band (Ghostscript's
    # color notes: "Artifex Software Inc. www.artifex.com" and "25" at 12% of the page; the number was
    # indexed and quoted, "34 void gscms_get_name2device_link(...)")
    for ln in lines:
        if id(ln) not in drop and _PAGE_NUMBER.match(ln.text.strip()) and ln.bbox[3] <= height * HEADER_FRACTION:
            if any(id(o) in drop and abs(_centre(o) - _centre(ln)) <= Y_TOLERANCE for o in lines):
                drop.add(id(ln))
    return drop


def boxed_header(box: tuple[float, float, float, float], inside: list[Line], furniture: list[Line], height: float) -> bool:
    """True when a ruled box lies wholly in the top or bottom HEADER_FRACTION of a page of `height` and half or more
    of the lines `inside` it are `furniture` (dropped from the page as a running header or footer), of two words or
    more: the box drawn round a running header ("EDF R&D | Code Saturne Theory Guide | Page 65/428" atop
    code_saturne's pages, some of its lines below the margin band), furniture and no table. A figure at the top
    of a page with a line that its neighbours repeat (pgfplots' "% Preamble: \\pgfplotsset{...}" atop an example's
    code) or a label in the band that a neighbouring page has in its place (Circuit_macros' "R") is no header."""
    return (sum(len(_WORD.findall(ln.text)) for ln in furniture) >= 2 and 2 * len(furniture) >= len(inside)
            and _in_bands(box[1], box[3], height, HEADER_FRACTION))
