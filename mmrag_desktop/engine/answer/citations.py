"""Citation markers in model output: parse, validate against the evidence ids, strip the bad ones.

Accepted forms: `[2]`, `[1, 3]`, `[1;3]`, `[2-4]`, `[1][2]`, `[[2]]` (nested brackets are
flattened), and labelled forms models like to write (`[Evidence 2]`, `[source: 1]`). Markers
inside code (fenced blocks, and backtick spans that close on their line within
`INLINE_CODE_MAX` characters) are code, not citations, and are left alone. A lone backtick is
text: manuals quote Verilog's "`define" and TeX's "``quotes''", and such a backtick must not turn
the rest of an answer, its citation markers included, into code.
A marker that looks like a citation but is not one (`[1a]`, `[2.x]`) is malformed and removed.

The same cleaning runs incrementally while tokens stream (`StreamingCitationFilter`) and on the
whole text afterwards (`check_citations`); both give the same text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..sentence_split import sentence_spans

MAX_RANGE = 50  # `[1-1000]` is not a citation range, it is garbage
INLINE_CODE_MAX = 80  # a backtick span longer than this is no inline code (`x[1]`) but stray backticks

_LABEL = r"(?:(?:evidence|source|sources|ref|refs|reference|block|doc|id|citation)s?\s*[:#]?\s*)?"
_IDS = r"\d{1,4}(?:\s*(?:,|;|-|–|and)\s*\d{1,4})*"
# A well-formed marker, possibly wrapped in one or more extra bracket pairs.
_MARK = re.compile(r"(?:\[\s*)+" + _LABEL + r"(" + _IDS + r")\s*(?:\]\s*)*\]", re.IGNORECASE)
# Bracket content starting with a digit that is not a well-formed id list: [1a], [3.x], [2,b]
_MALFORMED = re.compile(r"\[\s*" + _LABEL + r"\d[^\[\]\n]{0,12}\]", re.IGNORECASE)
_CODE = re.compile(r"```|`")
_LEAD_MARKS = re.compile(r"((?:\[[^\[\]]*\]\s*)+)")
_WORD = re.compile(r"[A-Za-z]{2,}")


@dataclass
class CitationMark:
    """One marker found in text: character span, raw text, ids it cites, malformed flag."""

    start: int
    end: int
    raw: str
    ids: list[int]
    malformed: bool = False


def _expand(ids_text: str) -> tuple[list[int], bool]:
    """Ids listed in a marker's body; second item False when a range is absurd."""
    out: list[int] = []
    parts = re.split(r"\s*(?:,|;|and)\s*", ids_text)
    for part in parts:
        rng = re.fullmatch(r"(\d+)\s*[-–]\s*(\d+)", part)
        if rng:
            lo, hi = int(rng.group(1)), int(rng.group(2))
            if hi < lo or hi - lo > MAX_RANGE:
                return [], False
            out.extend(range(lo, hi + 1))
        elif part.strip().isdigit():
            out.append(int(part))
        else:
            return [], False
    return out, True


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of code: fenced blocks (an unclosed fence runs to the end) and inline
    backtick spans closed on the same line within INLINE_CODE_MAX characters (CommonMark: a
    backtick without its closer is literal text)."""
    spans: list[tuple[int, int]] = []
    fence_at: int | None = None
    opener: int | None = None  # an inline span's opening backtick
    for m in _CODE.finditer(text):
        if m.group(0) == "```":
            if fence_at is None:
                fence_at, opener = m.start(), None
            else:
                spans.append((fence_at, m.end()))
                fence_at = None
        elif fence_at is not None:
            continue
        elif opener is not None and _closes(text, opener, m.start()):
            spans.append((opener, m.end()))
            opener = None
        else:
            opener = m.start()  # an earlier opener without its closer was a literal backtick
    if fence_at is not None:
        spans.append((fence_at, len(text)))
    return spans


def _closes(text: str, opener: int, closer: int) -> bool:
    """True when the backtick at `closer` can close an inline span opened at `opener`."""
    return closer - opener <= INLINE_CODE_MAX and "\n" not in text[opener:closer]


def _open_inline(text: str) -> int | None:
    """Where an inline code span may still be opening at the end of streamed `text` (a backtick
    whose closer may yet come), else None."""
    ticks = list(_CODE.finditer(text))
    if not ticks or ticks[-1].group(0) == "```":
        return None
    at = ticks[-1].start()
    if any(a <= at < b for a, b in _code_spans(text)):  # it closed a span
        return None
    return at if len(text) - at <= INLINE_CODE_MAX and "\n" not in text[at:] else None


def find_marks(text: str) -> list[CitationMark]:
    """All citation markers in `text` outside code, in order. Never raises."""
    code = _code_spans(text)

    def in_code(pos: int) -> bool:
        return any(a <= pos < b for a, b in code)

    marks: list[CitationMark] = []
    taken: list[tuple[int, int]] = []
    for m in _MARK.finditer(text):
        if in_code(m.start()):
            continue
        ids, ok = _expand(m.group(1))
        marks.append(CitationMark(m.start(), m.end(), m.group(0), ids, malformed=not ok))
        taken.append((m.start(), m.end()))
    for m in _MALFORMED.finditer(text):
        if in_code(m.start()) or any(a <= m.start() < b for a, b in taken):
            continue
        marks.append(CitationMark(m.start(), m.end(), m.group(0), [], malformed=True))
    marks.sort(key=lambda c: c.start)
    return marks


def parse_ids(text: str) -> list[int]:
    """Every id cited in `text` (valid or not), unique, in order of first appearance."""
    seen: dict[int, None] = {}
    for mark in find_marks(text):
        for i in mark.ids:
            seen.setdefault(i, None)
    return list(seen)


def format_mark(ids: Iterable[int]) -> str:
    """The canonical marker for `ids`: `[1]` or `[1, 3]`."""
    return "[" + ", ".join(str(i) for i in ids) + "]"


@dataclass
class CleanResult:
    """Text with only valid citations left, and what was kept/removed (in order)."""

    text: str
    cited: list[int] = field(default_factory=list)
    removed: list[int | str] = field(default_factory=list)
    refs_total: int = 0  # id references the model wrote (a malformed marker counts once)
    refs_valid: int = 0


def clean_citations(text: str, valid_ids: Iterable[int]) -> CleanResult:
    """Rewrite every marker to its valid ids (canonical form) or delete it.

    Invalid ids are reported in `removed` as ints, malformed markers as their raw text.
    Whitespace directly before a deleted marker is deleted with it.
    """
    valid = set(valid_ids)
    res = CleanResult(text="")
    out: list[str] = []
    pos = 0
    for mark in find_marks(text):
        out.append(text[pos : mark.start])
        pos = mark.end
        if mark.malformed:
            res.refs_total += 1
            res.removed.append(mark.raw)
            keep: list[int] = []
        else:
            keep = []
            for i in mark.ids:
                res.refs_total += 1
                if i in valid:
                    res.refs_valid += 1
                    if i not in keep:
                        keep.append(i)
                else:
                    res.removed.append(i)
        if keep:
            out.append(format_mark(keep))
            for i in keep:
                if i not in res.cited:
                    res.cited.append(i)
        elif out:
            out[-1] = out[-1].rstrip(" \t")
    out.append(text[pos:])
    res.text = "".join(out)
    return res


def marked_sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of an answer (the shared splitter, sentence_split.py; a line
    break ends a sentence, so list items are sentences); a marker that opens a sentence
    ("... done. [2] Next") belongs to the previous one."""
    out: list[tuple[int, int]] = []
    for a, b in sentence_spans(text, newlines=True):
        lead = _LEAD_MARKS.match(text, a, b)
        if lead and out and find_marks(lead.group(1)):
            out[-1] = (out[-1][0], a + len(lead.group(1).rstrip()))
            a += len(lead.group(1))
            if not text[a:b].strip():
                continue
        out.append((a, b))
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences of an answer; a marker that opens a sentence belongs to the previous one."""
    return [text[a:b] for a, b in marked_sentence_spans(text)]


def unsupported_sentences(text: str, valid_ids: Iterable[int]) -> list[str]:
    """Sentences with at least three words and no valid citation (headings ending in ':' and
    the 'insufficient evidence' reply are not claims)."""
    valid = set(valid_ids)
    code = _code_spans(text)
    flagged = []
    for s in split_sentences(text):
        if len(_WORD.findall(s)) < 3 or s.rstrip().endswith(":") or "insufficient evidence" in s.lower():
            continue
        start = text.find(s)
        if start >= 0 and any(a <= start < b for a, b in code):
            continue
        if not any(i in valid for m in find_marks(s) if not m.malformed for i in m.ids):
            flagged.append(s)
    return flagged


@dataclass
class CitationCheck:
    """The result of checking a whole answer."""

    text: str
    cited: list[int]
    removed: list[int | str]
    refs_total: int
    refs_valid: int
    unsupported: list[str]

    @property
    def valid_share_before(self) -> float | None:
        """Share of the model's id references that were valid before the check (None: none)."""
        return self.refs_valid / self.refs_total if self.refs_total else None


