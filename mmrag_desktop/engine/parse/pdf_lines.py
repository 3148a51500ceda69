"""Text lines of a PDF page from PyMuPDF's "dict" extraction: text, box, size, bold, mono (from
"rawdict" on a page with short rules, where a space may be an underscore TeX drew as a rule).

Ligatures are expanded (MuPDF does it when TEXT_PRESERVE_LIGATURES is off; the table
below catches fonts that map them to the Unicode presentation forms anyway), so "ﬁle"
is searchable as "file".
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from ..elements import BBox, Line, union_bbox

LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
    "\u00ad": "",  # soft hyphen: invisible, breaks search
}
# The Symbol font's pieces of tall brackets, braces and bars (Adobe's private-use code points U+F8E5-U+F8FE:
# "bracelefttp", "braceex", ...) are drawing, not text: bytefield's word-group braces read "a misaligned
# 64-bit value \uf8f4 \uf8f4 \uf8f4 ... were taken". Its sans and serif (R), (C) and TM signs are text.
SYMBOL_PIECES = {
    **{chr(c): "" for c in range(0xF8E5, 0xF8FF)},
    "\uf8e8": "\u00ae", "\uf8e9": "\u00a9", "\uf8ea": "\u2122",
    "\uf6d9": "\u00ae", "\uf6da": "\u00a9", "\uf6db": "\u2122",
}
_LIGATURE_TABLE = str.maketrans({**LIGATURES, **SYMBOL_PIECES})
_SYMBOL_PIECE = re.compile("[\uf8e5-\uf8fe]")
_SPACES = re.compile(r"[ \t]{2,}")  # where pieces stood between words
# A TeX font without a ToUnicode map (dvips' Type 3 bitmap fonts, glyphs named "a28") leaves MuPDF the
# font's own codes, which are control characters. In T1 ("Cork", the EC fonts) the f-ligatures are
# 0x1B-0x1F and the dashes and quotes 0x10-0x17: Grace's user's guide reads "\x1cle" for "file" and
# "con\x1cguration", ngspice's manual "\x15enable-osdi" and "curplottitle=\x11a new plot\x11".
TEX_T1_CODES = {
    "\x10": "\u201c",
    "\x11": "\u201d",
    "\x12": "\u201e",
    "\x13": "\u00ab",
    "\x14": "\u00bb",
    "\x15": "\u2013",
    "\x16": "\u2014",
    "\x17": "",  # the compound-word mark: no glyph (">\x17>" is ">>")
    "\x18": "",  # the second zero of a per-thousand sign
    "\x19": "i",  # dotless i and j, under an accent
    "\x1a": "j",
    "\x1b": "ff",
    "\x1c": "fi",
    "\x1d": "fl",
    "\x1e": "ffi",
    "\x1f": "ffl",
}
_TEX_T1_TABLE = str.maketrans(TEX_T1_CODES)
# OT1 (the CM fonts) puts the f-ligatures at 0x0B-0x0F; read only next to a letter, since 0x0B and 0x0C
# are also whitespace
_TEX_OT1_LIGATURE = re.compile(r"(?<=[A-Za-z])[\x0b-\x0f]|[\x0b-\x0f](?=[A-Za-z])")
_OT1_LIGATURES = {"\x0b": "ff", "\x0c": "fi", "\x0d": "fl", "\x0e": "ffi", "\x0f": "ffl"}
_TEX_CODE = re.compile(r"[\x0b-\x1f]")
# (and fonts embedded without the fixed-pitch flag: Asciidoctor PDF's M+ 1mn, "mplus1mn-regular", which set
# DRBD's listings as prose, "chkconfig drbd off" no code; cm-super's typewriter "SFTT1000")
_MONO_FONT = re.compile(
    r"mono|nimbusmon|courier|consol|cmtt|sfmt|sftt|sltt|mplus\w*mn|sourcecode|typewriter|menlo|inconsolata"
    r"|lucidaconsole|\btt", re.I
)
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|cmbx|\bbx", re.I)
# words of a proportional font that make a line prose though most of its characters are monospaced
_PROSE_WORD = re.compile(r"\b[A-Za-z][a-z]{2,}\b")
PROSE_WORDS = 3


# groff sets every hyphen of a manual page as a minus sign (U+2212): "iocontrol.0.start\u2212change",
# "\u2212\u2212help", "\u2212o file". Before a letter or another one it is the hyphen a reader types;
# before a digit it stays the minus of a number ("\u22125 V").
_TYPESET_HYPHEN = re.compile("\u2212(?=[A-Za-z\u2212])")


# TeX sets an accent as a glyph of its own before the letter it sits over, and the text reads "Debye-H\u00a8uckel",
# "6.3 \u02daA", "\u02c6f" (a hat over f): the spacing accent and its letter are the accented letter ("H\u00fcckel", "\u00c5",
# "f\u0302")
_SPACING_ACCENTS = {"\u00a8": "\u0308", "\u00b4": "\u0301", "\u02c6": "\u0302", "\u02dc": "\u0303", "\u02da": "\u030a",
                    "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02d9": "\u0307"}
# (not in a word of code: "\u02c6ci-debian-altroot--.*$" is a regular expression's caret, NUT's user manual)
_ACCENT_BEFORE = re.compile("([" + "".join(_SPACING_ACCENTS) + r"])([^\W\d_])(?![^\s$*^\\|{}]*[$*^\\|{}])")


def normalize_text(text: str) -> str:
    """Expand ligatures (also those a TeX font without a ToUnicode map leaves as control characters,
    with its dashes and quotes), drop soft hyphens and the Symbol font's bracket pieces, join a spacing accent to
    the letter after it (_ACCENT_BEFORE), and read a minus sign before a letter as a hyphen; returns the cleaned
    string."""
    if _TEX_CODE.search(text):
        text = _TEX_OT1_LIGATURE.sub(lambda m: _OT1_LIGATURES[m.group()], text).translate(_TEX_T1_TABLE)
    pieces = _SYMBOL_PIECE.search(text)
    text = text.translate(_LIGATURE_TABLE)
    if pieces:
        text = _SPACES.sub(" ", text)
    if _ACCENT_BEFORE.search(text):
        text = _ACCENT_BEFORE.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + _SPACING_ACCENTS[m.group(1)]), text)
    return _TYPESET_HYPHEN.sub("-", text)


def has_tex_codes(page_dict: dict[str, Any]) -> bool:
    """True when a span of the page holds a control character a TeX font without a ToUnicode map
    left (see TEX_T1_CODES): MuPDF's word list splits words there and loses the letters."""
    return any(_TEX_CODE.search(s.get("text") or "".join(c["c"] for c in s.get("chars", ())))
               for block in page_dict.get("blocks", ()) if block.get("type", 0) == 0
               for line in block.get("lines", ()) for s in line.get("spans", ()))


