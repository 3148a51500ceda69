"""Running headers, footers and page numbers: lines in the top or bottom margin band that
repeat (digits ignored) at the same height on nearby pages, and lone page numbers.

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


def in_margin(line: Line, height: float) -> bool:
    """True when the line lies in the top or bottom margin band of a page of `height`."""
    return line.bbox[3] <= height * MARGIN_FRACTION or line.bbox[1] >= height * (1 - MARGIN_FRACTION)


def signature(lines: list[Line], height: float) -> Signature:
    """The margin lines of a page as (text with digits replaced by '#', y centre)."""
    return [
        (_DIGITS.sub("#", ln.text.lower()).strip(), (ln.bbox[1] + ln.bbox[3]) / 2)
        for ln in lines
        if in_margin(ln, height)
    ]


def furniture_ids(lines: list[Line], height: float, neighbours: list[Signature]) -> set[int]:
    """ids of the lines to drop: margin lines repeated on a neighbouring page, lone page numbers."""
    drop: set[int] = set()
    for ln in lines:
        if not in_margin(ln, height):
            continue
        text = ln.text.strip()
        if _PAGE_NUMBER.match(text):
            drop.add(id(ln))
            continue
        key = _DIGITS.sub("#", text.lower()).strip()
        yc = (ln.bbox[1] + ln.bbox[3]) / 2
        for sig in neighbours:
            if any(t == key and abs(y - yc) <= Y_TOLERANCE for t, y in sig):
                drop.add(id(ln))
                break
    return drop
