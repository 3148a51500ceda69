"""Is each sentence of an answer backed by the evidence it cites? The check behind every mark.

A sentence is a *claim* unless it is a lead-in ("... from the manuals:") or too short to state
anything (fewer than three words and no number or name). A claim is `supported` only when

(a) one evidence sentence, or two adjacent ones, of the blocks it cites says the same: MiniLM
    cosine >= `SUPPORT_THRESHOLD` *and* those evidence sentences hold the claim's content words
    (at most `MAX_MISSING_WORDS` of them, and no more than 1 - `MIN_COVERAGE`, missing: a claim
    that adds what the evidence does not say fails even when its topic matches), or the claim is a
    verbatim quote; both thresholds were calibrated on labelled answer sentences
    (bench/support_labels.jsonl, bench/calibrate_support.py; cosine alone passed sentences that
    restate the topic and add invented detail); and
(b) every number (with its unit) and identifier in it occurs in those blocks (key_terms.py).

A claim whose cited blocks fail but another evidence block passes both tests is re-cited to that
block; an uncited claim gets the block that passes (the old "attribution"). What is re-cited or
attributed is reported. Terms that occur in no evidence block at all are listed in `missing`:
the front ends never show them as plain answer text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..sentence_split import split_sentences
from .citations import find_marks, format_mark, marked_sentence_spans
from .confidence import content_terms
from .evidence import EvidenceBlock
from .key_terms import BRACKETED, Term, TermIndex, missing_terms, strip_markers, terms
from .quote_boxes import quoted_words

SUPPORT_THRESHOLD = 0.6
MIN_COVERAGE = 0.9
MAX_MISSING_WORDS = 1
_MIN_WORDS = 3


@dataclass
class Support:
    """The evidence that backs a sentence: block id, its chunk, the evidence text, the cosine."""

    id: int
    chunk_id: int
    text: str
    score: float

    def to_json(self) -> dict:
        return {"id": self.id, "chunk_id": self.chunk_id, "text": self.text, "score": round(float(self.score), 4)}


@dataclass
class SentenceCheck:
    """One sentence of an answer and what the check found (the `sentences[]` item of `ask --json`).

    start/end: offsets of `text` in the answer text; citations: valid ids it carries after the
    check; cited_by_model: the ids the model wrote (before re-citing); missing: its terms found in
    no evidence block; reason: why it is not supported ("" when it is); nearest: the evidence
    sentence closest in meaning among the blocks it cites (all blocks when it cites none), even when
    it does not back the sentence (what the check compared; the threshold's calibration reads it)."""

    text: str
    start: int
    end: int
    citations: list[int] = field(default_factory=list)
    claim: bool = True
    supported: bool = False
    quote: bool = False
    support: Support | None = None
    missing: list[str] = field(default_factory=list)
    reason: str = ""
    cited_by_model: list[int] = field(default_factory=list)
    nearest: Support | None = None
    coverage: float | None = None  # share of its content words in `nearest`

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "citations": list(self.citations),
            "supported": self.supported,
            "claim": self.claim,
            "quote": self.quote,
            "support": self.support.to_json() if self.support else None,
            "missing": list(self.missing),
            "reason": self.reason,
            "start": self.start,
            "end": self.end,
            "nearest": self.nearest.to_json() if self.nearest else None,
            "coverage": self.coverage,
        }


def _words(text: str) -> int:
    return sum(1 for w in text.split() if any(c.isalpha() for c in w))


def is_claim(sentence: str, sentence_terms: Sequence[Term] | None = None) -> bool:
    """False for lead-ins ending in ':' and for fragments of fewer than three words that hold
    neither a name nor a number with a unit (a list enumerator "1." states nothing)."""
    body = strip_markers(sentence).strip()
    if not body or body.endswith(":"):
        return False
    if _words(body) >= _MIN_WORDS:
        return True
    found = sentence_terms if sentence_terms is not None else terms(body)
    return any(t.kind == "name" or t.unit for t in found)


def coverage(sentence_words: Sequence[str], evidence_words: set[str]) -> tuple[float, int]:
    """(share of the sentence's content words found in the evidence, how many are not)."""
    if not sentence_words:
        return 1.0, 0
    missing = sum(w not in evidence_words for w in sentence_words)
    return 1 - missing / len(sentence_words), missing


PIECE_WORDS = 8  # an entry's term quoted before a sentence of its own that is not the next: at most this many words
# a line that holds a page's number alone, a folio the page break left inside a chunk
_FOLIO = re.compile(r"\d{1,4}")


