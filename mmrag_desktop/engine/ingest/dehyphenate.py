"""Words hyphenated at a line end, joined again before chunking.

Typeset manuals break words across lines: "the resistance to be calcu-" / "lated from geometric
information", "the de-" / "fault value". Kept as printed, the chunk holds the pieces "calcu" and
"lated": keyword search does not find "calculated" there, the embedder reads two non-words, and an
answer quotes "calcu- lated". The tail of the word moves up to the line that holds its head (both
lines keep their boxes, so a highlight still covers both).

Whether the hyphen stays is decided by the document's own words (those seen so far) and a
dictionary (the text embedder's whole-word vocabulary, when it has one): a known joined word
("default") drops it; a compound the document writes with a hyphen ("byte-compiled") keeps it; a
tail that is a suffix ("Benchmark-" / "ing") drops it; a head and tail that are both known words
("network-" / "mounted") keep it; "pre-" / "or post-" stays as printed; anything else, mostly the
pieces of one word ("calcu-" / "lated", "In-" / "voking"), drops it. The errors left are compounds
of words neither source knows ("Debian-" / "based" read as "Debianbased"). A word that doxygen
wrapped with its arrow mark ("__heap\u2190" / "_end") is joined without the mark, in code as well.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import replace

from ..elements import Line

# a line ending in a word's head and its hyphen (not an option "--", not a dash standing alone)
_HEAD = re.compile(r"(?:^|(?<=[\s(\"'\u2018\u201c/]))([A-Za-z]*[a-z])-$")
# the tail of the word and the punctuation that closes it ("at-" / "tribute. Output is ..." moves
# "tribute." up: left behind, ". Output is ..." opens the next line and the full stop ends no sentence);
# the tail of a name with underscores goes up whole ("gs-" / "icc_init_device_profile_struct, which":
# "gsicc_init_device_profile_struct", not "gsicc" and a line opening with "_init_device_profile_struct")
_TAIL = re.compile(r"^([a-z]+(?:_[A-Za-z0-9]+)*)(?:[.,;:!?)\]}'\"\u2019\u201d]+(?=\s|$))?")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
SUFFIXES = frozenset(
    "s es ed ing ings ly er ers est ion ions tion tions sion sions ation ations ment ments ness able ible ity "
    "ities ous al ally ive ize ized izes ise ised ises ic ical ure ures ance ence ant ent ency ancy".split())
SUSPENDED = frozenset({"or", "and", "nor", "to"})  # "pre- or post-processing": the hyphen hangs
# doxygen's mark of a word wrapped at a line end (a left arrow and a hook, which the PDF gives as
# "-" or no character): "__heap_start and __\u2190-" / "heap_end" is "__heap_end", in code too
_WRAPPED = re.compile(r"\u2190[-\ufffd]?$")
_FIRST_TOKEN = re.compile(r"^\S+")


class Vocabulary:
    """The words of a document seen so far (lower-cased), and its hyphenated compounds."""

    def __init__(self, dictionary: Collection[str] = frozenset()) -> None:
        """`dictionary`: lower-case words known beforehand (see the module docstring)."""
        self.dictionary = dictionary
        self.words: set[str] = set()
        self.compounds: set[str] = set()

    def known(self, word: str) -> bool:
        """True for a word of the document or the dictionary."""
        return word in self.words or word in self.dictionary

    def add(self, texts: Iterable[str]) -> None:
        """Learn the words of consecutive lines `texts`; the pieces of a word broken at a line end
        ("calcu-" and the next line's "lated") are not words."""
        broken = False
        for text in texts:
            words = _WORD.findall(text)
            if broken and words and text.lstrip()[:1].islower():
                words = words[1:]
            broken = bool(_HEAD.search(text.rstrip()))
            if broken and words:
                words = words[:-1]
            for w in words:
                w = w.lower()
                if "-" in w:
                    self.compounds.add(w)
                    self.words.update(w.split("-"))
                else:
                    self.words.add(w)

    def keeps_hyphen(self, head: str, tail: str) -> bool:
        """True when "head-" + "tail" is read as a hyphenated compound, False as one word broken."""
        joined, compound = (head + tail).lower(), f"{head}-{tail}".lower()
        if compound in self.compounds and joined not in self.words:
            return True
        if self.known(joined) or tail in SUFFIXES:
            return False
        return len(tail) >= 3 and self.known(tail.lower()) and self.known(head.lower())


def join_hyphenated(lines: list[Line], vocab: Vocabulary) -> list[Line]:
    """`lines` (consecutive lines of one paragraph) with each word broken at a line end joined on
    the first line; a line left empty is dropped. Code (monospaced) lines are left as they are.
    Returns new Line objects where text changed, the same objects elsewhere."""
    out = list(lines)
    i = 0
    while i + 1 < len(out):
        a, b = out[i], out[i + 1]
        wrapped = _WRAPPED.search(a.text.rstrip())
        piece = _FIRST_TOKEN.match(b.text.lstrip()) if wrapped else None
        if piece:
            _move_up(out, i, a.text.rstrip()[: wrapped.start()] + piece.group(), piece.end())
            continue
        head = _HEAD.search(a.text.rstrip()) if not (a.mono or b.mono) else None
        tail = _TAIL.match(b.text.lstrip()) if head else None
        if head and tail and tail.group(1) not in SUSPENDED:
            word_head, word_tail = head.group(1), tail.group(1)
            joint = "-" if vocab.keeps_hyphen(word_head, word_tail) else ""
            if _move_up(out, i, a.text.rstrip()[:-1] + joint + tail.group(), tail.end()):
                continue
        i += 1
    return out


def _move_up(out: list[Line], i: int, joined: str, cut: int) -> bool:
    """Line `i` becomes `joined` (its text with the word's tail); line i + 1 keeps what follows
    `cut` in its stripped text, or is dropped when nothing does. True when it was dropped."""
    b = out[i + 1]
    out[i] = replace(out[i], text=joined)
    rest = b.text.lstrip()[cut:].lstrip()
    if rest:
        out[i + 1] = replace(b, text=rest)
        return False
    del out[i + 1]
    return True