def words_from_raw(raw: dict[str, Any]) -> list[tuple]:
    """PyMuPDF word tuples (x0, y0, x1, y1, text, block, line, word) built from a "rawdict"'s
    characters, split at spaces only, each word's text through `normalize_text` ("de\x1cne" is one
    word, "define", where MuPDF's own word list reads "de" and "ne")."""
    out: list[tuple] = []
    for b_no, block in enumerate(raw.get("blocks", ())):
        if block.get("type", 0) != 0:
            continue
        for l_no, line in enumerate(block.get("lines", ())):
            w_no = 0
            chars: list[dict[str, Any]] = []
            for c in [c for s in line.get("spans", ()) for c in s.get("chars", ())] + [{"c": " "}]:
                if c["c"] not in " \t\n\r\u00a0":
                    chars.append(c)
                    continue
                text = normalize_text("".join(ch["c"] for ch in chars))
                if text:
                    x0, y0, x1, y1 = union_bbox([ch["bbox"] for ch in chars])
                    out.append((x0, y0, x1, y1, text, b_no, l_no, w_no))
                    w_no += 1
                chars = []
    return out


def textpage_flags() -> int:
    """Flags for `page.get_textpage`: keep whitespace, clip to the mediabox, no images,
    and do not preserve ligatures (so MuPDF expands them)."""
    import pymupdf

    return pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP


