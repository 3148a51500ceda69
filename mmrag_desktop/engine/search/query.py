"""Query analysis: validation, FTS5-safe keyword queries, exact identifiers, intent.

User text never reaches FTS5 as syntax: every term is quoted.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from dataclasses import dataclass, field

from ..errors import QueryError

MAX_QUERY_CHARS = 2000

STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from has have how i if in into is it its of on or
    s so such that the their then there these this to was we what when where which who why will with
    you your my me our should would could may might must shall about between than any all some no not
    get use using used one""".split()
)

VISUAL_WORDS = frozenset(
    """figure figures fig diagram diagrams schematic schematics plot plots graph graphs chart charts image
    images picture pictures illustration drawing drawings pinout pin-out photo screenshot shown shows look
    looks depicted depict layout curve curves waveform sketch gui window dialog icon symbol""".split()
)
# a visual word written as a name is no visual word: the operating system ("On Windows NT4, ... which buttons do I
# click", Dibbler's guide, pulled its first figure's caption over the steps)
NAMES_NOT_VISUAL = frozenset({"Windows"})
# the word before "image" that makes it a disk, firmware or container image, no picture ("attach the downloaded image
# as its disk" pulled the FreedomBox Manual's VirtualBox screenshots over the steps; "flash the SD card image")
SOFTWARE_IMAGE_WORDS = frozenset(
    """disk disc card sd iso boot bootable system firmware docker container vdi vmdk qcow2 vm virtual virtualbox
    kernel installer installation os downloaded prebuilt pre-built flash live rescue hdd ssd usb memory rom eeprom
    core cloud base""".split()
)
TABLE_WORDS = frozenset(
    """table tables list values value parameters parameter specification specifications spec specs
    maximum minimum max min range ranges default defaults codes options columns rows column row limits
    rating ratings summary compare comparison""".split()
)

# letters and digits of every script, as FTS5's unicode61 tokenizer reads them ("Überlastschutz",
# "压力传感器"); runs joined by . - / stay one word (part numbers, paths)
_WORD_RE = re.compile(r"\w+(?:[.\-/]\w+)*")
# a command-line option as a query or a manual writes it ("avrdude -F", "--prefix"): FTS5 drops the dash
OPTION = r"--?[A-Za-z][\w-]*"
# a dot-command of an input language (SPICE ".save", ".tran"; roff ".TH"): case-insensitive, as those
# languages read it; "file.pdf", "e.g." and "..." are not one
DIRECTIVE = r"\.[A-Za-z][A-Za-z0-9_]+"
_OPTION_RE = re.compile(r"(?<![\w-])" + OPTION + r"|(?<![\w.])" + DIRECTIVE + r"(?!\w|\.\w)")
# a heading's number ("15.6.1 ", "C.12 ", "2.3.4. ")
_HEADING_NUMBER = re.compile(r"^\s*(?:[A-Z]\.)?\d+(?:\.\d+)*\.?\s+")
# a quantity as manuals write it: "5V", "5 V", "5 volts", "3.3 V", "100mA", "10 kHz" (unit -> its word)
_UNITS = {
    "v": "volt", "mv": "millivolt", "kv": "kilovolt", "a": "amp", "ma": "milliamp", "ua": "microamp",
    "\u00b5a": "microamp", "w": "watt", "mw": "milliwatt", "kw": "kilowatt", "hz": "hertz",
    "khz": "kilohertz", "mhz": "megahertz", "ghz": "gigahertz", "ms": "millisecond", "us": "microsecond",
    "\u00b5s": "microsecond", "ns": "nanosecond", "ohm": "ohm", "kohm": "kilohm", "mohm": "megohm",
    "pf": "picofarad", "nf": "nanofarad", "uf": "microfarad", "\u00b5f": "microfarad",
    "uh": "microhenry", "mh": "millihenry", "kb": "kilobyte", "mb": "megabyte", "gb": "gigabyte",
}
_UNIT_WORDS = {w: u for u, w in _UNITS.items()} | {"ampere": "a", "ohms": "ohm", "\u03c9": "ohm"}
_QUANTITY_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([A-Za-z\u00b5\u03a9\u03c9]+)\b")
# a part number: a family's letters, then a model number that has a letter after its first digits
# ("PIC16F1829LIN", "PIC18F452"; not "ATmega328P", "ESP32")
_PART_RE = re.compile(r"([A-Za-z]{2,6})(\d+[A-Za-z]\w{2,})")
# a name written with its sigil ("$stacktrace", "$HOME"); not an amount ("$100")
_SIGIL_NAME = re.compile(r"(?<![\w$])\$[A-Za-z_]\w{2,}")
_FIG_REF_RE = re.compile(r"\b(fig(?:ure)?s?\.?|tables?|tab\.)\s*([0-9]+(?:[.\-\u2013][0-9]+)*)", re.I)