def check_citations(text: str, valid_ids: Iterable[int]) -> CitationCheck:
    """Clean `text` (see `clean_citations`) and flag sentences left without a valid citation."""
    valid = list(valid_ids)
    res = clean_citations(text, valid)
    return CitationCheck(
        text=res.text,
        cited=res.cited,
        removed=res.removed,
        refs_total=res.refs_total,
        refs_valid=res.refs_valid,
        unsupported=unsupported_sentences(res.text, valid),
    )


def _hold_from(pending: str) -> int:
    """Where text that may still turn into (or extend) a marker, or open an inline code span that
    would hide markers, begins; len(pending) if nowhere."""
    tick = _open_inline(pending)
    i = _marker_hold(pending)
    return i if tick is None else min(i, tick)


def _marker_hold(pending: str) -> int:
    """Where text that may still turn into (or extend) a marker begins; len(pending) if nowhere."""
    i = pending.rfind("[")
    if i < 0:
        return len(pending)
    tail = pending[i + 1 :]
    close = tail.find("]")
    if close < 0:
        if len(tail) > 40:
            return len(pending)
    elif tail[close:].strip("] \t\n"):
        return len(pending)  # a finished marker followed by text: nothing can change it
    while i > 0 and pending[i - 1] in "[ \t":
        i -= 1
    return i