def lines_from_dict(page_dict: dict[str, Any], page_no: int) -> list[Line]:
    """One `Line` per non-empty PyMuPDF line, in extraction order.

    `size` is the size covering most characters; `bold` / `mono` are true when more than
    half of the non-space characters are bold / monospaced (by font flags or font name); a line
    with PROSE_WORDS or more words in a proportional font is prose, however long its monospaced
    addresses and paths ("The -P portname option defaults to /dev/spidev0.0:/dev/gpiochip0 for
    this program-": read as code, its broken word was never joined and its sentence never whole).
    """
    out: list[Line] = []
    # each line's size and note mark, once: the marks that open lines are the footnotes a raised number in the
    # text may refer to (`_note_refs`)
    sized = [(line, size, _note_mark(line.get("spans", ()), size))
             for block in page_dict.get("blocks", ()) if block.get("type", 0) == 0
             for line in block.get("lines", ()) for size in [_line_size(line.get("spans", ()))]]
    marks = frozenset(mark for _, _, mark in sized if mark)
    for line, size, note_mark in sized:
        spans = line.get("spans", ())
        text = normalize_text("".join(_span_texts(spans, marks))).strip()
        if not text:
            continue
        chars = bold = mono = prose = 0
        for s in spans:
            n = len(s.get("text", "").strip())
            if not n:
                continue
            chars += n
            if s.get("flags", 0) & 16 or _font_style(s.get("font", ""))[0]:
                bold += n
            if _is_mono(s):
                mono += n
            else:
                prose += len(_PROSE_WORD.findall(s.get("text", "")))
        bbox: BBox = tuple(round(float(v), 2) for v in line["bbox"])  # type: ignore[assignment]
        out.append(
            Line(
                text=" ".join(text.split()) if "  " in text or "\t" in text else text,
                page=page_no,
                bbox=bbox,
                size=size,
                bold=chars > 0 and bold * 2 > chars,
                mono=chars > 0 and mono * 2 > chars and prose < PROSE_WORDS,
                note_mark=note_mark,
            )
        )
    return out


SUPERSCRIPT = 1  # MuPDF's span flag for a raised, smaller span
_EXPONENT = re.compile(r"^[0-9\u2212-]")


def _exponent_starts(spans: Any) -> list[bool]:
    """For each span: True when it opens an exponent, a raised span of digits (or a minus) right
    after a number ("10" + raised "6" is 10^6, not 106; "10" + raised "\u2212" "3" is 10^\u22123)."""
    out = []
    prev = None
    for s in spans:
        t = s.get("text", "")
        out.append(bool(prev is not None and s.get("flags", 0) & SUPERSCRIPT and _EXPONENT.match(t)
                        and not prev.get("flags", 0) & SUPERSCRIPT and prev.get("text", "")[-1:].isdigit()))
        prev = s
    return out


def _span_texts(spans: Any, marks: frozenset[str] = frozenset()) -> list[str]:
    """The spans' texts, "^" before each exponent (see _exponent_starts), a space between a term in a
    monospaced font and a capitalised word of prose set against it (_term_ends), a footnote's
    reference left out (`_note_refs`, with the page's footnote `marks`)."""
    out = [("^" if start else " " if _term_ends(prev, s) else "") + s.get("text", "")
           for prev, s, start in zip([None, *spans[:-1]], spans, _exponent_starts(spans), strict=True)]
    for i in _note_refs(spans, marks):
        after = out[i + 1][:1] if i + 1 < len(out) else ""
        out[i] = " " if after.isalnum() else ""
    return out


_NOTE_REF = re.compile(r"^(?:\d{1,2}|[*\u2020\u2021])$")
_WORD_END = re.compile(r"[^\W\d_]{3,}[.,;:)]?$")  # a word of three letters or more, maybe its stop


def _note_refs(spans: Any, marks: frozenset[str]) -> list[int]:
    """Indexes of the spans that refer to a footnote of the page: a raised number or note symbol set
    smaller right after a word of three letters or more (tikz-relay's "an anchor named2 output 1",
    R's "the commands4"), whose mark opens a line of the page (`lines_from_dict`'s marks). A raised digit
    after a letter is an exponent otherwise ("x2", "cm2", expEYES' "L = \u00b5N2A" on a page with a
    footnote 2: two letters)."""
    out = []
    for i in range(1, len(spans)) if marks else ():
        s, prev = spans[i], spans[i - 1]
        t = s.get("text", "").strip()
        if (t in marks and s.get("flags", 0) & SUPERSCRIPT and _NOTE_REF.match(t)
                and float(s.get("size", 0.0)) < 0.85 * float(prev.get("size", 0.0))
                and _WORD_END.search(prev.get("text", ""))):
            out.append(i)
    return out


def _line_size(spans: Any) -> float:
    """The size covering most of the line's characters."""
    weight: dict[float, int] = {}
    for s in spans:
        n = len(s.get("text", "").strip())
        if n:
            size = round(float(s.get("size", 0.0)), 1)
            weight[size] = weight.get(size, 0) + n
    return max(weight.items(), key=lambda kv: kv[1])[0] if weight else 0.0


_CAPITALISED = re.compile(r"[A-Z][a-z]")


