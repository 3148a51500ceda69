"""Evidence blocks: search hits numbered [1]..[n], neutralised, packed into a token budget."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..elements import BBox
from ..hits import Hit
from ..search.highlight import PROSE_WORD
from ..search.query import OPTION, common_words
from ..sentence_split import (
    CODE_LINE_END,
    DEFINITION_LINE,
    PROMPT,
    ends_a_row,
    ends_parameters,
    ends_sentence,
    list_terms,
)
from .events import Citation

TokenCounter = Callable[[str], int]

# a release history's section ("REVISION HISTORY > ... > 18.1.1 Verilator 5.006 2022-01-22", "Changes in 2.1", Gri's
# "13 History of Gri Versions"; a heading that is only "NEWS", as GNU names the file of what each release changed:
# Valgrind's manual prints its NEWS and OLDER NEWS as chapters)
CHANGELOG = re.compile(r"change ?log|release notes|(?:revision|version|release) history|what.?s new|"
                       r"history of (?:[\w.-]+ ){0,2}(?:versions|releases|changes)\b|^changes (?:from|in)\b|"
                       r"new features|features introduced|^(?:\d+(?:\.\d+)*\.?\s+)?(?:[a-z]+\s+)?news$", re.I)
SECTION_NUMBER = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+")
# the number of a reference entry's heading: digits ("7.94", "2.12.3", "C.241"), not a letter alone (an
# alphabetical list's "S s_")
_ENTRY_NUMBER = re.compile(r"^(?:(?:[A-Z]|\d+)(?:\.\d+)+|\d+)\.?\s+")
# a reference entry's heading: a name in code, then nothing, a parenthesis or a description after a dash
# ("hmlaa (Source File: hmlaa.f90)", "abc - use ABC for technology mapping")
_ENTRY_HEADING = re.compile(r"([A-Za-z_][\w.:$]*)(?:\s*\([^()]*\))?(?:\s+[-\u2013\u2014:]\s+.*)?$")
# a part of a manual page or of DocBook's reference entry, headed by the part's name under the entry's ("Chapter 5.
# Function Reference > raw1394_get_irm_id > Returns", libraw1394's; "NAME", "SYNOPSIS", "DESCRIPTION" of a man page):
# the part's text ("the node ID of the isochronous resource manager of the bus ...") names neither the entry nor its
# part, and what a function returns is said as such
# (both matched whole: `fullmatch`)
_ENTRY_PART = re.compile(r"name|synopsis|description|arguments|parameters|options|returns?|return values?|"
                         r"exit status|errors|notes|environment|files|examples?|see also|bugs", re.I)
_RETURNS_PART = re.compile(r"returns?|return values?", re.I)


def _code_like(name: str) -> bool:
    """A name as code writes it, not a word of a title ("hmlaa", "zflmnconj", "opt_clean", "getX",
    not "Introduction", "Examples", "Using")."""
    if len(name) < 3 or (name.isalpha() and name.isupper()):  # "INTRODUCTION"
        return False
    return name[0].islower() or "_" in name or any(c.isdigit() for c in name) or any(c.isupper() for c in name[1:])


def _program_named(name: str) -> str:
    """`name`, the program a usage line names, or "" for a word of the dictionary ("Usage: The function ...",
    "Usage: make [target]": prose, or a name that says nothing of whose the lines are)."""
    return "" if name.lower() in common_words() else name


# Bracketed text holding a digit ("[3]", "[1, 2]", "[Evidence 7]", "[0; 3]"): in evidence it would
# look like one of our citation markers. An answer shows it with an invisible word joiner after its
# "[" ("[\u20600; 3]" looks like the manual's closed range "[0; 3]" and is never a citation chip;
# fullwidth brackets were tried, and most Linux desktops have no font with them); a prompt gives the
# model parentheses ("(3)"), which it cannot copy back as a marker.
_BRACKETED = re.compile(r"\[(?!\u2060)([^\[\]\n]{0,60}?\d[^\[\]\n]{0,60}?)\]")
SHOWN_BRACKET = "[\u2060"
# The evidence is fenced in the prompt by these tags; text from a document cannot write them.
FENCE_OPEN, FENCE_CLOSE = "<evidence>", "</evidence>"
_FENCE_TAG = re.compile(r"<(\s*/?\s*evidence)", re.I)
_KIND_LABEL = {"table": "table", "figure": "figure", "caption": "caption", "code": "code", "formula": "formula"}


def neutralise(text: str) -> str:
    """Evidence text safe to show in an answer and to put in a prompt (`for_prompt`): a bracketed
    number's "[" is followed by an invisible word joiner, so evidence that itself contains "[3]"
    cannot be mistaken for (or smuggle in) a citation, and an evidence tag loses its "<", so a
    document cannot close the fence around the evidence."""
    return _FENCE_TAG.sub(r"\1", _BRACKETED.sub(SHOWN_BRACKET + r"\1]", text))


def for_prompt(text: str) -> str:
    """`text` (neutralised or not) as a model reads it: bracketed numbers in parentheses ("(3)"),
    which a small model copies as they are, where "[3]" with an invisible joiner could come back as
    the marker "[3]"."""
    text = text.replace(SHOWN_BRACKET, "[")
    prev = None
    while prev != text:  # nested brackets: "[[7]]" -> "[(7)]" -> "((7))"
        prev, text = text, _BRACKETED.sub(r"(\1)", text)
    return _FENCE_TAG.sub(r"\1", text)


def fenced(text: str) -> str:
    """`text` (already neutralised) between the evidence tags."""
    return f"{FENCE_OPEN}\n{text}\n{FENCE_CLOSE}"


# a field of an entry ("Default value: 0.3", "Saved in: General.OptionsFileName", Gmsh's options) is a
# line of its own, never the wrapped end of the description above it
FIELD_NAME = r"[A-Z][a-z]+(?: [a-z]+)?: "
_FIELD_LINE = re.compile(r"^" + FIELD_NAME + r"\S")
# a footnote as the parser places it after its paragraph ("(2) The stopwatch is really a collection of ...",
# code_saturne's "(4) “little endian” on Intel or AMD processors, ..."; not "(2) and (3) below", a wrapped line)
FOOTNOTE_LINE = re.compile(r"^\(\d{1,2}\) (?:[A-Z]|[\"'\u201c\u2018(][A-Za-z])")
# a list item ("• 4000 MHz to 6000 MHz: -10 dBm to 0 dBm, generally decreasing as frequency increases"):
# the next item is a line of its own, and so is a line opening in a capital after an item whose last
# word cannot end it ("Through most of the frequency range ..." is the paragraph after the list)
_BULLET_ITEM = re.compile(r"^[\u2022\u25e6\u25aa\u2023\u2219\u25cf\u2013]\s")
# a numbered item ("2. board - one for each different board" / "3. target - the chips ..."), where a list
# is under way: a wrapped line may open with "3. " too ("as shown in Figure" / "3. The ...")
_NUMBERED_ITEM = re.compile(r"^\d{1,2}[.)]\s")
# an entry of a list of fixed bugs, opened by its report's number ("340788 warning: unhandled syscall: 318 (getrandom)",
# "n-i-bz arm64: Implement ...", Valgrind's NEWS; "#1234 ..."): under another, a line of its own, not a wrapped line
_ISSUE_LINE = re.compile(r"^(?:\d{4,7}|#\d{2,7}|n-i-bz)\s+\S")
# a release's line in a change log printed as text, which no outline heads ("Release 3.10.1 (25 November 2014)" over
# "~~~~" in Valgrind's NEWS; "* Noteworthy changes in release 2.3 (2020-01-01) [stable]", "Version 1.2.0"): the
# release of the entries below it, pages of them
RELEASE_LINE = re.compile(
    r"^[ \t]*(?:[*#=-]+[ \t]*)?(?:(?:noteworthy[ \t]+)?changes[ \t]+in[ \t]+)?(?:release|version)[ \t]+v?\d+(?:\.\d+)+[a-z]?"
    r"(?:[ \t]*(?:\([^()\n]{0,40}\)|\[[^\[\]\n]{0,20}\]|[-:,]?[ \t]*\d{4}-\d\d-\d\d))*[ \t]*$", re.I | re.M)
# a line that ends with a word or mark a sentence cannot end with: the sentence wraps on to the next line
_WRAPS_ON = re.compile(r"(?:\b(?:the|a|an|of|to|in|on|at|by|for|with|and|or|nor|from|as|is|are|was|be|that|which|than|its|"
                       r"their|this|these|not|per|via|into|if|when|where|while|can|may|will|should|must)|[,(/-])$",
                       re.I)
# a line that is a call and nothing else but a comment: code, no wrapped line of prose ("env.POUpdate(['en','pl']) #
# messages.pot --> [en.po, pl.po]" / "Example 2. Update en.po and pl.po from foo.pot template:", SCons' examples)
# (and a shape's or a routine's form with spaces inside its brackets: "Annulus ( Xc, Yc, Rin, Rout )", CFITSIO's region
# shapes, one a line)
_CALL_LINE = re.compile(r"^[A-Za-z_$][\w.$]*(?:\(|\s\(\s).*\)\s*(?:(?:#|//).*)?$")
# an option of a usage synopsis ("[-w bin_width] # FFT bin width (frequency resolution) in Hz, 2445-5000000")
_OPTION_LINE = re.compile(r"^(?:\[-{1,2}[A-Za-z0-9]|\(-{1,2}\w+\) )")  # "(-1)": "[-1]" neutralised
# an option's entry in a list of options ("--crosshair-color <string>" above "Color of the crosshair.
# Default: '#ff0000'"): the option alone, with its argument's placeholder
_OPTION_ENTRY_LINE = re.compile(r"^" + OPTION + r"(?:[ =](?:<[^<>]*>|\[[^\[\]]*\]|[A-Z][A-Z_]*))?$")
# and a setting's name alone on its line, dotted or with underscores ("Print.TexWidthInMm" above "Width of tex
# graphics in mm ...", Gmsh's options): it opens an entry, it does not end the description above it (nor does a
# command's name with its arguments' placeholders, Yosys's "read_rtlil [filename]" below "-setattr <attribute_name>" /
# "set the specified attribute (to the value 1) on all loaded modules")
_NAME_ENTRY_LINE = re.compile(r"^[A-Za-z_]\w*(?:[._]\w+)+(?:\s+(?:<[^<>]*>|\[[^\[\]]*\]))*$")


# a numbered heading on a line of its own ("9.1.4 *EOS_TAIT", "2.3 Total-Lagrangian SPH", an entry's kind and name:
# "6.27.3.107 service: squid"; not "3.4.4 or later)")
_NUMBERED_HEADING = re.compile(r"^\d+(?:\.\d+)+\.?\s+(?:[^a-z\s]\S*(?:\s+\S+){0,7}|[a-z][\w-]*:\s+[A-Za-z_][\w.+-]*)$")
_PUNCTUATION_LINE = re.compile(r"^[.,;:!?]$")
_CLOSES_BRACKET = re.compile(r"^[^\[\]]{1,60}\]")
# a line that ends inside a web address, at one of its dots or slashes ("https://tiswww.case.")
_BROKEN_ADDRESS = re.compile(r"(?:^|\s)(?:https?://|www\.)\S*[./_-]$")
# the text OCR read in a figure's picture (background/enrich.py), one line: a screenshot's menus and
# labels in reading order. An answer's evidence keeps its first OCR_WORDS words: the 300 words of each
# of DDD's screenshots left no room for the page text the figures stand for ("How do I turn on the
# machine code window?" had the screenshot's OCR text and not "To enable machine-level support, select
# 'Source => Display Machine Code'.")
FIGURE_OCR = re.compile(r"^(Text in figure:)([^\n]*)", re.M)
OCR_WORDS = 30


def _short_ocr(text: str) -> str:
    def cut(m: re.Match) -> str:
        words = m.group(2).split()
        return " ".join([m.group(1), *words[:OCR_WORDS]]) + (" ..." if len(words) > OCR_WORDS else "")

    return FIGURE_OCR.sub(cut, text)


# a reference card's lines: a description in words, then the command it describes ("current error data
# dbg_err()", "quit GP \\q", "toggle timer on/off #", "lift of x from Mods and p-adics lift, centerlift(x)")
_CARD_LINE = re.compile(r"^[A-Za-z]+\s+[A-Za-z]+\s.*?(?:[A-Za-z_][\w.]*\([^()]*\)(?:,\s*[A-Za-z_][\w.]*(?:\([^()]*\))?)*"
                        r"|\\\w+(?: \w+)?|[#%?]+\w*|\{[^{}]*\}|[A-Za-z]\w*_\w+)$")
CARD_LINES = 0.6  # of a chunk's lines (four or more), for it to be read line by line
CARD_MIN_LINES = 4


def card_lines(lines: Sequence[str]) -> bool:
    """True when most of `lines` (CARD_LINES) are a reference card's: each a description and its
    command, a unit of its own (the PARI/GP card's "set break point breakpoint()" / "examine object o
    dbg_x(o)" / "current error data dbg_err()"): no wrapped line of the one above, no sentence
    running on into the next."""
    lines = [line.strip() for line in lines if line.strip()]
    return len(lines) >= CARD_MIN_LINES and sum(1 for line in lines if _CARD_LINE.match(line)) >= CARD_LINES * len(lines)


# a line with fewer words of prose than this is no sentence that wraps: PETSc's block matrices
# ("0 I 0 I 0 A−1 11 -A10 I 0 I" ran into "These can be accessed with -pc_fieldsplit_type ...")
WRAPPED_PROSE_WORDS = 2


def unwrap_lines(text: str) -> str:
    """Text with PDF line wraps joined: a long line not ending a sentence continues on the
    next; short lines without final punctuation (headings, list labels) stay on their own, and so
    does a command after a prompt ("> rm(x, y, z, ink, junk, temp, foo, bar)" is no wrapped line
    of the sentence that follows it), a field line ("Default value: 0.3") and a reference entry's
    header ("soft_reset_halt [Command]" is no wrapped line of the entry above it, nor its
    description one of the header), nor a footnote ("(2) The stopwatch is ...") one of the line
    above it, nor a list item (a numbered one after an item) or a synopsis's option ("[-w bin_width]
    # ...") one of the item above it, nor an option's entry ("--crosshair-color <string>") or a
    setting's name alone ("Print.TexWidthInMm") or a list's term on its own line ("empty", `list_terms`) one of the
    description above it, nor a line opening
    in a capital one of a list item whose last word can end it, nor a setting's row one of the row
    above it that ends with its default ("... Default: 0.1" / "timing/dslope=..."), nor a numbered
    heading ("9.1.4 *EOS_TAIT") one of the line above it or the line below it one of the heading, nor a
    figure's OCR text ("Text in figure: ...") one of its "Section: ..." line, nor a line of code after
    one that closes a comment or a brace (a C structure's members) or after a call with at most a comment
    ("env.POUpdate(['en','pl']) # messages.pot --> [en.po, pl.po]" / "Example 2. ..."), nor any line of a reference card
    (`card_lines`), nor an entry of a list of fixed bugs one of the entry above it (`_ISSUE_LINE`), nor a line of
    symbols with hardly a word ("0 I 0 I 0 A−1 11 -A10 I 0 I", a matrix's row the
    text layer kept) one of the sentence below it. A web address broken after "://" is joined without a space, and so is one broken at
    a dot or a slash ("https://tiswww.case." / "edu/php/...") and a line that is a single punctuation
    mark ("programmer" / ".")."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    if card_lines(lines):
        return "\n".join(lines)
    out: list[str] = []
    terms = list_terms(lines)
    for i, line in enumerate(lines):
        if out and _PUNCTUATION_LINE.match(line):
            # a word broken at a paragraph's last line end ("program-" / "mer.") leaves its full stop
            # alone on a line when the parser joins the word: it ends the line above
            out[-1] += line
            continue
        if out and out[-1].count("[") > out[-1].count("]") and _CLOSES_BRACKET.match(line):
            # a bracketed credit broken at the line end ("... (#3278, #3384). [Geza Lore, Shunyao" / "CAD]"):
            # its end is no line of its own, nor the start of the list item after it
            out[-1] += " " + line
            continue
        if out and _BROKEN_ADDRESS.search(out[-1]) and line[:1].islower():
            # a web address broken at one of its dots or slashes ("https://tiswww.case." / "edu/php/...")
            out[-1] += line
            continue
        if out:
            prev = out[-1]
            wrapped = (len(prev.split()) >= 6 and not ends_sentence(prev, line) and not PROMPT.match(lines[i - 1])
                       and len(PROSE_WORD.findall(prev)) >= WRAPPED_PROSE_WORDS
                       and not CODE_LINE_END.search(lines[i - 1]) and not _CALL_LINE.match(lines[i - 1])
                       and not ends_parameters(lines[i - 1], line)
                       and not DEFINITION_LINE.match(line) and not DEFINITION_LINE.match(lines[i - 1])
                       and not _FIELD_LINE.match(line) and not FIGURE_OCR.match(line) and not FOOTNOTE_LINE.match(line)
                       and not _OPTION_LINE.match(line) and not _OPTION_ENTRY_LINE.match(line)
                       and not _NAME_ENTRY_LINE.match(line) and i not in terms
                       and not ends_a_row(prev, line)
                       and not _NUMBERED_HEADING.match(line) and not _NUMBERED_HEADING.match(lines[i - 1])
                       and not _BULLET_ITEM.match(line)
                       and not (_NUMBERED_ITEM.match(line) and (_NUMBERED_ITEM.match(prev) or _BULLET_ITEM.match(prev)))
                       and not (_ISSUE_LINE.match(line) and _ISSUE_LINE.match(prev))
                       and not (_BULLET_ITEM.match(prev) and line[:1].isupper() and not _WRAPS_ON.search(prev)
                                and not _ends_lead_in(prev, line)))
            if wrapped:
                # an address broken after its scheme ("https://" / "github.com/westes/flex/issues/") is one word
                out[-1] = prev + ("" if prev.endswith("://") else " ") + line
                continue
        out.append(line)
    return "\n".join(out)


LEAD_IN_END_WORDS = 3  # a list item's lead-in wrapped before its last words leaves at most this many on the next line
WRAPPED_ITEM_WORDS = 8  # above them, an item line this long (a line filled to the margin)


def _ends_lead_in(prev: str, line: str) -> bool:
    """True when `line` is the wrapped end of a list item's lead-in: a line of three words or fewer that ends with a
    colon below a long item line ("• Now, on the node where you just promoted your resource, initialize your DRBD
    device as a new" / "Physical Volume:", DRBD's; the command it announces was cut off from the item)."""
    return len(line.split()) <= LEAD_IN_END_WORDS and line.endswith(":") and len(prev.split()) >= WRAPPED_ITEM_WORDS


def default_token_counter(text: str) -> int:
    """A rough count (1 token ~ 0.75 words) for when no tokenizer is at hand."""
    return max(1, int(len(text.split()) * 1.35) + 1)


@dataclass
class EvidenceBlock:
    """One numbered block of evidence as the model sees it."""

    id: int
    hit: Hit
    text: str
    tokens: int = 0
    truncated: bool = False

    def header(self) -> str:
        """"[n] (table, section: ...)": the id, the kind when not running text, the section. No
        file name or page: small models copied "(manual.pdf, page 248, ...)" into their answers
        (the citation carries the document and page; the guards stop an echo)."""
        h = self.hit
        parts = [k for k in (_KIND_LABEL.get(h.kind),) if k]
        if h.section:
            parts.append(f"section: {for_prompt(h.section)}")
        return f"[{self.id}] ({', '.join(parts)})" if parts else f"[{self.id}]"

    @property
    def in_changelog(self) -> bool:
        """True when a heading of the block's section names a release history ("Revision History",
        "Release notes", "Changes from ...": `CHANGELOG`)."""
        return section_release(self.hit.section) is not None

    @property
    def release(self) -> str:
        """The release a change log's entries in this block belong to: the last heading of its section,
        without its number, when the section is part of a change log and the heading names a version
        ("Verilator 5.006 2022-01-22" of "REVISION HISTORY > 18.1 Revision History and Change Log >
        18.1.1 Verilator 5.006 2022-01-22"); "" otherwise. The chunk of a long release starts below the
        heading: "• Support clocking blocks (#3674)." alone does not say which release."""
        return section_release(self.hit.section) or ""

    def release_of(self, quote: str) -> str:
        """The release of a change log's entry `quote` (a sentence of the block): the section's (`release`) or, in a
        change log printed as text, the last release line above the quote (`RELEASE_LINE`: in the chunk, or the
        one before the chunk, `Hit.release_above`); "" when the block is no change log's or the release is unknown.
        "340788 warning: unhandled syscall: 318 (getrandom)" is an entry of "Release 3.10.1 (25 November 2014)",
        which Valgrind's NEWS prints eleven chunks above it."""
        if not self.in_changelog or self.release:
            return self.release
        at = _find_words(self.hit.text, quote)
        if at is None:  # (not found: the chunk's first release unless a release line comes before the quote)
            at = 0
        above = [m.group(0) for m in RELEASE_LINE.finditer(self.hit.text, 0, at)]
        return " ".join((above[-1] if above else self.hit.release_above).split())

    @property
    def entry(self) -> str:
        """The reference entry this block belongs to when its section's last heading is one, numbered, without
        its number: a routine's, function's or command's name in code ("hmlaa (Source File: hmlaa.f90)" of
        "7 Routine/Function Prologues > 7.94 hmlaa (Source File: hmlaa.f90)"), alone, with a parenthesis
        or a dash and a description after it; "" otherwise. The entry's description ("Calculates the
        APW-APW contribution to the Hamiltonian matrix.") does not name it."""
        *above, last = [p.strip() for p in self.hit.section.split(" > ")]
        if above and _ENTRY_PART.fullmatch(SECTION_NUMBER.sub("", last)):
            # a part of an entry, whose heading above it need not be numbered: "raw1394_get_irm_id > Returns"
            head = _ENTRY_NUMBER.sub("", above[-1])
            m = _ENTRY_HEADING.match(head)
            return head if m and not self.in_changelog and _code_like(m.group(1)) else ""
        number = _ENTRY_NUMBER.match(last)
        if not number:  # an unnumbered heading: a page of an alphabetical list, named by its first entry
            return ""  # (Circuit_macros' "19 List of macros > S s_ > se_")
        head = last[number.end():]
        m = _ENTRY_HEADING.match(head)
        return head if m and not self.in_changelog and _code_like(m.group(1)) else ""

    @property
    def entry_name(self) -> str:
        """The name of the `entry` ("hmlaa"), or ""."""
        return _ENTRY_HEADING.match(self.entry).group(1) if self.entry else ""

    def program_of(self, quote: str) -> str:
        """The program whose help text `quote` (a sentence of the block) is part of: the last usage line (`USAGE_LINE`)
        before it in the chunk, or else above the chunk (`Hit.usage_above`); "" for none, in a table ("Usage:
        trunc(x) | Description: ...", a row of JAGS's functions), and for a word of the dictionary ("Usage: The
        function ...", "Usage: make [target]": prose, or a name that says nothing of whose the lines are)."""
        if self.hit.kind != "text":
            return ""
        usages = list(USAGE_LINE.finditer(self.hit.text))
        at = (_find_words(self.hit.text, quote) or 0) if usages else 0  # (no chunk of a help text: no quote to find)
        above = [m.group(1) for m in usages if m.start() <= at]  # (its own line too)
        name = above[-1] if above else m.group(1) if (m := USAGE_LINE.match(self.hit.usage_above)) else ""
        return _program_named(name)

    def heading(self, quote: str = "") -> str:
        """What an answer names before `quote`, the first quote of this block: its release (`release_of`), its entry
        (what the entry returns: "raw1394_get_irm_id returns" before "the node ID of the isochronous resource manager
        ..."), or the program whose help text it is part of ("gentreeg" before "-D# : an upper bound for the maximum
        degree", `program_of`)."""
        release = self.release_of(quote)
        if release:
            return release
        if not self.entry:
            return self.program_of(quote)
        last = SECTION_NUMBER.sub("", self.hit.section.rsplit(" > ", 1)[-1].strip())
        return f"{self.entry_name} returns" if _RETURNS_PART.fullmatch(last) else self.entry

    def named(self, quote: str) -> str:
        """`quote` with its `heading` before it ("Verilator 3.878 2015-11-01: • Add --vpi flag",
        "hmlaa (Source File: hmlaa.f90): Calculates ...", "Release 3.10.1 (25 November 2014): 340788 warning: ..."),
        unless the quote names it, or the block's text does as its section (a heading the chunk repeats)."""
        h = self.heading(quote)
        if not h or h in quote or (self.entry and self.entry_name in quote) or (
                h in self.text and h in (self.release, self.entry)):
            return quote
        return f"{h}: {quote}"

    def without_heading(self, quote: str) -> str:
        """`quote` without the "heading: " an answer put before it (`named`)."""
        for h in self._headings():
            if quote.startswith(f"{h}: "):
                return quote[len(h) + 2:]
        return quote

    def _headings(self) -> list[str]:
        """Every heading `named` may put before a quote of this block: its release lines' and its programs' too."""
        found = RELEASE_LINE.finditer(self.hit.text) if self.in_changelog else ()
        lines = [" ".join(m.group(0).split()) for m in found]
        programs = [_program_named(p) for p in USAGE_LINE.findall(self.hit.text)] \
            if self.hit.kind == "text" and not self.entry else []
        return [h for h in dict.fromkeys([self.heading(), *lines, *programs]) if h]

    def render(self) -> str:
        """The block as it appears in the prompt: "[n] (section: ...)" and its text."""
        return f"{self.header()}\n{for_prompt(self.text)}"

    def citation(self, boxes: list[tuple[int, BBox]] | None = None) -> Citation:
        """This block resolved to a citation (document, page, highlight box). `boxes` — the lines
        of the sentence(s) the answer used (answer/quote_boxes.py) — replace the hit's highlight,
        which matched the question rather than the answer."""
        h = self.hit
        page, bbox = h.page, h.bbox
        if boxes:
            page, bbox = max(boxes, key=lambda pb: pb[1][3] - pb[1][1])
        return Citation(
            id=self.id,
            chunk_id=h.chunk_id,
            doc=h.doc,
            doc_id=h.doc_id,
            page=page,
            bbox=bbox,
            kind=h.kind,
            boxes=list(boxes) if boxes else list(h.boxes),
            doc_path=h.doc_path,
            text=h.text,
        )


def _truncate(text: str, max_tokens: int, count: TokenCounter) -> str:
    """The longest word-prefix of `text` within `max_tokens` (ends with an ellipsis); its line
    breaks are kept (a table's rows stay rows)."""
    ends = [m.end() for m in re.finditer(r"\S+", text)]
    lo, hi = 0, len(ends)
    while lo < hi:  # binary search on the number of words
        mid = (lo + hi + 1) // 2
        if count(text[: ends[mid - 1]] + " ...") <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[: ends[lo - 1]] + " ..." if lo else ""


_RELEASE_NAME = re.compile(r"\d+\.\d+|\b(?:19|20)\d\d\b")


def section_release(section: str) -> str | None:
    """None when no heading of `section` names a change log (`CHANGELOG`); else the release its last heading names
    without its number ("Verilator 5.006 2022-01-22") or, when that names none, the nearest heading above it up to the
    change log's that names a version or a year ("FreedomBox 21.11 (2021-10-11)" over "8.48.1 Highlights": a release's
    parts headed on their own); "" when none does ("2. NEWS")."""
    parts = [p.strip() for p in section.split(" > ")]
    log = next((i for i, p in enumerate(parts) if CHANGELOG.search(p)), None)
    if log is None:
        return None
    last = SECTION_NUMBER.sub("", parts[-1])
    if re.search(r"\d", last):
        return last
    # a heading above it names a release by a version or a year ("Chapter 3" names none)
    return next((head for head in (SECTION_NUMBER.sub("", p) for p in reversed(parts[log:-1]))
                 if _RELEASE_NAME.search(head)), "")


def _find_words(text: str, quote: str) -> int | None:
    """Where `quote` (a sentence as an answer quotes it: white space joined, "... " before a piece, " ..." after a cut
    one) starts in `text`, by its first words whatever the white space between them; None when it is not there."""
    words = quote.removeprefix("... ").removesuffix(" ...").split()[:6]
    if not words:
        return None
    m = re.search(r"\s+".join(map(re.escape, words)), text)
    return m.start() if m else None


# the line that opens a program's help text, its usage or a banner with its name ("Usage: addedgeg [-lq] [-D#] ...",
# "===== gentreeg =====", the nauty guide's help texts of its utilities one after another): the program whose options
# the lines below give
USAGE_LINE = re.compile(r"^[ \t]*(?:usage:[ \t]*|={3,}[ \t]*)([A-Za-z_][\w.+-]*)", re.I | re.M)


# a table row read from a cell of two lines as two rows ("Usage: trunc(x) | Description: Round to integer | Value:
# Integer" / "Description: towards zero", JAGS's Table 9.1): the second holds one cell, of a column the row above has,
# and its value goes on in lower case
_CELL = re.compile(r"^([^|:\n]{1,40}): ([a-z][^|\n]*)$")


def rows_rejoined(text: str) -> str:
    """A table chunk's rows (one "Column: value | ..." row a line) with every row that only goes on a cell of the row
    above (one cell, of a column the row above has, its value in lower case; the cell above ends in no full stop)
    joined to that cell: "... | Description: Round to integer towards zero | Value: Integer"."""
    out: list[str] = []
    for line in text.split("\n"):
        m = _CELL.match(line.strip())
        if m and out:
            cells = out[-1].split(" | ")
            at = next((i for i, c in enumerate(cells) if c.split(":", 1)[0].strip() == m.group(1).strip()), None)
            if at is not None and not cells[at].rstrip().endswith((".", ":", ";")):
                cells[at] = f"{cells[at].rstrip()} {m.group(2).strip()}"
                out[-1] = " | ".join(cells)
                continue
        out.append(line)
    return "\n".join(out)


MAX_BLOCKS = 8  # evidence blocks of an answer at most (pack_evidence): the hits after them are never read


def pack_evidence(
    hits: Sequence[Hit],
    budget_tokens: int,
    count_tokens: TokenCounter = default_token_counter,
    *,
    max_blocks: int = MAX_BLOCKS,
    min_block_tokens: int = 32,
) -> list[EvidenceBlock]:
    """Number hits (best first) into evidence blocks whose rendered size fits `budget_tokens`.

    Duplicate chunks and empty texts are skipped; a figure's OCR text is cut to its first OCR_WORDS
    words; a block that does not fit is cut to the
    remaining budget when at least `min_block_tokens` remain, otherwise packing stops. The first
    block is always kept (cut if needed) so a non-empty hit list never gives empty evidence.
    Returns the blocks; never raises.
    """
    blocks: list[EvidenceBlock] = []
    seen: set[int] = set()
    used = 0
    for hit in hits:
        if len(blocks) >= max_blocks or budget_tokens - used < min_block_tokens and blocks:
            break
        if hit.chunk_id in seen or not (hit.text or "").strip():
            continue
        seen.add(hit.chunk_id)
        # a table's lines are its rows: joining "wrapped" lines would run the rows together
        text = rows_rejoined(hit.text) if hit.kind == "table" else unwrap_lines(hit.text)
        if hit.kind == "figure":
            text = _short_ocr(text)
        block = EvidenceBlock(id=len(blocks) + 1, hit=hit, text=neutralise(text))
        header_tokens = count_tokens(block.header()) + 1
        tokens = header_tokens + count_tokens(block.text)
        room = budget_tokens - used
        if tokens > room:
            room_for_text = max(room, min_block_tokens) - header_tokens
            cut = _truncate(block.text, room_for_text, count_tokens) if room_for_text > 0 else ""
            if not cut:
                if blocks:
                    break
                continue
            block.text, block.truncated = cut, True
            tokens = header_tokens + count_tokens(cut)
        block.tokens = tokens
        used += tokens
        blocks.append(block)
    return blocks


def render_evidence(blocks: Sequence[EvidenceBlock]) -> str:
    """All blocks as one prompt section, separated by blank lines."""
    return "\n\n".join(b.render() for b in blocks)