class SupportChecker:
    """Checks answer sentences against one answer's evidence blocks. The evidence sentences (and
    adjacent pairs) are embedded once, on first need; `embedder` is the library's text embedder
    (an `EncodeOnce`), or None, in which case nothing passes test (a) except verbatim quotes."""

    def __init__(self, blocks: Sequence[EvidenceBlock], embedder, threshold: float | None = None,
                 min_coverage: float | None = None):
        self.blocks = {b.id: b for b in blocks}
        self.embedder = embedder
        self.threshold = SUPPORT_THRESHOLD if threshold is None else float(threshold)
        self.min_coverage = MIN_COVERAGE if min_coverage is None else float(min_coverage)
        self.index = {b.id: TermIndex(b.text) for b in blocks}
        self.header_index = {b.id: TermIndex(b.header(), numbers=False) for b in blocks}  # names of sections
        self.units: list[tuple[int, str]] = []  # (block id, one sentence or two adjacent ones)
        for b in blocks:
            sents = split_sentences(b.text.removesuffix(" ..."), newlines=True)
            self.units.extend((b.id, s) for s in sents)
            self.units.extend((b.id, a + " " + c) for a, c in zip(sents, sents[1:], strict=False))
        self._vecs: np.ndarray | None = None
        self._unit_words = [set(content_terms(t)) for _, t in self.units]
        self._plain_text: dict[tuple[int, bool], str] = {}

    def _unit_vectors(self) -> np.ndarray | None:
        if self._vecs is None and self.embedder is not None and self.units:
            self._vecs = self.embedder.encode([t for _, t in self.units])
        return self._vecs

    def _best(self, vec: np.ndarray | None, words: list[str], ids: Iterable[int]) -> tuple[float, int, bool]:
        """(cosine, unit index, passes) of the best unit among blocks `ids`: the closest unit that
        passes test (a) when one does, else the closest; (-1, -1, False) when there is none."""
        vecs = self._unit_vectors()
        idset = set(ids)
        rows = [i for i, (bid, _) in enumerate(self.units) if bid in idset]
        if vec is None or vecs is None or not rows:
            return -1.0, -1, False
        sims = vecs[rows] @ vec
        order = np.argsort(-sims)
        for j in order:
            if sims[j] < self.threshold:
                break
            share, missing = coverage(words, self._unit_words[rows[j]])
            if share >= self.min_coverage and missing <= MAX_MISSING_WORDS:
                return float(sims[j]), rows[j], True
        j = int(order[0])
        return float(sims[j]), rows[j], False

    def _verbatim(self, body: str, ids: Iterable[int], sentence: str, pieces: bool = False) -> tuple[int, str] | None:
        norm = " ".join(quoted_words(body).split()).rstrip(".").lower()
        # the bracketed words the body lost ("[Command]", "[enable|disable]"), citation markers
        # aside, must be the block's too
        marks = [(m.start, m.end) for m in find_marks(sentence)]
        kept = [g.group().lower() for g in BRACKETED.finditer(sentence)
                if not any(a <= g.start() < b for a, b in marks)]
        if _words(norm) + sum(_words(g) for g in kept) < _MIN_WORDS:  # "1." or "Yes" occur anywhere: not a quote
            # (the bracketed words count: "\begin{tikzpicture}[circuit ee IEC relay] ...", a line of tikz-relay's
            # code, is one word without them)
            return None
        for i in ids:
            if (norm and (norm in self._plain(i) or norm in self._plain(i, folios=False) or (pieces and self._in_two(norm, i)))
                    and all(g in self.blocks[i].text.lower() for g in kept)):
                return i, body
        return None

    def _in_two(self, norm: str, block_id: int) -> bool:
        """True when `norm` is two runs of the block's words, the first of at most PIECE_WORDS words: an entry's term
        quoted with a sentence of its description that is not the one right after it ("BANKISEL <label>" / ... / "It will
        use MOVLB or MOVLR in 16 bit devices.", gputils' directives). Only for the quotes the answer places itself."""
        words, plain = norm.split(), self._plain(block_id)
        return any(" ".join(words[:k]) in plain and " ".join(words[k:]) in plain
                   for k in range(1, min(PIECE_WORDS, len(words) - _MIN_WORDS) + 1))

    def _plain(self, block_id: int, folios: bool = True) -> str:
        """A block's text as a checked sentence's body reads it: bracketed text taken out as
        strip_markers takes it out of the sentence ("adapter speed max_speed_kHz [Command] A
        non-zero speed is in KHZ." is a verbatim quote), unmapped glyphs (U+FFFD) dropped, white space single,
        lower case; without `folios`, lines that hold a page's number alone dropped too (a list read across a page
        break: FireHOL's "See also" items "• NAT HOWTO" / "55" / "• netfilter flow diagram", quoted without the 55)."""
        key = (block_id, folios)
        if key not in self._plain_text:
            text = self.blocks[block_id].text
            if not folios:
                text = "\n".join(line for line in text.split("\n") if not _FOLIO.fullmatch(line.strip()))
            # (and without the glyphs the PDF maps to no character, U+FFFD: a synopsis framed by them, dasm's "\ufffd" /
            # "symbol SET exp" / "\ufffd" / "Same as EQU, ...", is quoted as one piece)
            self._plain_text[key] = " ".join(w for w in strip_markers(text).split() if w.strip("\ufffd")).lower()
        return self._plain_text[key]

    def check(self, sentence: str, start: int = 0, end: int | None = None, *, quote: bool = False) -> SentenceCheck:
        """Check one sentence (with its markers) and return what was found; the returned
        `citations` are the ids it should carry (re-cited or attributed where another block backs
        it). Never raises."""
        valid = [i for m in find_marks(sentence) if not m.malformed for i in m.ids if i in self.blocks]
        cited = list(dict.fromkeys(valid))
        res = SentenceCheck(text=sentence, start=start, end=len(sentence) + start if end is None else end,
                            citations=cited, cited_by_model=list(cited), quote=quote)
        body = strip_markers(sentence).strip()
        if quote:  # a change log's entry quoted with its release ("Verilator 3.878 2015-11-01: • Add ..."), a
            # reference entry's sentence with its name ("hmlaa (Source File: hmlaa.f90): Calculates ..."): the
            # release or name is the cited block's section heading, the rest its text
            body = next((t for i in cited or self.blocks if (t := self.blocks[i].without_heading(body)) != body), body)
        found = terms(body, whole=True)
        if not quote and not is_claim(sentence, found):
            res.claim = False
            return res
        res.missing = [t.text for t in missing_terms(found, *self.index.values(), *self.header_index.values())]
        verbatim = self._verbatim(body, cited or self.blocks, sentence, pieces=quote)
        if verbatim is not None:
            bid, text = verbatim
            res.supported, res.quote = True, True
            res.support = Support(bid, self.blocks[bid].hit.chunk_id, text, 1.0)
            res.citations = cited if bid in cited else [bid]
            return res
        vec = self.embedder.encode([body])[0] if self.embedder is not None else None
        words = content_terms(body)

        def passes(ids: list[int]) -> tuple[bool, float, int, list[Term]]:
            absent = missing_terms(found, *(self.index[i] for i in ids), *(self.header_index[i] for i in ids))
            score, unit, ok_meaning = self._best(vec, words, ids)
            return ok_meaning and not absent, score, unit, absent

        ok, score, unit, absent = passes(cited or list(self.blocks))
        if unit >= 0:
            nb, nt = self.units[unit]
            res.nearest = Support(nb, self.blocks[nb].hit.chunk_id, nt, score)
            res.coverage = round(coverage(words, self._unit_words[unit])[0], 3)
        if not cited:
            ok = False  # an uncited claim is attributed below, to one block that backs it alone
        if not ok:  # another block may back it: re-cite (or attribute) to the best such block
            best = None
            for bid in self.blocks:
                if bid in cited:
                    continue
                ok2, s2, u2, _ = passes([bid])
                if ok2 and (best is None or s2 > best[0]):
                    best = (s2, u2, bid)
            if best is not None:
                ok, score, unit = True, best[0], best[1]
                res.citations = [best[2]]
        if ok:
            bid, text = self.units[unit]
            res.supported = True
            res.support = Support(bid, self.blocks[bid].hit.chunk_id, text, score)
            return res
        if res.missing:
            res.reason = "not in any evidence: " + ", ".join(res.missing)
        elif cited and absent:
            res.reason = "not in the cited evidence: " + ", ".join(t.text for t in absent)
        elif score >= self.threshold:
            res.reason = ("the cited evidence is about this but does not say all of it" if cited else
                          "the evidence is about this but does not say all of it")
        elif score >= 0:
            res.reason = "no sentence of the cited evidence says this" if cited else \
                "no sentence of the evidence says this"
        else:
            res.reason = "cites no evidence" if not cited else "the evidence could not be compared"
        return res

    def check_text(self, text: str) -> list[SentenceCheck]:
        """Check every sentence of `text` (the shared answer splitter; quotes are checked one by
        one with `check(..., quote=True)` by whoever placed them)."""
        return [self.check(text[a:b], a, b) for a, b in marked_sentence_spans(text)]


