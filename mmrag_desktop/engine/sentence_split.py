"""One sentence splitter: the segments of ingested chunks (ingest/chunking.py), extractive
selection, citation checks and support checks.

A boundary is sentence-final punctuation (. ! ?) followed by white space and something that can
open a sentence (a capital letter, a digit, a quote, a bracket, a bullet). A full stop does not end
a sentence after an abbreviation that is usually followed by more of the same sentence ("Fig. 3",
"approx. 5 V", "e.g. the", "No. 4", "Eq. 2.1", "vs. time"; one that stands before a number does before a
capitalised word: "... a planar path p. As illustrated ...") or inside a number ("3.3 V"), nor right after an
opening quote or bracket, where it opens a name ("a directive of the form “. EQU exp” ..."). A single
capital is not taken for an initial: in manuals it is a unit or a name ("5 V.", "part A."). With `newlines=True` every line break is a boundary
too (evidence text whose lines are list items, table rows or headings), unless a lower-case word
follows it (a wrapped line) and no full stop ends the line, or the line ends with an article, a preposition or a
conjunction, or a comma after prose (`line_runs_on`: "Moving data from R16 to DDRB and" / "PORTB is done ..."), or the line
is cut inside a cross-reference's parenthesis ("... graphs (Chapter 5" / "[X-y Plots], page 19), ...") or prose goes on into one, or a line that ends with a value ("Default: 0.1")
is followed by one that opens with a name in code ("timing/dslope=..."), and so is a bullet; the end of a line that starts with a prompt ("> ",
"$ ") is one before a name in code too ("install.packages can install ..."), and so are both ends of a
reference entry's header line ("telnet_port [number] [Config Command]") and of a declaration's ("real[]
cubicroots(real a, real b, real c, real d);"), and the end of a heading of
one or two words above a line in lower case ("Description" / "fd_domain(Vars, ...) constraints ..."), and
the end of a line of code that closes a comment or a brace (a C structure's members, "... /* ... */"). With `clauses=True` a semicolon or colon followed
by white space and a capital or digit ends a piece too ("Note: The device ...", "...; Pin 2 ...":
chunk segments, the units search highlights).

    >>> split_sentences("See Fig. 3 for the pins. The supply is approx. 5 V. Done.")
    ['See Fig. 3 for the pins.', 'The supply is approx. 5 V.', 'Done.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Abbreviations after which a full stop rarely ends the sentence (lower-cased, without the dot); a journal's
# ("Phys. Rev. B 48, 11705": Elk's "We follow the convention of Sipe and Ghahramani in Phys." was a sentence).
ABBREVIATIONS = frozenset(
    """fig figs eq eqs no nos sec secs sect ch chap chapt fn approx ca cf vs resp ref refs tab tbl vol pp p pg
    e.g i.e etc al min max typ nom incl excl dept esp st mr mrs dr prof jr sr inc ltd co corp
    art para app appx ex opt def phys rev lett proc appl""".split()
)
# "etc." and "e.g." often do end a sentence only before a capital that starts a new thought; keep
# them as non-final only before a lower-case word or a number ("log. 0", a logical zero: MCU 8051 IDE's
# "(GREEN == log. 0; RED == log. 1; GRAY == not connected, etc.)" was cut into three, and the answer
# quoted "(GREEN == log." and "1; GRAY == not connected, etc.)" without the piece between them).
_SOFT = frozenset({"etc", "al", "min", "max", "log"})
# Abbreviations that stand before a number or a letter ("p. 23", "Fig. 3", "No. 4", "Sec. A.2"): before a
# capitalised word they end the sentence ("... to a planar three-dimensional path p. As illustrated ...":
# Asymptote's path p, not a page)
_NUMBERED = frozenset(
    """fig figs eq eqs no nos sec secs sect ch chap chapt fn tab tbl vol pp p pg ref refs art para app appx
    ex""".split()
)

# abbreviations at a line's end that the next line goes on from: "i.e.", "e.g.", "cf.", "viz."
_ANNOUNCING = re.compile(r"(?<![A-Za-z])(?:[a-z]\.[a-z]\.(?:[a-z]\.)?|cf\.|viz\.|vs\.)$", re.I)
_OPENER = r"(?=[\"'(\[\u2018\u201c]?[A-Z0-9\u2022])"  # what can open a sentence
_OPENING_QUOTES = frozenset("\u201c\u2018(")  # a full stop right after one of these opens a name, ends no sentence
_BOUNDARY = re.compile(r"([.!?]+[\"')\]]*)(\s+)" + _OPENER)
_CLAUSE = re.compile(r"([;:])(\s+)" + _OPENER)
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_BULLET = re.compile(r"\s+(?=\u2022)")
_LINE_END_STOP = re.compile(r"(?<![.])\.(?=[ \t]*\n[ \t]*[a-z_])")
# a caption's label at the start of a line: "Figure 2.", "Fig. 3.", "Table 4.1." (its number and full stop
# open the caption's sentence; "See Figure 2. Output goes to ..." is no label)
_CAPTION_LABEL = re.compile(r"(?:^|\n)[ \t]*(?:Figure|Fig\.|Table|Tab\.|Listing|Plate)[ \t]+[A-Z]?\d+(?:[.-]\d+)*\.$")
DOT_LEADERS = re.compile(r"(?:\.\s?){5,}")  # a contents or index line's dot leaders, wherever the line was cut
# a sentence that opens with what the sentence before ends with ("... refer to the /boot/System.map-`uname -r` file."
# / "This file lists the starting addresses for each function, ...", SystemTap's guide): which file, that one says
THIS_NOUN = re.compile(r"^(?:this|that|these|those) ([a-z]{3,})\b(?! (?:is|are|was|were) (?:also |not )?the default\b)", re.I)


def ends_with_noun(sentence: str, noun: str) -> bool:
    """True when `sentence` ends with `noun` (or its plural) and a full stop: what a THIS_NOUN sentence after it names."""
    return sentence.rstrip()[-1:] in ".!?" and re.search(rf"\b{re.escape(noun)}s?\W*$", sentence, re.I) is not None


# a heading of one or two words ("Description", "Templates") above a line that opens in lower case
_SHORT_HEADING = re.compile(r"^[A-Z][a-z]+(?:[ \t][A-Za-z][a-z]+)?[ \t]*$(?=\n[a-z_])", re.M)
# a term of a definition list set on a line of its own, one name in lower case with its description on the line below
# in a capital (Sphinx's: "The following built-in modules exist for this interface:" / "dict" / "Checks against the
# realm dictionary file" / "empty" / "Rejects empty passwords"): no word of the lead-in's or of the description above
TERM_OF_LIST = re.compile(r"^[a-z][a-z0-9_-]{1,30}$")


def list_terms(lines: Sequence[str]) -> set[int]:
    """The indices of `lines` that are terms of such a list (TERM_OF_LIST above a line opening in a capital, not a
    lead-in's): below a lead-in's colon, or below the one-line description of the term two lines up; two terms or more
    in a row (a command typed below "... you do the following:" and its prompt below it, "update" / "Update choice:", is
    no list)."""
    out: set[int] = set()
    for i in range(1, len(lines) - 1):
        said = lines[i + 1].strip()
        if not TERM_OF_LIST.match(lines[i].strip()) or not said[:1].isupper() or said.endswith(":"):
            continue
        before = lines[i - 1].rstrip()
        if before.endswith(":") or (i - 2 in out and before[-1:] not in ":;,-"):
            out.add(i)
    return {i for i in out if i - 2 in out or i + 2 in out}


def term_lines(text: str) -> list[int]:
    """Where the terms of such lists start in `text` (`list_terms`)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    return [starts[i] for i in sorted(list_terms(lines))]


# a shell or interpreter prompt: "$ gpg --verify ...", "> ev <- eigen(Sm)", a program's own ("gpsim> symbol U1.",
# "avrdude> part", "octave> x = 1")
_PROMPT_MARK = r"^(?:[$>%#]|[A-Za-z]\w{1,15}>)"
PROMPT = re.compile(_PROMPT_MARK + r"\s+\S")
# the header line of a reference entry, its kind in brackets at the end (Texinfo's definitions as
# texi2pdf sets them): "telnet_port [number] [Config Command]", "flash banks [Command]". It belongs
# to the description below it, never to the sentence above ("... is not activated." + the header).
DEFINITION_LINE = re.compile(
    r"^[^\s.!?][^\n]{0,100}?(?<![.!?:;,])[ \t]\[(?:[A-Z][a-z]+[ -]){0,2}(?:Command|Function|Variable|Macro|Method|"
    r"Procedure|Driver|Option|Form|Constant|Type|Operator|Class|Hook|Predicate|Instruction)\][ \t]*$", re.M)
# a term line naming a setting with the type of its value, LilyPond's "-d" options' way ("job-count num",
# "aux-files bool", "backend symbol"): its description is on the lines below it (not "the string", "a list")
_NO_NAME = (r"the|an?|this|that|these|those|its|each|every|any|no|one|some|your|our|their|his|her|my|of|as|in|on|to|"
            r"by|for|with|and|or")  # words no setting's name opens with
TYPED_SETTING = re.compile(rf"^(?!(?:{_NO_NAME}) )[a-z][a-z0-9]*(?:-[a-z0-9]+)* "
                           r"(?:num|bool|string|symbol|integer|int|float|real|list|proc)$")
# and BIRD's way, a name of one or two words and its value's type ("watchdog timeout time", "gc period time", "passive
# switch", "preference expr"; not "job count num", no term line of LilyPond's, nor a verb's "set time")
TYPED_OPTION = re.compile(rf"^(?!(?:{_NO_NAME}|is|are|be|set|get|see|use) )"
                          r"[a-z][a-z0-9]*(?:[ -][a-z0-9]+)? (?:switch|time|number|expr|text|prefix)$")
# a C-style declaration on a line of its own, its type before its name ("real[] cubicroots(real a,
# real b, real c, real d);" above "This numerically robust solver returns the real roots of ..."): the
# entry's term, never the wrapped end of the sentence above it
DECLARATION_LINE = re.compile(r"^(?:(?:static|const|unsigned|signed|struct|extern|inline|explicit)[ \t]+)*"
                              r"[A-Za-z_][\w:<>]*(?:\[\])*\**[ \t]+\**[A-Za-z_][\w.:]*\((?:[^()\n]|\([^()\n]*\))*\)"
                              r"[ \t]*;?[ \t]*$", re.M)
# a line that ends with a value ("Default: 0.1", "... 2.6H5.2l") before a line that opens with a name in code
# ("timing/dslope=<0.0 - 1.0> Setting Sets slope for data transitions."): the rows of a list of settings
# (with a note in brackets, or the note alone on the row's last line: "Default: 2 (=2×signal height)")
_VALUE_END = r"(?:(?:\d|\b[Dd]efault:?[ \t]+\S+)(?:[ \t]*\([^()\n]{1,40}\))?|^[ \t]*\([^()\n]{1,40}\))[ \t]*$"
_CODE_OPENS = r"[ \t]*[a-z][\w.-]*[/=_(]"
_LINE_END_VALUE = re.compile(_VALUE_END + r"(?=\n" + _CODE_OPENS + ")", re.M)
_ENDS_WITH_VALUE = re.compile(_VALUE_END)
_OPENS_WITH_CODE = re.compile(_CODE_OPENS)
# the last line of a C signature's parameters, two declarations or more, a pointer or a C type among them ("(fitsfile
# *fptr, int colnum, > int *dispwidth, int *status)", CFITSIO's, its routine's name on the line above), or a pointer that
# closes the brackets a line above opened (Libgcrypt's "void gcry_set_log_handler (gcry handler log t func_log, void" /
# "*cb_data)"), before a line that opens in capitals, its item's number on a line before it or not: the description of
# the next routine ("Return the number of and size of ..."), never the signature's
_C_TYPED = r"(?=[^\n]*(?:\*|\b(?:int|long|short|char|float|double|void|bool|\w+_t)\b))"
_DECLARED = (r"(?:^|[(,>])[ \t]*(?:(?:const|unsigned|signed|struct)[ \t]+)*[A-Za-z_]\w*[ \t]+\**[ \t]*[A-Za-z_]\w*"
             r"(?:\[\w*\])?[ \t]*(?=[,)])")
_PARAMETERS = (rf"^(?:{_C_TYPED}[^\n]*?(?:{_DECLARED}[^\n]*){{2}}"
               r"|[^\n(]*(?<![\w*])\*+[A-Za-z_]\w*(?:\[\w*\])?[ \t]*)\)[ \t]*;?[ \t]*$")  # (or "*cb_data)" closing it)
PARAMETERS_END = re.compile(_PARAMETERS + r"(?:\n\d{1,3}$)?(?=\n[A-Z])", re.M)  # (the item's number goes with it)
_PARAMETERS_LINE = re.compile(_PARAMETERS)
_NEXT_ITEM = re.compile(r"\d{1,3}$|[A-Z]")


def ends_parameters(line: str, following: str) -> bool:
    """True when `line` is the last line of a C signature's parameters and `following` opens the next routine's item (a
    capital, or the item's number alone): `PARAMETERS_END` for two lines."""
    return bool(_PARAMETERS_LINE.match(line) and _NEXT_ITEM.match(following))


# a line of code that closes a comment or a brace ("cmm_profile_t *graytok_profile; /* A specialized profile
# for mapping gray to K */", a member of a C structure): it ends there, whatever the next line opens with
CODE_LINE_END = re.compile(r"(?:\*/|[{}])[ \t]*$", re.M)
# a prompt's line before a line that opens with a name in code ("install.packages can ..."): prose
# in lower case after it continues the sentence ("> ev <- eigen(Sm)" + "will assign this list to ev.")
_PROMPT_LINE = re.compile(_PROMPT_MARK + r"[ \t]+\S.*$(?=\n[a-z]\w*[._(])", re.M)


def is_abbreviation(before: str, after: str) -> bool:
    """True when the full stop ending `before` belongs to an abbreviation; `after`, the text after
    the white space that follows it (its first two characters are read)."""
    m = _LAST_WORD.search(before)
    if not m:
        return False
    word = m.group(1)
    if len(word) == 1 and word.isupper() and before[max(0, m.start() - 1):m.start()] in ("[", "("):
        return True  # an initial opening a bracketed citation: "[D. Andrae in Relativistic ...]", "(J. Smith)"
    if len(word) == 1 and before[max(0, m.start() - 1):m.start()] == "-":
        return False  # an option's letter: Bash's "physical Same as -P." / "pipefail If set, ..." ("-p." is no page)
    low = word.lower().rstrip(".")
    if low in _SOFT:
        return bool(after[:1].isdigit())
    if low in _NUMBERED and after[:1].isupper() and after[1:2].islower():
        return False
    if low in ABBREVIATIONS:
        return True
    return "." in low.strip(".") and len(low) <= 5  # "e.g", "i.e", "a.k.a"


def ends_a_row(line: str, following: str) -> bool:
    """True when `line` ends with a value and `following` opens with a name in code: rows of a list of
    settings ("... Default: 0.1" / "timing/dslope=<0.0 - 1.0> Setting ..."), never one wrapped line."""
    return _ENDS_WITH_VALUE.search(line) is not None and _OPENS_WITH_CODE.match(following) is not None


FINAL_PUNCTUATION = ".!?:;"  # a line ending with one of these ends its sentence (or announces what follows)


def ends_sentence(line: str, following: str | None = None) -> bool:
    """True when `line` ends its sentence: final punctuation, but not an abbreviation's full stop
    ("... a relatively recent version (e.g." / "3.4.4 or later)."). `following`, the text after the
    line when known: before a capital, an abbreviation ends the sentence too ("... etc." / "The ...")."""
    line = line.rstrip()
    if not line or line[-1] not in FINAL_PUNCTUATION:  # ("" is in every string: an empty line ends nothing)
        return False
    if not line.endswith("."):
        return True
    after = following[:1] if following else ""
    if following is not None and not (after.isalnum() and not after.isupper()):
        return True
    return not is_abbreviation(line[-12:], after)


def sentence_spans(text: str, *, newlines: bool = False, clauses: bool = False) -> list[tuple[int, int]]:
    """(start, end) character offsets of each sentence in `text`, white space trimmed. Never raises."""
    cuts: list[int] = []
    for m in _BOUNDARY.finditer(text):
        end = m.end(1)
        if m.group(1) == "." and is_abbreviation(text[max(0, end - 12):end], text[m.end():m.end() + 2]):
            continue
        if m.group(1) == "." and _CAPTION_LABEL.search(text, max(0, end - 24), end):
            continue  # "Figure 2." opening a caption: "Figure 2. Output of the three show commands from Fig. 1"
        if m.group(1)[0] == "." and text[m.start(1) - 1:m.start(1)] in _OPENING_QUOTES:
            continue  # the dot opens a quoted name: "a directive of the form “. EQU exp” is read as ..." (dasm's)
        cuts.append(end)
    cuts.extend(m.end() for m in PARAMETERS_END.finditer(text))
    if clauses:
        cuts.extend(m.end(1) for m in _CLAUSE.finditer(text))
    if newlines:  # a line break before a lower-case word is a wrapped line, not a boundary
        # nor one after an abbreviation that announces more of its sentence ("... on your radio, i.e." /
        # "SAT+Doppler-LO."; "(e.g." / "Yaesu FT-817)."; not "No.": "The default value is: NO." / "GENERATE_LEGEND")
        cuts.extend(m.start() for m in re.finditer(r"\n+(?![a-z])", text)
                    if not _ANNOUNCING.search(text, max(0, m.start() - 12), m.start())
                    and not _runs_on(text, m.start()) and not _in_cross_reference(text, m.start()))
        cuts.extend(m.end() for m in _PROMPT_LINE.finditer(text))
        cuts.extend(m.end() for m in _LINE_END_VALUE.finditer(text))
        cuts.extend(m.start() for m in _BULLET.finditer(text))
        # a full stop that ends a line ends the sentence before a name in lower case too ("Same as
        # sformat metacomment." / "split_var [-module ...]"), unless it ends an abbreviation ("e.g.",
        # and "etc." as before a number: the line goes on in lower case)
        for m in _LINE_END_STOP.finditer(text):
            if not is_abbreviation(text[max(0, m.end() - 12):m.end()], "0") and not _in_address(text, m.end()):
                cuts.append(m.end())
        # a heading of one or two words above a line in lower case ("Description" / "fd_domain(Vars,
        # Lower, Upper) constraints ...") is no sentence the line continues
        cuts.extend(m.end() for m in _SHORT_HEADING.finditer(text))
        for m in DEFINITION_LINE.finditer(text):
            cuts.extend((m.start(), m.end()))
        for m in DECLARATION_LINE.finditer(text):
            cuts.extend((m.start(), m.end()))
        cuts.extend(m.end() for m in CODE_LINE_END.finditer(text))
        cuts.extend(term_lines(text))
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in sorted(set(cuts)) + [len(text)]:
        a, b = start, cut
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
        start = cut
    return spans


# a word a sentence does not end with: the line it ends goes on with a name on the next ("Moving data from R16 to
# DDRB and" / "PORTB is done using both ...", microHOPE), or a comma after prose
_GOES_ON = re.compile(
    r"(?:^|\s)(?:a|an|the|and|or|nor|of|to|in|into|on|onto|at|by|for|from|with|within|without|as|than|that|which|"
    r"whose|is|are|was|were|be|been|its|their|this|these|those|via|per|between|using|both|either|neither)$")
_PROSE_COMMA = re.compile(r"(?:[A-Za-z]+\s+){3}[A-Za-z]+,$")


def _runs_on(text: str, end: int) -> bool:
    """`line_runs_on` for the line of `text` that ends at `end`."""
    return line_runs_on(text[text.rfind("\n", 0, end) + 1:end])


def line_runs_on(line: str) -> bool:
    """True when `line` goes on past its line break: it ends with an article, a preposition or a conjunction (in
    capitals too where the line is set in capitals: the GPL's "... WITH YOU. SHOULD THE" / "PROGRAM PROVE
    DEFECTIVE, ..."), or with a comma after four words of prose."""
    line = line.rstrip()
    if _PROSE_COMMA.search(line):
        return True
    return bool(_GOES_ON.search(line.lower() if line.isupper() else line))


PROSE_WORDS = 4  # words of prose before a cross-reference a line break cuts
BRACKET_WORDS = 4  # words of a cross-reference's parenthesis a line break may cut ("(Chapter 5", "(see Section")
# a cross-reference in parentheses, as Texinfo prints them ("(Chapter 5 [X-y Plots], page 19)", "(see Section 3.2
# [Options], page 12)"), or LaTeX's ("(see Figure 4)")
_XREF = re.compile(r"(?:see(?: also)? |cf\. )?(?:chapter|section|appendix|figure|fig\.|table|page)\b", re.I)
_BRACKET_WORD = re.compile(r"[A-Za-z][A-Za-z.-]*|\d+(?:\.\d+)*")


def opens_cross_reference(line: str) -> bool:
    """True when prose on `line` opens a cross-reference's parenthesis that its line break cuts ("... Gri draws xy
    graphs (Chapter 5" / "[X-y Plots], page 19), contour plots ...", Gri's): at most BRACKET_WORDS words or numbers
    after it, at least PROSE_WORDS words before it. Other brackets left open (code's "ssh:chk_algos_opts(", a note's
    "(possibly from another header") keep their line breaks."""
    opened = line.rfind("(")
    if opened < 0 or ")" in line[opened:]:
        return False
    inside = line[opened + 1:].split()
    return (0 < len(inside) <= BRACKET_WORDS and all(_BRACKET_WORD.fullmatch(w) for w in inside)
            and _XREF.match(line[opened + 1:]) is not None and len(_BRACKET_WORD.findall(line[:opened])) >= PROSE_WORDS)


def _in_cross_reference(text: str, end: int) -> bool:
    """True when the line break at `end` of `text` is inside a cross-reference's parenthesis (`opens_cross_reference`) or
    before one that prose in lower case goes on into ("... and image plots" / "(Chapter 7 [Images], page 29), but it
    will not draw pie-charts ...")."""
    line = text[text.rfind("\n", 0, end) + 1:end]
    if opens_cross_reference(line):
        return True
    after = text[end:].lstrip("\n")
    return (after[:1] == "(" and _XREF.match(after[1:]) is not None and re.search(r"[a-z]$", line) is not None
            and len(_BRACKET_WORD.findall(line)) >= PROSE_WORDS)


def _in_address(text: str, end: int) -> bool:
    """True when the full stop before `end` is inside a web address broken at the line end
    ("https://tiswww.case." / "edu/php/chet/readline/rluserman.html")."""
    word = text[max(0, end - 200):end].split()[-1:] or [""]
    return "://" in word[0] or word[0].startswith("www.")


def split_sentences(text: str, *, newlines: bool = False, clauses: bool = False) -> list[str]:
    """The sentences of `text` (see the module docstring), white space trimmed."""
    return [text[a:b] for a, b in sentence_spans(text, newlines=newlines, clauses=clauses)]
