"""Running headers, footers and page numbers: lines in the top or bottom margin band (or a page's
top line of words a little below it) that repeat (digits ignored) at the same height on nearby
pages, and lone page numbers in the bands.

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

Signature = list[tuple[str, float]]  # (normalised text, y centre) of margin lines


HEADER_FRACTION = 0.2  # a page's top line of words within this share of the page may be a running header
_WORD = re.compile(r"[A-Za-z]{2,}")


def in_margin(line: Line, height: float) -> bool:
    """True when the line lies in the top or bottom margin band of a page of `height`."""
    return line.bbox[3] <= height * MARGIN_FRACTION or line.bbox[1] >= height * (1 - MARGIN_FRACTION)


def _centre(line: Line) -> float:
    return (line.bbox[1] + line.bbox[3]) / 2


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
    """The margin lines of a page as (text with digits replaced by '#', y centre)."""
    return [(_DIGITS.sub("#", ln.text.lower()).strip(), _centre(ln)) for ln in margin_lines(lines, height)]


def furniture_ids(lines: list[Line], height: float, neighbours: list[Signature]) -> set[int]:
    """ids of the lines to drop: margin lines repeated on a neighbouring page, lone page numbers."""
    drop: set[int] = set()
    for ln in margin_lines(lines, height):
        text = ln.text.strip()
        if _PAGE_NUMBER.match(text):
            drop.add(id(ln))
            continue
        key = _DIGITS.sub("#", text.lower()).strip()
        yc = _centre(ln)
        for sig in neighbours:
            if any(t == key and abs(y - yc) <= Y_TOLERANCE for t, y in sig):
                drop.add(id(ln))
                break
    return drop