def _with_ids(c: SentenceCheck) -> str:
    """The sentence's text carrying exactly the ids the check gave it."""
    if not c.claim or c.citations == c.cited_by_model:
        return c.text
    marks = find_marks(c.text)
    if c.cited_by_model and marks:  # re-cite: the first marker takes the new ids, the others go
        new = c.text[: marks[0].start] + format_mark(c.citations) + c.text[marks[0].end:]
        for m in reversed(find_marks(new)[1:]):
            new = new[: m.start].rstrip(" ") + new[m.end:]
        return new
    body = c.text.rstrip()  # attribute: the marker goes before the final punctuation
    cut = len(body)
    while cut > 0 and body[cut - 1] in ".!?;":
        cut -= 1
    return f"{body[:cut]} {format_mark(c.citations)}{body[cut:]}"


def recite(text: str, checks: Sequence[SentenceCheck]) -> str:
    """`text` with each checked sentence's markers replaced by the ids the check gave it (a
    re-cited or attributed sentence). Updates each check's text and offsets to the new text."""
    out: list[str] = []
    pos = 0
    for c in checks:
        out.append(text[pos:c.start])
        pos = c.end
        new = _with_ids(c)
        c.start = sum(len(p) for p in out)
        c.text, c.end = new, c.start + len(new)
        out.append(new)
    out.append(text[pos:])
    return "".join(out)
