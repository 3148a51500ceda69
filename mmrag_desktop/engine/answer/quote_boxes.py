"""Citation boxes that show what an answer used: the lines of the quoted (or supporting) sentence.

A hit's own highlight is the sentence that best matches the *question*. An answer cites a block
for a particular sentence of it — the one an answer quotes, or the evidence sentence the support
check (support.py) found saying the same as the answer's sentence — and clicking the citation
should show that sentence. Sentences are found back in the chunk's line boxes by their words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..elements import BBox, union_bbox

_TOKEN = re.compile(r"[0-9a-z]+")
LINE_GAP = 1.5  # line heights between two lines of one quote box (more: two boxes)
MIN_MATCH = 0.6  # share of the sentence's words found in order before its lines are trusted


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def quoted_words(sentence: str) -> str:
    """A quote without the ellipses the answer adds around it ("... default value is 1.0e-12." for
    a chunk that starts mid-sentence, "... " after a cut one): the words the evidence holds."""
    return sentence.removeprefix("...").removesuffix("...")


def row_cells(text: str) -> list[tuple[str, str]]:
    """A table row as search and answers read it ("Name: G | Default: 0.0") as its (column name,
    value) cells, [("Name", " G"), ("Default", " 0.0")]; [] for any other text."""
    cells = text.split(" | ")
    if len(cells) < 2 or not all(":" in c for c in cells):
        return []
    return [tuple(c.split(":", 1)) for c in cells]


def quote_boxes(lines: Sequence[dict], sentence: str) -> list[tuple[int, BBox]]:
    """(page, box) per page of the chunk lines that hold `sentence` (per run of adjacent lines: `_runs`),
    or [] when it is not found.

    `lines` are a chunk's stored lines ({"p": page, "b": box, "t": text}); `sentence` is text
    taken from that chunk (line wraps, spacing, punctuation and bracket rewriting may differ).
    The sentence's words are located as the in-order run from its first word that matches most
    of them (the tightest such run); at least MIN_MATCH of them must be found. A quoted table row
    is located by its cell values (the column names are in the header, not in the row)."""
    text = quoted_words(sentence)
    cells = row_cells(text)  # a row's column names are in the header on the page, not in the row
    words = _tokens(" ".join(v for _, v in cells) if cells else text)
    if not words:
        return []
    flat: list[tuple[str, int]] = []  # (token, line index)
    for i, ln in enumerate(lines):
        if ln.get("b"):
            flat.extend((t, i) for t in _tokens(ln.get("t", "")))
    best: tuple[int, int, int] = (0, -1, -1)  # (matched words, first flat index, last flat index)
    for start in range(len(flat)):
        if flat[start][0] != words[0]:
            continue
        matched, pos, last = 1, start + 1, start
        for w in words[1:]:
            # allow a word or two of difference (hyphenation, rewritten brackets) between matches
            for j in range(pos, min(pos + 3, len(flat))):
                if flat[j][0] == w:
                    matched, pos, last = matched + 1, j + 1, j
                    break
        if matched > best[0] or (matched == best[0] and last - start < best[2] - best[1]):
            best = (matched, start, last)  # equal matches: the tighter run (a label repeating the words)
    if best[0] < MIN_MATCH * len(words):
        return []
    used = sorted({flat[k][1] for k in range(best[1], best[2] + 1)})
    by_page: dict[int, list[BBox]] = {}
    for i in used:
        by_page.setdefault(int(lines[i]["p"]), []).append(tuple(lines[i]["b"]))
    return [(p, union_bbox(run)) for p, bs in sorted(by_page.items()) for run in _runs(bs)]


def _runs(boxes: Sequence[BBox]) -> list[list[BBox]]:
    """Line boxes in reading order cut where the next line is not just below the one before: a gap
    of more than LINE_GAP line heights (a lead-in above a table and its list below it) or a step
    up (the next column). One box over both would cover what lies between."""
    runs: list[list[BBox]] = []
    for b in boxes:
        if runs:
            prev = runs[-1][-1]
            height = max(prev[3] - prev[1], b[3] - b[1], 1.0)
            if b[1] - prev[3] <= LINE_GAP * height and b[1] >= prev[1] - height / 2:
                runs[-1].append(b)
                continue
        runs.append([b])
    return runs


def merge_boxes(parts: Sequence[list[tuple[int, BBox]]]) -> list[tuple[int, BBox]]:
    """Several sentences' boxes of one block, in order, without repeats."""
    out: list[tuple[int, BBox]] = []
    for boxes in parts:
        for pb in boxes:
            if pb not in out:
                out.append(pb)
    return out
