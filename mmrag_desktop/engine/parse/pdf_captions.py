"""Link caption blocks ("Figure 3: ...", "Table 2 ...") to the figure or table they describe."""

from __future__ import annotations

from ..elements import Block
from .pdf_blocks import caption_kind

CAPTION_DISTANCE = 40.0  # pt above or below the region
UNCONVENTIONAL_PT = 20.0  # distance handicap of a region on the unconventional side of its caption
MIN_H_OVERLAP = 0.3  # of the narrower of caption and region


def link_captions(blocks: list[Block]) -> None:
    """Set `caption_of` on caption blocks (in place): index of the nearest figure/table block
    within 40 pt above or below with >= 30% horizontal overlap; a kind match ("Table" with
    a table) wins over distance, and a region on the conventional side (figure above its
    caption, table below it) gets a 20 pt advantage. Each region gets at most one caption; unmatched captions
    keep `caption_of=None`."""
    pairs: list[tuple[int, float, int, int]] = []  # (kind mismatch, distance, caption idx, region idx)
    for ci, cap in enumerate(blocks):
        if cap.kind != "caption" or not cap.lines:
            continue
        want = caption_kind(cap.lines[0].text) or "figure"
        cb = cap.bbox
        if cb is None:
            continue
        for ri, reg in enumerate(blocks):
            if reg.kind not in ("figure", "table"):
                continue
            rb = reg.bbox
            if rb is None:
                continue
            dist = max(cb[1] - rb[3], rb[1] - cb[3], 0.0)
            if dist > CAPTION_DISTANCE:
                continue
            ov = min(cb[2], rb[2]) - max(cb[0], rb[0])
            if ov < MIN_H_OVERLAP * min(cb[2] - cb[0], rb[2] - rb[0]):
                continue
            # convention: a figure's caption sits below it, a table's above it; a caption between
            # two regions goes to the conventional one unless the other is much closer
            conventional = rb[3] <= cb[1] + 2 if want == "figure" else rb[1] >= cb[3] - 2
            pairs.append((0 if reg.kind == want else 1, dist + (0.0 if conventional else UNCONVENTIONAL_PT), ci, ri))
    used_c: set[int] = set()
    used_r: set[int] = set()
    for _, _, ci, ri in sorted(pairs):
        if ci in used_c or ri in used_r:
            continue
        blocks[ci].caption_of = ri
        used_c.add(ci)
        used_r.add(ri)