def _term_ends(prev: Any, span: Any) -> bool:
    """True when `span`, a capitalised word in a proportional font, follows a monospaced `prev` with no
    space between them: a definition list's term and its description set together (GPSBabel's options,
    DocBook through Apache FOP: "-DEnable debugging.", "-x filterRun filter." for "-D", "-x filter")."""
    if prev is None or not _CAPITALISED.match(span.get("text", "")) or not prev.get("text", "")[-1:].isalnum():
        return False  # (not code that opens a quote or a bracket around prose: '"IgnoreCase', "<Btn1")
    # (a subscript set smaller is part of the name: NETGEN's "h" + "Glob")
    return _is_mono(prev) and not _is_mono(span) and span.get("size", 0.0) >= 0.85 * prev.get("size", 0.0)


def _is_mono(span: Any) -> bool:
    return bool(span.get("flags", 0) & 8) or _font_style(span.get("font", ""))[1]


def exponent_marks(page_dict: dict[str, Any]) -> list[tuple[BBox, str]]:
    """(box, text) of every exponent on the page (its raised spans together): where a word of the
    page's word list ("106", "25.4\u00d710\u22126") must read "10^6", "25.4\u00d710^\u22126"."""
    out: list[tuple[BBox, str]] = []
    for block in page_dict.get("blocks", ()):
        for line in block.get("lines", ()) if block.get("type", 0) == 0 else ():
            spans = line.get("spans", ())
            starts = _exponent_starts(spans)
            for i, start in enumerate(starts):
                if not start:
                    continue
                run = [spans[i]]
                for s in spans[i + 1:]:
                    if not s.get("flags", 0) & SUPERSCRIPT or " " in s.get("text", ""):
                        break
                    run.append(s)
                out.append((union_bbox([s["bbox"] for s in run]), "".join(s.get("text", "") for s in run).strip()))
    return out


# TeX draws "\_" in its OT1 fonts as a short rule at the baseline, not a glyph: MuPDF reads the gap
# as a space ("fd labeling", "max atom" for fd_labeling, max_atom)
UNDERSCORE_MAX_HEIGHT = 1.2  # points
UNDERSCORE_WIDTH = (1.5, 8.0)  # about 0.3 em of body text


def underscore_rules(drawings: list[dict[str, Any]]) -> list[BBox]:
    """Boxes of the short thin horizontal rules among a page's drawings (where an underscore may
    be drawn)."""
    out: list[BBox] = []
    for d in drawings:
        r = d.get("rect")
        if r is not None and r.height < UNDERSCORE_MAX_HEIGHT and UNDERSCORE_WIDTH[0] < r.width < UNDERSCORE_WIDTH[1]:
            out.append((float(r.x0), float(r.y0), float(r.x1), float(r.y1)))
    return out


def _in_gap(x0: float, y0: float, x1: float, y1: float, r: BBox) -> bool:
    """True when rule `r` lies in the gap from x0 to x1 of a line from y0 to y1, in its lower half
    or just under it (the baseline)."""
    return r[0] >= x0 - 1.5 and r[2] <= x1 + 1.5 and y0 + (y1 - y0) / 2 < r[1] < y1 + 2.5


def _underscore(box: Any, size: float, rules: list[BBox]) -> str | None:
    """What a space reads as when a rule lies in its gap (`_in_gap`): "_", or "_ " / " _" when the
    gap holds a space besides the rule ("argument_ and"); None when no rule does."""
    x0, y0, x1, y1 = box
    for r in rules:
        if _in_gap(x0, y0, x1, y1, r):
            if (x1 - x0) - (r[2] - r[0]) <= 0.3 * size:
                return "_"
            return "_ " if r[0] + r[2] < x0 + x1 else " _"
    return None


def dict_with_underscores(raw: dict[str, Any], rules: list[BBox]) -> dict[str, Any]:
    """PyMuPDF's "rawdict" of a page as its "dict" (each span's text from its characters), a space
    over a rule of `rules` read as "_". Modifies and returns `raw`."""
    for block in raw.get("blocks", ()):
        for line in block.get("lines", ()) if block.get("type", 0) == 0 else ():
            lx0, ly0, lx1, ly1 = line["bbox"]
            near = [r for r in rules if r[0] >= lx0 - 2 and r[2] <= lx1 + 2 and ly0 <= r[1] <= ly1 + 2.5]
            for s in line.get("spans", ()):
                size = float(s.get("size", 0.0))
                s["text"] = "".join((near and c["c"] == " " and _underscore(c["bbox"], size, near)) or c["c"]
                                    for c in s.get("chars", ()))
    return raw