@dataclass
class QueryPlan:
    """What one query turns into."""

    text: str
    terms: list[str]
    fts: str  # OR of quoted terms ('' when nothing searchable)
    identifiers: list[str] = field(default_factory=list)
    exact_phrases: list[str] = field(default_factory=list)  # quoted phrases: identifiers, "Figure N", quantities
    intent: str = "text"  # text | visual | table
    ref_keys: list[str] = field(default_factory=list)  # 'figure:3' style keys named by the query
    options: list[str] = field(default_factory=list)  # command-line options named, as written ("-F")

    @property
    def exact_fts(self) -> str:
        """The phrase query for identifiers / "Figure N" references ('' when there are none)."""
        return " OR ".join(self.exact_phrases)


def plan_query(query: str) -> QueryPlan:
    """Validate and analyse a query. Raises QueryError for empty or absurd input."""
    if query is None or not str(query).strip():
        raise QueryError("the query is empty: type a question or some keywords")
    text = " ".join(str(query).split())
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is too long ({len(text)} characters; limit {MAX_QUERY_CHARS})")
    words = _WORD_RE.findall(text)
    if not words:
        raise QueryError("the query has no letters or digits to search for")
    lowered = [w.lower() for w in words]
    terms = [w for w in lowered if w not in STOPWORDS and len(w) > 1] or lowered
    terms += [v for w in words for v in part_spellings(w)]
    terms += [v for w in lowered for v in symbol_spellings(w)]
    terms += symbols_named(text)
    # FTS5 tokenises '4-12' as '4' '12': split compound words the same way inside a phrase
    fts = " OR ".join(quote_term(t) for t in dict.fromkeys(terms))
    identifiers = [w for w in words if _is_identifier(w)]
    # a name written with its sigil is a name whatever its letters ("$stacktrace", "$urandom": Verilog's
    # system tasks; the tokenizer drops the "$", the exact list keeps the word)
    identifiers += [n[1:] for n in sigil_names(text) if n[1:] not in identifiers]
    phrases = [quote_term(w) for w in dict.fromkeys(identifiers + [v for w in identifiers for v in part_spellings(w)])]
    ref_keys = []
    for m in _FIG_REF_RE.finditer(text):
        kind = "table" if m.group(1).lower().startswith("tab") else "figure"
        number = re.sub(r"[.\u2013]", "-", m.group(2))
        ref_keys.append(f"{kind}:{number}")
        phrases.append(quote_term(f"{kind} {m.group(2)}"))
    phrases.extend(quote_term(form) for form in quantity_forms(text))
    singular = [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in lowered]
    vis = sum(1 for i, (w, s) in enumerate(zip(lowered, singular, strict=True))
              if (w in VISUAL_WORDS or s in VISUAL_WORDS)
              and not (s == "image" and i and lowered[i - 1] in SOFTWARE_IMAGE_WORDS)
              and words[i] not in NAMES_NOT_VISUAL)
    tab = sum(1 for w, s in zip(lowered, singular, strict=True) if w in TABLE_WORDS or s in TABLE_WORDS)
    intent = "visual" if vis > tab and vis > 0 else "table" if tab > 0 else "text"
    options = options_in(text)
    return QueryPlan(text=text, terms=terms, fts=fts, identifiers=identifiers,
                     exact_phrases=list(dict.fromkeys(phrases)),
                     intent=intent, ref_keys=ref_keys, options=options)


# a sign a question writes alone (between spaces or quotes), which a page names in words: "When GAP prints a list with
# a ~ in one of its positions, ..." of GAP's tutorial, which says "Now the tilde in the fourth position of lll denotes
# the object that is currently printed" (the tokenizer drops the sign, the embedder reads it as nothing)
SIGN_NAMES = {"~": "tilde", "^": "caret", "\\": "backslash", "&": "ampersand", "*": "asterisk"}
_LONE_SIGN = re.compile(r"(?:^|(?<=[\s'\"“‘(]))([~^\\&*])(?=$|[\s'\"”’),.?])")


def symbols_named(text: str) -> list[str]:
    """The names of the signs `text` writes alone (`SIGN_NAMES`), lower case, each once: "tilde" of "a ~ in"."""
    return list(dict.fromkeys(SIGN_NAMES[m.group(1)] for m in _LONE_SIGN.finditer(text)))


