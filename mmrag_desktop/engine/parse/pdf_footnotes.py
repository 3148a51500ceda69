"""Footnotes: the small-print notes at the foot of a page, taken out of the text flow.

PyMuPDF returns a footnote after the page's last body line, so a paragraph that runs on to the
next page was read as "Ngspice calculates the nominal resistance as / 1A negative resistor modeling
an active element can cause convergence problems ... / Rnom = VALUE ...": the note spliced into the
sentence it interrupts, in chunks, highlights and quoted answers; and its mark, set small and
raised, read as part of the first word ("1A negative" looks like one ampere). A footnote here is a run of lines
in the lower half of the page, set smaller than the body text, whose first line opens with a small
note mark ("1", "*"), down to the foot of the page. The chunker places them after the text they
annotate (ingest/chunking.py).
"""

from __future__ import annotations

from dataclasses import replace

from ..elements import Line

SMALLER = 0.95  # a footnote's text size relative to the body text
LOWER_PART = 0.5  # footnotes start in the lower half of the page


def page_body_size(lines: list[Line]) -> float:
    """The size of most of the page's prose characters (code lines left out): the document's
    body size is a poor guide where sampled pages are mostly small-print listings."""
    weight: dict[float, int] = {}
    for ln in lines:
        if not ln.mono:
            weight[ln.size] = weight.get(ln.size, 0) + len(ln.text)
    return max(weight.items(), key=lambda kv: kv[1])[0] if weight else 0.0


def footnote_lines(lines: list[Line], height: float) -> list[Line]:
    """The page's footnote lines, top to bottom ([] when it has none), as found in `lines` (which
    have the running headers and footers removed already); `mark_set_apart` gives their shown form."""
    body_size = page_body_size(lines)
    if body_size <= 0:
        return []
    small = body_size * SMALLER
    ordered = sorted(lines, key=lambda ln: (ln.bbox[1], ln.bbox[0]))
    for i, ln in enumerate(ordered):
        if ln.bbox[1] < height * LOWER_PART or not ln.note_mark or ln.size >= small:
            continue
        rest = ordered[i:]
        if all(r.size < small for r in rest) and i > 0:
            return rest
    return []


def mark_set_apart(line: Line) -> Line:
    """The note line with its mark set apart: "1A negative resistor" read as one ampere; it
    becomes "(1) A negative resistor" (the box is unchanged)."""
    mark = line.note_mark
    if not mark or not line.text.startswith(mark):
        return line
    return replace(line, text=f"({mark}) {line.text[len(mark):].lstrip()}")
