"""Headings: match the PDF outline (table of contents) to page lines; without an outline,
judge by font size and weight relative to the body text size of the document.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..elements import Line

_NUM_PREFIX = re.compile(
    r"^(?:(?:chapter|section|appendix|part)\s+)?(?:[0-9a-z]{1,3}(?:\.\d+)*\.?|[ivxlc]+\.)\s+", re.I
)
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def norm_title(text: str) -> str:
    """Lowercase letters and digits only (for comparing outline titles with page text)."""
    return _NON_ALNUM.sub("", text.lower())


def _strip_number(text: str) -> str:
    return norm_title(_NUM_PREFIX.sub("", text.strip(), count=1))


@dataclass
class TocEntry:
    level: int
    title: str
    y: float | None  # top-left y of the destination, when the outline gives one


# the share of a sample's characters set in a proportional font from which the body size is theirs alone
PROSE_SHARE = 0.2


@dataclass
class FontStats:
    """Body text size and the larger sizes used for headings, from a sample of pages."""

    body_size: float = 10.0
    heading_sizes: list[float] = field(default_factory=list)  # descending
    learned: dict[float, int] = field(default_factory=dict)  # size -> outline level seen

    @classmethod
    def from_lines(cls, lines: list[Line]) -> FontStats:
        """Statistics from sample lines; the body size is the size covering most characters of the
        lines set in a proportional font, when they hold PROSE_SHARE of the characters or more: code
        is no body text (stanli's and Yosys's 8 pt listings outweigh their 11 pt and 10 pt prose, whose
        paragraphs of two or three lines were read as headings and left out of the text)."""
        prose = [ln for ln in lines if not ln.mono]
        if sum(len(ln.text) for ln in prose) >= PROSE_SHARE * sum(len(ln.text) for ln in lines):
            lines = prose
        weight: Counter[float] = Counter()
        for ln in lines:
            weight[round(ln.size * 2) / 2] += len(ln.text)
        if not weight:
            return cls()
        body = weight.most_common(1)[0][0]
        total = sum(weight.values())
        sizes = sorted(
            (s for s, w in weight.items() if s >= body * 1.15 and w < 0.2 * total and w >= 3), reverse=True
        )
        return cls(body_size=body, heading_sizes=sizes[:5])

    def level_for(self, para: list[Line], allow_bold_body: bool) -> int:
        """Heading level for a paragraph that looks like a heading by its font, else 0."""
        text = " ".join(ln.text for ln in para)
        if len(para) > 3 or len(text) > 140 or len(text) < 2 or not any(c.isalpha() for c in text):
            return 0
        size = max(ln.size for ln in para)
        key = round(size * 2) / 2
        if size >= self.body_size * 1.15:
            if key in self.learned:
                return self.learned[key]
            larger = [s for s in self.heading_sizes if s > key + 0.25]
            return min(len(larger) + 1, 6)
        if (
            allow_bold_body
            and all(ln.bold for ln in para)
            and size >= self.body_size * 0.95
            and len(para) <= 2
            and not text.rstrip().endswith((".", ",", ";"))
        ):
            return min(len(self.heading_sizes) + 1, 6)
        return 0


def toc_by_page(toc: list, page_heights: dict[int, float]) -> dict[int, list[TocEntry]]:
    """Outline entries grouped by 1-based page from `doc.get_toc(simple=False)`."""
    out: dict[int, list[TocEntry]] = {}
    for item in toc:
        level, title, page = item[0], item[1], item[2]
        if page < 1 or not title or not title.strip():
            continue
        y = None
        dest = item[3] if len(item) > 3 and isinstance(item[3], dict) else {}
        to = dest.get("to")
        if to is not None and page in page_heights:
            y = page_heights[page] - float(to.y)  # outline points are bottom-up
        out.setdefault(page, []).append(TocEntry(level, title, y))
    return out


def match_toc(lines: list[Line], entries: list[TocEntry], stats: FontStats) -> dict[int, int]:
    """Find each outline entry's line(s) on the page; returns {id(line): level}.

    A title may wrap over up to three lines; numbering ("1.2", "Chapter 3") is ignored
    when comparing. When several lines match, the one nearest the outline's destination
    y wins, then the larger font.
    """
    found: dict[int, int] = {}
    norms = [norm_title(ln.text) for ln in lines]
    stripped = [_strip_number(ln.text) for ln in lines]
    for e in entries:
        t_full, t_bare = norm_title(e.title), _strip_number(e.title)
        if not t_full:
            continue
        cands: list[tuple[float, list[int]]] = []
        for i in range(len(lines)):
            if id(lines[i]) in found:
                continue
            for n in (1, 2, 3):
                if i + n > len(lines):
                    break
                full = "".join(norms[i : i + n])
                bare = stripped[i] + "".join(norms[i + 1 : i + n])
                if full in (t_full, t_bare) or (bare and bare in (t_full, t_bare)):
                    ln = lines[i]
                    dist = abs(ln.bbox[1] - e.y) if e.y is not None else 0.0
                    cands.append((dist - ln.size * 2 - (20 if ln.bold else 0), list(range(i, i + n))))
                    break
                if not (t_full.startswith(full) or (t_bare and t_bare.startswith(bare))):
                    break
        if not cands:
            continue
        _, idx = min(cands, key=lambda c: c[0])
        for i in idx:
            found[id(lines[i])] = e.level
        key = round(lines[idx[0]].size * 2) / 2
        if key >= stats.body_size * 1.15:
            stats.learned.setdefault(key, e.level)
    return found