# two words a question writes apart that a manual may write as one: "job name" / "jobname", "bit width" / "bitwidth",
# "time stamp" / "timestamp" (a LaTeX package's keys and macros, a program's options: bodeplot's change history
# says "Added jobname to gnuplot prefix"); lower-case letters only (not a name: "expEYES Junior"), each of two
# letters or more, no stopword (a lookahead: "job name prefix" gives "jobname" and "nameprefix")
_PAIR_RE = re.compile(r"(?=(?<![\w.-])([a-z]{2,})\s([a-z]{2,})(?![\w-]))")


def joined_pairs(text: str) -> list[str]:
    """Each two neighbouring words of `text` in lower case, as a phrase ("job name"); the search looks them up
    written as one word ("jobname") where its library writes that and never the phrase (Searcher.search)."""
    pairs = [f"{m.group(1)} {m.group(2)}" for m in _PAIR_RE.finditer(text)
             if m.group(1) not in STOPWORDS and m.group(2) not in STOPWORDS]
    return list(dict.fromkeys(pairs))


def split_spellings(word: str) -> list[str]:
    """A word of six letters or more as two words of three letters or more, each way it splits ("changeover" ->
    "cha ngeover", ..., "change over", ...): the phrases a library may write for it (tikz-relay's "change over
    contact" for the question's "changeover"); [] for other words. Callers keep those their library has."""
    if not (word.isalpha() and len(word) >= 6):
        return []
    w = word.lower()
    return [f"{w[:i]} {w[i:]}" for i in range(3, len(w) - 2)]


def part_spellings(name: str) -> list[str]:
    """The other spelling of a part number in its tools' manuals, lower case: the family's first letter
    before the model number ("PIC16F1829LIN" -> "p16f1829lin", as gputils, gpsim and SDCC name their
    processors); [] for a name that is no such part number."""
    m = _PART_RE.fullmatch(name)
    return [m.group(1)[0].lower() + m.group(2).lower()] if m else []


# a Greek letter's name, or "eps" for epsilon as code writes it, then any index: a part of a symbol spelled in Latin
# letters ("C_mu", "sigma_eps1")
_GREEK_PART = re.compile(r"(?P<name>[a-z]+?)(?P<index>\d*)")
_GREEK_SHORT = {"eps": "epsilon"}
GREEK_NAMES = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
               "upsilon phi chi psi omega").split()
_GREEK_LOWER = dict(zip(GREEK_NAMES, "αβγδεζηθικλμνξοπρστυφχψω", strict=True))


def symbol_spellings(word: str) -> list[str]:
    """The ways a typeset formula writes a symbol that `word` (lower case) spells out in ASCII, as the index reads
    them: "c_mu" -> "cμ" (a table's "Cµ"), "c_eps1" -> "cε1", "sigma_k" -> "σk", "k-epsilon" -> "kε" and "k ε"
    ("k − ε"); [] for a word with no Greek letter's name among its parts (split at "_" and "-")."""
    parts = re.split(r"[_-]", word)
    if len(parts) < 2 or not all(parts):
        return []
    forms = []
    for part in parts:
        m = _GREEK_PART.fullmatch(part)
        letter = _GREEK_LOWER.get(_GREEK_SHORT.get(m["name"], m["name"])) if m else None
        forms.append(letter + m["index"] if letter else part)
    if forms == parts:
        return []
    return ["".join(forms), " ".join(forms)]


def quantity_forms(text: str) -> list[str]:
    """Every way a manual may write each quantity `text` names: "5V" -> "5v", "5 v", "5 volt"
    (FTS5's porter stemmer reads "volts" as "volt"); "10 kHz" and "10 kilohertz" alike."""
    out: list[str] = []
    for number, unit in _QUANTITY_RE.findall(text):
        word = unit.lower()
        word = word[:-1] if word.endswith("s") and word[:-1] in _UNIT_WORDS else word
        short = word if word in _UNITS else _UNIT_WORDS.get(word)
        if short is None or unit == "a":  # "3 a" is an article more often than amperes
            continue
        out += [f"{number}{short}", f"{number} {short}", f"{number} {_UNITS[short]}"]
    return list(dict.fromkeys(out))


# counts and rates a number may be followed by besides _UNITS ("1200 rpm", "9600 baud"): no code then
_COUNT_UNITS = frozenset("rpm baud bps kbps mbps ppm dpi s sec secs seconds min h hours days steps cycles samples "
                         "bytes byte bits bit words lines pages points pixels px mm cm m in inch inches deg degrees "
                         "percent times".split())
