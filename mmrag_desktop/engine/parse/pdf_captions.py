"""Link caption blocks ("Figure 3: ...", "Table 2 ...") to the figure or table they describe."""

from __future__ import annotations

from ..elements import Block
from .pdf_blocks import caption_kind

CAPTION_DISTANCE = 40.0  # pt above or below the region
WIDE_DISTANCE = 72.0  # a caption left over may sit this far from a region left over, with nothing between
UNCONVENTIONAL_PT = 20.0  # distance handicap of a region on the unconventional side of its caption
MIN_H_OVERLAP = 0.3  # of the narrower of caption and region


def link_captions(blocks: list[Block]) -> None:
    """Set `caption_of` on caption blocks (in place): index of the nearest figure/table block
    within 40 pt above or below with >= 30% horizontal overlap; a kind match ("Table" with
    a table) wins over distance, and a region on the conventional side (figure above its
    caption, table below it) gets a 20 pt advantage. Each region gets at most one caption. Then a
    caption left over goes to the nearest region left over of its kind within 72 pt when no other
    block lies between them (a diagram whose labels hang below the drawn region: its caption sits
    40-70 pt below what was boxed). Unmatched captions keep `caption_of=None`."""
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
            dist = _gap(cb, rb)
            if dist is None or dist > CAPTION_DISTANCE:
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
    _link_far(blocks, used_c, used_r)


def _gap(cb, rb) -> float | None:
    """Vertical distance between a caption box and a region box (0 when they overlap), or None when
    they overlap horizontally by less than MIN_H_OVERLAP of the narrower."""
    ov = min(cb[2], rb[2]) - max(cb[0], rb[0])
    if ov < MIN_H_OVERLAP * min(cb[2] - cb[0], rb[2] - rb[0]):
        return None
    return max(cb[1] - rb[3], rb[1] - cb[3], 0.0)


def _link_far(blocks: list[Block], used_c: set[int], used_r: set[int]) -> None:
    """The second pass of `link_captions`: left-over captions and regions, within WIDE_DISTANCE,
    same kind, overlapping horizontally, and no other block between them."""
    for ci, cap in enumerate(blocks):
        if ci in used_c or cap.kind != "caption" or not cap.lines or cap.bbox is None:
            continue
        want = caption_kind(cap.lines[0].text) or "figure"
        cb = cap.bbox
        best: tuple[float, int] | None = None
        for ri, reg in enumerate(blocks):
            rb = reg.bbox
            if ri in used_r or reg.kind != want or rb is None:
                continue
            dist = _gap(cb, rb)
            if dist is None or dist > WIDE_DISTANCE:
                continue
            top, bottom = (rb[3], cb[1]) if rb[3] <= cb[1] else (cb[3], rb[1])
            between = any(
                o.bbox is not None and i not in (ci, ri) and o.bbox[1] < bottom - 1 and o.bbox[3] > top + 1
                and min(o.bbox[2], cb[2]) > max(o.bbox[0], cb[0])
                for i, o in enumerate(blocks))
            if not between and (best is None or dist < best[0]):
                best = (dist, ri)
        if best is not None:
            cap.caption_of = best[1]
            used_c.add(ci)
            used_r.add(best[1])