def join_underscored(words: list[tuple], rules: list[BBox]) -> list[tuple]:
    """`words` (PyMuPDF word tuples) with two words of one line joined by "_" where a rule of
    `rules` fills the gap between them (table cells read "MAX_ATOM", not "MAX ATOM")."""
    if not rules or not words:
        return words
    out = [words[0]]
    for v in words[1:]:
        w = out[-1]
        size = w[3] - w[1]
        if v[5:7] == w[5:7] and any(
            _in_gap(w[2], w[1], v[0], w[3], r) and (v[0] - w[2]) - (r[2] - r[0]) <= 0.3 * size for r in rules
        ):
            out[-1] = (w[0], min(w[1], v[1]), v[2], max(w[3], v[3]), f"{w[4]}_{v[4]}", *w[5:])
        else:
            out.append(v)
    return out


def mark_exponents(words: list[tuple], marks: list[tuple[BBox, str]]) -> list[tuple]:
    """`words` (PyMuPDF word tuples) with "^" before each exponent a word ends with."""
    if not marks:
        return words
    out = []
    for w in words:
        text = w[4]
        for (x0, y0, x1, y1), exp in marks:
            cx = (x0 + x1) / 2
            if (exp and w[0] <= cx <= w[2] and y0 < w[3] and y1 > w[1] and text.endswith(exp)
                    and text[:-len(exp)][-1:].isdigit()):
                text = text[:-len(exp)] + "^" + exp
                break
        out.append(w if text == w[4] else (*w[:4], text, *w[5:]))
    return out


_MARKER = re.compile(r"^(?:\d{1,3}|[*\u2020\u2021\u00a7\u00b6]{1,3}|[a-z])$")


def _note_mark(spans: Any, size: float) -> str:
    """The line's first span when it is a lone number or note symbol set smaller than the rest
    of the line (a footnote mark: TeX sets "1" at ~70% of the text size and raised), else ""."""
    first = next((s for s in spans if s.get("text", "").strip()), None)
    mark = first.get("text", "").strip() if first is not None else ""
    if first is None or first is spans[-1] or not _MARKER.match(mark):
        return ""
    return mark if float(first.get("size", 0.0)) < 0.85 * size else ""


@functools.lru_cache(maxsize=512)
def _font_style(font: str) -> tuple[bool, bool]:
    """(bold, mono) judged from a font name; cached because a document uses few fonts."""
    return bool(_BOLD_FONT.search(font)), bool(_MONO_FONT.search(font))


_LINE_NUMBER = re.compile(r"^\d{1,4}$")
LISTING_NUMBER_RUN = 3  # numbers counting up one by one before a column of them is a listing's
NUMBER_COLUMN = 2.0  # pt: the numbers of one listing start at one left edge


def listing_numbers(lines: list[Line]) -> set[int]:
    """ids of the line numbers printed beside code listings (the Yosys manual numbers every line
    of its command reference: "3 This pass identifies wires ...", a lone "2" for a blank line).

    A listing's numbers are lone integers in a proportional font at one left edge, counting up by
    one from top to bottom (three or more), with monospaced text to their right; row labels of
    data printed in the listing's own font ("01 52.00 111.0 830 5 6.2 no") stay."""
    numbers = [ln for ln in lines if _LINE_NUMBER.match(ln.text) and not ln.mono]
    out: set[int] = set()
    for column in _columns(numbers, lambda ln: ln.bbox[0]):
        column.sort(key=lambda ln: ln.bbox[1])
        runs = [[column[0]]]
        for ln in column[1:]:
            if int(ln.text) == int(runs[-1][-1].text) + 1:
                runs[-1].append(ln)
            else:
                runs.append([ln])
        for run in runs:
            if len(run) >= LISTING_NUMBER_RUN and _mono_beside(run, lines):
                out |= {id(ln) for ln in run}
    return out


# a note in the left margin beside the text, of a word or two (LaTeX's doc class prints each macro a paragraph
# describes there, right-aligned: "\fpure" / "\fmix" beside "Different textbooks use different modifications of the
# symbol f for fugacity, so it" / "is recommended to use the macro \fpure ..."; read as one row with the line beside
# it, every such sentence had a macro's name inside it)
MARGIN_NOTE_WORDS = 2
MARGIN_GAP = 3.0  # points between a margin note's right edge and the text's left edge, at least
_NOT_A_NOTE = re.compile(r"^(?:[\d.,:()+\u2212-]+|\(?[A-Za-z]\)|[ivxIVX]+\.|[\u2022\u25e6\u25aa\u2023*\u2013\u2014-])$")
# nor is a command-line option a list sets right-aligned left of its description (HMMER's manual pages: "--crick" /
# "Only search the bottom (reverse-complement) strand. By", "--cpu <n>" / "Set the number of parallel worker threads
# to <n>. On multicore"): the term the description is of
_OPTION_TERM = re.compile(r"^--?[A-Za-z]")


