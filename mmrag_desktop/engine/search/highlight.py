"""Pick the highlight box of a hit: the lines of the chunk segment that best matches the query.

Segment vectors were pooled from the chunk's own token vectors at ingest and mixed with each
segment's own vector by the background pass (sentences.py), so this costs one small matrix
product per candidate, no embedding at query time.

In running text the box also takes the segment after the best one: the sentence that restates a
question ("METHOD=name sets the integration method") is usually followed by the one that answers
it ("The default is trapezoidal."). On the development set this lifted text boxes on the gold
page from 0.44 to 0.56 (mean IoU 0.36 to 0.32: the box grows by a sentence). A best segment that goes
on with a sentence interrupted by a line of code or a formula set apart shows it from its start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..elements import BBox, union_bbox
from ..parse.pdf_blocks import caption_kind
from ..sentence_split import ends_sentence

LEXICAL_WEIGHT = 0.25
ANTONYM_PENALTY = 0.1
# words a sentence embedder reads as near-synonyms of their opposites ("internal RAM" ~ "external RAM")
# (adjectives and nouns, whose forms do not change; verbs such as load/save or start/stop do, and
# "It also loads a saved workspace" would read as "load" without "save")
_OPPOSITES = [("internal", "external"), ("input", "output"), ("read", "write"), ("enable", "disable"),
              ("enabled", "disabled"), ("signed", "unsigned"), ("master", "slave"), ("rising", "falling"),
              ("minimum", "maximum"), ("upper", "lower"), ("positive", "negative"),
              ("inverting", "non-inverting"), ("synchronous", "asynchronous"), ("local", "remote")]
OPPOSITE = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
SHORT_WORDS = 5
SHORT_PENALTY = 0.03
# a sentence goes on after at most this many lines set apart inside it (a formula, a line of code), which
# start this far right of the text's left edge (highlights; Searcher._sentence_end)
DISPLAY_LINES = 2
DISPLAY_INDENT = 15.0  # points
# a box whose first line ends a sentence shows that sentence from its start when it began at most this many
# lines above (_sentence_on_first_line)
TAIL_LINES = 2
# a box that ends with a question takes the segment after it when that has this many prose words (_answer_after)
ANSWER_WORDS = 3
PROSE_WORD = re.compile(r"\b[A-Za-z][a-z]+\b")
_LOWER_WORD = re.compile(r"[a-z]+\s")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Highlight:
    page: int
    bbox: BBox | None
    boxes: list[tuple[int, BBox]]
    segment: int
    score: float = float("-inf")  # how well the chosen segment matches the query

    @classmethod
    def region(cls, page: int, bbox, score: float = float("-inf")) -> Highlight:
        """A whole region (a figure, a component) on one page."""
        box = tuple(bbox)
        return cls(page, box, [(page, box)], -1, score)


def _stem(word: str) -> str:
    return word[:6]


def segment_texts(lines: list[dict], n_segments: int) -> list[str]:
    out = [""] * n_segments
    for ln in lines:
        for s in ln.get("s") or []:
            if 0 <= s < n_segments:
                out[s] += " " + ln["t"]
    return out


def lexical_overlap(terms: list[str], text: str, idf: dict[str, float] | None = None) -> float:
    """Share of query terms (6-letter prefixes) present in `text`, weighted by `idf` when given
    (rare words count more than words found everywhere)."""
    if not terms:
        return 0.0
    have = {_stem(w) for w in _WORD.findall(text.lower())}
    weights: dict[str, float] = {}
    for t in terms:
        weights[_stem(t)] = max(weights.get(_stem(t), 0.0), idf.get(t, 1.0) if idf else 1.0)
    total = sum(weights.values())
    return sum(w for st, w in weights.items() if st in have) / total if total else 0.0


# the forms of the verbs among them ("Reading a memory element outside the bounds ..." for "what happens
# when Verilator writes outside the bounds", Verilator's manual)
_FORMS = {"reads": "read", "reading": "read", "writes": "write", "writing": "write", "written": "write",
          "wrote": "write", "enables": "enable", "enabling": "enable", "disables": "disable", "disabling": "disable"}


def _singular(word: str) -> str:
    if word in _FORMS:
        return _FORMS[word]
    return word[:-1] if word.endswith("s") and word[:-1] in OPPOSITE else word


def opposes(terms: list[str], text: str) -> bool:
    """True when `text` has the opposite of a query term ("internal" for "external") and not the
    term itself; a pair the query names both sides of ("inputs ... output") does not count."""
    asked = {_singular(t) for t in terms}
    words = {_singular(w) for w in re.findall(r"[a-z]+(?:-[a-z]+)?", text.lower())}
    return any(OPPOSITE[t] in words and t not in words and OPPOSITE[t] not in asked
               for t in asked if t in OPPOSITE)


def choose_highlight(
    kind: str, lines: list[dict], region: dict | None, seg_vecs: np.ndarray | None, qvec: np.ndarray,
    terms: list[str], fallback_page: int, pages: tuple[int, int] | None = None,
    idf: dict[str, float] | None = None,
) -> Highlight:
    """The highlight of one chunk for one query (see module doc).

    Figures highlight their whole region, or the component (VLM caption box, line flag "c") whose
    name matches the query; chunks without line boxes fall back to the region or
    to no box. With `pages`, only lines inside that inclusive page range are candidates.
    """
    if kind == "figure" and region:
        # a component named by the query (from a VLM caption with boxes) beats the whole figure
        comps = [ln for ln in lines if ln.get("c") and ln.get("b")]
        if comps and terms:
            score, best_line = max(((lexical_overlap(terms, ln["t"], idf), ln) for ln in comps), key=lambda x: x[0])
            if score > 0:
                return Highlight.region(best_line["p"], best_line["b"], 1.0 + score)
        best_score = float(_segment_scores(seg_vecs, qvec, _texts_of(lines, seg_vecs), terms, idf).max(initial=0.0))
        return Highlight.region(region["page"], region["bbox"], best_score)
    boxed = [ln for ln in lines if ln.get("b") and (pages is None or pages[0] <= ln["p"] <= pages[1])]
    if not boxed:
        if region:
            return Highlight.region(region["page"], region["bbox"])
        return Highlight(fallback_page, None, [], -1)
    best, best_score = -1, float("-inf")
    texts = _texts_of(boxed, seg_vecs)
    scores = _segment_scores(seg_vecs, qvec, texts, terms, idf)
    if len(scores) and np.isfinite(scores).any():
        best = int(np.argmax(scores))
        best_score = float(scores[best])
        if kind == "table":
            best = _best_row(scores, boxed, best)
    want = {best, _next_segment(scores, best)} if kind == "text" and best >= 0 else {best}
    if kind == "text" and best >= 0:
        want |= _answer_after(scores, texts, want)
        want |= set(range(_sentence_start(boxed, best), best))
        want |= _sentence_on_first_line(boxed, want)
    chosen = [ln for ln in boxed if want & set(ln.get("s") or [])] if best >= 0 else []
    return lines_highlight(chosen or boxed, best, best_score)


def goes_on_after(lines: list[dict], i: int) -> int | None:
    """The index of the line after `lines[i]` (and at most DISPLAY_LINES - 1 more lines set apart) where the
    sentence before them goes on in lower case, or None: a display line (a formula, a line of code) that
    ends no sentence interrupts it ("It can be redefined temporarily ..., by enclosing the above line in
    the pair" / "pushdef(`elen_',dimen_) resistor. . . popdef(`elen_')" / "with the result shown ...")."""
    for k in range(i + 1, min(i + 1 + DISPLAY_LINES, len(lines))):
        if any(ends_sentence(ln["t"]) for ln in lines[i:k]):
            return None
        # the sentence goes on in lower case on a line the ones set apart are indented from (a term at the
        # margin, a definition list's, is no formula inside a sentence; a fraction's "x" under it is the formula's)
        if (lines[k]["t"][:1].islower() and lines[k].get("s")
                and all(ln["b"][0] >= lines[k]["b"][0] + DISPLAY_INDENT for ln in lines[i:k])):
            return k
    return None


def _sentence_start(lines: list[dict], segment: int) -> int:
    """The segment where the sentence that `segment` goes on begins: a segment that opens a line with a
    lower-case word after lines set apart (a line of code, a formula) continues the prose line before them
    when that line ends no sentence (R's "... only if the test files have been installed with" / "make
    install-tests" / "which populates a tests directory ..."; the highlight showed the last piece alone)."""
    i = _first_line(lines, segment)
    if not i or min(lines[i]["s"]) != segment or not _LOWER_WORD.match(lines[i]["t"]):
        return segment  # the first line, a segment that begins mid-line, or no word ("map_ram:")
    for shown in range(1, DISPLAY_LINES + 1):
        j = i - shown - 1  # the line before the lines set apart
        if j < 0:
            break
        before = lines[j]
        if (goes_on_after(lines, j + 1) == i and before.get("s") and not ends_sentence(before["t"])
                and len(PROSE_WORD.findall(before["t"])) >= 3):
            return max(before["s"])
    return segment


def _sentence_on_first_line(lines: list[dict], want: set[int]) -> set[int]:
    """The earlier segment that the first line of `want`'s lines ends (a sentence begun at most
    TAIL_LINES lines above), or nothing: a box never opens with a sentence's last words. ngspice's
    "or current ramp). Then ON or OFF determine the initial state of the switch." showed the tail of
    the sentence that says when ON or OFF are required."""
    first = min(want)
    i = _first_line(lines, first)
    earlier = [s for s in lines[i].get("s") or [] if s < first] if i is not None else []
    if not earlier:
        return set()
    tail = min(earlier)
    start = _first_line(lines, tail)  # at or above line i, which ends the sentence
    pages = {ln["p"] for ln in lines if want & set(ln.get("s") or [])} | {
        ln["p"] for ln in lines[start:i] if tail in (ln.get("s") or [])}
    if start == i or i - start > TAIL_LINES or len(pages) > 1:
        return set()  # begun on that line, long before, or the box across a page break (its page would change)
    return set(range(tail, first))


def _first_line(lines: list[dict], segment: int) -> int | None:
    """The index of the first of `lines` that holds `segment`, None when none does."""
    return next((i for i, ln in enumerate(lines) if segment in (ln.get("s") or [])), None)


def _answer_after(scores: np.ndarray, texts: list[str], want: set[int]) -> set[int]:
    """The segment after a box that ends with a question, when it answers it (prose of ANSWER_WORDS words
    or more that asks nothing itself), else nothing: a manual's FAQ asks before it answers, and the
    question restates the user's best ("Problem: I want to program an ATtiny4/5/9/10 device using a
    serial/parallel bitbang programmer. How to connect the pins?" / "Solution: ... a 1K resistor should be
    placed between the SDO and TPIDATA.", AVRDUDE's manual; the box showed the problem alone). A list of
    questions (a FAQ's contents) and a comment in code ("# Is it time for lunch?" / "}") stay as they are. `texts`:
    the segments' (`segment_texts`)."""
    last = max(want)
    nxt = _next_segment(scores, last)
    if (nxt == last or not texts[last].rstrip().endswith("?") or texts[nxt].rstrip().endswith("?")
            or len(PROSE_WORD.findall(texts[nxt])) < ANSWER_WORDS):
        return set()
    return {nxt}


def _next_segment(scores: np.ndarray, best: int) -> int:
    """The first segment after `best` that has lines to show (`best` itself when none)."""
    for nxt in range(best + 1, len(scores)):
        if np.isfinite(scores[nxt]):
            return nxt
    return best


def segment_highlight(lines: list[dict], segment: int, score: float, page: int | None = None) -> Highlight | None:
    """The highlight of one segment's boxed lines (only those on `page` when given), or None when
    it has none."""
    chosen = [ln for ln in lines if ln.get("b") and segment in (ln.get("s") or [])
              and (page is None or ln["p"] == page)]
    return lines_highlight(chosen, segment, score) if chosen else None


def caption_segments(lines: list[dict]) -> set[int]:
    """Segments made of a caption line ("Table 3: ...") — a table chunk repeats its caption."""
    return {s for ln in lines if caption_kind(ln["t"]) for s in ln.get("s") or []}


def lines_highlight(chosen: list[dict], segment: int, score: float) -> Highlight:
    """The highlight of these boxed lines (the page holding most of them is the hit's page)."""
    by_page: dict[int, list] = {}
    for ln in chosen:
        by_page.setdefault(ln["p"], []).append(tuple(ln["b"]))
    boxes = [(p, union_bbox(bs)) for p, bs in sorted(by_page.items())]
    page, bbox = max(boxes, key=lambda pb: len(by_page[pb[0]]))
    return Highlight(page, bbox, boxes, segment, score)


def _best_row(scores: np.ndarray, lines: list[dict], best: int) -> int:
    """A table chunk repeats its caption in every row group: the caption tells the chunk's rank,
    but the highlight is the best-matching row when the chunk has one (the data asked for)."""
    caption_segs = caption_segments(lines)
    if best not in caption_segs:
        return best
    rows = np.array(scores, dtype=np.float32)
    rows[list(caption_segs)] = -np.inf
    return int(np.argmax(rows)) if np.isfinite(rows).any() else best


def _texts_of(lines: list[dict], seg_vecs: np.ndarray | None) -> list[str]:
    """The text of each segment that has a vector (`segment_texts`); [] without vectors."""
    return segment_texts(lines, len(seg_vecs)) if seg_vecs is not None else []


def _segment_scores(seg_vecs: np.ndarray | None, qvec: np.ndarray, texts: list[str], terms: list[str],
                    idf: dict[str, float] | None = None) -> np.ndarray:
    """Per segment (its text in `texts`, `_texts_of`): pooled-vector similarity + term overlap − a penalty for
    heading-like fragments; -inf for segments without lines (they cannot be highlighted)."""
    if seg_vecs is None or not len(seg_vecs):
        return np.zeros(0, dtype=np.float32)
    scores = seg_vecs.astype(np.float32) @ qvec.astype(np.float32)
    scores = scores + LEXICAL_WEIGHT * np.array([lexical_overlap(terms, t, idf) for t in texts], dtype=np.float32)
    if ANTONYM_PENALTY and any(_singular(t) in OPPOSITE for t in terms):
        scores = scores - ANTONYM_PENALTY * np.array([opposes(terms, t) for t in texts], dtype=np.float32)
    # heading-like fragments rarely hold the answer: a small penalty below SHORT_WORDS words
    words = np.array([len(t.split()) for t in texts], dtype=np.float32)
    scores = scores - SHORT_PENALTY * np.clip(SHORT_WORDS - words, 0, None)
    scores[np.array([not t for t in texts])] = -np.inf
    return scores


def iou(a: BBox, b: BBox) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    if inter <= 0:
        return 0.0
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area > 0 else 0.0
