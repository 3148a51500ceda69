"""Group the lines of one column segment into paragraph blocks and give each its kind:
heading (level), list (bullets / numbered items), code (monospaced runs), caption, text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..elements import Block, Line

BULLET = re.compile(r"^(?:[•◦▪▫‣⁃●○■□►▶✓✔·∙]|[-–—*])\s+\S")
NUMBERED = re.compile(r"^(?:\(?\d{1,3}[.)]|\(?[a-zA-Z][)]|\([a-z]\)|[ivxIVX]{1,4}[.)])\s+\S")
# a caption's label: "Figure 3", "Fig. 4-12", "Table 2", and in capitals as journals set it ("FIG. 1." in the APS
# style, "TABLE II." in IEEE's, numbered in Roman)
_CAPTION_LABEL = (r"(?:(?:Figure|Fig\.?|Table|Tab\.)\s*(?:[A-Z]?\d+(?:[.\-–]\d+)*)[a-z]?"
                  r"|(?:FIGURE|FIG\.|TABLE)\s*(?:\d+(?:[.\-–]\d+)*[a-z]?|[IVX]{1,5}))")
CAPTION = re.compile(rf"^{_CAPTION_LABEL}(?=$|[\s:.\-–—)])")
CAPTION_STRONG = re.compile(rf"^{_CAPTION_LABEL}\s*(?:$|[:.\-–—|]|\s+[A-Z(])")


def is_list_start(text: str) -> bool:
    """True when a line starts a bullet or numbered list item."""
    return bool(BULLET.match(text) or NUMBERED.match(text))


def caption_kind(text: str) -> str | None:
    """Return "figure" / "table" when `text` starts like a caption ("Figure 3:", "Fig. 4-12", "Table 2"), else None."""
    if not CAPTION.match(text):
        return None
    return "table" if text.lower().startswith("tab") else "figure"


def group_paragraphs(
    lines: list[Line],
    heading_level: dict[int, int],
    heuristic_level: Callable[[list[Line], bool], int],
) -> list[Block]:
    """Split one column's lines (top to bottom) into blocks.

    `heading_level` maps id(line) -> outline level for lines matched to the PDF outline;
    `heuristic_level(lines, numbered)` returns a heading level (> 0) for a short paragraph that
    looks like a heading by its font (`numbered`: it starts like a numbered list item, so only a
    size larger than the body text's counts), or 0. Returns blocks in reading order.
    """
    paras: list[list[Line]] = []
    cur: list[Line] = []
    for ln in lines:
        if cur and _breaks(cur, ln, heading_level):
            paras.append(cur)
            cur = []
        cur.append(ln)
    if cur:
        paras.append(cur)

    blocks: list[Block] = []
    for para in paras:
        first = para[0]
        lvl = heading_level.get(id(first), 0)
        if lvl:
            blocks.append(Block("heading", para, level=lvl))
            continue
        if caption_kind(first.text):
            blocks.append(Block("caption", para))
            continue
        if all(ln.mono for ln in para):
            kind = "code"
        elif is_list_start(first.text):
            # a numbered line set larger than the body text is a heading ("1. Greetings!." in the
            # PARI/GP tutorial, which has no outline), not a list item; bold alone is not enough
            hl = heuristic_level(para, True)
            if hl:
                blocks.append(Block("heading", para, level=hl))
                continue
            kind = "list"
        else:
            hl = heuristic_level(para, False)
            if hl:
                blocks.append(Block("heading", para, level=hl))
                continue
            kind = "text"
        prev = blocks[-1] if blocks else None
        if (
            prev is not None
            and kind in ("list", "code")
            and prev.kind == kind
            and first.bbox[1] - prev.lines[-1].bbox[3] < 1.2 * max(first.size, 6.0)
        ):
            prev.lines.extend(para)  # one list block for consecutive items, one code block
        else:
            blocks.append(Block(kind, para))
    return blocks


def _breaks(cur: list[Line], b: Line, heading_level: dict[int, int]) -> bool:
    """True when line `b` starts a new paragraph after the lines `cur`."""
    a = cur[-1]
    size = max(min(a.size, b.size), 4.0)
    if heading_level.get(id(a)) != heading_level.get(id(b)):
        return True
    if heading_level.get(id(b)):
        return b.bbox[1] - a.bbox[3] > 0.6 * size
    gap = b.bbox[1] - a.bbox[3]
    if gap > (0.9 if a.mono and b.mono else 0.5) * size or gap < -0.5 * size:
        return True
    if abs(a.size - b.size) > 1.0:
        return True
    if a.mono != b.mono or a.bold != b.bold:
        return True
    if caption_kind(b.text) or is_list_start(b.text):
        return True
    if is_list_start(cur[0].text):
        # continuation lines of a list item are indented under its text
        return b.bbox[0] < cur[0].bbox[0] - 0.5 * size
    left = min(ln.bbox[0] for ln in cur)
    # a first-line indent starts a paragraph
    return b.bbox[0] > left + 0.8 * size and not b.mono