def margin_notes(lines: list[Line]) -> set[int]:
    """ids of the notes set in the page's left margin: lines of at most MARGIN_NOTE_WORDS words that end left
    of every line of three words or more, each beside one of them or a line of code (_beside_text), either two or
    more sharing their right edge and not their left (set right-aligned, as a column of notes is) or a TeX
    macro's name ("\\cPs"); a number, a list's enumerator or bullet is none (a numbered list's numbers
    right-aligned left of its items, listing_numbers' line numbers). A term left-aligned beside its description
    (a man page's "-v  Verbose output") stays, as does a command-line option set right-aligned (`_OPTION_TERM`)."""
    text = [ln for ln in lines if len(ln.text.split()) > MARGIN_NOTE_WORDS]
    if not text:
        return set()
    left = min(ln.bbox[0] for ln in text) - MARGIN_GAP
    margin = [ln for ln in lines if len(ln.text.split()) <= MARGIN_NOTE_WORDS and ln.bbox[2] <= left
              and not _NOT_A_NOTE.match(ln.text) and not _OPTION_TERM.match(ln.text)
              and _beside_text(ln, [*text, *(c for c in lines if c.mono)])]
    out = {id(ln) for ln in margin if ln.text.startswith("\\")}
    for column in _columns(margin, lambda ln: ln.bbox[2]):
        if len(column) >= 2 and max(ln.bbox[0] for ln in column) - min(ln.bbox[0] for ln in column) > NUMBER_COLUMN:
            out |= {id(ln) for ln in column}
    return out


def _columns(lines: list[Line], edge: Callable[[Line], float]) -> list[list[Line]]:
    """`lines` grouped by one of their edges (`edge`: a left or a right x), each within NUMBER_COLUMN of its group's
    first, in the order the groups first occur."""
    columns: dict[float, list[Line]] = {}
    for ln in lines:
        x = next((k for k in columns if abs(k - edge(ln)) <= NUMBER_COLUMN), edge(ln))
        columns.setdefault(x, []).append(ln)
    return list(columns.values())


def _beside_text(note: Line, text: list[Line]) -> bool:
    """True when a line of `text` (prose or code) runs beside `note`, the two overlapping in height (a graph's
    labels left of its drawing are beside none: dot's "past" / "future")."""
    return any(ln.bbox[1] < note.bbox[3] and ln.bbox[3] > note.bbox[1] and ln.bbox[0] > note.bbox[2] for ln in text)


def _mono_beside(run: list[Line], lines: list[Line]) -> bool:
    """True when most lines to the right of a column of numbers, over its height, are monospaced."""
    top, bottom, right = run[0].bbox[1], run[-1].bbox[3], max(ln.bbox[2] for ln in run)
    beside = [ln for ln in lines if ln.bbox[0] > right and ln.bbox[1] < bottom and ln.bbox[3] > top
              and not _LINE_NUMBER.match(ln.text)]
    return bool(beside) and sum(ln.mono for ln in beside) * 2 >= len(beside)


def char_count(lines: list[Line]) -> int:
    """Number of non-space characters in `lines`."""
    return sum(len(ln.text.replace(" ", "")) for ln in lines)


def merge_row(lines: list[Line]) -> Line:
    """Join lines that sit on one visual row (sorted left to right) into one `Line`."""
    lines = sorted(lines, key=lambda ln: ln.bbox[0])
    if len(lines) == 1:
        return lines[0]
    weights = [max(1, len(ln.text)) for ln in lines]
    main = lines[weights.index(max(weights))]
    return Line(
        text=" ".join(ln.text for ln in lines),
        page=lines[0].page,
        bbox=(
            min(ln.bbox[0] for ln in lines),
            min(ln.bbox[1] for ln in lines),
            max(ln.bbox[2] for ln in lines),
            max(ln.bbox[3] for ln in lines),
        ),
        size=main.size,
        bold=all(ln.bold for ln in lines),
        mono=all(ln.mono for ln in lines),
        note_mark=lines[0].note_mark,
    )