_CODE_NUMBER = re.compile(r"(?<![\w.,])\d{3,}(?![\w,%]|\.\d)")


def entry_names(plan: QueryPlan) -> list[str]:
    """The codes and register-like names of the query that a reference entry opens with: numbers of
    three digits or more that are no quantity ("error 118") and identifiers with a digit or an
    underscore ("TMR0", "EG_PHY_BRAM"); not acronyms ("TWI", "USB") nor dot-commands, which open
    examples as often as entries."""
    quantities = {number for number, unit in _QUANTITY_RE.findall(plan.text)
                  if unit.lower() in _COUNT_UNITS or quantity_forms(f"{number}{unit}")}
    numbers = [m.group(0) for m in _CODE_NUMBER.finditer(plan.text) if m.group(0) not in quantities]
    names = [w for w in plan.identifiers if "_" in w.strip("_") or any(c.isdigit() for c in w)]
    return list(dict.fromkeys(numbers + names))


_HEX_CODE = re.compile(r"0[xX][0-9A-Fa-f]+")


def entry_codes(plan: QueryPlan) -> list[str]:
    """The numeric codes among `entry_names`: "118" of "What does gpasm error 118 mean?", and
    hexadecimal ones ("0x0008" of "What does flag 0x0008 mean for pads?", PCB's flags table)."""
    return [n for n in entry_names(plan) if n.isdigit() or _HEX_CODE.fullmatch(n)]


# what a question asks for: "What is the X of ...?" and "What X does ... ?" ("What frequency range does
# the HackRF One cover?")
_WHAT_IS_THE = re.compile(r"^\s*what\s+(?:is|are)\s+the\s+((?:[\w-]+\s+){0,3}?[\w-]+?)"
                          r"(?:\s+(?:of|in|for|on|used|that|when|if|by|with)\b|\s*\?|$)", re.I)
_WHAT_X_DOES = re.compile(r"^\s*what\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:does|do|did|can|will|should)\s", re.I)


def asked_phrase(question: str) -> str | None:
    """The words naming what the question asks for ("default radix" of "What is the default radix of
    gpasm?", "frequency range" of "What frequency range does the HackRF One cover?"), or None when
    the question has neither form."""
    m = _WHAT_IS_THE.match(question) or _WHAT_X_DOES.match(question)
    return " ".join(m.group(1).split()) if m else None


# what a how-to question wants done to what: "How do I calibrate my monitor with a colorimeter?", and a question
# whether it can be done: "Can I run replica exchange or parallel tempering simulations with oxDNA?"
_HOW_DO_I = re.compile(r"^\s*(?:how\s+(?:do|can|could|should|would)|can|could)\s+(?:i|you|we|one)\s+"
                       r"(?:(?:also|still|ever)\s+)?[\w-]+\s+"
                       r"(?:(?:a|an|the|my|our|its|this|that)\s+)?((?:[\w-]+\s+){0,2}?[\w-]+?)"
                       r"(?:\s+(?:of|in|for|on|with|from|to|into|at|by|using|so|that|when|if|and|or|over|via|"
                       r"through|without|under|after|before|while|between|as|\w+ly)\b|\s*\?|$)", re.I)


def howto_object(question: str) -> str | None:
    """The thing a how-to question wants something done to ("monitor" of "How do I calibrate my
    monitor with a colorimeter for Gutenprint?", "replica exchange" of "Can I run replica exchange or ...?"), or
    None when the question is no "How do I ...?" or "Can I ...?"."""
    m = _HOW_DO_I.match(question)
    return " ".join(m.group(1).split()) if m else None


def sigil_names(text: str) -> list[str]:
    """The names `text` writes with a "$" ("$stacktrace", "$urandom": Verilog's system tasks; "$HOME"),
    as written; not amounts ("$100")."""
    return list(dict.fromkeys(_SIGIL_NAME.findall(text)))


def options_in(text: str) -> list[str]:
    """The command-line options and dot-commands `text` names, as written, in order ("-F",
    "--prefix", ".save")."""
    return list(dict.fromkeys(_OPTION_RE.findall(text)))


def option_fts(plan: QueryPlan, option: str) -> str:
    """The keyword expression for chunks that may print `option`: its word with any other query
    term ('"f" AND "avrdude" OR "f" AND "option"'; AND binds first in FTS5 and tsquery alike), or
    its word alone when the query has no other term."""
    word = option_word(option)
    others = [t for t in dict.fromkeys(plan.terms) if t != word]
    if not others:
        return quote_term(word)
    return " OR ".join(f"{quote_term(word)} AND {quote_term(t)}" for t in others)


