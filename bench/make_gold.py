"""Compute the gold boxes of a question set and write it as JSON lines.

The development set is defined in ``bench/question_defs.py`` (written to
``bench/questions.jsonl``), the held-out set in ``bench/heldout_defs.py`` (written to
``bench/heldout.jsonl``); both as (query, kind, doc, page, locator).
A locator says where the answer sits on the page, and this script turns it into a box with
PyMuPDF, so the set is reproducible from the pinned manuals and checkable by eye:

- ``{"snippet": "text"}`` or ``{"snippets": [...]}``: ``page.search_for`` each snippet (it may
  cross a line break); the gold box is the union of the matched quads, grown for text
  questions to the whole sentence(s) the snippet lies in (within its text block).
  ``{"snippet": "text", "nth": i}``: the i-th match of a one-line snippet that occurs repeatedly.
- ``{"between": ["first", "last"]}``: every word from the line holding ``first`` down to the
  line holding ``last`` (borderless tables, lists).
- ``{"table": "Table 2.2"}``: the ruled drawing cluster nearest the caption, plus the caption.
  ``{"table_at": "snippet"}``: the ruled drawing cluster that contains the snippet (uncaptioned).
- ``{"figure": "Figure 8.1"}``: the raster image or vector drawing cluster nearest the caption,
  plus the caption (so a hit on the caption or on the picture both overlap).
- ``{"rect": [x0, y0, x1, y1]}``: a box given by hand.

Usage::

    python bench/make_gold.py                 # writes bench/questions.jsonl
    python bench/make_gold.py --draw 8        # also renders 8 pages per kind with the gold box
                                              # into bench/results/gold_png/ for a visual check
    python bench/make_gold.py --defs heldout  # writes bench/heldout.jsonl
    python bench/make_gold.py --defs unseen   # writes bench/unseen.jsonl from the manuals in
                                              # bench/data/unseen/ (fetch_unseen_manuals.sh)
    python bench/make_gold.py --defs heldout2 # writes bench/heldout2.jsonl from bench/data/heldout2/
                                              # (fetch_manuals.sh heldout2)
    python bench/make_gold.py --defs unseen_defs --manuals bench/data/unseen --out bench/unseen.jsonl
                                              # the same, spelled out: any definitions module
                                              # (a file in bench/ defining QUESTIONS), manuals
                                              # folder and output file
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

MANUALS = BENCH / "data" / "manuals"
OUT = BENCH / "questions.jsonl"
# --defs NAME: (module defining QUESTIONS, default output file)
DEFS = {"dev": ("question_defs", OUT), "heldout": ("heldout_defs", BENCH / "heldout.jsonl"),
        "unseen": ("unseen_defs", BENCH / "unseen.jsonl"),
        "heldout2": ("heldout2_defs", BENCH / "heldout2.jsonl")}
# --defs NAME: default manuals folder when it is not MANUALS
DEFS_MANUALS = {"unseen": BENCH / "data" / "unseen", "heldout2": BENCH / "data" / "heldout2"}

Box = tuple[float, float, float, float]


class GoldError(ValueError):
    """A locator did not resolve to exactly one region on its page."""


def _union(rects: list) -> Box:
    x0 = min(r[0] for r in rects)
    y0 = min(r[1] for r in rects)
    x1 = max(r[2] for r in rects)
    y1 = max(r[3] for r in rects)
    return (x0, y0, x1, y1)


def _find_one(page, text: str) -> Box:
    """Return the union box of the single occurrence of ``text`` on ``page``.

    Raises GoldError when the text is missing or occurs in places too far apart to be one match.
    """
    rects = page.search_for(text)
    if not rects:
        raise GoldError(f"snippet {text!r} not found on page {page.number + 1}")
    box = _union(rects)
    n_lines = text.count("\n") + 1 + len(text) // 60
    if box[3] - box[1] > 14 * (n_lines + 2):
        found = [tuple(round(v) for v in r) for r in rects]
        raise GoldError(f"snippet {text!r} matches several places on page {page.number + 1}: {found}")
    return box


def _overlap_x(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0]))


def _figure_candidates(page) -> list[Box]:
    cands: list[Box] = []
    for info in page.get_image_info():
        b = tuple(info["bbox"])
        if b[2] - b[0] > 40 and b[3] - b[1] > 30:
            cands.append(b)
    for r in page.cluster_drawings():
        if r.width > 40 and r.height > 30:
            cands.append((r.x0, r.y0, r.x1, r.y1))
    return cands


def _nearest_region(page, caption: Box, cands: list[Box], what: str) -> Box:
    best = None
    for c in cands:
        if _overlap_x(c, caption) <= 0:
            continue
        if c[3] <= caption[1] + 2:
            gap = caption[1] - c[3]
        elif c[1] >= caption[3] - 2:
            gap = c[1] - caption[3]
        else:
            gap = 0.0
        if c[1] >= caption[3] - 2:
            gap += 30  # captions sit below their figure/table in these manuals: prefer above
        if gap < 90 and (best is None or gap < best[0]):
            best = (gap, c)
    if best is None:
        raise GoldError(f"no {what} region near its caption on page {page.number + 1}")
    return best[1]


def _caption_line(page, label: str) -> Box:
    rects = page.search_for(label + ":")
    if not rects:
        raise GoldError(f"caption {label!r} not found on page {page.number + 1}")
    first = rects[0]
    # Extend to the whole caption line(s): words on the caption's line and right below it.
    words = page.get_text("words")
    line = [w[:4] for w in words if abs(w[1] - first.y0) < 2 or (0 < w[1] - first.y1 < 4)]
    return _union(line + [tuple(first)])


def _between(page, first: str, last: str) -> Box:
    a = _find_one(page, first)
    b = _find_one(page, last)
    words = page.get_text("words")
    inside = [w[:4] for w in words if w[1] >= a[1] - 1 and w[3] <= b[3] + 1]
    if not inside:
        raise GoldError(f"nothing between {first!r} and {last!r} on page {page.number + 1}")
    return _union(inside)


def _sentence(page, box: Box) -> Box:
    """Grow ``box`` to the whole sentence(s) it lies in, within its text block.

    The gold of a text question is the answering sentence, not just the distinctive snippet
    used to find it: a hit that highlights the sentence's first line is a correct highlight.
    """
    words = sorted(page.get_text("words"), key=lambda w: (w[5], w[6], w[7]))
    inside = [i for i, w in enumerate(words)
              if w[0] < box[2] and w[2] > box[0] and w[1] < box[3] - 2 and w[3] > box[1] + 2]
    if not inside:
        return box
    first, last = inside[0], inside[-1]
    block = words[first][5]
    while first > 0 and words[first - 1][5] == block and not words[first - 1][4].endswith((".", ":", "?")):
        first -= 1
    while (last + 1 < len(words) and words[last + 1][5] == block
           and not words[last][4].endswith((".", "?")) and last - inside[-1] < 40):
        last += 1
    return _union([box] + [w[:4] for w in words[first:last + 1]])


def resolve(page, locator: dict) -> Box:
    """Return the gold box (PDF points, top-left origin) that ``locator`` names on ``page``.

    Raises GoldError when the locator does not resolve to one region.
    """
    if "rect" in locator:
        return tuple(float(v) for v in locator["rect"])
    if "snippet" in locator and "nth" in locator:
        rects = page.search_for(locator["snippet"])  # single-line snippet: one rect per match
        if len(rects) <= locator["nth"]:
            raise GoldError(f"snippet {locator['snippet']!r} has no match #{locator['nth']}")
        return tuple(rects[locator["nth"]])
    if "snippet" in locator:
        return _find_one(page, locator["snippet"])
    if "snippets" in locator:
        return _union([_find_one(page, s) for s in locator["snippets"]])
    if "between" in locator:
        return _between(page, *locator["between"])
    if "table" in locator:
        cap = _caption_line(page, locator["table"])
        cands = [(r.x0, r.y0, r.x1, r.y1) for r in page.cluster_drawings() if r.height > 20]
        return _union([cap, _nearest_region(page, cap, cands, "table")])
    if "table_at" in locator:
        anchor = _find_one(page, locator["table_at"])
        for r in page.cluster_drawings():
            if r.x0 - 1 <= anchor[0] and r.y0 - 1 <= anchor[1] and r.x1 + 1 >= anchor[2] and r.y1 + 1 >= anchor[3]:
                return (r.x0, r.y0, r.x1, r.y1)
        raise GoldError(f"no ruled table around {locator['table_at']!r} on page {page.number + 1}")
    if "figure" in locator:
        cap = _caption_line(page, locator["figure"])
        return _union([cap, _nearest_region(page, cap, _figure_candidates(page), "figure")])
    raise GoldError(f"unknown locator {locator!r}")


def load_defs(name: str = "dev") -> list[dict]:
    """Return the QUESTIONS list of the definitions module named by ``name`` (a key of DEFS, or
    the name of a module in bench/ such as ``unseen_defs``)."""
    import importlib

    return importlib.import_module(DEFS[name][0] if name in DEFS else name).QUESTIONS


def build(questions: list[dict] | None = None, manuals: Path | None = None) -> list[dict]:
    """Return the question records with computed gold boxes (of ``questions``, default the dev
    set; PDFs read from ``manuals``, default MANUALS); raises GoldError on a bad definition."""
    import pymupdf

    manuals = Path(manuals) if manuals is not None else MANUALS
    if questions is None:
        questions = load_defs("dev")
    docs: dict[str, object] = {}
    records = []
    errors = []
    seen: set[str] = set()
    for q in questions:
        if q["id"] in seen:
            raise GoldError(f"duplicate id {q['id']}")
        seen.add(q["id"])
        gold = []
        for g in q.get("gold", []):
            doc = docs.get(g["doc"])
            if doc is None:
                path = manuals / g["doc"]
                if not path.exists():
                    raise GoldError(f"{path} is missing: run bench/fetch_manuals.sh"
                                    + (" or bench/fetch_unseen_manuals.sh" if manuals != MANUALS else ""))
                doc = docs[g["doc"]] = pymupdf.open(path)
            page = doc[g["page"] - 1]
            try:
                box = resolve(page, g["at"])
                if q["kind"] == "text" and ("snippet" in g["at"] or "snippets" in g["at"]):
                    box = _sentence(page, box)
            except GoldError as e:
                errors.append(f"{q['id']}: {e}")
                continue
            gold.append({"doc": g["doc"], "page": g["page"], "bbox": [round(v, 1) for v in box]})
        if (q["kind"] == "none") != (not q.get("gold")):
            raise GoldError(f"{q['id']}: kind 'none' must have no gold and other kinds must have gold")
        records.append({"id": q["id"], "query": q["query"], "kind": q["kind"], "gold": gold})
    if errors:
        raise GoldError("\n".join(errors))
    return records


def draw(records: list[dict], per_kind: int, out_dir: Path, manuals: Path | None = None) -> list[Path]:
    """Render up to ``per_kind`` gold pages per kind with the gold box drawn in red; return PNG paths."""
    import pymupdf

    manuals = Path(manuals) if manuals is not None else MANUALS
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    written = []
    for r in records:
        if not r["gold"] or counts.get(r["kind"], 0) >= per_kind:
            continue
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
        g = r["gold"][0]
        doc = pymupdf.open(manuals / g["doc"])
        page = doc[g["page"] - 1]
        page.draw_rect(pymupdf.Rect(g["bbox"]), color=(1, 0, 0), width=2)
        path = out_dir / f"{r['id']}.png"
        page.get_pixmap(dpi=60).save(path)
        written.append(path)
    return written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draw", type=int, default=0, help="render N gold pages per kind for checking")
    ap.add_argument("--defs", default="dev",
                    help="question definitions: dev (question_defs.py), heldout (heldout_defs.py), "
                         "unseen (unseen_defs.py), or the name of another definitions module in bench/")
    ap.add_argument("--out", type=Path, default=None,
                    help="output JSON lines (default bench/questions.jsonl, bench/heldout.jsonl for "
                         "--defs heldout, bench/unseen.jsonl for --defs unseen; required for other modules)")
    ap.add_argument("--manuals", type=Path, default=None,
                    help="folder holding the PDFs (default bench/data/manuals, bench/data/unseen for --defs unseen)")
    args = ap.parse_args()
    key = args.defs if args.defs in DEFS else next(
        (k for k, (mod, _) in DEFS.items() if mod == args.defs), None)
    out = args.out or (DEFS[key][1] if key else None)
    if out is None:
        ap.error(f"--out is required for --defs {args.defs}")
    manuals = args.manuals or DEFS_MANUALS.get(key, MANUALS)
    try:
        records = build(load_defs(args.defs), manuals)
    except GoldError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with out.open("w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for r in records:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"wrote {len(records)} questions to {out}: {kinds}")
    if args.draw:
        for p in draw(records, args.draw, BENCH / "results" / "gold_png", manuals):
            print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
