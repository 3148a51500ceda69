"""Guards that stop a model while it generates: loops, garbled text, evidence echoed back.

Small models fall into a few failure modes that no later check can repair, only hide:
- a loop: the same phrase or sentence again and again ("The project is ... [1]" four times), or
  one character repeated ("=========");
- garbled text: U+FFFD replacement characters (copied from a badly encoded PDF) or mojibake
  ("Ã©", "â€™");
- the evidence echoed back: a block header ("(manual.pdf, page 248, section: ...)") or a whole
  block copied out instead of an answer.

`OutputGuard.check(text)` is called with the whole raw text so far after each piece; when a guard
fires it returns a `GuardStop` saying where to cut (the start of the offending sentence, so what
stays ends cleanly) and a plain-words notice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

NGRAM = 5  # words
NGRAM_REPEATS = 3  # the third time a 5-word run appears, it is a loop
ECHO_WORDS = 40  # this many consecutive words copied from one block is an echo, not a quote
_CHAR_RUN = re.compile(r"(\S)\1{19,}")
_GARBLED = re.compile(r"\ufffd(?:\s?\ufffd)+|\ufffd.{0,3}\ufffd|Ã[\x80-\xbf\u00a0-\u00bf]|â€[\x80-\xbf\u2018-\u201d\u2122\u0153]")
_HEADER = re.compile(
    r"\(\s*[^()\n]{1,120}?\.(?:pdf|md|markdown|png|jpe?g|json|txt)\s*,\s*page\s+\d+|"
    r"\[\d+\]\s*\((?:table, |figure, |caption, |code, |formula, )?section:|\(section:", re.I)
_WORD = re.compile(r"\S+")


@dataclass
class GuardStop:
    """Where to cut the raw text and why (`guard`: "loop" | "garbled" | "echo")."""

    guard: str
    cut: int
    notice: str


def _sentence_start(text: str, pos: int) -> int:
    """The start of the sentence holding `pos` (after the last . ! ? or line break before it)."""
    for i in range(pos - 1, -1, -1):
        if text[i] == "\n" or (text[i] in ".!?" and i + 1 < len(text) and text[i + 1].isspace()):
            return i + 1
    return 0


def _norm(word: str) -> str:
    return re.sub(r"\W+", "", word.lower())


class OutputGuard:
    """Watches one generation (incrementally: each call looks only at the words added since the
    last one). `blocks_text`: the evidence texts the model saw."""

    def __init__(self, blocks_text: Sequence[str] = ()) -> None:
        self._block_grams: set[tuple[str, ...]] = set()
        for t in blocks_text:
            ws = [w for w in (_norm(x) for x in t.split()) if w]
            self._block_grams.update(tuple(ws[i:i + ECHO_WORDS]) for i in range(len(ws) - ECHO_WORDS + 1))
        self._grams: dict[tuple[str, ...], list[int]] = {}
        self._n_gram = 0  # windows of NGRAM words already counted
        self._n_echo = 0  # windows of ECHO_WORDS words already compared

    def check(self, text: str) -> GuardStop | None:
        """The first guard that fires on `text` (the whole raw output so far), or None."""
        m = _GARBLED.search(text) or _CHAR_RUN.search(text)
        if m:
            return GuardStop("garbled", _sentence_start(text, m.start()),
                             "Stopped the model: it wrote garbled characters.")
        m = _HEADER.search(text)
        if m:
            return GuardStop("echo", _sentence_start(text, m.start()),
                             "Stopped the model: it copied evidence headers instead of answering.")
        words = [(w.start(), _norm(w.group(0))) for w in _WORD.finditer(text)]
        words = [(p, w) for p, w in words if w]
        if words and not text[-1:].isspace():
            words.pop()  # the last word may still grow
        seq = [w for _, w in words]
        for i in range(self._n_gram, len(seq) - NGRAM + 1):
            starts = self._grams.setdefault(tuple(seq[i:i + NGRAM]), [])
            starts.append(i)
            self._n_gram = i + 1
            if len(starts) >= NGRAM_REPEATS:
                return GuardStop("loop", _sentence_start(text, words[starts[1]][0]),
                                 "Stopped the model: it was repeating itself.")
        if self._block_grams:
            for i in range(self._n_echo, len(seq) - ECHO_WORDS + 1):
                self._n_echo = i + 1
                if tuple(seq[i:i + ECHO_WORDS]) in self._block_grams:
                    return GuardStop("echo", _sentence_start(text, words[i][0]),
                                     "Stopped the model: it copied a whole evidence block instead of answering.")
        return None
