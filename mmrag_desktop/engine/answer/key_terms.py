"""The checkable facts of a sentence: numbers (with their units) and identifiers.

An answer sentence may only be shown as backed by the manuals when every number, part number,
register / pin / signal name and quoted identifier in it also occurs in the evidence it rests on
(RAGFlow and ALCE found that small models invent exactly these). This module finds those terms
and tells whether a text contains them:

- numbers: "5", "4.5 V", "100 mA", "1,000", "1e-4", "-0.5"; compared by value ("0.50" = "0.5",
  "1e-4" = "0.0001"); a unit written right after the number must be the evidence's unit when the
  evidence gives one there ("5 V" is not backed by "5 mA", but is by a bare "5");
- identifiers: letters mixed with digits ("ATmega328P", "OD0", "74HC595"), ALL-CAPS names of two
  or more letters ("PORTB", "RELTOL"), snake_case, camelCase, names opening in capitals ("CMake"),
  dotted names ("only.values"), command-line options ("--without-fftw", "-DFOO", "-F"), names written
  as calls ("eig()"), and anything in backticks or quotes that is one token; compared
  case-insensitively as whole tokens. For the sentence check (`terms(..., whole=True)`) also section
  and version numbers ("18.7.3") and a word joined by a hyphen to a name with an underscore.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = frozenset(
    """v mv kv uv µv a ma ua µa na ka w mw kw uw µw hz khz mhz ghz s ms us µs ns ps min h
    ohm ohms kohm mohm ω kω mω f pf nf uf µf mf h mh uh µh nh db dbm bit bits byte bytes b kb mb gb
    tb kib mib gib k m g % °c °f c degc pt pts px dpi mm cm in inch inches m baud bps kbps mbps rpm
    ppm lines line pages page points dots cycles samples words chars characters""".split()
)
# ALL-CAPS words that are ordinary English or document furniture, not names of things.
_PLAIN_CAPS = frozenset(
    """I A AN THE AND OR NOT NOTE NOTES OK YES NO PDF FAQ ID IDS EG IE ETC TODO WARNING CAUTION
    ANSWER QUOTES QUOTE INSUFFICIENT EVIDENCE SEE ALSO TIP IMPORTANT AM PM""".split()
)

BRACKETED = re.compile(r"\[[^\[\]\n]{0,40}\]")  # citation markers and other short bracketed text
_LIST_PREFIX = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*\u2022])\s+")
_NUMBER = re.compile(
    r"(?<![\w.])([-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?:\s?([A-Za-z%°µΩω][A-Za-z°µΩω]{0,4})\b)?"
)
# a power as the parser marks an exponent ("10^6", "2^31", "25.4\u00d710^\u22126", parse/pdf_lines.py)
_POWER = re.compile(r"(?<![\w.^])(?:(\d+(?:\.\d+)?)\s?[\u00d7x*]\s?)?(\d+)\^([-+\u2212]?\d{1,3})(?![\w.])")
_TOKEN = re.compile(r"(?<![\w-])(?:--?[A-Za-z][\w-]*|[A-Za-z_][\w]*(?:[.:][A-Za-z_]\w*)*(?:\(\))?|\d+[A-Za-z_]\w*)")
# a section or version number ("18.7.3", "2.0.12") is one term, compared whole: as a number it read as 18.7, and
# "(see 18.7.3)" passed on evidence that says "(see 18.7.2)"
_DOTTED_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?![\w])")
# a word joined to a name by a hyphen ("2-Dmatrix_matchingthe", a small model's garbling of "2-D matrix matching
# the"): the name after the hyphen was not read as a term at all
_HYPHENATED_NAME = re.compile(r"(?<![\w-])\w+(?:-\w+)*-\w*_\w*")
_QUOTED = re.compile(r"`([^`\n]{1,60})`|[\"\u201c]([^\"\u201d\s]{1,40})[\"\u201d]|'([^'\s]{1,40})'")


@dataclass(frozen=True)
class Term:
    """One checkable term: `text` as written; kind "number" (value, unit) or "name" (norm)."""

    text: str
    kind: str
    value: float | None = None
    unit: str = ""
    norm: str = ""


def strip_markers(sentence: str) -> str:
    """The sentence without citation markers ("[1]", "[2, 3]") and a list prefix ("1.", "-")."""
    return _LIST_PREFIX.sub("", BRACKETED.sub(" ", sentence))


def _value(s: str) -> float | None:
    try:
        return float(s.replace(",", "").replace("\u2212", "-"))
    except ValueError:
        return None


def _key(value: float) -> float:
    """A number as it is compared: nine significant digits ("0.50" = "0.5"; 1e-14 is not 1e-12,
    which rounding to nine decimals made both 0)."""
    return float(f"{value:.9g}")


def _powers(text: str) -> tuple[list[tuple[str, float]], str]:
    """The powers in `text` ("10^6" -> 1e6, "25.4\u00d710^\u22126" -> 2.54e-05) as (shown, value),
    and `text` with them blanked (their digits are no numbers of their own)."""
    found = []
    for m in _POWER.finditer(text):
        try:
            value = float(m.group(2)) ** int(m.group(3).replace("\u2212", "-"))
        except (OverflowError, ZeroDivisionError):
            continue
        if m.group(1):
            value *= float(m.group(1))
        found.append((m.group(0), value))
        text = text[: m.start()] + " " * len(m.group(0)) + text[m.end():]
    return found, text


def _unit(u: str | None) -> str:
    u = (u or "").lower()
    return u if u in UNITS else ""


def _is_name(tok: str) -> bool:
    core = tok.rstrip("()")
    if core.lower() in UNITS:  # "mA", "kHz": a unit, checked with its number
        return False
    if core.startswith("-"):  # "--prefix", "-DFOO", and one-letter options ("-F", "-c")
        return len(core.lstrip("-")) >= 1
    letters = sum(c.isalpha() for c in core)
    digits = sum(c.isdigit() for c in core)
    if letters and digits:
        return True
    if "_" in core or "." in core.strip(".") or ":" in core or tok.endswith("()"):
        return True
    if core.isupper() and letters >= 2 and core not in _PLAIN_CAPS:
        return True
    # camelCase, and a name whose first letters are capitals ("CMake", "XFree"; not a plural acronym: "GPUs")
    return bool(re.search(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]{2,}", core))


def terms(sentence: str, *, whole: bool = False) -> list[Term]:
    """The numbers and identifiers of `sentence` (citation markers left out), in order, unique. `whole`: the
    sentence check's reading, where a section or version number ("18.7.3") and a word joined by a hyphen to a name
    with an underscore are terms of their own (elsewhere "18.7.3" reads as the number 18.7, as the answer's ranking
    was measured with)."""
    text = strip_markers(sentence)
    out: dict[tuple, Term] = {}
    for m in _QUOTED.finditer(text):
        q = next(g for g in m.groups() if g is not None).strip()
        if q and len(q.split()) == 1 and any(c.isalnum() for c in q):
            out.setdefault(("name", q.lower()), Term(q, "name", norm=q.lower()))
    powers, masked = _powers(text)
    for shown, v in powers:
        out.setdefault(("number", v, ""), Term(shown, "number", value=v))
    for m in [*_DOTTED_NUMBER.finditer(masked), *_HYPHENATED_NAME.finditer(masked)] if whole else []:
        tok = m.group(0)
        out.setdefault(("name", tok.lower()), Term(tok, "name", norm=tok.lower()))
        masked = masked[: m.start()] + " " * len(tok) + masked[m.end():]
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if _is_name(tok) and not _NUMBER.fullmatch(tok):
            lead = re.match(r"\d+", tok)
            if lead and _unit(tok[lead.end():]):  # "100mA", "5V": a number with its unit
                continue
            out.setdefault(("name", tok.lower().rstrip("()")), Term(tok, "name", norm=tok.lower().rstrip("()")))
            masked = masked[: m.start()] + " " * len(tok) + masked[m.end():]
    for m in _NUMBER.finditer(masked):
        v = _value(m.group(1))
        if v is None:
            continue
        unit = _unit(m.group(2))
        shown = m.group(0).strip() if unit else m.group(1)
        out.setdefault(("number", v, unit), Term(shown, "number", value=v, unit=unit))
    return list(out.values())


class TermIndex:
    """The terms a text holds, for fast look-ups: numbers by value (with the units seen after
    them) and every word-like token, lower-cased."""

    def __init__(self, text: str, *, numbers: bool = True) -> None:
        """`numbers=False`: index names only (text such as an evidence header, whose page number
        must not back a number in an answer)."""
        self.low = " ".join(text.lower().split())
        self.numbers: dict[float, set[str]] = {}
        if not numbers:
            return
        powers, text = _powers(text)
        for _shown, v in powers:
            self.numbers.setdefault(_key(v), set()).add("")
        for m in _NUMBER.finditer(text):
            v = _value(m.group(1))
            if v is not None:
                self.numbers.setdefault(_key(v), set()).add(_unit(m.group(2)))
        for m in re.finditer(r"(\d+(?:\.\d+)?)([A-Za-z%µΩω]{1,4})\b", text):  # "100mA", "3.3V"
            v = _value(m.group(1))
            if v is not None and _unit(m.group(2)):
                self.numbers.setdefault(_key(v), set()).add(_unit(m.group(2)))

    def has(self, term: Term) -> bool:
        """True when this text contains `term` (see the module docstring for how they compare)."""
        if term.kind == "number":
            units = self.numbers.get(_key(term.value))
            if units is None:
                return False
            return not term.unit or term.unit in units or "" in units
        return re.search(r"(?<![\w])" + re.escape(term.norm) + r"(?![\w])", self.low) is not None


def missing_terms(sentence_terms: list[Term], *indices: TermIndex) -> list[Term]:
    """The terms that none of `indices` contains."""
    return [t for t in sentence_terms if not any(ix.has(t) for ix in indices)]