class StreamingCitationFilter:
    """Cleans citations while tokens stream.

    `feed(piece)` returns (text safe to show now, valid ids cited for the first time). Text that
    could still become or extend a marker (an unclosed `[...`) and trailing whitespace (it may
    precede a marker that will be deleted) are held back until the next piece or `flush()`.
    The whole text so far is re-cleaned on each feed (answers are short), so the concatenated
    output always equals `clean_citations(whole_text).text`.
    """

    def __init__(self, valid_ids: Iterable[int]):
        self.valid = list(valid_ids)
        self._raw = ""
        self._emitted = ""
        self._cited: list[int] = []
        self.result = CleanResult(text="")

    def _emit(self, upto: int) -> tuple[str, list[int]]:
        res = clean_citations(self._raw[:upto], self.valid)
        if not res.text.startswith(self._emitted):  # cannot happen by construction; never retract
            return "", []
        delta = res.text[len(self._emitted) :]
        self._emitted = res.text
        new = [i for i in res.cited if i not in self._cited]
        self._cited.extend(new)
        self.result = res
        return delta, new

    def feed(self, piece: str) -> tuple[str, list[int]]:
        """Add streamed text; return (cleaned text to show, newly cited valid ids)."""
        self._raw += piece
        hold = _hold_from(self._raw)
        upto = len(self._raw[:hold].rstrip(" \t\n"))
        return self._emit(upto)

    def flush(self) -> tuple[str, list[int]]:
        """End of stream: clean and return whatever was held back."""
        return self._emit(len(self._raw))

    @property
    def raw_text(self) -> str:
        """Everything the model produced, uncleaned."""
        return self._raw