def option_word(option: str) -> str:
    """The word FTS5 indexes for `option` ("-F" -> "f", "--prefix" -> "prefix", ".save" -> "save")."""
    return option.lstrip("-.").lower()


def _option_flags(option: str) -> int:
    # options are case-sensitive ("-F" is not "-f"); dot-commands are not (".SAVE" is ".save")
    return re.I if option.startswith(".") else 0


def starts_with_option(line: str, option: str) -> bool:
    """True when `line` starts with `option` (an entry of an option list: "-F Normally, ...", a
    dot-command's synopsis: ".save vector vector ..."), in quotes or not (Texinfo's @samp entries:
    "‘section_config’ Programmer will erase configuration section ...", AVRDUDE's manual)."""
    return re.match(r"\s*[\u2018'\"\u201c`]?" + re.escape(option) + r"(?![\w-])", line, _option_flags(option)) is not None


def heads_section(section: str, option: str) -> bool:
    """True when the innermost heading of `section` (a ' > ' path) is the entry of `option`, its
    number aside ("15.6.1 .SAVE: Name vector(s) to be saved in raw file" for ".save")."""
    last = section.rsplit(" > ", 1)[-1]
    return starts_with_option(_HEADING_NUMBER.sub("", last), option)


# a reference entry the question names by its kind ("the ToggleVendor action", "the jtag names command")
_ENTRY_NAMED = re.compile(r"\bthe\s+([A-Za-z_][\w.:-]*(?:\s[a-z_][\w.:-]*)?)\s+(?:action|command|function|directive|"
                          r"component|program|utility|driver|module|pass|macro|instruction|keyword|statement|"
                          r"procedure|method)s?\b", re.I)


def entries_named(question: str) -> list[str]:
    """The reference entries `question` names by their kind, as written ("What does the ToggleVendor
    action do?" -> "ToggleVendor"; "What does the jtag names command return?" -> "jtag names")."""
    return list(dict.fromkeys(m.group(1) for m in _ENTRY_NAMED.finditer(question)))


def whatis_line(name: str, text: str) -> bool:
    """True when `text` opens with `name`'s one-line description as a manual page's NAME section gives
    it ("tof − IEC TOF timer - delay falling edge on a signal")."""
    return re.match(re.escape(name) + r"\s+[\u2212\u2013\u2014-]\s+\S", text, re.I) is not None


def titles_section(section: str, name: str) -> bool:
    """True when the innermost heading of `section` is `name` and nothing else, its number aside: a
    reference entry's own heading ("FILL", "__BADRAM": gpasm's directives; not "UPS HOWTO")."""
    return _HEADING_NUMBER.sub("", section.rsplit(" > ", 1)[-1]).strip() == name


def prints_option(text: str, option: str, section: str = "") -> int:
    """3 when the innermost heading of `section` is `option`'s entry, 2 when `text` has a line that
    starts with `option` (an entry of an option list), 1 when it names it elsewhere, 0 when not."""
    if section and heads_section(section, option):
        return 3
    if any(starts_with_option(line, option) for line in text.split("\n")):
        return 2
    named = r"(?<![\w-])" + re.escape(option) + r"(?![\w-])"
    return 1 if re.search(named, text, _option_flags(option)) else 0


def quote_term(term: str) -> str:
    """An FTS5 string literal: the tokenizer splits it into a phrase; quotes are doubled."""
    return '"' + term.replace('"', '""') + '"'


def _is_identifier(word: str) -> bool:
    """Part numbers, register names, function names: digits with letters, CamelCase, snake_case, dotted."""
    has_digit = any(c.isdigit() for c in word)
    has_alpha = any(c.isalpha() for c in word)
    if has_digit and has_alpha:
        return True
    if "_" in word.strip("_") or ("." in word and has_alpha):
        return True
    if len(word) >= 3 and word.isupper() and has_alpha:
        return True
    inner = word[1:]
    return has_alpha and any(c.isupper() for c in inner) and any(c.islower() for c in word)


@functools.cache
def common_words() -> frozenset[str]:
    """General English words (resources/words/common_words.txt: the whole words of BERT's uncased vocabulary)."""
    text = (importlib.resources.files("mmrag_desktop") / "resources" / "words" / "common_words.txt").read_text("utf-8")
    return frozenset(text.split())
