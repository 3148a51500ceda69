"""Extractive answers: the evidence sentences that best match the question, each cited.

Never quoted: a table's header row ("Name | Parameter | Units | Default"), table-of-contents and
index lines ("4.25.1 DIP and QFP chips . . . 172", "plot, 12, 45"), runs of index entries ("Flags,
41 Flat 24 (DS390), 59 Floating point"), running headers ("172 4.25.1 DIP and QFP chips
customization"), runs of bare figure labels ("4 5 3 6 2 7 1 8 Dual-in-Line"), the "Labels:" list
of a figure chunk, formulas whose symbols the PDF maps to no character ("���v(k+1) n ���≤RELTOL"),
console output run together ("avrdude: ... avrdude: ... avrdude> ?", progress bars). A question
that describes a figure ("schematic where a source feeds clamping diodes ...") is answered by the
best-matching figure caption first; one that names a manual ("How do I read a CSV file into R?")
by that manual's sentences first; one that asks for an option by the
best-matching entry of an option list ("-c programmer-id Specify the programmer to be used."). When the
question asks for a value (how much, how many, default, maximum, ...) a sentence that carries a
number is preferred; when it asks for a name (which command, option, function, ...), one that
carries an identifier (a command-line option when an option, flag or switch is asked for, a file
or directory when one is: "which startup file", "where does gnuplot write ..."); a
sentence that lacks it while the next sentence of its block carries it is
quoted together with that sentence ("XMU=x sets the damping factor." + "The default value is
XMU=0.5."), as search highlights a sentence with the next one. When the question names a
command-line option ("what does -F do"), the entry that starts with it is preferred. The term line of a definition list
("~/.octaverc" above "This file is used to make personal changes ...") is quoted with its
description, a lead-in with the command or code it introduces ("Launch the GPG checking using
the following command: $ gpg --verify nut-X.Y.Z.tar.gz.sig"; the following lines with the same
prompt too: "Connect SINE to A1 and try: >>>import ... >>>vfit, par = em.fit_sine(t,v)"), and a command's entry with its
synopsis ("stat [options] [selection] Print some statistics ..."; "telnet_port [number] [Config Command]
Specify or query the port on which to listen for incoming telnet connections."); "The default value is 1 µV." with
the sentence before it, whose default it is ("VNTOL=x resets ..."). A sentence is compared with the
question (without the words that name the evidence's manual when all of it is from that manual:
"Asymptote" in "What does the Asymptote command filldraw do?" says which manual, not which
sentence) together with its section's
title, and one that repeats the words of a sentence already
chosen is still quoted when it carries a number or name that one lacks (the rows of a table:
"Threads: 8 | CPU time [s]: 32.4").
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import groupby, pairwise

from ..search.doc_names import named_documents, without_names
from ..search.highlight import opposes
from ..search.query import (
    OPTION,
    asked_phrase,
    common_words,
    entries_named,
    entry_codes,
    heads_section,
    options_in,
    part_spellings,
    plan_query,
    prints_option,
    sigil_names,
    starts_with_option,
    titles_section,
    whatis_line,
)
from ..sentence_split import (
    DECLARATION_LINE,
    DEFINITION_LINE,
    DOT_LEADERS,
    FINAL_PUNCTUATION,
    TERM_OF_LIST,
    THIS_NOUN,
    TYPED_OPTION,
    TYPED_SETTING,
    ends_with_noun,
    split_sentences,
)
from ..sentence_split import PROMPT as _PROMPT
from .confidence import STOPWORDS, content_terms, with_optional_part, with_wildcard_part
from .evidence import FIELD_NAME, FIGURE_OCR, FOOTNOTE_LINE, SECTION_NUMBER, EvidenceBlock, card_lines
from .key_terms import terms
from .quote_boxes import row_cells

_TOC = re.compile(r"(?:(?:\.\s?){4,}|\u2026|\s{3,})\s*[0-9ivxlc]+\s*$|^\d+(?:\.\d+)+\s+\S.*\s\d+\s*$", re.I)
# a chapter's line of a contents page, which has no dot leaders: "6 avr-libc and assembler programs 27"
_CHAPTER_ENTRY = re.compile(r"^(?:[A-Z]|\d+)\s+\S[^.!?]{2,80}\s\d+$")
_INDEX = re.compile(r",\s*\d+(?:\s*[-,]\s*\d+)*\s*$")
# one back-of-book index entry inside a run of them: "Flags, 41 Flat", "heap (malloc), 58 Higher"
# (the page number follows a word and comes before the next capitalised entry, a comma or the end)
_INDEX_ENTRY = re.compile(r"[A-Za-z)\]],\s*\d+(?:\s*[-\u2013]\s*\d+)?(?=\s*(?:,|$|[A-Z_]))")
_HEADER = re.compile(r"^(?:\d+\s+\d+(?:\.\d+)+\s|\d+(?:\.\d+)+\s.{0,80}\s\d+$|(?:chapter|section|page)\s+\d+\b)", re.I)
_NUMBERED_TITLE = re.compile(r"^\d+(?:\.\d+)+\.?\s")
_CLOSING_TAG = re.compile(r"^</[A-Za-z][\w:.-]*>$")  # the last line of a listing in tags ("</interface>")
_BANNER = re.compile(r"(?:^|\s)(?:/?[*#]{3,}/?)(?=\s|$)")  # "***" alone: a comment box's rule, not prose
_BAR = re.compile(r"([#=*])\1{9,}")  # a progress bar or a rule of a console transcript
_SEE_ALSO = re.compile(r"^see also\s*:", re.I)  # Texinfo's "See also: [voronoi], page 832, [convhulln], ..."
# a sentence that only points elsewhere: Texinfo's "See [option -gdb-port], page 77."
_XREF_ONLY = re.compile(r"^(?:see(?: also)?|refer to)\s+(?:(?:section|chapter|appendix)\s+[\w.]+\s+)?\[[^\]]*\],?"
                        r"\s+page\s+\d+\s*\.?$", re.I)
# a page number is no value ("See [option -gdb-port], page 77", "see set format (p. 150)")
_PAGE_REF = re.compile(r"\b(?:pages?|pp?\.)\s*\d+(?:\s*[-\u2013]\s*\d+)?", re.I)
_LABELS = re.compile(r"^(?:labels|section)\s*:", re.I)
# a character the PDF maps to no Unicode (U+FFFD: the symbols of a typeset formula); doxygen's
# wrapped-line mark "\u2190\ufffd" in avr-libc is not one
_UNMAPPED = re.compile(r"(?<!\u2190)\ufffd")
# A figure chunk's parts ("Figure 2: ... Labels: ... Section: ...") are separate.
_FIGURE_PART = re.compile(r"\s(?=(?:Labels|Section):\s)")
# The "Referenced as:" line of a figure chunk is the body's sentences that name the figure, cut to the chunk's size
# and run together ("between complementary base pairs. Fig. 1 illustrates in Fig. 1. More details ..."): search's
# context, no sentence of the page to quote (the sentences are quoted from their own chunks), taken out of the
# figure's text before it is split (unwrap_lines keeps it a line of its own, as any "Field: value" line)
_REFERENCED_LINE = re.compile(r"^Referenced as:.*$\n?", re.M)
# a note in brackets after a sentence's full stop ("• Fixed TX audio dropouts when using different sample rates.
# (PR #287)", FreeDV's release notes): the sentence's, not a term of the sentence after it
_NOTE = re.compile(r"^\([^()\n]{2,40}\)$")
_VALUE_Q = re.compile(
    r"\b(?:how (?:much|many|long|large|big|small|fast|high|low|often|wide)|what (?:[\w-]+ )?(?:value|size|range|number)|"
    r"smallest|largest|lowest|highest|fastest|slowest|numeric|"
    r"default|maximum|minimum|max|min|limit|tolerance|voltage|current|frequency|rate|size|width|length|"
    r"timeout|resolution|precision|accuracy|range|threshold|capacity|speed|delay|count|"
    # (a port is a number: "Which port does FireHOL's whois service open?" of "Server Ports:" / "• tcp/43")
    r"(?:which|what)\s+(?:[\w-]+\s+){0,2}?ports?)\b", re.I)
# "which startup file", "what environment variable", "where does gnuplot write ...": a name is asked for
_NAME_Q = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:command|option|function|flag|setting|variable|parameter|"
    r"keyword|name|register|pin|signal|macro|argument|switch|directive|statement|package|library|"
    r"location|program|tool|type|mode|style|format|attribute|property|request|event|message|class|field|hint|"
    r"atom|target|procedure|routine|module|instruction|widget)s?\b|\bwhat is it called\b|^\s*where\b|"
    r"\bwhat\s+(?:do|should|must|am|can)\s+I\s+(?:[\w-]+\s+){0,2}?(?:to\s+)?call\b", re.I)
# a file or directory is asked for: "where does gnuplot write the fit log", "which startup file ...", "What
# extension must a Netgen mesh size file have?"
# (and the URL of a web service: "Which URLs should they use now to authorize and to get a token?" / "Authorization
# URL: /oauth/authorize Access Token URL: /oauth/token", Bacula's console manual)
_FILE_Q = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:files?|director(?:y|ies)|folders?|paths?|urls?|endpoints?)\b|"
                     r"\b(?:which|what)\s+(?:file(?:name)?\s+)?extensions?\b|"
                     r"^\s*where\b.*\b(?:writes?|written|stored?|saved?|put|keep|kept|installed?|go|goes|"
                     r"searche[sd]|look(?:s|ed)?|reads?|loads?|found)\b", re.I)
# a file or directory as manuals print it: "fit.log", ".octaverc", "~/.Rprofile", "R_HOME/library"
_FILE_TERM = re.compile(r"(?<![\w.])(?:~?[\w$.-]*/[\w$.-]+|\.[A-Za-z][\w-]+|[A-Za-z_][\w-]*\.[a-z][a-z0-9]{0,4})(?![\w(])")
# a place inside a file is asked for, not a file: "Where in a flex input file am I not allowed to put comments?"
_IN_A_FILE_Q = re.compile(r"^\s*where\s+(?:in|inside|within)\s+(?:(?:a|an|the|my|your)\s+)?(?:[\w.-]+\s+){0,3}?files?\b", re.I)
_NOT_FILE = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "no", "fig"})
# a question for a key to press ("What is the keyboard shortcut for Finish in DDD?", "Which key binding
# compiles ... in emacs asy-mode?") and a key as manuals print it ("(⟨F8⟩)", "Ctrl+Q", "C-c C-c", "Shift+F5")
_KEY_Q = re.compile(r"\b(?:(?:keyboard )?shortcuts?|key ?bindings?|keystrokes?|hot ?keys?|key combinations?|"
                    r"(?:which|what) keys?)\b", re.I)
_KEY = re.compile(r"\u27e8[^\u27e9\n]{1,20}\u27e9|\b(?:Ctrl|Control|Shift|Alt|Meta|Cmd)[+-]\w|(?<![\w-])[CM]-[a-z]\b|\bF\d{1,2}\b")
# an option, flag or switch is asked for: "which avrdude option sets ...", "sdcc option that dumps ..."
_OPTION_Q = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:option|flag|switch)s?\b|"
                       r"\b(?:option|flag|switch)\s+(?:that|to|which)\b|"
                       r"^\s*how\s+(?:do|can|should)\s+I\b.*\b(?:from|on|at)\s+the\s+command[- ]line\b", re.I)
# an entry of an option list ("-D Disable auto erase ...", "--with-fftw3=no Do not check ..."), never
# the continuation of a sentence
_OPTION_ENTRY = re.compile(OPTION + r"(?:=\S*)?(?:\s|$)")
# the term line of a definition list: a short line holding a file, path or identifier ("~/.octaverc", "FIT_LOG"),
# or a name written with its sigil (Verilog's "$stacktrace", the shell's "$HOME")
_TERM_LINE = re.compile(r"[./_~]\w|(?<![\w$])\$[A-Za-z_]\w|^\\[A-Za-z@]+\*?$")  # (or a TeX macro: "\\axisdefaultwidth")
# or a command named with its key binding, Readline's and Emacs' way ("unix-word-rubout (C-w)", "kill-line (C-k)",
# "unix-filename-rubout ()")
_BOUND_COMMAND = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+ \((?:[A-Za-z]-[^()\s]+(?: [A-Za-z]-[^()\s]+)?)?\)$")
# or a call's signature line above its description ("x = csvread (filename, dlm_opt1, ...)")
_SIGNATURE = re.compile(r"^(?:[\w,\[\] ]+=\s*)?[A-Za-z_][\w.]*\s?\(.*\)$")
# or a built-in's entry named with its arguments in brackets and braces, GetDP's and Gmsh's way ("Laplace
# []{expression-cst}", "Sqrt [expression]", "Period [expression]{expression-cst}"): words in the brackets or braces, not
# a reference's number ("Note [12]" of avr-libc's notes)
_BRACKETED = re.compile(r"^[A-Z][\w.]*\s?(?:\[[^\]\[]*[a-z][^\]\[]*\](?:\s?\{[^{}]*\})?|\[\s*\]\s?\{[^{}]*[a-z][^{}]*\})$")
# a metasyntactic variable's name in a grammar, one word in lower case ("green-function-id:", GetDP's): what follows it
# is the entries it stands for, not code a lead-in announces (pcb's "None<Btn3Down>:" binding is no such name)
_SYNTAX_NAME = re.compile(r"^\s*[a-z][a-z0-9]*(?:-[a-z0-9]+)+:\s*$")
DECLARATION_WORDS = 20  # a declaration longer than this is prose that happens to end in a call
_PROSE_WORD = re.compile(r"(?<![\w.@#(\[])[a-z]{3,}(?![\w(\[])")
# a question that describes a figure ("schematic where a source feeds clamping diodes ...", "what does a
# typical mesh look like") rather than asking something about a plot ("which direction is up for the
# camera of a 3-D plot"): the figure's caption answers it
# (or after a phrase set off by a comma: "Besides PDF, can ReportLab produce its charts in other formats ...?")
_WH_CLAUSE = re.compile(r"[;:.?]\s*(?:which|what|how|why|when|where|who|does|do|is|are|can)\b|,\s*how\s+(?:do|can|could|should|would|to)\b"
                        r"|,\s*(?:can|could|does|do|did|is|are|will|would|should)\s+[\w.+-]+\s+\w", re.I)
_WH_QUESTION = re.compile(r"^\s*(?:which|what|how|why|when|where|who|does|do|is|are|can)\b", re.I)
_LOOKS_LIKE = re.compile(r"\blooks? like\b|\bshow me\b", re.I)
_CAPTION = re.compile(r"^(?:\.\.\.\s*)?fig(?:ure)?\.?\s*\d", re.I)
# (and a C preprocessor's line: "#define FLOATNULLVALUE -9.11912E-36F" under "Values to represent undefined floating point
# numbers:", CFITSIO's fitsio.h)
_CODE_MARK = re.compile(r"[={}\[\]<>/$;]|\w\(|(?:^|\s)--?[A-Za-z]|^#\s*(?:define|include|ifn?def|undef|pragma)\b")  # "(top level)" in prose is none
# a C macro defined with its value ("#define FALSE 0"): a whole definition, no term a description below it is of
_DEFINED_VALUE = re.compile(r"^#\s*define\s+\w+\s+[-+\d\"'(]")
# a short sentence about what the sentence before it names ("They are also available in HTML-format."):
# quoted with that sentence, and so is one that says it is the default (code_saturne's "Above 150 million
# hexahedral cells or so, it is thus imperative to configure the build to use 64-bit global element ids." /
# "This is the default.")
_REFERS_BACK = re.compile(r"^(?:(?:they|it|these|those|this (?:option|setting|variable|command|macro|feature|mode|flag|key))"
                          r"\s+(?:are|is|were|was|can|could|will|also|have|has|do|does)\b"
                          r"|(?:this|that) is (?:also |not )?the default\b)", re.I)
# and, however long, what must be done with it ("We have declared a variable "generators" that will be used to hold the
# group generators between the two calls." / "It has to be initialised to NULL and its address has to be given to
# Traces using options.generators.", nauty's)
_MUST_BE = re.compile(r"^(?:they|it|this|these)\s+(?:has|have|needs?|must|should)\s+(?:to\s+)?be\s", re.I)
# and so are the examples it gives, however few their words ("Some of the Bacula code ... has been released to the
# public domain." / "E.g. md5.c, SQLite.")
_GIVES_EXAMPLES = re.compile(r"^(?:e\.g\.|i\.e\.)\s", re.I)
REFERS_BACK_WORDS = 8
# a fence that sets a transcript or an example off ("--cut--", "-- snip --", "--8<--", "--cut file 'x.ecp'--")
_FENCE = re.compile(r"(?:^|(?<=\s))-{2,} ?(?:cut|snip|8<|>8)(?=[\s-])[^-\n]*-{2,}", re.I)
# a comment that stands for lines of an example left out ("# ...", SCons' examples)
_ELIDED = re.compile(r"^(?:#|//)\s*(?:\.\.\.|\u2026)$")
_PROMPT_RUN = re.compile(r"[$>%#]*")  # the prompt a line of a command block opens with (">>>", "$", "")
_PLACEHOLDER = re.compile(r"\[[^\]]*\]|<[^>]*>|\{[^}]*\}")  # a synopsis's optional and variable parts
# a value that belongs to the sentence before it: "VNTOL=x resets the absolute voltage error tolerance."
# + "The default value is 1 µV." (alone, after RELTOL's sentence, it read as RELTOL's default)
# (also "When not specified ..., the port number defaults to 3333.": whose port, the sentence before says)
_ITS_DEFAULT = re.compile(r"^(?:(?:when|if)\b[^,.]{0,80},\s*)?(?:(?:the |its )?default(?: value)?(?: is\b|:)"
                          r"|(?:the |its )(?:\w+ ){0,2}defaults to\b)", re.I)
# a manual page's NAME line ("tof − IEC TOF timer - delay falling edge on a signal"): no sentence cut off
# (with a hyphen, "hexagui - Vismach Virtual Machine GUI", only under NAME)
_WHATIS = re.compile(r"[\w.+-]+(?:, [\w.+-]+)* ([\u2212\u2013\u2014-]) \S")
_NAME_SECTION = re.compile(r"(?:^| > )NAME$")
_ACRONYM = re.compile(r"\b([A-Z]{3,5})s?\b")  # two letters ("AC", "LM") spell too many runs
_BULLET = re.compile(r"^(?:[\u2022\u25e6\u25aa\u2023*]|-\s|\d+[.)]\s)")
# an item's name set off by a full stop, its description after it on the line ("\u2022 transaction_failures. Returns a
# number that indicates how many transactions have failed since Mnesia was started.", Mnesia's system_info keys)
# (after a bullet, or a name with an underscore: a word alone at a line's start ends the sentence the line above
# began, "ground. This is disabled by default, ...")
_COMMENT_GOES_ON = re.compile(r"^#+ +[(a-z]")  # a comment line of a listing that opens mid-sentence
_SNAKE_NAME = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"  # a name with an underscore: "transaction_failures", "max_handles"
_DOTTED_TERM = re.compile(r"^(?:[\u2022\u25e6\u25aa\u2023*]\s*[a-z][a-z0-9]*(?:_[a-z0-9]+)*|" + _SNAKE_NAME + r")\.$")
# a row of a two-column list in running text, its value first: "2 Errors printed." after "1 Warnings and
# error printed." (gpasm's ERRORLEVEL settings): a fact, however short
_VALUE_ROW = re.compile(r"^[-+]?\d{1,4}\s+[A-Za-z]")
_NAME_CODE = re.compile(r"^[A-Z][\w.+-]*(?: [\w.+-]+){1,4} \([a-z][\w.-]{1,11}\)$")  # "PostScript Times-Bold (pstb)"
# a list item's number or letter, split off as a piece of its own ("5." of "5. The Asymptote
# examples directory ..."): no sentence that completes the item before it (nor its value)
_ENUMERATOR = re.compile(r"^\(?(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})[.)]$")
REFERENCES_BONUS = 0.3  # a "See also" list, for a question that asks which documents a page refers to
# a question that asks for the documents a manual refers to ("Which documents does the firehol-synproxy manual page
# refer to ...?", "where can I read more about ...", "what further reading ...")
_ASKS_REFERENCES = re.compile(
    r"\b(?:which|what)\s+(?:other\s+|further\s+)?(?:documents?|manuals?|man pages|references?|links?|resources?|books?|"
    r"papers?|howtos?|reading)\b|\brefers?\s+(?:me\s+|you\s+)?to\b|\bsee also\b|\bread more\b|\bfurther reading\b", re.I)
# a section that lists documents or links: its items are titles ("• UPS HOWTO (The Linux
# Documentation Project)"), no answer to anything
_REFERENCE_SECTION = re.compile(r"\b(?:links|references|bibliography|further reading|see also|resources)\b", re.I)
# an entry of a bibliography, its citation key opening its line ("[Cla89b] M. E. Clarkson. An improved Laplace
# transform package for MACSYMA. SIGSAM Bulletin, 19(2):31-33, May 1989."): authors, title and where it appeared
# answer together; a number as the key only in a section of references ("[12] ...": elsewhere a list's steps)
_CITATION_KEY = re.compile(r"^\[\u2060?(?:(?P<author>[A-Z][A-Za-z+-]*\d{2,4}[a-z]?)|\d{1,3})\][ \t]+\S")
VALUE_BONUS = 0.15
# a how-to question ("How do I delete all variables from the R workspace?"), or one that asks for a
# command ("... what command do I run on the local node before making the copy?"), is answered by a
# command: a lead-in quoted with its command gains as a sentence with an asked-for value does (dev: only
# t22's third sentence changes; the other sets identical; asking for a command as well: the sets identical)
HOWTO_BONUS = 0.15
_SHELL_COMMAND = re.compile(r"^(?:\.\.\.\s+)?(?:[$>%#]\s*)?[a-z][\w.+-]*(?:\s+\S+){0,3}?\s+--?[A-Za-z]")  # a program, an option
_HOWTO_Q = re.compile(r"^\s*how\s+(?:do|can|could|should|would)\s+(?:i|you|we|one)\b|^\s*how\s+to\b"
                      r"|\b(?:what|which)\s+(?:shell\s+)?commands?\b", re.I)
OTHER_DOC_PENALTY = 0.3  # off other manuals' sentences when the question names one (held-out h15; bench/README.md)
OPTION_ENTRY_BONUS = 0.3  # held-out h01: 0.15 left "--with-fftw3=no ..." third (bench/README.md)
FIGURE_BONUS = 1.0  # the best caption first for a figure asked for (dev: 1.0 over 0.5; bench/README.md)
OPTION_BONUS = 1.0  # the entry of an option the question names answers it: a look-up (no question set asks so)
OTHER_ENTRY_PENALTY = 0.3  # off the entry of another code than the one asked for
UNNAMED_PENALTY = 0.4  # off a sentence of another page than the one whose passages name the routine asked about
# a number of the question that a sentence gives only as a bound (">32 bits" for "a 32-bit return
# value": SDCC's PIC16 table has a "32 bits" row too; the two rows scored 0.780 and 0.776)
BOUND_PENALTY = 0.1
_BOUND = re.compile(r"(?:[<>\u2264\u2265]=?|\b(?:over|above|below|under|more than|less than|fewer than|up to|at least|at most))\s*$",
                    re.I)
_CODE = r"\W{0,2}(0[xX][0-9A-Fa-f]+|\d{3,})"  # a message's number ("118", "0x0008")
_ENTRY_CODE = re.compile(_CODE + r"\s")
# the line that opens a code's entry in a list of messages ("121 Illegal label." above "gpasm
# encountered an illegal label.")
_CODE_START = re.compile(_CODE + r"\s+[A-Z]")
# a numbered label inside a run of a figure's OCR text ("... 5. Debugger agent running 6.Breakpoint")
_NUMBERED_LABEL = re.compile(r"(?:^|\s)\d{1,2}\.(?=[A-Z]|\s+[A-Z]|\s*$)")
# the header of a keyword's entry in a reference manual (the Colvars manual's "• Keyword hillWidth ⟨Width 2σ of a
# Gaussian hill, measured in number of grid points⟩", then "Context:", "Acceptable values:", "Default value:",
# "Description: ..."): the sentences down to the next header are that keyword's
_KEYWORD_HEAD = re.compile(r"(?:Keyword|Option|Parameter|Setting)\s+([A-Za-z_][\w.]*)\s*[\u27e8<]")
# the line that opens an entry of a list of options or settings: "-F Normally, ...", "DOT_CLEANUP If the ..."
_ENTRY_START = re.compile(r"(-{1,2}[A-Za-z][\w-]*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:[ =](?:<[^<>]*>|\[[^\[\]]*\]))?\s+[A-Z]")
SHORT_ENTRY = 10  # an entry's description shorter than this many words is quoted with the sentence after it
SIBLING_PENALTY = 0.2  # off a sentence that names a sibling of the name asked for and not that name
PAIR_WORDS = 60  # a sentence and the next one it needs, quoted together, stay this short
# a command's entry: its name, its arguments' placeholders, its kind ("write_table [options] [filename]",
# "soft_reset_halt [Command]", "telnet_port [number] [Config Command]")
# (not a reference to a note: avr-libc's "Note [12]")
_COMMAND_ENTRY = re.compile(r"^[A-Za-z_][\w-]*(?: (?:<[^<>]*>|\[[^\[\]]*[a-z][^\[\]]*\]))+$")
# a command-line option's term line: "-p", "-P name of PID file", "--help", "-h, --help"
_OPTION_TERM = re.compile(r"^--?[A-Za-z0-9][\w-]*(?:,\s*--?[A-Za-z0-9][\w-]*)*(?:[ =]\S+){0,4}$")
# a sentence that says how to do what the sentence before it describes, quoted with it
# (or how a problem it describes is solved: "The problem is caused by the presence of finite rotations in the
# stress rate." + "As a solution, we adopt the approach ...", the Smooth Mach Dynamics guide)
_HOW_IT_IS_DONE = re.compile(r"(?:to (?:do|achieve|accomplish) (?:so|this|that)|for (?:this|that)(?: purpose)?|"
                             r"(?:this|that|it) (?:can|may|is|could) be (?:accomplished|achieved|done) (?:using|with|by)|"
                             # (how a default is changed: "By default the generated code process float type samples." +
                             # "This can be changed using the -double option ...", FAUST's)
                             # (not what may befall it: "This may be disabled in your kernel for security reasons.")
                             r"(?:this|that|it)(?: default| behaviou?r| setting)? can be (?:changed|overridden|"
                             r"modified|altered|controlled|disabled|enabled|turned off|turned on|set) "
                             r"(?:using|with|by|via|through)|"
                             # (or names what does it: "... so one cannot safely write compute( count, inputs, inputs)." +
                             # "The -inpl compilation option can be used for that, but only in scalar mode for now.")
                             r"(?:[\w.-]+ ){1,5}(?:can|may) be used for (?:this|that)(?: purpose)?|"
                             r"as a (?:solution|remedy)|to (?:solve|overcome|avoid|remedy|circumvent) (?:this|that|it|the problem))"
                             r"\b,?\s", re.I)
# a question about what something means, and a sentence that says what the one before it means
# (or a symptom's cause: "... gets \"Connection refused\" ...; what is the probable cause?" and "3) sclient returns the
# error: connect: Connection refused" + "This probably means you didn't edit /etc/inetd.conf correctly, ...")
_ASKS_MEANING = re.compile(r"\b(?:mean|means|meaning|indicates?|signif(?:y|ies)|stands? for|caus(?:e|es|ed|ing))\b", re.I)
_SAYS_MEANING = re.compile(r"(?:this|that|it)(?: (?:error|message|warning))?(?: (?:probably|usually|normally|generally"
                           r"|typically|often|most likely|likely))? (?:means|indicates|signifies|tells you)\b", re.I)
# a phrase the question quotes, two words or more: an error message or a control's label ("... gets \"Connection
# refused\" when contacting sserver"); a sentence that has it word for word is about what the question is
_QUOTED_PHRASE = re.compile(r"[\"\u201c]([^\"\u201d\n]{3,80}?)[\"\u201d]")
QUOTED_BONUS = 0.3
# a question what a thing is, and a sentence that says more of what the one before it is
_WHAT_IS_A = re.compile(r"\s*what(?: exactly)? (?:is|are) (?:an? |the )?[\"'\u201c]?([a-z][\w-]+)\b", re.I)
_SAYS_MORE = re.compile(r"(?:it|they) (?:is|are|has|have|consists|contains|holds)\b", re.I)
# a condition and the sentence after it that says what happens when it does not hold: one statement ("If
# either method succeeds, define HAVE_ALLOCA." + "Otherwise, set the output variable ALLOCA to ...")
_CONDITION = re.compile(r"\s*(?:if|when|unless)\b", re.I)
_OTHERWISE = re.compile(r"\s*(?:otherwise|else|if not|if (?:this|that|it) fails)\b", re.I)
# a question how to avoid or fix a problem, and a sentence that says how, after the one that states it
# ("... read and discard input in this case." + "Portable scripts can redirect input from /dev/null to
# work around the problem.")
_ASKS_REMEDY = re.compile(r"\b(?:avoid|fix|work ?around|prevent|get around|solve|cure|remedy)\b", re.I)
_GIVES_REMEDY = re.compile(r"\b(?:work ?around|avoid|fix|solve|circumvent|overcome|remedy|cure|prevent) "
                           r"(?:this|that|it|the (?:problem|issue|bug))\b", re.I)
LEAD_IN_PENALTY = 0.2
_SHOWS_CODE = re.compile(r":\s+\S*(?:://|[/=@_])\S*$")  # a sentence that ends with the code it announces
# a lead-in and, on the line below it, the command it announces, split as one sentence ("A hands-on Scheme sandbox
# with all of LilyPond loaded is available with this command line:" / "lilypond scheme-sandbox"): a program's name
# in lower case and its arguments
_COMMAND_BELOW = re.compile(r":[ \t]*\n[ \t]*((?:[$%>][ \t]*)?[a-z][\w.+-]*(?:[ \t]+\S+)*)[ \t]*$")
# an item of a list that names a thing and says what it is, its ";" the list's ("GLP_NU — non-basic variable on
# its upper bound;", GLPK's status codes): a whole answer, no lead-in
_LIST_ITEM = re.compile(r"^\S+(?: \S+)?\s+[—–-]\s+\w.*;$")
# an item of a list of names and what each is, one to a line, its dash a long one ("Year – the full year" /
# "Month – the current month 1-12", Bacula's variables); a line may run several together ("... 1-12 Day – the day
# of the month 1-31"), each of them opening with a capital (_NEXT_DEFINED)
_DEFINED_ITEM = re.compile(r"^[\w$%@.{}\[\]-]+(?: [\w.]+){0,2} [\u2013\u2014] \S")
_NEXT_DEFINED = re.compile(r" (?=[A-Z]\w* [\u2013\u2014] \S)")
# a short lead-in of its own below a sentence that says a list follows ("The following variables are available:",
# "The classes are:"; not "Sources:" above a list of links, nor "Subcircuit example with parameters:" above code)
_LIST_LEAD = re.compile(r"^(?:The following\b[^.!?:]*|[A-Z][^.!?:]*\b(?:are|include|includes)):$")
LIST_WORDS = 80  # a sentence, the lead-in below it and the items it lists, quoted together, stay this short
OPPOSITE_PENALTY = 0.1  # as search's highlight (search/highlight.py ANTONYM_PENALTY)
# a numbered line of three levels or more that names one entry, with its kind or not ("6.27.3.127 service: whois",
# FireHOL's 129 services, each "Server Ports:" / "• tcp/43" below it): a heading the outline does not hold
ENTRY_LINE = re.compile(r"^[ \t]*(?:\d+\.){2,}\d+\.?[ \t]+(?:([a-z][\w-]*):[ \t]+)?([A-Za-z_][\w.+-]*)[ \t]*$", re.M)
# a field's name and its bulleted values, whole as they are ("Server Ports: • tcp/1080 udp/1080")
_FIELD_VALUES = re.compile(r"^[^\s:]+(?: [^\s:]+){0,2}: [\u2022\u25e6\u25aa\u2023*] ")
FIELD_WORDS = 3  # a field's name ("Server Ports:") quoted with the short bulleted values below it (the bullet aside)
# a manual's copyright or licence notice ("PARI/GP is Copyright (c) 2000-2022 The PARI Group PARI/GP is free
# software; you can redistribute it ...") repeats the product's name and answers no question but its own
# an example's printed output, its filler said again and again, answers nothing (_demo_output)
DEMO_SENTENCES = 6
DEMO_REPEATED = 0.4
DEMO_PENALTY = 0.3
BOILERPLATE_PENALTY = 0.4  # 0.2 still quoted it third of four for "What is the default install prefix of PARI/GP?"
_BOILERPLATE = re.compile(r"\bcopyright\b|\ball rights reserved\b|\bfree software\b|\bpermission is granted\b|"
                          r"\bgeneral public licen[cs]e\b|\bfree documentation licen[cs]e\b|\bwithout any warranty\b|"
                          r"\backnowledge?ments? go to\b|\bwe (?:would like to )?thank\b", re.I)
# (and its acknowledgements: "Acknowledgements go to Prof. Dr. ... at the Fraunhofer Ernst-Mach Institute for
# High-Speed Dynamics, who provided the resources ... for developing SMOOTH MACH DYNAMICS.")
_ASKS_LICENCE = re.compile(r"licen[cs]|copyright|permission|redistribut|warrant|\bgpl\b|\bgfdl\b|acknowledg|\bthank|"
                           r"\bfund", re.I)
# a release history's entry ("• Add IMPORTSTAR warning on import::* inside $unit scope.", Verilator's
# manual is half change log) says when a thing came, not what it is: it answers questions about versions
CHANGELOG_PENALTY = 0.15
_ASKS_HISTORY = re.compile(r"\b(?:version|release[sd]?|change ?log|changed?|added|introduced|since|new in|"
                           r"history|deprecated|removed|upgrad\w*|when did|first supported)\b", re.I)
# and for a question about when a thing came ("Which Verilator version introduced the --vpi flag?"), the
# change log's entries come first ("• Add –vpi flag, and fix VPI linkage." under "Verilator 3.878
# 2015-11-01"; the option's entry in the reference, with OPTION_BONUS, said what it does, not when it came):
# an entry that names what the question names gets OPTION_BONUS too, and each is quoted with its release
HISTORY_BONUS = 0.3
_PROSE_DASH = re.compile(r"(?<![\w-])[\u2013\u2014](?=[A-Za-z])")  # "–vpi": "--vpi" as typeset in prose
QUESTION_PENALTY = 0.2
# "What is the default radix of gpasm?" is answered by the sentence that says what the default radix is
# ("The default radix is hexadecimal."): the asked noun phrase followed by is / are / defaults to
STATES_BONUS = 0.3
# what a mark in a listing means: "what does a dot in a count column mean?", "What does an asterisk after a name
# indicate?" (a mark's name, one word; not "what does the -n option mean?", which names an option)
_SYMBOL_MEANING_Q = re.compile(r"\bwhat\s+(?:does|do)\s+(?:an?|the)\s+(dot|dash|hyphen|asterisk|star|plus|minus|hash|"
                               r"ditto|tilde|caret|colon|comma|period|bullet|circle|square|cross|tick|check\s*mark|"
                               r"question\s+mark|exclamation\s+mark|bar|slash|backslash|underscore|arrow)"
                               r"\b(?:\s+[\w'-]+){0,8}?\s+(?:mean|stand\s+for|indicate|signify|denote)\b", re.I)
# a question for what is not allowed ("Where ... am I not allowed to put C-style comments?") is answered
# by the sentences that forbid ("Comments may not appear on an '%option' line ..."), which the embedder
# reads like the ones that allow
_ASKS_PROHIBITED = re.compile(r"\bnot\s+(?:allowed|permitted)\b|\b(?:forbidden|prohibited|disallowed)\b", re.I)
_PROHIBITS = re.compile(r"\b(?:may|must|can|should)\s*not\b|\b(?:can't|mustn't|never|forbidden|prohibited)\b|"
                        r"\bnot\s+(?:allowed|permitted)\b", re.I)
PROHIBITION_BONUS = 0.2
# a question for advice ("... what does the manual suggest?", "How can I work around ...?") is answered by the
# sentences that give it ("So if meshing fails, try repairing the model ...", "A work-around is to split ...")
# (not "What Cycle value is recommended ...?": a value asked for, which "should be adequate" may not give)
_ASKS_ADVICE = re.compile(r"\bwhat\s+(?:does|do|would)\s+(?:[\w-]+\s+){0,3}?(?:suggest|recommend|advise)\b|"
                          r"\b(?:advice|suggestions?|recommendations?|work[- ]?around)\b|\bwhat should I\b|"
                          r"\bhow (?:do|can|should) I (?:fix|avoid|solve|prevent|get around)\b", re.I)
_ADVISES = re.compile(r"\b(?:try|should|recommend(?:s|ed)?|suggest(?:s|ed)?|work[- ]?arounds?|to fix this|instead"
                      r"|remed(?:y|ies|ied)|can be (?:fixed|avoided|solved|worked around))\b", re.I)
ADVICE_BONUS = 0.15
# a question why ("Why does JAGS refuse to compile my model when I write I(0, ) ...?") is answered by the sentence that
# gives the reason ("because the mean and precision of x1 ... xN are parameters to be estimated. JAGS does not know if
# the aim is to model truncation or censoring and so the compiler will reject the model."), which the embedder reads less
# like the question than the question's own code ("y[i] ~ dnorm(mu, tau)")
_ASKS_REASON = re.compile(r"\bwhy\b", re.I)
# (not "For this reason, the NFS service requires that ...", "As a consequence, ...": the consequence, its reason
# the sentence before; nor a purpose: "A device does not need to be up in order to have firewall rules created ...")
_GIVES_REASON = re.compile(r"\b(?:because|due to|owing to|the reason|and so)\b", re.I)
REASON_BONUS = 0.2  # (and off a line of code, for such a question: code gives no reason)
OPENING_WORDS = 6  # a sentence's first words, enough to tell it among its block's
CLAIM_WORDS = 12  # a claim this short that gives no reason is quoted with the sentence after it for a question why
CLAIM_PROSE_WORDS = 4  # (and this many words of prose: not "2 Errors printed.", nor "Y[3] ~ dnorm(mu, tau)")
# a consequence, its reason the sentence before it: quoted with that sentence for a question why (JAGS's "Note: the
# length() and dim() functions are different from all other functions in JAGS: they do not act on nodes, but only on
# node arrays." + "As a consequence, an expression such as dim(a %*% b) is syntactically incorrect.")
_CONSEQUENCE = re.compile(r"(?:as a (?:consequence|result)|consequently|therefore|hence|thus|for this reason|"
                          r"this is why|that is why)\b", re.I)
# a question what a routine returns ("What does CFITSIO's fits_read_tdim return for a binary table column that has no
# TDIMn keyword?") and a sentence of prose that says what it returns ("... if this keyword is not present then this
# routine returns naxis = 1 and ...")
_ASKS_RETURN = re.compile(r"\b(?:returns?|returned)\b", re.I)
_SAYS_RETURN = re.compile(r"\b(?:returns|returned|return value|return code|return status)\b", re.I)
RETURN_BONUS = 0.2
# a sentence that names a parameter of the routine asked about and none of another routine's of the evidence (CFITSIO's
# "If mgopt == OPT_MRG_COPY then infptr continues to exist unaltered after the merge." for fits_merge_groups, whose
# signature is "(fitsfile *infptr, fitsfile *outfptr, int mgopt, > int *status)"), and off one that names another's
# only ("The cmopt parameter defines whether ...", fits_compact_group's)
PARAMETER_BONUS = 0.1
# "What happens if I call gcry_md_hash_buffer with a hash algorithm that is not available?": the sentence that states
# the condition asked about ("... this function will abort the process if an unavailable algorithm is used.", two of
# the condition's words after its "if"; a word the question negates said with its negative prefix)
_WHAT_HAPPENS = re.compile(r"\bwhat happens\b[^?]*?\b(?:if|when|whenever)\b([^?]*)", re.I)
_STATES_CONDITION = re.compile(r"\b(?:if|when|whenever|unless)\b(.*)", re.I | re.S)
_NEGATED = re.compile(r"(?:\bnot|n[’']t|\bnever)\s+(?:be\s+)?([A-Za-z]\w+)", re.I)
_NEGATIVE_PREFIXES = ("un", "non", "non-", "in", "im", "il", "ir")
CONDITION_BONUS = 0.1
CONDITION_WORDS = 2
# the manual's own question (an FAQ's: "Which of these two are better: [Ff]oot or (F|f)oot ?") is answered by the
# sentence after it ("From a performance point of view, they're equivalent ..."): that sentence scores at least
# what the question did, less ANSWER_DROP
ANSWER_DROP = 0.1
# a name of joined words ("NG_STL_INPUT_ERROR", "Ng_RestrictMeshSizeBox", "yy_create_buffer"; not a path's
# part: "examples/USER/smd/rubber_strip_pull-directory" says where an example is, not what it does) and its words
_JOINED_NAME = re.compile(r"(?<![\w/.-])(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+){2,})"
                          r"(?![\w/-])")
_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
NAME_PHRASE_WORDS = 3
# a table row with a run of the question's words in their order ("normally closed push button: ... Aliases:
# ncpb", not "normally open push button closed: ...": the same words; CircuiTikZ's switch table)
PHRASE_WORDS = 3
PHRASE_BONUS = 0.15
_PHRASE_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")
# a table row whose first cell is a word the question names is the row of the thing asked about: "Option
# name: uncertainty-mode | Type: Choice | Default: compact" for "What is the default value of
# uncertainty-mode ...?", "Unit: katal | Command: \\katal | Symbol: kat" for "Which macro gives the katal
# unit?" (siunitx's tables; the rows of other options and units say the same words). Written as the table
# writes it: "length" of "conductance per unit length" is no "LENGTH" row of ngspice's TXL parameters
ROW_KEY_BONUS = 0.2
_KEY_NAMES = re.compile(r",\s+|\s+/\s+|\s+or\s+")  # the names a first cell lists ("Kantronics KPC3, Kantronics KAM Plus")
KEY_NAME_WORDS = 4  # a name of a few words ("Kantronics KAM Plus"); longer cells are descriptions
# a command in capitals before its arguments ("PAGE RESIZE xdim, ydim", "RESTRICT (set, restriction)"):
# the question names the row when it writes the command
_COMMAND_NAME = re.compile(r"([A-Z][A-Z0-9_]+(?: [A-Z][A-Z0-9_]+)*)(?=\s*\(|\s+[a-z\"<\[])")
# a sibling row that brings this many of the question's words no sentence chosen has answers another part of it
ASKED_ROW_TERMS = 2
# and so does a one-letter name the question gives: a capital alone before a word ("the G parameter"), not
# "A" or "I"
_LETTER_NAME = re.compile(r"(?<=\s)(?![AI]\b)[A-Z](?=\s+[a-z])")
# a table's column names are a few words each ("Units/Type", "Default value", "Example of use")
HEADER_CELL_WORDS = 4
# a mail quoted in a FAQ ("> I'm not sure how or where to submit bug reports (documentation or > otherwise)
# ..."): the asker's words, not the manual's answer; an interpreter's prompt opens code ("> x <- c(1, 2)")
_MAIL_QUOTE = re.compile(r"^>[ \t]+[A-Za-z][a-z'\u2019]*[ \t]+[a-z]")
MAIL_QUOTE_WORDS = 4
# an entry that ends with a field of its own ("... Y position of light source 3 Default value: 0.3") is whole
_ENDS_WITH_FIELD = re.compile(r"\b" + FIELD_NAME + r"\S+$")
# a remark of a word or three between a definition list's term and its description ("Rarely needed.")
_PREAMBLE = re.compile(r"^\s*\S+(?:\s+\S+){0,2}[.!]\s*$")
# or an example, a line of code (Verilator's warnings: "MINTYPMAX" / "#(3:5:8) clk = ~clk;" / "Warns that ...")
EXAMPLE_WORDS = 8
_ONE_NAME = re.compile(r"-{0,2}[A-Za-z_][\w.-]*")  # a term that is one name ("MINTYPMAX", "--x-assign")
# two sentences sharing this share of their content words (a negation aside) say the same thing, or its opposite
TWIN_OVERLAP = 0.6
INSIDE_WORDS = 6  # a sentence this long found whole inside a quote of another block is a piece of it
# the second part of a question of two ("..., and which C++ standard must the compiler support?")
# (", and after how long ...", ", and in which release ...": a preposition may lead the second question)
_SECOND_PART = re.compile(r",?\s+and\s+(?:(?:after|before|in|on|at|for|from|to|by|with|under|within)\s+)?"
                          r"(?=(?:which|what|how|why|when|where|who|whose|is|are|does|do|can|could|"
                          r"should|will|would|may|might|must|shall|did|was|were|if|whether)\b)", re.I)
SECOND_PART_GAP = 0.4  # how far below the first sentence the sentence for a question's second part may score
_NEGATION = re.compile(r"\b(?:not|never|cannot)\b|n't\b", re.I)
# the extractive answer's own choices (bench/README.md, "sessions 10-11: the extractive answer"): four
# sentences and a larger weight for the block's search rank raised the gold page cited and the gold
# fact stated on the dev set, held-out set and held-out set 2 alike; quote-first keeps the defaults
EXTRACTIVE_SENTENCES = 4
EXTRACTIVE_RANK_WEIGHT = 0.2
# the question is compared without the words that name the evidence's manual (all of it): gold fact
# dev 0.78 -> 0.81, held-out 0.58 -> 0.61, held-out 2 0.52 -> 0.54, unseen the same (bench/README.md, session 22)
COMPARE_WITHOUT_NAMES = True


@dataclass
class Candidate:
    """A quotable evidence sentence of block `block_id` (`position` in the block); `following`
    is the block's next sentence when quotable ("" otherwise); `label` the definition-list term
    line just before it ("" when there is none, see `is_term_line`)."""

    block_id: int
    position: int
    text: str
    score: float = 0.0
    following: str = ""
    label: str = ""
    entry: bool = False  # the entry of an option, dot-command or setting the question names or asks for
    introduces: bool = False  # a lead-in quoted with the command it introduces ("... command: $ gpg --verify ...")
    states: bool = False  # says what the question asks about is ("The default radix is hexadecimal.")
    listed: bool = False  # quoted with its term line: an entry of a definition list ("--pin-color <string> ...")
    under: str = ""  # the option or setting whose entry the sentence is part of ("DOT_CLEANUP If the ..." on)
    keyword: str = ""  # the keyword whose reference entry the sentence is part of ("• Keyword hillWidth ⟨...⟩" on)
    headed: tuple[str, str] = ("", "")  # (kind, name) of the numbered entry line above it ("6.27.3.127 service: whois")
    program: str = ""  # the program whose help text it is part of (EvidenceBlock.program_of: "addedgeg")
    other_field: bool = False  # a field of another entry than the one the question names (rank_candidates drops it)
    named: bool = False  # a table row the question names (`_row_names_asked`)
    goes_on: bool = False  # the label is the entry whose description the sentence goes on ("-p just parse ...")
    below: tuple[str, ...] = ()  # a lead-in below the sentence and the items of the list it opens, quoted after
    # it (the sentence ranked without them)
    chunk: tuple[int, int, int] = (-1, -1, 0)  # the block's document id, chunk id and page


def _header_cells(cells: Sequence[str]) -> bool:
    """True when `cells` read as a table's column names: a few words each, no number. A table without a
    header row has rows without column names ("vqlss | the q-vector of the spin-spiral state in lattice
    coordinates | real(3) | (0.0, 0.0, 0.0)", Elk's input blocks): a row, not a header."""
    return all(len(c.split()) <= HEADER_CELL_WORDS and not any(ch.isdigit() for ch in c) for c in cells)


def is_quotable(sentence: str) -> bool:
    """False for navigation and label lines that never answer anything (see module docstring)."""
    s = " ".join(sentence.split())
    if (not s or _LABELS.match(s) or _SEE_ALSO.match(s) or _XREF_ONLY.match(s) or _TOC.search(s) or _HEADER.match(s)
            or DOT_LEADERS.search(s)):
        return False
    if _BANNER.search(s):  # a source file's comment box ("* *** Smooth Mach Dynamics *** * * This file is part of ...")
        return False
    if len(_UNMAPPED.findall(s)) >= 2:  # a formula that would read "���v(k+1) n −v(k) n ���≤RELTOLvnmax"
        return False
    if _INDEX.search(s) and not re.search(r"[.!?]", s[:-1]):
        return False
    if len(_INDEX_ENTRY.findall(s)) >= 3:  # index entries run together (a block cut mid-entry)
        return False
    if _is_transcript(s) or _is_command_line(s) or DEFINITION_LINE.match(s):  # a header is quoted with its entry
        return False
    cells = s.split(" | ")
    if len(cells) >= 3 and not any(":" in c for c in cells) and _header_cells(cells):
        return False  # a table's header row: names, no values
    if len(cells) >= 3:
        # a table's row, its cells short codes and numbers ("0xC4 | SWAP | A | 1 | 1", an instruction table
        # without column names), is no run of a figure's labels: its cells are the table's
        return True
    # a figure's OCR text is read without its label ("Text in figure: 1mn m rS 0.5 h -0.5 0.5 ...", the axes of
    # expEYES-17's hysteresis plot: the label's words made it read as words)
    tokens = (m.group(2) if (m := FIGURE_OCR.match(s)) else s).split()
    words = [t for t in tokens if sum(c.isalpha() for c in t) >= 3]
    bare = [t for t in tokens if len(t.strip(".,;:()")) <= 1 or t.strip(".,;:()").replace(".", "").isdigit()]
    if len(tokens) >= 3 and not words and len(bare) >= 0.5 * len(tokens) and all(t.isalnum() for t in tokens):
        return False  # a drawing's few labels, no word of three letters ("8 mm t o": a measure, node names)
    return not (len(tokens) >= 5 and len(bare) >= 0.5 * len(tokens) and len(words) < 3)


def _ocr_sentence(words: list[str], ocr: list[str]) -> bool:
    """False for a piece of a figure's OCR text (`ocr`, its words) that is not a sentence of prose: the
    splitter's pieces of a screenshot's labels ("Debugger agent running 6.Breakpoint handler cond.
    waiting 7." of DDD's thread list) answer nothing. True for the block's other sentences, and for
    the OCR text whole when the splitter left it whole ("Text in figure: Male DB-9 Female DB-9
    SOLA-330 UPS serial cable": a wiring diagram's labels, quoted as what they are)."""
    text = " ".join(words)
    if (m := FIGURE_OCR.match(text)) is not None:  # the piece that opens with the label
        return words == [*m.group(1).split(), *ocr]
    n = len(words)
    if not any(ocr[i:i + n] == words for i in range(len(ocr) - n + 1)):
        return True
    return reads_as_prose(text) and not _NUMBERED_LABEL.search(text)


# a lead-in that gives an example ("For example:", "Example:", "For instance:")
_EXAMPLE_LEAD = re.compile(r"^(?:for (?:example|instance)|examples?|e\.g\.)\s*:$", re.I)


def _explains_example(sentence: str) -> bool:
    """True when `sentence` is an example's lead-in with the code it introduces on the lines below ("For example:" /
    "mnesia:change_table_copy_type(person, node(), disc_copies)"): the sentence after it says what the code does."""
    lead, _, code = sentence.strip().partition("\n")
    return bool(_EXAMPLE_LEAD.match(" ".join(lead.split()))) and bool(code.strip()) and introduces_code(lead, code)


def _is_example(line: str) -> bool:
    """A short line of code ("#(3:5:8) clk = ~clk;"), not a sentence about it."""
    return len(line.split()) <= EXAMPLE_WORDS and bool(_CODE_MARK.search(line)) and not reads_as_prose(line)


def _is_transcript(s: str) -> bool:
    """A program's console output run together: a progress bar ("#####...") or one prompt or log
    prefix three times or more ("avrdude: ... avrdude: ... avrdude> ?"), table rows aside."""
    if _BAR.search(s):
        return True
    cells = s.split(" | ")
    if len(cells) > 1 and sum(": " in c for c in cells) * 2 >= len(cells):
        return False  # table rows repeat their column names ("Code: ... | Sym: ... | Code: ...")
    prefixes = Counter(t[:-1] for t in s.split() if len(t) > 2 and t[-1] in ":>" and t[:-1].isalnum())
    return bool(prefixes) and prefixes.most_common(1)[0][1] >= 3


def is_term_line(line: str) -> bool:
    """True for the term line of a definition list: at most three words, no closing punctuation, and
    an identifier, file name or path in it ("~/.octaverc", "FIT_LOG", "--persist"); or a call's
    signature of at most eight words ("x = csvread (filename, dlm_opt1, . . .)"), or a declaration
    ("real[] cubicroots(real a, real b, real c, real d);"), or a setting named with the type of its value
    ("job-count num", TYPED_SETTING)."""
    words = line.split()
    if line.count(")") > line.count("("):
        return False  # the end of a signature whose brackets a line above opened (Libgcrypt's "*cb_data)")
    if len(words) <= 8 and (_SIGNATURE.match(" ".join(words)) or _BRACKETED.match(" ".join(words))):
        return True
    if len(words) <= DECLARATION_WORDS and DECLARATION_LINE.match(" ".join(words)):
        return True
    if not 0 < len(words) <= 3 or line.rstrip()[-1:] in ".!?:;,":
        return False
    if _ITS_DEFAULT.match(line):  # "Default: 0.1" ends the row above it ("timing/lslope=... Default: 0.1")
        return False
    if _NUMBERED_TITLE.match(line) or _DEFINED_VALUE.match(line):  # "9.1.4 *EOS_TAIT" heads a section, no entry of a list
        return False
    if _CLOSING_TAG.match(line.strip()):  # "</interface>" closes the listing above the sentence, names no entry
        return False
    if len(words) > 1 and all(w.isalpha() and w.isupper() for w in words):
        return False  # a heading in capitals ("LOSSY TRANSMISSION LINES", a running header) names no entry
    return (bool(_TERM_LINE.search(line)) or any(t.kind == "name" for t in terms(line))
            or bool(_BOUND_COMMAND.match(" ".join(words))) or bool(TYPED_SETTING.match(" ".join(words)))
            or bool(TYPED_OPTION.match(" ".join(words))))


def _rows_of_a_list(above: str, line: str) -> bool:
    """True when `line` and the line `above` it (its last words, where a chunk's lead joined rows on one line) are term
    lines (`is_term_line`) of as many words, two or three, none a call's signature, a declaration or a field: rows of
    a list or of a table without rules ("UMFPACK_Ut U’x=b" / "UMFPACK_Uat U.’x=b"), not the term of the paragraph
    below them. A field ("Default_Value: 1.0e-9 1.0e-9" / "Limits: ...", XSPICE's model tables) goes on its entry,
    and signatures one above the other ("x = csvread (filename)" / "x = csvread (filename, dlm_opt1)") share their
    description."""
    b = line.split()
    a = above.split()[-len(b):] if len(above.split()) % max(1, len(b)) == 0 else []  # (rows a chunk's lead joined)
    return (len(a) == len(b) in (2, 3) and all(is_term_line(" ".join(w)) and not w[0].endswith(":") for w in (a, b))
            and not any(_SIGNATURE.match(" ".join(w)) or _BRACKETED.match(" ".join(w)) or DECLARATION_LINE.match(" ".join(w))
                        for w in (a, b)))


def candidate_sentences(blocks: Sequence[EvidenceBlock], min_words: int = 4, max_words: int = 60) -> list[Candidate]:
    """Quotable sentences of every block but contents and index chunks (truncation ellipses dropped),
    long ones cut to `max_words` (" ..." after them). A block's first sentence that starts in lower
    case begins with "... ": the chunk may start mid-sentence, and "default value is 1.0e-12." alone
    reads as if it answered whatever was asked (it is GMIN's default, the option named before the
    chunk starts)."""
    out = []
    for b in blocks:
        if b.hit.navigation:  # a contents or index chunk ("20 Enclosure Options 65 21 HackRF One's Buttons 67")
            continue
        text = b.text[:-4] if b.truncated and b.text.endswith(" ...") else b.text
        if b.hit.kind == "figure":
            text = _REFERENCED_LINE.sub("", text)
        heads = line_heads(text)
        printed = printed_at_prompt(text)
        references = bool(_REFERENCE_SECTION.search(b.hit.section.split(" > ")[-1]))
        if b.hit.kind == "table" or card_lines(text.split("\n")):
            # a row is one unit: "Description: Always defined. SDCC major ..." is not split (and a reference
            # card's line: "current error data dbg_err()", not the card's column run on as one sentence)
            sentences = [line.strip() for line in text.split("\n") if line.strip()]
        elif entries := bibliography_entries(text, references):
            sentences = entries
        else:
            sentences = notes_joined([p for s in split_sentences(text, newlines=True) for p in _FIGURE_PART.split(s)])
        contents = any(_TOC.search(x) or DOT_LEADERS.search(x) for x in sentences)
        ocr = " ".join(m.group(2) for m in FIGURE_OCR.finditer(text)).split() if b.hit.kind == "figure" else []
        # the entry of a list of options or settings the sentences so far belong to; a block that opens
        # mid-sentence ("ground. This is disabled by default, ...") goes on with whatever came before it
        # (a whole sentence may open a section's introduction: "In addition to the preprocessor macros
        # ..." before avr-gcc's "-mmcu=architecture" entry)
        under = "?" if sentences and sentences[0][:1].islower() else ""
        keyword = ""
        above = ENTRY_LINE.match(b.hit.entry_above)
        headed = (above.group(1) or "", above.group(2)) if above else ("", "")
        for pos, s in enumerate(sentences):
            bare = _BULLET.sub("", s.lstrip())
            if lines := list(ENTRY_LINE.finditer(s)):  # (a line of the sentence: "[WIKI-socks]: http://... SOCKS" /
                # "6.27.3.107 service: squid" / "Squid Web Cache Example:" may be read as one)
                headed = (lines[-1].group(1) or "", lines[-1].group(2))
            if opens := _ENTRY_START.match(bare) or _CODE_START.match(s):
                under, keyword = opens.group(1), ""
            elif head := _KEYWORD_HEAD.match(bare.lstrip()):
                under = keyword = head.group(1)
            words = s.split()
            if ocr and not _ocr_sentence(words, ocr):
                continue
            prev = " ".join(sentences[pos - 1].split()) if pos > 0 else ""
            synopsis = _framed_synopsis(sentences, pos, b.hit.section)
            if synopsis:  # the synopsis, without its frame's glyphs
                prev = " ".join(w for w in sentences[pos - 2].split() if w.strip("\ufffd"))
            # "Default value: 0.1" under "DT" is short, and quoted with the line it is the default of
            short_default = pos > 0 and bool(_ITS_DEFAULT.match(s)) and any(ch.isdigit() for ch in s)
            # a built-in's value given as a formula under its entry ("Laplace []{expression-cst}" / "r/2,
            # 1/(2*Pi)*ln(1/r), 1/(4*Pi*r).", GetDP's Green functions): quoted with the entry
            short_default = short_default or (bool(_BRACKETED.match(prev)) and any(ch.isdigit() for ch in s)
                                              and s.rstrip()[-1:] == ".")
            short_row = (len(words) >= 3 and pos > 0 and bool(_VALUE_ROW.match(s))
                         and bool(_VALUE_ROW.match(sentences[pos - 1].lstrip())))
            # a list of names with their short codes ("PostScript Bookman-DemiItalic (psbdi)", GLE's font
            # list): each line is the entry a question about one name asks for
            name_code = len(words) >= 2 and bool(_NAME_CODE.match(s)) and any(
                _NAME_CODE.match(sentences[j].strip()) for j in (pos - 1, pos + 1) if 0 <= j < len(sentences))
            short_row = short_row or name_code
            # an option's entry with a description of two words ("-D Enable debugging.", GPSBabel's options)
            short_row = short_row or (len(words) >= 3 and bool(_OPTION_ENTRY.match(s)) and words[1][:1].isupper())
            examples = pos > 0 and bool(_GIVES_EXAMPLES.match(s))
            # a field's name over its values, a bulleted list ("Server Ports:" / "• tcp/43", FireHOL's services): too
            # short alone, quoted with the values below it
            field = pos + 1 < len(sentences) and _field(s, sentences[pos + 1])
            # a framed synopsis's description of two words is the entry's ("\ufffd" / "ERR" / "\ufffd" / "Abort
            # assembly.", dasm's directives): quoted with its term
            framed = synopsis and len(words) >= 2 and s.rstrip()[-1:] == "."
            if ((len(words) < min_words and not short_default and not short_row and not examples and not field
                 and not framed)
                    or not is_quotable(s)
                    or (contents and _CHAPTER_ENTRY.match(" ".join(words)))):
                continue
            if references and _BULLET.match(s) and s.rstrip()[-1:] not in ".!?":  # a listed title
                continue
            if _COMMENT_GOES_ON.match(s) and s.rstrip()[-1:] == "." and (
                    pos == 0 or prev[-1:] not in ".!?:"):
                # the end of a comment's sentence on the next line of the listing ("# You may also define the orientation
                # of the page to be either portrait" / "# (default) or landscape.", Prawn's manual shows its examples'
                # source under their prose): a piece, not a sentence (a root prompt's command ends in no full stop)
                continue
            # (read before the sentence's white space is normalised: the command is on the line below the lead-in)
            below = _COMMAND_BELOW.search(s)
            shown = bool(below) and len(below.group(1).split()) <= EXAMPLE_WORDS and not reads_as_prose(below.group(1))
            s = " ".join(words[:max_words]) + (" ..." if len(words) > max_words else "")
            whatis = _WHATIS.match(s)
            if (pos == 0 and s[:1].islower() and not titles_section(b.hit.section, words[0])
                    and not (whatis and (whatis.group(1) != "-" or _NAME_SECTION.search(b.hit.section)))):
                # the chunk starts mid-sentence: "... default value is 1.0e-12." (not "gpdasm is a
                # disassembler for gputils." under "5.1 gpdasm": a name in lower case opens its section)
                s = f"... {s}"
            nxt = sentences[pos + 1] if pos + 1 < len(sentences) else ""
            # a lead-in's block may open with a fence ("--cut--" / "$ ecasound -i guitar.wav ..." / "--cut--")
            fence = _FENCE.match(nxt.strip())
            body, rest = (nxt.strip()[fence.end():].strip() if fence else nxt), sentences[pos + 2:]
            if fence and not body and rest:
                body, rest = rest[0], rest[1:]
            introduces = bool(body) and introduces_code(s, body)
            list_below: tuple[str, ...] = ()
            if introduces:  # "Launch the GPG checking using the following command:" says nothing alone
                budget = PAIR_WORDS - len(s.split())
                s = " ".join([s] + (fenced_block([body, *rest], budget) if fence else code_block(nxt, rest, budget)))
            elif field:  # its values, the bulleted lines right below it (not the next field's name and values)
                values = list(itertools.takewhile(
                    lambda x: bool(_BULLET.match(x.strip())) and len(x.split()) <= FIELD_WORDS + 1, sentences[pos + 1:]))
                s, introduces = " ".join([s, *(" ".join(v.split()) for v in values)]), True
            elif (s.endswith(":") and (_BULLET.match(nxt.strip()) or _ENUMERATOR.match(nxt.strip())
                                       or _DEFINED_ITEM.match(nxt.strip()) or TERM_OF_LIST.match(nxt.strip()))
                  and not references and not _siblings_in_list(s, nxt)):  # (not a list of links' titles)
                # nor does "Every TAP requires at least the following configparams:": quoted with the
                # items it introduces ("• -irlen NUMBER The length in bits of the instruction register ...";
                # and numbered: stanli's "The following order is recommended:" / "1." / "Points \dpoint" ...)
                items = items_below(sentences[pos + 1:], PAIR_WORDS - len(s.split()))
                if items:
                    s, introduces = " ".join([s] + items), True
            elif (s[-1:] in ".!?" and len(nxt.split()) <= EXAMPLE_WORDS and _LIST_LEAD.match(" ".join(nxt.split()))
                  and not references and (listed := items_below(sentences[pos + 2:], LIST_WORDS - len(s.split())
                                                                - len(nxt.split())))):
                # "Internal variables are read-only, and may be related to ... the date and time." / "The following
                # variables are available:" / "Year – the full year" / ...: what the sentence speaks of is listed
                # below its lead-in, and quoted with it
                list_below, nxt = (" ".join(nxt.split()), *listed), ""
            elif shown and not s.endswith(" ...") and (more := code_block(below.group(1), [nxt, *rest],
                                                                         PAIR_WORDS - len(s.split()))[1:]):
                # the code on the line below a lead-in goes on below it ("A pretty much minimal config file would look
                # like the following:" / "client = yes" / "[29103]" / "accept = localhost:9103" / ..., Bacula's
                # stunnel set-up): quoted whole, not its first line
                s = " ".join([s, *more])
            elif rows := _table_after(s, sentences[pos + 1:], PAIR_WORDS - len(s.split())):
                # and "Sets the types of messages that are printed." with the table of values below it
                # ("Setting Affect" / "0 Messages, ..." / "2 Errors printed."): which setting prints only
                # errors is in the rows, not in their lead-in
                s, introduces = " ".join([s] + rows), True
            introduces = introduces or shown
            # a figure chunk's "Section: G.3.3 SOLA-330" line names no term, nor does what a command typed at a prompt
            # printed ("gap> s1[7];" / "'w'" / "Sublists of lists can easily be extracted ...", GAP's tutorial)
            term = not name_code and prev.strip() not in printed and not _LABELS.match(prev) and ((opens_a_line(prev, heads) and (
                is_term_line(prev) or synopsis_of_section(prev, b.hit.section) or bool(DEFINITION_LINE.match(prev))))
                # (an item's name set off by a full stop opens the line its description goes on)
                or (bool(_DOTTED_TERM.match(prev)) and s[:1].isupper() and opens_a_line(f"{prev} {s}", heads)))
            if term and pos > 1 and sentences[pos - 2].rstrip()[-1:] == ":" and not _SYNTAX_NAME.match(sentences[pos - 2]) and (
                    DECLARATION_LINE.match(prev) or introduces_code(sentences[pos - 2], prev)):
                # "A simpler interface ... is also available:" / "void tensorshade(...);" / "One can also
                # smoothly shade ...": the declaration is the lead-in's, the next paragraph is not about it (nor is
                # the code a lead-in announces: "... on Windows systems:" / "Program('hello.c')" / "If you want to
                # build a program with a different name ...", SCons'; not a syntax's name for what follows: GetDP's
                # "green-function-id:" / "Laplace []{expression-cst}" / "r/2, 1/(2*Pi)*ln(1/r), 1/(4*Pi*r).", _SYNTAX_NAME)
                term = False
            if term and pos > 1 and _rows_of_a_list(sentences[pos - 2], prev):
                # the last of a run of rows ("UMFPACK_Ut U’x=b" / "UMFPACK_Uat U.’x=b" / "Iterative refinement can be
                # optionally performed when ...", UMFPACK's table of sys values without rules) is no term of the
                # paragraph after the run
                term = False
            if not term and pos > 0 and s[:1].isupper() and _explains_example(sentences[pos - 1]):
                # "For example:" / "mnesia:change_table_copy_type(person, node(), disc_copies)" / "Transforms the person
                # table from a RAM table into a disc-based table at Node.": the sentence says what the example does
                term = True
            with_term = False  # prev already carries the entry's term line
            if (not term and pos > 1 and is_term_line(sentences[pos - 2])
                    and (_PREAMBLE.match(prev) or (_is_example(prev) and _ONE_NAME.fullmatch(sentences[pos - 2].strip())))):
                # "--debug-check" / "Rarely needed." / "Enable internal debugging assertion checks ...":
                # the entry's remark stands between its term and its description; all three are quoted
                # (and so is an example: "MINTYPMAX" / "#(3:5:8) clk = ~clk;" / "Warns that minimum, ...")
                prev, term, with_term = f"{sentences[pos - 2].strip()} {prev}", True, True
            if _ITS_DEFAULT.match(s):  # whose default: the sentence before says
                if prev and is_quotable(prev):
                    term = True
                    if pos > 1 and not with_term and not is_term_line(prev) and is_term_line(sentences[pos - 2]):
                        # an option's name, its description, its default ("General.Light3Y" / "Y position
                        # of light source 3" / "Default value: 0.3", Gmsh's options): all three
                        prev = f"{sentences[pos - 2].strip()} {prev}"
                else:
                    s = f"... {s}"
            if (not term and not introduces and prev and (_REFERS_BACK.match(s) or examples)
                    and (len(s.split()) <= REFERS_BACK_WORDS
                         or (_MUST_BE.match(s) and len(prev.split()) + len(s.split()) <= PAIR_WORDS))
                    and prev[-1:] in ".!?" and is_quotable(prev)):
                # "They are also available in HTML-format." says nothing without what "they" are: "For instance,
                # Ecasound's man pages are a very good (and up-to-date!) source of information." (with the term
                # line above that one: "\axisdefaultwidth" / "This macro defines the default width." / "It is
                # preset to 240pt.")
                s = f"{prev} {s}"
                if pos > 1 and is_term_line(sentences[pos - 2]):
                    s = f"{' '.join(sentences[pos - 2].split())} {s}"
            elif (not term and not introduces and prev and (this := THIS_NOUN.match(s)) and ends_with_noun(prev, this.group(1))
                  and is_quotable(prev) and len(prev.split()) + len(s.split()) <= PAIR_WORDS):
                # "... refer to the /boot/System.map-`uname -r` file." + "This file lists the starting addresses for each
                # function, ...": which file, the sentence before says (SystemTap's guide)
                s = f"{prev} {s}"
            # (nor a footnote set where the page ends: "... or supplying command-line" / "(3) This may seem an odd way
            # to implement ...", PETSc's; the sentence goes on on the next page)
            following = ("" if introduces or not is_quotable(nxt) or _ENUMERATOR.match(nxt.strip()) or name_code
                         or FOOTNOTE_LINE.match(nxt.strip()) else nxt)
            if framed and len(words) < min_words and following and not introduces:
                # ("Abort assembly." says what ERR does, the sentence after it when to use it)
                s, following = f"{s} {' '.join(following.split())}", ""
            if short_default and term:  # too short to be matched alone: matched as the entry it closes
                s, term = f"{prev} {s}", False
            elif short_default:
                continue
            label = prev if term and not field and not _example_of(prev, s) else ""
            goes_on = False
            if (not label and not s.startswith("...") and not s.endswith("...")
                    and (entry := _entry_of(sentences, pos, heads)) is not None
                    and not s.startswith(entry[0])):  # (not a default quoted with its entry already)
                # a sentence that goes on an entry's description after its first sentence ("-p" / "just parse the
                # config file and exit. Return value is zero if the config file is valid, ...", BIRD's; "watchdog
                # timeout time" / "Set time limit for I/O loop cycle. If the limit is breached, BIRD is killed by
                # abort signal.") is the entry's: quoted with its term and the description before it (the term
                # alone when that is long)
                term, said = entry
                if said and s.startswith(said[-1]):  # a short default quoted with its sentence
                    said = said[:-1]
                label = " ".join([term, *said]) if len(" ".join([term, *said, s]).split()) <= PAIR_WORDS else term
                goes_on = True
            out.append(Candidate(b.id, pos, s, following=following, label=label, introduces=introduces, below=list_below,
                                 listed=bool(label) or short_default, under=under, keyword=keyword, goes_on=goes_on,
                                 headed=headed, program=b.program_of(s),
                                 chunk=(b.hit.doc_id, b.hit.chunk_id, b.hit.page)))
    return out


def _names_routine(low: str, names: Sequence[str]) -> bool:
    """True when the lower-case text `low` names one of `names` (snake_case routines) as a word, or written with an
    optional part ("fits_make_hist[d]" for "fits_make_histd", `with_optional_part`) or a wildcard part
    ("umfpack_*_solve" for "umfpack_solve", `with_wildcard_part`)."""
    return any(re.search(r"(?<![\w.])" + re.escape(n.lower()) + r"(?![\w])", low) or with_optional_part(n, low)
               or with_wildcard_part(n, low) for n in names)


def _blocks_without(blocks: Sequence[EvidenceBlock], names: Sequence[str]) -> set[int]:
    """Ids of the blocks of other pages than the one whose blocks name `names` (snake_case routines of the question:
    "fits_make_histd", written "fits_make_hist[d]" too) when the blocks that name them are of one page (the routine's
    entry, and the rest of its page: CFITSIO describes a routine above its signature); empty when none does or blocks of
    several pages do (Valgrind's "--xtree-memory-file" and "callgrind_annotate" are named on several pages, each of them
    answering in part). An index names every routine: it counts for none."""
    # (an index names them all)
    naming = [b for b in blocks if names and not b.hit.navigation
              and _names_routine(f"{b.hit.section}\n{b.text}".lower(), names)]
    pages = {(b.hit.doc_id, b.hit.page) for b in naming}
    return {b.id for b in blocks if (b.hit.doc_id, b.hit.page) not in pages} if len(pages) == 1 else set()


# a C routine's signature: "int fits_merge_groups / ffgtmg\n(fitsfile *infptr, fitsfile *outfptr, int mgopt, > int
# *status)", "int raw1394_read(raw1394handle_t handle, nodeid_t node, ...)" (its name, an alias, its declarations)
_C_SIGNATURE = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z0-9]*_\w*[A-Za-z0-9])\s*(?:/\s*\w+\s*)?\(([^()]*)\)")
_DECLARED_NAME = re.compile(r"(?:^|\s|\*)([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$")
_NAME_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?![\w(])")


def part_names(identifiers: Sequence[str]) -> list[str]:
    """The names of `identifiers` that name one thing: four characters or more with a digit or an underscore, written
    as one token ("MPU6050", "mpfr_init_set_d"; not a standard's hyphenated name: "UTF-8" in "How do I tell gpasm
    that my source files are UTF-8 encoded?" is SCons' word there, not the question's manual)."""
    return [w for w in identifiers
            if len(w) >= 4 and "-" not in w and ("_" in w.strip("_") or any(c.isdigit() for c in w))]


def _manual_of_names(blocks: Sequence[EvidenceBlock], names: Sequence[str]) -> set[int]:
    """Ids of the blocks of the one manual whose blocks hold one of `names` (`part_names` of the question:
    "MPU6050", "mpfr_init_set_d"), when the evidence holds several manuals and no other names them: the question
    names that manual by them (expEYES-17's "In what format does the MPU6050 logger save its measurements?" quoted
    MPFR's "• mpfr_log_ui in MPFR 4.0.", close to "MPU6050 logger" for MiniLM); empty otherwise."""
    if len({b.hit.doc_id for b in blocks}) < 2 or not names:
        return set()
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(n.lower()) for n in names) + r")(?![\w])")
    holders = {b.hit.doc_id for b in blocks if not b.hit.navigation
               and pattern.search(f"{b.hit.section}\n{b.text}".lower())}
    return {b.id for b in blocks if b.hit.doc_id in holders} if len(holders) == 1 else set()


def _names_another_routine(text: str, routines: Sequence[str]) -> bool:
    """True when `text` holds the signature of a snake_case routine of the family of one of `routines` (the question's:
    the same first word, "fits_") and names none of `routines` themselves: CFITSIO's "int fits_decode_tdimll / ffdtdmll
    (fitsfile *fptr, char *tdimstr, ...)" for a question about fits_read_tdim. (Not prose that names another routine:
    raw1394_start_read's "When the transaction completes, a raw1394_loop_iterate will call the tag handler ..." says
    what its tag is for.)"""
    if not routines or _names_routine(text.lower(), routines):
        return False
    families = {r.lower().strip("_").split("_")[0] for r in routines}
    return any(name.lower().split("_")[0] in families for name, _ in _declarations(text))


def _declarations(text: str) -> list[tuple[str, set[str]]]:
    """(routine, the parameters it declares) of each signature in `text` that declares some (`routine_parameters`)."""
    found = []
    for m in _C_SIGNATURE.finditer(text):
        pieces = [p.strip().lstrip(">").strip() for p in m.group(2).split(",")]
        names = {d.group(1) for p in pieces if len(p.split()) >= 2 and (d := _DECLARED_NAME.search(p))}
        if names:
            found.append((m.group(1), names))
    return found


def routine_parameters(blocks: Sequence[EvidenceBlock], routines: Sequence[str]) -> tuple[set[str], set[str]]:
    """(the parameters of `routines`' signatures in `blocks` that not every signature there declares, those of the other
    routines' signatures that none of `routines`' declares). A signature's parameter is a declaration, a type and a name
    ("fitsfile *infptr", "int mgopt", "> int *status"): calls ("fits_read_tdim()", "foo(a, b)") declare none."""
    wanted = {r.lower() for r in routines}
    own: set[str] = set()
    others: list[set[str]] = []
    for b in blocks:
        for routine, names in _declarations(b.text):
            if routine.lower() in wanted:
                own |= names
            else:
                others.append(names)
    if not own or not others:
        return set(), set()
    shared = own.intersection(*others)
    return own - shared, set().union(*others) - own


def _entry_of(sentences: Sequence[str], pos: int, heads: frozenset[str]) -> tuple[str, list[str]] | None:
    """(term line, the description's sentences before `pos`) of the definition list entry whose description line
    sentence `pos` goes on, None when it opens a line of its own or the line is no entry's. The line's first
    sentence either holds the term on a line above its description ("-p" / "just parse the config file and exit.",
    split as one sentence) or follows the term, a sentence of its own ("watchdog timeout time"); a first sentence of
    more lines than the term's and one of description holds more than the entry (Yosys's "-setattr <attribute_name >"
    / "set the ... modules" / "read_rtlil [filename]" / "Load modules ...")."""
    if pos == 0 or opens_a_line(sentences[pos].split("\n")[0], heads):
        return None
    j = pos - 1
    while j >= 0 and not opens_a_line(sentences[j].split("\n")[0], heads):
        j -= 1
    if j < 0 or any(sentences[k].rstrip()[-1:] not in ".!?" for k in range(j, pos)):
        return None
    raw = sentences[j].strip().split("\n")
    said = [" ".join(sentences[k].split()) for k in range(j, pos)]
    if len(raw) == 2 and _is_term(raw[0]):
        said[0] = " ".join(raw[1].split())
        return " ".join(raw[0].split()), said
    if len(raw) == 1 and j > 0 and _is_term(sentences[j - 1]) and opens_a_line(sentences[j - 1], heads):
        return " ".join(sentences[j - 1].split()), said
    return None


def _is_term(line: str) -> bool:
    """The term line of an entry whose description may go on (`_entry_of`): a command-line option ("-p", "-P name of
    PID file"), a setting named with its value's type ("watchdog timeout time", "job-count num") or a command's name
    with its arguments' placeholders and kind ("write_table [options] [filename]", "soft_reset_halt [Command]") or an
    option's name with an underscore (Erlang's sftpd "max_handles" / "The default value is 1000. Positive integer value
    represents the maximum number of file handles ..."); not
    a line of code (ngspice's ".model DMOD D", bytefield's "\\newcommand{\\descbox}[2]{...}") nor a table's first cell
    ("0x0008 nopaste")."""
    line = " ".join(line.split())
    return bool(_OPTION_TERM.match(line) or TYPED_OPTION.match(line) or TYPED_SETTING.match(line)
                or _COMMAND_ENTRY.match(line) or re.fullmatch(_SNAKE_NAME, line))


def printed_at_prompt(text: str) -> frozenset[str]:
    """The lines of `text` (stripped) right below a line typed at a prompt (`PROMPT`): what the command printed
    ("gap> s1[7];" / "'w'"), no term of the sentence after it."""
    lines = [ln.strip() for ln in text.split("\n")]
    return frozenset(ln for above, ln in pairwise(lines) if _PROMPT.match(above))


def bibliography_entries(text: str, references: bool) -> list[str]:
    """The entries of a bibliography in `text`, each its lines joined, when two lines or more open with a citation
    key (_CITATION_KEY; a number only when `references`, the block's section lists references), or one in a section
    of references (GAP's tutorial lists one paper: "[Sim90] C. C. Sims. Computing the order of a solvable permutation
    group. J. Symbolic Comput.," / "9(5-6):699–705, 1990. ..."); the lines above the first key (the end of an entry
    the chunk cut) are one piece. [] when `text` is no bibliography."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    keyed = [i for i, line in enumerate(lines) if (m := _CITATION_KEY.match(line)) and (references or m.group("author"))]
    if len(keyed) < (1 if references else 2):
        return []
    return [" ".join(lines[a:z]) for a, z in pairwise([0, *keyed, len(lines)]) if z > a]


def line_heads(text: str) -> frozenset[str]:
    """The first four words of each line of `text` (white space normalised), for `opens_a_line`."""
    return frozenset(" ".join(line.split()[:4]) for line in text.split("\n")) - {""}


def opens_a_line(piece: str, heads: frozenset[str]) -> bool:
    """True when `piece` (a sentence of a text whose `line_heads` are `heads`) starts one of its lines: a term
    line is a line of its own, not the end of one after a sentence (PETSc's list "... optimization with
    constraints (Tao). TAO: Optimization Solvers" / "• code for managing interactions between mesh data
    structures ... (DM);": the cross-reference's title names the item above it, not the entry below)."""
    return " ".join(piece.split()[:4]) in heads


def notes_joined(sentences: list[str]) -> list[str]:
    """`sentences` with each note in brackets that follows a sentence's final punctuation joined to it
    (_NOTE; not a list's enumerator, "(a)")."""
    out: list[str] = []
    for s in sentences:
        if out and _NOTE.match(s.strip()) and not _ENUMERATOR.match(s.strip()) and out[-1].rstrip()[-1:] in ".!?":
            out[-1] = f"{out[-1].rstrip()} {s.strip()}"
        else:
            out.append(s)
    return out


def spelled_out(question: str) -> dict[str, set[str]]:
    """The acronyms that runs of three to five of the question's words spell, to the words' content
    terms: "least significant bits" -> {"lsb": {"least", "significant", "bit"}} (OpenOCD's "JTAG requires
    the two LSBs of this value to be 01." answers "What must the two least significant bits of the
    ircapture value be?")."""
    words = [w for w in re.findall(r"[A-Za-z]+", question) if w.lower() not in STOPWORDS]
    out: dict[str, set[str]] = {}
    for n in range(3, 6):
        for i in range(len(words) - n + 1):
            run = words[i:i + n]
            out.setdefault("".join(w[0] for w in run).lower(), set(content_terms(" ".join(run))))
    return out


def numbered_items(rest: Sequence[str]) -> list[str]:
    """`rest` with each list number the splitter set apart ("1.", "2.": _ENUMERATOR) joined to the piece
    after it ("1. Points \\dpoint")."""
    out: list[str] = []
    for i, piece in enumerate(rest):
        if i and _ENUMERATOR.match(rest[i - 1].strip()):
            # (the next item's number, left at the end of a chunk's last item: "... \\dlineload 7.")
            out[-1] = re.sub(r"\s\d{1,3}\.$", "", f"{out[-1].strip()} {piece.rstrip()}")
        else:
            out.append(piece)
    return out


def list_items(rest: Sequence[str], budget: int) -> list[str]:
    """The items of the list `rest` opens with (the sentences after its lead-in), each item's
    description on the line after a short item with it ("• -irlen NUMBER" / "The length in bits of the
    instruction register ..."), as many whole items as `budget` words hold."""
    out: list[str] = []
    words = 0
    for i, line in enumerate(rest):
        line = " ".join(line.split())
        item = bool(_BULLET.match(line))
        if not item and not (i and _BULLET.match(rest[i - 1].strip()) and len(rest[i - 1].split()) <= 4):
            break
        if words + len(line.split()) > budget:
            break
        out.append(line)
        words += len(line.split())
    return out


def reference_lists(blocks: Sequence[EvidenceBlock]) -> list[Candidate]:
    """The list of a "See also", "References", "Links" ... section (`_REFERENCE_SECTION`) as one quote, its whole items
    that LIST_WORDS words hold (" ..." after them when more are left out): each item is a title, which answers nothing
    alone and is never a sentence of its own (candidate_sentences), but "Which documents does the firehol-synproxy
    manual page refer to ...?" asks for the list ("• firehol(1) - FireHOL program • ... • NAT HOWTO • netfilter flow
    diagram")."""
    out = []
    for b in blocks:
        if b.hit.navigation or not _REFERENCE_SECTION.search(b.hit.section.split(" > ")[-1]):
            continue
        lines = [" ".join(x.split()) for x in b.text.split("\n") if x.strip()]
        start = next((i for i, x in enumerate(lines) if _BULLET.match(x)), None)
        items = _whole_items([x for x in lines[start:] if _BULLET.match(x)], LIST_WORDS) if start is not None else []
        if items:
            out.append(Candidate(b.id, start, " ".join(items), listed=True,
                                 chunk=(b.hit.doc_id, b.hit.chunk_id, b.hit.page)))
    return out


def _whole_items(items: Iterable[str], budget: int) -> list[str]:
    """As many whole `items` as `budget` words hold, " ..." after the last when more are left out; [] unless there are
    two or more."""
    out: list[str] = []
    words = 0
    for item in items:
        if words + len(item.split()) > budget:
            return [*out[:-1], f"{out[-1]} ..."] if len(out) >= 2 else []
        out.append(item)
        words += len(item.split())
    return out if len(out) >= 2 else []


def defined_items(rest: Sequence[str], budget: int) -> list[str]:
    """The items of a list of names and meanings that `rest` opens with (_DEFINED_ITEM: "Year – the full
    year" / "Month – the current month 1-12 Day – the day of the month 1-31", several items on a line each
    one of its own), as many whole items as `budget` words hold (`_whole_items`)."""
    def items() -> Iterator[str]:
        for line in rest:
            line = " ".join(line.split())
            if not _DEFINED_ITEM.match(line):
                return
            yield from _NEXT_DEFINED.split(line)

    return _whole_items(items(), budget)


def termed_items(rest: Sequence[str], budget: int) -> list[str]:
    """The items of a list whose terms stand on lines of their own (TERM_OF_LIST) with a description below each ("dict"
    / "Checks against the realm dictionary file" / "empty" / ...), each "term description", as many whole items as
    `budget` words hold (`_whole_items`)."""
    def items() -> Iterator[str]:
        for term, said in zip(rest[::2], rest[1::2], strict=False):  # (a term left without its description ends it)
            if not TERM_OF_LIST.match(term.strip()) or not said.strip()[:1].isupper():
                return
            yield " ".join(f"{term} {said}".split())

    return _whole_items(items(), budget)


def items_below(rest: Sequence[str], budget: int) -> list[str]:
    """The items of the list `rest` opens with, bulleted or numbered (list_items), names with their meanings
    (defined_items) or terms on lines of their own (termed_items), within `budget` words; [] when `rest` opens with no
    list."""
    if rest and _DEFINED_ITEM.match(rest[0].strip()) and not _BULLET.match(rest[0].strip()):
        return defined_items(rest, budget)
    if rest and TERM_OF_LIST.match(rest[0].strip()):
        return termed_items(rest, budget)
    return list_items(numbered_items(rest), budget)


def value_rows(rest: Sequence[str], budget: int) -> list[str]:
    """The rows of a two-column list of values at the start of `rest` ("0 Messages, warnings and errors
    printed." / "1 Warnings and error printed." / "2 Errors printed."), as many whole rows as `budget`
    words hold; [] unless there are two or more."""
    out: list[str] = []
    words = 0
    for line in rest:
        line = " ".join(line.split())
        if not _VALUE_ROW.match(line) or words + len(line.split()) > budget:
            break
        out.append(line)
        words += len(line.split())
    return out if len(out) >= 2 else []


def _table_after(lead: str, rest: Sequence[str], budget: int) -> list[str]:
    """The head line and rows of a table of values that `rest` opens with ("Setting Affect" / "0
    Messages, warnings and errors printed." / ...; `value_rows`), or its rows alone after a lead-in
    that announces them (ending in ":" or no full stop); [] for anything else."""
    head = " ".join(rest[0].split()) if rest else ""
    if head and len(head.split()) <= 3 and head[-1] not in FINAL_PUNCTUATION and not _VALUE_ROW.match(head):
        rows = value_rows(rest[1:], budget - len(head.split()))
        return [head, *rows] if rows else []
    return value_rows(rest, budget) if lead.rstrip()[-1:] not in ".!?" else []


def _framed_synopsis(sentences: Sequence[str], pos: int, section: str) -> bool:
    """True when the sentence before `pos` is a line of glyphs without a Unicode map (U+FFFD) and nothing else, and
    the one before that a short line naming the section's entry: its synopsis, framed (dasm's manual frames each
    directive's synopsis, "\ufffd" / "symbol SET exp" / "\ufffd" / "Same as EQU, =, but the symbol may be reassigned
    later." under "6.2.3 SET"; its examples too, whose frame ends a listing before the prose below it)."""
    if pos < 2 or sentences[pos - 1].strip("\ufffd \n") or not sentences[pos - 1].strip():
        return False
    name = SECTION_NUMBER.sub("", section.rsplit(" > ", 1)[-1].strip())
    line = [w for w in sentences[pos - 2].split() if w.strip("\ufffd")]
    return (len(name.split()) == 1 and len(name) > 1 and len(line) <= 8
            and re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", " ".join(line)) is not None)


def synopsis_of_section(line: str, section: str) -> bool:
    """True for the synopsis of the command whose entry the section is ("stat [options]
    [selection]" under "C.188 stat - print some statistics"): at most eight words, no prose, its
    first word the section title's. The description after it names no command ("Print some
    statistics (number of objects) on the selected portion of the design.")."""
    words = line.split()
    if not 0 < len(words) <= 8 or len(words[0]) < 2 or not heads_section(section, words[0]):
        return False
    rest = _PLACEHOLDER.sub(" ", " ".join(words[1:])).split()  # "[options] [selection]", "<file>"
    return all(t.startswith("-") or t in ("...", "|") for t in rest)


def _siblings_in_list(sentence: str, following: str) -> bool:
    """True when `sentence` is a list item itself and `following` the next item, with the same bullet: no
    items it introduces (chemplants' "• To make the confrontation easier, the standard heat exchanger
    biphase is:" and its drawing, then "• A pic can be rotated using the rotate transformation:")."""
    a, b = _BULLET.match(sentence.strip()), _BULLET.match(following.strip())
    return bool(a and b) and a.group(0).strip()[:1] == b.group(0).strip()[:1] and not a.group(0)[:1].isdigit()


# a sentence that announces what follows it without a colon ("... the following configuration options may be
# used for HDF5, CGNS, and MED respectively, as well as for Catalyst ...", code_saturne's installation guide)
# (what it announces is what a user types: options, commands, settings; not "The following table shows ...", nor
# "... are joined with the following line", a line the sentence speaks of, nor "the following code", often a
# whole listing whose first line says nothing)
_FOLLOWING = re.compile(r"(?<!\bwith )(?<!\bto )(?<!\bon )(?<!\bin )(?<!\bof )(?<!\bfrom )(?<!\bby )\bthe following "
                        r"(?:[a-z-]+ ){0,2}(?:options?|commands?|settings?|statements|directives|variables|flags|switches|"
                        r"parameters)\b", re.I)


def introduces_code(sentence: str, following: str) -> bool:
    """True when `sentence` is a lead-in ("... using the following command:", "Had we only needed
    the eigenvalues we could have used the assignment:", or a sentence that announces what follows
    with a full stop: "... the following configuration options may be used for HDF5, CGNS, and MED
    respectively." above "--with-hdf5=salome") and `following`, the next line, the
    command or code it introduces ("$ gpg --verify nut-X.Y.Z.tar.gz.sig", "> evals <-
    eigen(Sm)$values"): a prompt or code marks, no prose sentence, no list item, and short enough to
    quote together (PAIR_WORDS)."""
    nxt = " ".join(following.split())
    prompted = bool(_PROMPT.match(nxt))  # "> rm(x, y, z, ink, junk, temp, foo, bar)" ends in ")" but is no prose
    announces = sentence.rstrip().endswith(":") or (sentence.rstrip().endswith(".") and bool(_FOLLOWING.search(sentence)))
    if not announces or not nxt or _BULLET.match(nxt) or (reads_as_prose(nxt) and not prompted):
        return False
    if not (is_quotable(nxt) or _is_command_line(nxt)):  # a contents line, a transcript
        return False
    if len(sentence.split()) + len(nxt.split()) > PAIR_WORDS:
        return False
    return prompted or bool(_CODE_MARK.search(nxt))


def code_block(first: str, rest: Sequence[str], budget: int) -> list[str]:
    """The lines of the command block that starts with `first` (each with its white space
    normalised): `first`, then each line of `rest` that opens with the same prompt (">>>", "$ ",
    "> ") and reads as no prose (or, after a short line of code without a prompt, each such line:
    "--with-hdf5=salome" / "--with-cgns=salome" / "--with-med=salome"; not the items of a list of names and
    meanings, "GLP_NU — non-basic variable on its upper bound;", each an answer of its own), while the block stays within
    `budget` words ("Connect SINE to A1
    and try:" introduces ">>>import expeyes.eyemath as em", ">>>t,v= p.capture_hr(1, 400,50)",
    ">>>vfit, par = em.fit_sine(t,v)")."""
    block = [" ".join(first.split())]
    prompt = _PROMPT_RUN.match(block[0]).group(0)
    used = len(block[0].split())
    bare_code = not prompt and _is_example(block[0]) and not _LIST_ITEM.match(block[0])
    if _ELIDED.match(block[0]):  # "# ..." stands for lines left out; the code goes on below it
        prompt, bare_code = "", True
    for line in rest:
        line = " ".join(line.split())
        if bare_code and _is_example(line) and not _BULLET.match(line) and not _LIST_ITEM.match(line):
            pass  # lines of code without a prompt, one after another ("--with-hdf5=salome" / "--with-cgns=salome")
        elif not prompt or _PROMPT_RUN.match(line).group(0) != prompt or (reads_as_prose(line) and not _PROMPT.match(line)):
            break
        used += len(line.split())
        if used > budget:
            break
        block.append(line)
    return block


def fenced_block(lines: Sequence[str], budget: int) -> list[str]:
    """The lines of a block set between fence lines (_FENCE), from the first of `lines` up to the closing
    fence, within `budget` words (the first line always): the Ecasound user's guide prints its transcripts
    between "--cut--" lines, and "The following sequence cuts the section ... into “gate-test.wav”:" was
    quoted with the fence alone, not with "|$ ecasound -i guitar.wav -o gate-test.wav -gc:60,1"."""
    block: list[str] = []
    used = 0
    for line in lines:
        line = " ".join(line.split())
        closing = _FENCE.search(line)
        if closing:
            line = line[:closing.start()].strip()
        used += len(line.split())
        if block and used > budget:
            break
        if line:
            block.append(line)
        if closing:
            break
    return block


def _first_command(line: str) -> str | None:
    """The dot-command in the first word of `line` (".save i(vin) node1" -> ".save"), else None."""
    found = options_in(line.split(maxsplit=1)[0]) if line.strip() else []
    return found[0] if found and found[0].startswith(".") else None


def _example_of(line: str, sentence: str) -> bool:
    """True when `line` is an example of a dot-command that `sentence` names itself (".save all
    @m2[vdsat]" above "The vectors listed on the .SAVE line are ..."): not a term the sentence needs."""
    command = _first_command(line)
    return command is not None and prints_option(sentence, command) > 0


def _said_in(a: set[str], b: set[str], either: bool = False) -> float:
    """The share of the words `a` that `b` has too (`either`: of the shorter's words that the longer has)."""
    return len(a & b) / max(1, min(len(a), len(b)) if either else len(a))


def _row_keys(text: str) -> tuple[str, ...]:
    """The column names of a table row ("Name: G | Default: 0.0" -> ("name", "default")); ()
    for anything else."""
    return tuple(k.strip().lower() for k, _ in row_cells(text))


# a one-letter command-line option, its case kept: HMMER's esl-translate has "-m" (ORFs start with AUG) and "-M" (with any
# initiator the genetic code allows), and "With the -m option, ORFs start with an initiator AUG Met." is no duplicate of
# "With the -M option, ORFs start with any of the initiation codons allowed by the genetic code."
_LETTER_OPTION = re.compile(r"(?<![\w-])-[A-Za-z](?![\w-])")


def near_duplicate(sentence: str, other: str, *, columns: bool = True, either: bool = False) -> bool:
    """True when `sentence` says nothing `other` does not: most of its content words are in `other` (not
    when it says more: "Passwords are never sent over the wire in plain text." is no duplicate of "These
    passwords are plain text."), and `sentence` carries no number or name that `other` lacks (a table row
    "Threads: 8 | CPU time [s]: 32.4" is not a duplicate of a sentence about threads and CPU time).
    Two rows with the same columns ("Name: R | ... | Default: 0.0", "Name: G | ...") are
    duplicates: the best row answers, its siblings only differ in their values (`columns=False`: not
    for that alone). `either`: most of the shorter's words are in the longer, whichever of the two it is (a pair
    of sentences that holds one chosen and brings no number or name of its own repeats it)."""
    keys = _row_keys(sentence)
    if columns and keys and keys == _row_keys(other):
        return True
    if _said_in(set(content_terms(sentence)), set(content_terms(other)), either) <= 0.7:
        return False
    if not set(_LETTER_OPTION.findall(sentence)) <= set(_LETTER_OPTION.findall(other)):
        return False  # ("-m" is another option than "-M", though terms are compared in lower case)
    have = {(t.kind, t.norm, t.value, t.unit) for t in terms(other)}
    return all((t.kind, t.norm, t.value, t.unit) in have for t in terms(sentence))


def _asked_kind(question: str) -> str:
    """"key" when the question asks for a key to press (a shortcut, a key binding), "option" when it
    asks for a command-line option, flag or switch, "file" for a
    file or directory ("where does gnuplot write the fit log"; not a place in a file: "where in a flex
    input file ..."), "name" for another name, "value"
    when it asks for a value, else ""."""
    if _KEY_Q.search(question):
        return "key"
    if _OPTION_Q.search(question):
        return "option"
    if _IN_A_FILE_Q.search(question):
        return "value" if _VALUE_Q.search(question) else ""
    if _FILE_Q.search(question):
        return "file"
    if _NAME_Q.search(question):
        return "name"
    return "value" if _VALUE_Q.search(question) else ""


def rank_candidates(question: str, blocks: Sequence[EvidenceBlock], embedder=None, *,
                    rank_weight: float = 0.05, value_bonus: float = VALUE_BONUS) -> list[Candidate]:
    """Every quotable sentence scored for `question`, best first.

    Score = cosine(question, "section title: sentence") with `embedder` (if given) + 0.5 x share of
    the question's content words in the sentence + `rank_weight` x the block's rank (better-ranked
    blocks more) + `value_bonus` when the sentence (or its term line) carries the kind of term the
    question asks for (a number, a name), and the other bonuses and penalties below (a sentence that
    forbids for a question about what is not allowed, advice for one that asks for it, the sentence
    after the manual's own question). A candidate with a term line is quoted with it."""
    cands = candidate_sentences(blocks)
    references = reference_lists(blocks) if _ASKS_REFERENCES.search(question) else []
    cands += references
    if not cands:
        return []
    q_list = content_terms(question)
    q_terms = set(q_list)
    q_pairs = set(pairwise(q_list))
    spelled = spelled_out(question)
    docs = {b.id: (b.hit.doc, "") for b in blocks}
    named = named_documents(question, docs)  # ids of the blocks from a manual the question names
    cos = None
    if embedder is not None:
        section = {b.id: b.hit.section.split(" > ")[-1].strip() for b in blocks}
        asked_text = question
        if COMPARE_WITHOUT_NAMES and named and len(named) == len(docs):
            # a manual's name that all the evidence shares says which manual, not which sentence
            # (across manuals it tells them apart: "How do I read a CSV file into R?")
            asked_text = without_names(question, docs, named)
        vecs = embedder.encode([asked_text] + [in_section(c.text, section[c.block_id]) for c in cands])
        cos = vecs[1:] @ vecs[0]
    asked = _asked_kind(question)
    if asked in ("option", "file", "key") and not any(_carries(f"{c.label} {c.text}", asked) for c in cands):
        # "which ngbehavior flag ...": the flags are words here ("kicad"), not "-x"
        asked = "name" if asked != "key" else ""
    # options and dot-commands, and command names written in snake_case ("opt_clean"; product names
    # such as "KiCad" or "OpenBSD" head sections that do not define them)
    plan = plan_query(question)
    # (and codes: "What does gpasm error 118 mean?" / "118 Overwriting previous address contents.")
    # (not a module named with its function: "ssh_connection:send" names send, and ssh_connection's introduction
    # "The SSH Connection Protocol is used by clients and servers ..." answered "... send my answer with
    # ssh_connection:send, but nothing comes back. What am I missing?")
    options = options_in(question) + sigil_names(question) + [
        w for w in plan.identifiers if "_" in w.strip("_") and not re.search(re.escape(w) + r":[a-z]", question)]
    codes = entry_codes(plan)
    options += codes
    # and names in capitals that are a section's whole heading: a reference's entries ("What does the
    # FILL directive do?", gpasm's "FILL" and "__BADRAM"; not a product's name: "KiCad" heads the section
    # that introduces KiCad, not the flag asked for)
    options += [w for w in dict.fromkeys(plan.identifiers) if w not in options and w.lstrip("_").isupper()
                and any(titles_section(b.hit.section, w) for b in blocks)]
    # and the entries it names by their kind: the one its section heads alone ("H.1.87 ToggleVendor"), or
    # whose definition line starts a quote ("jtag names [Command]" / "Returns the names of all current TAPs")
    entries = entries_named(question)
    heads = {b.id: any(heads_section(b.hit.section, o) for o in options)
             or any(titles_section(b.hit.section, e) for e in entries) for b in blocks}
    # in a section headed by the name, its first sentence of prose defines it ("This pass identifies ..."): not a later
    # chunk's first (ngspice's "Parameters may also have string values, but support is limited.", its .param line
    # section's fifth chunk, took the bonus for "How can I make a .param value available as a vector ...?")
    defining = {}
    later = {b.id for b in blocks if b.hit.prose_above}
    for c in cands:
        if (heads[c.block_id] and c.block_id not in defining and c.block_id not in later
                and reads_as_prose(c.text) and not c.text.startswith("...")):
            defining[c.block_id] = c.position
    settings = _settings_named(question)
    changelog = {b.id: b.in_changelog for b in blocks}
    history = bool(_ASKS_HISTORY.search(question))
    by_id = {b.id: b for b in blocks}
    howto_bonus = HOWTO_BONUS if _HOWTO_Q.search(question) else 0.0
    asks_meaning = bool(_ASKS_MEANING.search(question))
    quoted = quoted_phrases(question)
    asks_remedy = bool(_ASKS_REMEDY.search(question))
    asks_default = bool(_ASKS_DEFAULT.search(question))
    default_second = bool(_ASKS_DEFAULT.search(second_part(question)))
    q_names = _names(question)
    defined = m.group(1) if (m := _WHAT_IS_A.match(question)) else ""
    stated = _states(question)
    prohibited = bool(_ASKS_PROHIBITED.search(question))
    advice = bool(_ASKS_ADVICE.search(question))
    reason = bool(_ASKS_REASON.search(question))
    returns = bool(_ASKS_RETURN.search(question))
    asked_in_manual: list[tuple[Candidate, float]] = []  # the manual's own questions and their scores
    phrases = _question_phrases(question)
    rows_of = {b.id for b in blocks if b.hit.kind == "table"}
    exact = _exact_numbers(question)
    asked_words = {w for w in re.findall(r"[\w\\][\w.\\-]*\w", question) if w.lower() not in STOPWORDS}
    # a one-letter name as the question writes it ("the G parameter" -> the row "Name: G | ...")
    asked_words |= set(_LETTER_NAME.findall(question))
    # a part number as its tools spell it is the one asked for ("p16f1829lin" for "PIC16F1829LIN")
    spellings = {v: w.lower() for w in plan.identifiers for v in part_spellings(w)}
    n = max(b.id for b in blocks)
    demo = _demo_output(cands)
    routines = [w for w in plan.identifiers if "_" in w.strip("_")]
    # names in capitals with a digit ("AES-256", "PIC16F84"): an entry whose term opens its line (`_inline_entry`)
    coded = [w for w in dict.fromkeys(plan.identifiers) if len(w) >= 4 and re.search(r"\d", w) and w.upper() == w
             and re.search(r"[A-Z]", w)]
    unnamed = _blocks_without(blocks, routines)
    programs = _programs_named(question, cands)
    own_params, other_params = routine_parameters(blocks, routines)
    said = {(c.block_id, c.position): c.text for c in cands}  # (as the block words them, before any is joined)
    negated = negative_forms(question)
    named_lines = _lines_named(blocks, question)
    condition = set(content_terms(m.group(1))) if (m := _WHAT_HAPPENS.search(question)) else set()
    mentioned: set[int] = set()  # blocks whose sentence naming an option the question names took the entry's bonus
    for i, c in enumerate(cands):
        have = set(content_terms(c.text))
        have |= {spellings[t] for t in have if t in spellings}
        # a name of joined words says the words of the question it joins in the question's order
        # ("NG_STL_INPUT_ERROR = 3" for "an STL input error", "Ng_RestrictMeshSizeBox" for "restrict the mesh
        # size"; not LD_LIBRARY_PATH for "library" and "user")
        have |= {w for name in _JOINED_NAME.findall(c.text) for w in _phrase_in_name(name, q_pairs)}
        for a in _ACRONYM.findall(c.text):  # "LSBs" says "least significant bits"
            have |= spelled.get(a.lower(), set())
        have |= {negated[t] for t in have if t in negated}
        cover = len(q_terms & have) / len(q_terms) if q_terms else 0.0
        c.score = (float(cos[i]) if cos is not None else 0.0) + 0.5 * cover + rank_weight * (n - c.block_id) / n
        if c.below:  # ranked as the sentence alone: a list read with it is no longer like the question
            c.text = " ".join([c.text, *c.below])
        if not c.label and (name := named_lines.get((c.block_id, _opening(c.text)))):
            c.label = name  # ("only-urandom" / "Always use the non-blocking /dev/urandom ...": a term the question writes)
        if c.label:  # "~/.octaverc" + "This file is used to make personal changes ...": quote both
            c.text = f"{c.label} {c.text}"
        elif (reason and _CONSEQUENCE.match(c.text) and (before := said.get((c.block_id, c.position - 1)))
              and before.rstrip()[-1:] in ".!?" and len(before.split()) + len(c.text.split()) <= PAIR_WORDS):
            c.text = f"{before} {c.text}"
        described = [o for o in options if _describes(c.text, o, heads[c.block_id])]
        entry_named = (defining.get(c.block_id) == c.position
                       or (settings and settings.match(c.text))
                       or (DEFINITION_LINE.match(c.label) and any(starts_with_option(c.label, e) for e in entries))
                       or any(whatis_line(e, c.text) for e in entries) or _label_named(c.label, question)
                       or _keyword_named(c.keyword, question) or _heading_named(c.headed, question)
                       or any(_inline_entry(c.text, n) for n in coded))
        # a sentence that only names the dot-command or name inside its entry ("String-valued parameters can be defined
        # by .param ...", not one that opens with it) takes the bonus when its block has no defining sentence, and only
        # the first such; the others compete on their words ("Which names are reserved and can't be used for .param
        # parameters?" quoted three sentences about string-valued parameters before "... other words are reserved and
        # cannot be used as parameter names: ...")
        mention = (bool(described) and not entry_named
                   and not any(starts_with_option(_BULLET.sub("", c.text.lstrip()), o) for o in described))
        entry_named = entry_named or bool(described)
        again = mention and (c.block_id in mentioned or c.block_id in defining)
        if mention:
            mentioned.add(c.block_id)
        # (not a change log's entry, for a question that is no history: "- callgrind_annotate now inserts commas in call
        # counts ..." of Valgrind's NEWS says what a release changed, not what the option asked for is)
        if entry_named and not (changelog[c.block_id] and not history):
            # the entry of the option or setting the question names ("ITL1=x resets the dc iteration limit.")
            c.score += 0.0 if again else OPTION_BONUS
            c.entry = True
            if (len(c.text.split()) - len(c.label.split()) < SHORT_ENTRY and c.following
                    and not _BULLET.match(c.following) and not _OPTION_ENTRY.match(c.following)
                    and "=" not in c.following.split()[0]):
                # "• oob_softecc_kw" / "File has only page data, which is written." says what the entry
                # shares with its neighbours; the next sentence says what it is ("The OOB area is filled
                # with 0xff, except for a 4-bit software ECC specific to the boot ROM in Marvell Kirkwood SoCs.")
                c.text, c.following = f"{c.text} {c.following}", ""
        elif not entry_named and codes and (m := _ENTRY_CODE.match(c.text)) and m.group(1) not in codes:
            # the entry of another code of the list ("120 Call or jump not allowed ..." for error 118)
            c.score -= OTHER_ENTRY_PENALTY
        elif not entry_named and c.block_id in unnamed:
            # a sentence of another page than the one whose passages name the routine the question asks about ("What's
            # the difference between fits_make_hist and fits_make_histd?": "CFITSIO supports several local FITS
            # conventions ..." over "The “d” version has double precision floating point inputs ...")
            c.score -= UNNAMED_PENALTY
        elif not entry_named and _names_another_routine(c.text, routines):
            # a sentence that names another routine of the library and not the one asked about ("(fitsfile *fptr, ...)
            # int fits_decode_tdimll / ffdtdmll (...)" for "What does CFITSIO's fits_read_tdim return ...?")
            c.score -= OTHER_ENTRY_PENALTY
        elif not entry_named and programs and c.program and c.program not in programs:
            # a line of another program's help text than the one the question names ("-R# : Make regular of specified
            # degree ..." of genrang for "With addedgeg, how do I add edges only where ... and keep the maximum degree
            # at most 4?", over addedgeg's "-D# Specify an upper bound on the maximum degree ...")
            c.score -= OTHER_ENTRY_PENALTY
        elif not entry_named and _heading_of_another(c.headed, question):
            # a sentence of another entry of the kind the question names (under "6.27.3.79 service: ntp", for the
            # nrpe service); its field ("Server Ports: • udp/123") is never quoted (below): it would read as the answer
            c.score -= OTHER_ENTRY_PENALTY
            c.other_field = bool(_FIELD_VALUES.match(c.text))
        if c.introduces:
            c.score += howto_bonus
        elif howto_bonus and exact and _does_it(c.text, exact):
            c.score += howto_bonus
        if exact and _only_bounds(c.text, exact):
            c.score -= BOUND_PENALTY
        paired = False
        states_default = asks_default and bool(_STATES_DEFAULT.search(c.text))
        if asked and _carries(c.text, asked):
            c.score += value_bonus
        elif states_default:
            # "Where is a label placed by default?" asks a place: "The default setting is above right."
            c.score += value_bonus
        elif (asked and c.following and _carries(c.following, asked) and not _OPTION_ENTRY.match(c.following)
              and len(c.text.split()) + len(c.following.split()) <= PAIR_WORDS):
            # "XMU=x sets the damping factor." + "The default value is XMU=0.5.": quote both
            c.text = f"{c.text} {c.following}"
            c.score += value_bonus / 2
            paired = True
        if (not paired and asks_default and not states_default and c.following and _GIVES_DEFAULT.search(c.following)
                and (default_second or _DEFAULT_FIELD.search(c.following))
                and not _OPTION_ENTRY.match(c.following) and len(c.text.split()) + len(c.following.split()) <= PAIR_WORDS):
            # "Utility function that starts the applications crypto, public_key, and ssh." + "Default type is
            # temporary." for "Which OTP applications does ssh:start() start, and what application type does it use if
            # I don't give one?": the default a question's second part asks for is in the sentence after (and a
            # reference entry's field: "... should use higher GC periods. Default: adaptive, ...", BIRD's; "The default
            # radix is hexadecimal." answers "What is the default radix of gpasm?" alone)
            c.text = f"{c.text} {c.following}"
            c.score += value_bonus / 2
            paired = True
        if (not paired and c.following
                and (_HOW_IT_IS_DONE.match(c.following) or (asks_meaning and _SAYS_MEANING.match(c.following))
                     # or what it means in the words the question asks in ("... it is recommended that you defer DRBD
                     # startup ... exclusively to the OCF resource agent." + "That means that you should disable the
                     # DRBD init script: chkconfig drbd off" for "... what should I do with the DRBD init script?")
                     or (_SAYS_MEANING.match(c.following) and bool(q_terms & set(content_terms(c.following)) - have))
                     or (defined and _SAYS_MORE.match(c.following) and re.search(rf"\b{re.escape(defined)}", c.text, re.I))
                     or (_CONDITION.match(c.text) and _OTHERWISE.match(c.following))
                     or (asks_remedy and _GIVES_REMEDY.search(c.following))
                     # or, for a question why, the reason after a short claim that gives none ("In the case of
                     # eigenproblems, using libraries is not straightforward." + "It is usually recommended that the
                     # user understands how the underlying algorithm works ...", SLEPc's)
                     or (reason and _claims(c) and reads_as_prose(c.following) and not _BULLET.match(c.following)))
                and len(c.text.split()) + len(c.following.split()) <= PAIR_WORDS):
            # (and for "what does that mean?", "... is drawn in white instead of yellow." + "This means that
            # AO-51 is selected.": the meaning is in the sentence after; for "What exactly is a module?", "A
            # module in Gpredict is the same as a document ..." + "It is an object, which has a certain number of
            # satellites and a ground station associated to it.")
            # (whatever number the sentence carries: "(2.19) The problem is caused by ...")
            # "... you can still get an idea of what the structure is ..." + "To do so, you must set the
            # EXTRACT_ALL tag in the configuration file to YES.": the way is in the sentence after
            lead, _, shown = c.following.strip().partition("\n")
            # (a lead-in with what it announces on the line below it, "... the DRBD init script:" / "chkconfig drbd off")
            c.introduces = c.introduces or (lead.rstrip().endswith(":") and bool(shown.strip()))
            c.text, c.following = f"{c.text} {c.following}", ""
        if (c.text.rstrip()[-1:] not in ".!?)" and not c.introduces and not c.below and not _LIST_ITEM.match(c.text)
                and (c.block_id in rows_of or not _SHOWS_CODE.search(c.text))):
            # a lead-in to a list or a fragment, not an answer (not one that shows what it announces: "...
            # include them into the URLs: protocol://user:password@example.com/path/")
            c.score -= LEAD_IN_PENALTY
        if opposes(plan.terms, c.text):  # "internal ram" for "external RAM": the embedder reads them alike
            c.score -= OPPOSITE_PENALTY
        if q_names and _names_a_sibling(c.text, q_names):
            c.score -= SIBLING_PENALTY
        if c.block_id in rows_of and phrases and any(ph in " ".join(_PHRASE_WORD.findall(c.text.lower()))
                                                      for ph in phrases):
            c.score += PHRASE_BONUS
        if c.block_id in rows_of and _row_names_asked(c.text, asked_words, question):
            c.score += ROW_KEY_BONUS
            c.named = True
        if prohibited and _PROHIBITS.search(c.text):
            c.score += PROHIBITION_BONUS
        if quoted and reads_as_prose(c.text) and any(ph in " ".join(c.text.lower().split()) for ph in quoted):
            # (a sentence: not a transcript that prints the message again, "... Wrong type to apply: 1 ABORT: ... guile>")
            c.score += QUOTED_BONUS
        if stated is not None and stated.search(c.text):
            c.score += STATES_BONUS
            c.states = True
        asks = c.text.rstrip().endswith("?")
        if asks:
            asked_in_manual.append((c, c.score))
        if asks or _quotes_a_mail(c.text):
            # a question asked in the manual (an FAQ's, a mail's), or a mail it quotes, answers nothing
            c.score -= QUESTION_PENALTY
        if advice and _ADVISES.search(c.text):
            c.score += ADVICE_BONUS
        if reason and _GIVES_REASON.search(c.text):
            c.score += REASON_BONUS
        elif reason and len(_PROSE_WORD.findall(c.text)) < 3:  # a line of code ("y[i] ~ dnorm(mu, tau)")
            c.score -= REASON_BONUS
        if (own_params or other_params) and not _declarations(c.text) and len(_PROSE_WORD.findall(c.text)) >= 3:
            # (a sentence of prose, not a signature)
            names = set(_NAME_WORD.findall(c.text))
            if names & own_params and not names & other_params:
                c.score += PARAMETER_BONUS
            elif names & other_params and not names & own_params:
                c.score -= OTHER_ENTRY_PENALTY
        if condition and (stated_if := _STATES_CONDITION.search(c.text)):
            put = set(content_terms(stated_if.group(1)))
            if len(condition & (put | {negated[t] for t in put if t in negated})) >= min(CONDITION_WORDS, len(condition)):
                c.score += CONDITION_BONUS
        if returns and _SAYS_RETURN.search(c.text) and len(_PROSE_WORD.findall(c.text)) >= 3:
            c.score += RETURN_BONUS
        if _BOILERPLATE.search(c.text) and not _ASKS_LICENCE.search(question):
            c.score -= BOILERPLATE_PENALTY
        if changelog[c.block_id] and not history:
            c.score -= CHANGELOG_PENALTY
        elif changelog[c.block_id]:
            c.score += HISTORY_BONUS
            typeset = _PROSE_DASH.sub("--", c.text)
            if any(prints_option(typeset, o) for o in options):
                c.score += OPTION_BONUS
            c.text = by_id[c.block_id].named(c.text)  # its release before it
    for c in cands:
        if c.block_id in demo:
            c.score -= DEMO_PENALTY
        if any(c is r for r in references):  # the list of documents asked for
            c.score += REFERENCES_BONUS
    _answers_of_questions(cands, asked_in_manual)
    # (a question of two parts, one of which names none of them, asks for an entry it does not name too)
    cands = [c for c in _off_the_entry(cands, [] if _a_part_names_none(question, options) else options)
             if not c.other_field]
    _twins_of_the_other_polarity(question, cands)
    if not named:  # (a manual the question names by the names only it holds)
        named = _manual_of_names(blocks, part_names(plan.identifiers))
    _lift_what_is_asked_for(question, blocks, cands, asked, named)
    return sorted(cands, key=lambda c: -c.score)


def negative_forms(question: str) -> dict[str, str]:
    """The stems of the words `question` negates ("not available", "isn't valid") said with a negative prefix, each
    mapped to the word's stem ("unavailabl" -> "availabl", "invalid" -> "valid"): a sentence that says "unavailable"
    says what the question's "not available" does."""
    out: dict[str, str] = {}
    for m in _NEGATED.finditer(question):
        for t in content_terms(m.group(1)):
            for prefix in _NEGATIVE_PREFIXES:
                out.setdefault(prefix + t, t)
    return out


def _demo_output(cands: Sequence[Candidate]) -> set[int]:
    """The blocks whose sentences are an example's printed output: DEMO_SENTENCES or more, DEMO_REPEATED of them said
    word for word again in the block ("This text is flowing from the right." three times, "This text is justified."
    six, under Prawn's "text/alignment.rb")."""
    said = Counter((c.block_id, c.text) for c in cands)
    total = Counter(c.block_id for c in cands)
    again = Counter(c.block_id for c in cands if said[(c.block_id, c.text)] > 1)
    return {b for b, k in total.items() if k >= DEMO_SENTENCES and again[b] >= DEMO_REPEATED * k}


def _label_named(label: str, question: str) -> bool:
    """True when a term line's name, a joined or TeX name of six characters or more ("unix-filename-rubout",
    "\\axisdefaultwidth"), is written in the question, or the key bound to the command it names, however
    spelled ("Ctrl-W" for "unix-word-rubout (C-w)"): "What is the difference between Ctrl-W and
    unix-filename-rubout ...?" asks for those two entries of Readline's command list."""
    bound = _BOUND_COMMAND.match(" ".join(label.split()))
    if bound and _keys(label[label.rfind("("):]) & _keys(question):
        return True
    name = label.split(maxsplit=1)[0] if label.strip() else ""
    if len(name) < 6 or not re.search(r"[-_\\]", name):
        return False
    return re.search(r"(?<![\w\\-])" + re.escape(name) + r"(?![\w-])", question) is not None


def _field(line: str, below: str) -> bool:
    """True when `line` is a field's name (FIELD_WORDS words at most, ending with a colon) over `below`, a bulleted
    value of FIELD_WORDS words at most ("Server Ports:" / "• tcp/43"; not a list's lead-in, "Major:" / "• Add –vpi
    flag, and fix VPI linkage. ...")."""
    return (len(line.split()) <= FIELD_WORDS and line.rstrip().endswith(":") and bool(_BULLET.match(below.strip()))
            and len(below.split()) <= FIELD_WORDS + 1)


def opens_inside_entry(text: str) -> bool:
    """True when `text` (a chunk's) holds a field (`_field`) before its first numbered entry line (`ENTRY_LINE`): it
    opens inside an entry whose line is in a chunk before it."""
    first = ENTRY_LINE.search(text)
    lines = [x for x in (text[:first.start()] if first else text).splitlines() if x.strip()]
    return any(_field(a, b) for a, b in itertools.pairwise(lines))


def _programs_named(question: str, cands: Sequence[Candidate]) -> set[str]:
    """The programs whose help texts the candidates are part of (`Candidate.program`, names no dictionary has:
    "addedgeg") that `question` writes as a word."""
    return {p for p in {c.program for c in cands if c.program}
            if re.search(r"(?<![\w-])" + re.escape(p) + r"(?![\w-])", question)}


def _heading_named(headed: tuple[str, str], question: str) -> bool:
    """True when the question names the entry whose numbered line (`ENTRY_LINE`) a sentence is under: its name as a
    word, and its kind when the line gives one ("Which port does FireHOL's whois service definition open?" of
    "6.27.3.127 service: whois"; not "... several services at once, say SMTP and POP3?", which asks no service's
    entry), or else a name no dictionary has."""
    kind, name = headed
    if len(name) < 3 or not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", question, re.I):
        return False
    if kind:
        return re.search(r"\b" + re.escape(kind) + r"\b", question, re.I) is not None
    return name.lower() not in common_words()


def _heading_of_another(headed: tuple[str, str], question: str) -> bool:
    """True when a sentence is under the numbered line of an entry (`ENTRY_LINE`) of a kind the question names
    ("service") that is not the entry it names."""
    kind, name = headed
    return bool(kind and name and re.search(r"\b" + re.escape(kind) + r"s?\b", question, re.I)
                and not _heading_named(headed, question))


def _keyword_named(keyword: str, question: str) -> bool:
    """True when the keyword whose entry a sentence is part of (set by a _KEYWORD_HEAD line) is written in
    the question, a name of four characters or more in mixed case or with an underscore: "What hillWidth values are
    recommended for metadynamics ...?" asks for hillWidth's entry ("Values between 1 and 3 are recommended for this
    option ..."), which ranked seventh below other metadynamics keywords' sentences."""
    if len(keyword) < 4 or keyword.islower() or (keyword.isupper() and "_" not in keyword):
        return False
    return re.search(r"(?<![\w-])" + re.escape(keyword) + r"(?![\w-])", question) is not None


# a key with a modifier, however spelled: "Ctrl-W", "Ctrl+W", "Control-w", "C-w"; "Meta-x", "Alt+x", "M-x"
_MODIFIED_KEY = re.compile(r"(?<![\w-])(?:(ctrl|control|c)|alt|meta|m)[+-]([a-z0-9])(?![\w-])", re.I)


def _keys(text: str) -> set[tuple[str, str]]:
    """The modified keys `text` names, as (modifier, key): "Ctrl-W" and "C-w" are ("ctrl", "w")."""
    return {("ctrl" if m.group(1) else "meta", m.group(2).lower()) for m in _MODIFIED_KEY.finditer(text)}


def _names(text: str) -> set[str]:
    """The names of `text` (key_terms: identifiers, ALL-CAPS names, part numbers) of four characters or
    more, upper-cased, letters and digits only ("APRS-IS" and "APRSIS" are one name)."""
    return {re.sub(r"[\W_]", "", t.text.upper()) for t in terms(text) if t.kind == "name" and len(t.text) >= 4}


def _siblings(a: str, b: str) -> bool:
    """True when the names `a` and `b` (upper case) share five characters or more and differ in at most
    three of the middle or the end: CFLAGS / CXXFLAGS / LDFLAGS, AC_PROG_CC / AC_PROG_CXX, PIC16F84 /
    PIC16F88."""
    if a == b or abs(len(a) - len(b)) > 3:
        return False
    n = min(len(a), len(b))
    prefix = next((i for i in range(n) if a[i] != b[i]), n)
    suffix = next((i for i in range(n - prefix) if a[-1 - i] != b[-1 - i]), n - prefix)
    return prefix + suffix >= max(len(a) - 3, len(b) - 3, 5)  # (not GLPK / GLP_BS: too short to tell)


def _names_a_sibling(sentence: str, asked: set[str]) -> bool:
    """True when `sentence` names none of the names `asked` (_names of the question) but a sibling of one
    (_siblings): Autoconf's "You can override the default for CXXFLAGS ... between AC_INIT and
    AC_PROG_CXX" says nothing of CFLAGS and AC_PROG_CC."""
    have = _names(sentence)
    if not have or have & asked:
        return False
    return any(_siblings(a, h) for a in asked for h in have)


def _answers_of_questions(cands: list[Candidate], questions: list[tuple[Candidate, float]]) -> None:
    """The sentence after each of the manual's own questions (`questions`: each with its score before
    the question's penalty) scores at least that score less ANSWER_DROP: an FAQ's question that reads
    like the user's is answered right after it."""
    at = {(c.block_id, c.position): c for c in cands}
    for q, score in questions:
        nxt = at.get((q.block_id, q.position + 1))
        if nxt is not None and not nxt.text.rstrip().endswith("?"):
            nxt.score = max(nxt.score, score - ANSWER_DROP)


def _phrase_in_name(name: str, pairs: set[tuple[str, str]]) -> set[str]:
    """The words of `name` (joined by underscores or in camel case) that stand next to each other in
    the question as in the name (`pairs`, the question's consecutive content words), NAME_PHRASE_WORDS
    or more of them (a parameter named by two words, "contact_stiffness", is what the question names,
    and its synopsis no better an answer than the sentence that says how large it should be)."""
    parts = content_terms(" ".join(_NAME_PART.findall(name)))
    out: set[str] = set()
    run: list[str] = parts[:1]
    for a, b in pairwise(parts):
        if (a, b) in pairs:
            run.append(b)
            continue
        if len(run) >= NAME_PHRASE_WORDS:
            out.update(run)
        run = [b]
    if len(run) >= NAME_PHRASE_WORDS:
        out.update(run)
    return out


def _row_names_asked(row: str, asked_words: set[str], question: str) -> bool:
    """True when a table row names what the question asks about: its first cell (`_names_asked`), or
    any cell that is a name in capitals the question writes ("0xC4 | SWAP | A | 1 | 1" for "What opcode
    does SWAP A assemble to?": an instruction table whose rows carry no column names, the mnemonic in
    the second cell)."""
    named = row_cells(row)
    if named:
        if _names_asked(named[0][1], asked_words, question) or _value_asked(*named[0], question):
            return True
        # (of a question of one part: of two, each part's row is quoted as the rows' rule says, "Character: G |
        # Description: Glitch (zero width)" and "Character: M | Description: Metastable Condition")
        if any(_cell_is_phrase_asked(v, question) for _, v in named[1:]) and not question_parts(question):
            return True
        cells = [v.strip() for _, v in named[1:]]
    else:
        cells = [v.strip() for v in row.split(" | ")] if row.count(" | ") >= 2 else []
    return any(len(v) > 1 and v.isupper() and v in asked_words for v in cells)


def _value_asked(column: str, key: str, question: str) -> bool:
    """True when the question writes a row's first cell as it is and either names its column ("Threads:
    8" for "... with 8 threads") or the cell is written in symbols ("Operation: [a, b]" for "horizontal
    concatenation [a, b]"), not a plain word or number alone."""
    key = key.strip()
    if not key or not _written(key, question):
        return False
    return bool(set(content_terms(column)) & set(content_terms(question))) or (
        len(key) >= 3 and re.search(r"[^\w\s]", key) is not None)


def _cell_is_phrase_asked(cell: str, question: str) -> bool:
    """True when a cell says, word for word, two or more words the question has in a row, none a stopword
    ("Parameter: Saturation current" for "diode model parameter for saturation current and its default"; not
    "Sidewall saturation current")."""
    words = _PHRASE_WORD.findall(cell.lower())
    if len(words) < 2 or any(w in STOPWORDS for w in words):
        return False
    return f" {' '.join(words)} " in f" {' '.join(_PHRASE_WORD.findall(question.lower()))} "


def _names_asked(key: str, asked_words: set[str], question: str) -> bool:
    """True when a row's first cell names what the question asks about: a word of the question as it is
    written there ("uncertainty-mode", or capitalised as a cell begins: "Octal"), or one of the names the
    cell lists that the question writes as the cell does, with the same ends ("Kantronics KPC3, Kantronics
    KAM Plus" for "a Kantronics KPC3 TNC"; not "Kantronics KPC3+", another model)."""
    key = key.strip()
    if key in asked_words:
        return True
    if key[1:].islower() and key.lower() in {w.lower() for w in asked_words}:
        return True  # a word capitalised as a cell begins ("Octal" for "an octal constant"; not "LENGTH")
    for name in _KEY_NAMES.split(key):
        name = name.strip()
        if (1 < len(name.split()) <= KEY_NAME_WORDS and any(ch.isdigit() or ch.isupper() for ch in name)
                and _written(name, question)):
            return True
    command = _COMMAND_NAME.match(key)
    return bool(command and _written(command.group(1), question))


def _written(name: str, question: str) -> bool:
    """True when `question` writes `name` as it is, with the same ends (not "Kantronics KPC3" in "KPC3+"; a name in
    symbols not inside a longer run of them: not "&" in "the && and || operators", dasm's "Arithmetic AND" row)."""
    if not re.search(r"\w", name):  # (a token of its own: not the question's own "?" after its last word)
        return re.search(rf"(?<![^\s(\"'\u201c\u2018]){re.escape(name)}(?![^\s)\"'\u201d\u2019,.;:?])",
                         question) is not None
    return re.search(rf"(?<![\w+-]){re.escape(name)}(?![\w+-])", question) is not None


def _off_the_entry(cands: list[Candidate], options: list[str]) -> list[Candidate]:
    """`cands` without the sentences of another entry of the kind asked for (an option "-x", a setting
    "NAME_IN_CAPITALS") when the evidence holds the entry of the one the question names: those from the
    line that opens another entry ("DOT_TRANSPARENT Set the DOT_TRANSPARENT tag to YES ...") to the next
    entry, and in the asked entry's block, when it opens mid-sentence, those before its first entry. "This is disabled
    by default, because dot on Windows does not seem to support this out of the box." was quoted for "Why
    is DOT_MULTI_TARGETS disabled by default?" right after DOT_MULTI_TARGETS' entry: it ends
    DOT_TRANSPARENT's, which the chunk opened inside. A command's own options ("-keepdc Do not merge
    ..." under "opt_merge [options] [selection]") are no other entry of its kind."""
    kinds = {_entry_kind(o) for o in options} - {""}
    asked = {o.lower() for o in options}
    entries = [c for c in cands if c.entry]
    if not kinds or not entries:
        return cands
    # the sentences after an asked entry that the splitter saw no entry open ("--bg-image <string> File
    # name ..." / "The image must be a color PPM image ...") go on with it
    goes_on = {(c.block_id, c.under): c.position for c in entries}
    entry_blocks = {c.block_id for c in entries}

    def kept(c: Candidate) -> bool:
        if (c.entry or not c.under or c.under.lower() in asked or _entry_kind(c.under) not in kinds | {"?"}
                or _a_level_of(c.under, asked)):
            return True
        after = goes_on.get((c.block_id, c.under))
        return (after is not None and c.position > after) or (c.under == "?" and c.block_id not in entry_blocks)

    return [c for c in cands if kept(c)]


def _a_part_names_none(question: str, options: list[str]) -> bool:
    """True when `question` is of two parts (`question_parts`) and one of them names none of `options`: HMMER's "With
    nhmmscan, how do I search only the reverse-complement strand of my query, and how many threads does HMMER actually
    start if I pass --cpu 4?" asks for the entry of "--crick" as well as for that of "--cpu", which it names."""
    return any(not any(o.lower() in part.lower() for o in options) for part, _ in question_parts(question))


def _a_level_of(name: str, asked: set[str]) -> bool:
    """True for a one-letter flag repeated ("-vvvv") when the question names the flag ("-v"): a level of
    the asked option, not another entry ("Which -v level shows the knot guide solver diagnostics?")."""
    m = re.fullmatch(r"-([A-Za-z])\1+", name)
    return m is not None and f"-{m.group(1)}".lower() in asked


def _entry_kind(name: str) -> str:
    """"option" for "-x" or "--name", "setting" for a name in capitals with an underscore, "code" for a
    message's number ("118", "0x0008"), "?" for what comes before the first entry of a block that opens
    mid-sentence, "" for any other name."""
    if name == "?":
        return "?"
    if name.startswith("-"):
        return "option"
    if name.isdigit() or name.lower().startswith("0x"):
        return "code"
    return "setting" if "_" in name.strip("_") and name.isupper() else ""


def _numbers_with_bounds(text: str) -> list[tuple[float, bool]]:
    """(value, written as a bound) of each number of `text` (">32 bits", "up to 4 MHz": bounds)."""
    out = []
    for t in terms(text):
        if t.kind != "number" or t.value is None:
            continue
        for m in re.finditer(r"(?<![\w.])" + re.escape(t.text) + r"(?![\w])", text):
            out.append((t.value, bool(_BOUND.search(text[: m.start()]))))
    return out


def _exact_numbers(question: str) -> set[float]:
    """The numbers the question names as such, not as a bound ("a 32-bit return value" -> {32})."""
    return {v for v, bound in _numbers_with_bounds(question) if not bound}


def _only_bounds(text: str, exact: set[float]) -> bool:
    """True when `text` gives a number of `exact` and only ever as a bound (">32 bits")."""
    found = [bound for v, bound in _numbers_with_bounds(text) if v in exact]
    return bool(found) and all(found)


def _negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


def _twins_of_the_other_polarity(question: str, cands: list[Candidate]) -> None:
    """Of two sentences that say the same but for a negation ("If the function requires static
    behavior, change it to function static." / "If the function does not require static behavior,
    change it to function automatic."), the one whose polarity is not the question's loses
    OPPOSITE_PENALTY: the embedder reads them alike and the wrong one is the opposite advice."""
    asked = _negated(question)
    words = [set(content_terms(_NEGATION.sub(" ", c.text))) for c in cands]
    flags = [_negated(c.text) for c in cands]
    for i, c in enumerate(cands):
        if flags[i] == asked or not words[i]:
            continue
        if any(flags[j] == asked and len(words[i] & words[j]) >= TWIN_OVERLAP * len(words[i] | words[j])
               for j in range(len(cands)) if j != i):
            c.score -= OPPOSITE_PENALTY


def _lift_what_is_asked_for(question: str, blocks: Sequence[EvidenceBlock], cands: list[Candidate],
                            asked: str, named: set[int]) -> None:
    """Adjust scores for what the question asks for as a whole: the manual it names (`named`, the
    ids of its blocks; other manuals' sentences lose OTHER_DOC_PENALTY), an option (the best entry
    of an option list gains OPTION_ENTRY_BONUS and is quoted first in its block), a figure (the
    best caption gains FIGURE_BONUS)."""
    if named and len(named) < len(blocks):
        for c in cands:
            if c.block_id not in named:
                c.score -= OTHER_DOC_PENALTY
    if asked == "option":
        entries = [c for c in cands if _OPTION_ENTRY.match(c.text)]
        if entries:
            best = max(entries, key=lambda c: c.score)
            best.score += OPTION_ENTRY_BONUS
            best.entry = True
    if asks_for_figure(question):
        kinds = {b.id: b.hit.kind for b in blocks}
        # a figure's caption in the figure's block or in a block of its own ("Figure 8.2: VBIC thermal network")
        captions = [c for c in cands if kinds[c.block_id] in ("figure", "caption") and _CAPTION.match(c.text)]
        if captions:  # only the best one: other figures' captions are no answer
            max(captions, key=lambda c: c.score).score += FIGURE_BONUS


def asks_for_figure(question: str) -> bool:
    """True when `question` describes a figure to find ("plot of the voltage at a node ...", "what does
    a typical mesh for a 2D device look like"), not a question about something a plot shows ("which
    direction is up for the camera of a 3-D plot")."""
    if plan_query(question).intent != "visual":
        return False
    # (a question after what the user is doing asks as much: "I'm in gp's break loop after an error; how do
    # I look at the data of the current error?" wants a command, not the library's one figure)
    return bool(_LOOKS_LIKE.search(question)) or not (_WH_QUESTION.match(question) or _WH_CLAUSE.search(question))


def _does_it(text: str, numbers: set[float]) -> bool:
    """True when `text` is a command line (a program, an option, no prose) that carries every number of
    `numbers`, those a how-to question gives: the example that does what is asked ("How do I make GPSBabel
    add a point 25 m before and 25 m after every turn ... smaller than 5 degrees?": "gpsbabel -i gpx -f
    route.gpx -x bend,distance=25,interpolate,minangle=5 ...", in the chunk after the sentence describing it)."""
    if not _SHELL_COMMAND.match(text) or reads_as_prose(text):
        return False
    return numbers <= {v for v, _ in _numbers_with_bounds(text)}


def _is_command_line(s: str) -> bool:
    """A dot-command's synopsis or example (".save i(vin) node1 v(node2)", ".save vector vector
    ..."): it starts with the command and is no sentence about it (".TRAN start a transient
    simulation (15.3.10)." is one)."""
    command = _first_command(s)
    return command is not None and s.startswith(command) and not reads_as_prose(s)


def reads_as_prose(s: str) -> bool:
    """Sentence-final punctuation (not an ellipsis) and at least three plain words."""
    s = s.rstrip()
    return (s[-1:] in ".!?)" and not s.endswith(("...", "\u2026"))
            and len(_PROSE_WORD.findall(s)) >= 3)


_LAST_CLAUSE_ASKS = re.compile(r"[,;]\s*(?:and\s+)?(?=what\s+(?:is|are)\s+the\b)", re.I)
_VALUE_NOUN = r"(?:value|setting|choice|option|mode)s?"


def _states(question: str) -> re.Pattern | None:
    """For "What is the X of ...?" and "What X does ... ?", a pattern for a sentence that states X ("The
    default radix is hexadecimal.", "... the default radix defaults to ...") or a table cell that gives
    it ("Board: HackRF One | Frequency range: 1 MHz-6 GHz"); None for other questions."""
    if m := _SYMBOL_MEANING_Q.search(question):
        # "what does a dot in a count column mean?": the sentence that says what a dot stands for ("Events not applicable
        # for a line are represented by a dot.", cg_annotate's; "A dash (-) means "zero".")
        x = re.escape(m.group(1))
        return re.compile(rf"\b(?:represented|denoted|shown|marked|indicated|printed|written)\s+(?:by|as|with)\s+"
                          rf"(?:an?\s+|the\s+)?{x}s?\b|\b(?:an?|the)\s+{x}\s+(?:\([^()]*\)\s+)?"
                          r"(?:means|stands\s+for|indicates|denotes|shows)\b", re.I)
    asked = asked_phrase(question)
    if not asked and (m := _LAST_CLAUSE_ASKS.search(question)):
        # "How often can Gpredict check ..., and what is the default?": the clause after the first
        asked = asked_phrase(question[m.end():])
    if not asked:
        return None
    x = r"\s+".join(map(re.escape, asked.split()))
    # (and "The default value is weekly, ...": the asked word and a word for what it is a value of)
    return re.compile(rf"\b{x}(?:\s+{_VALUE_NOUN})?\s+(?:is|are|defaults\s+to)\b|(?:^|\|\s)\s*{x}:\s+\S", re.I)


def quoted_phrases(question: str) -> list[str]:
    """The phrases of two words or more the question quotes, lower case, spaces collapsed ("connection refused" of
    'The sclient test program gets "Connection refused" when contacting sserver; ...')."""
    found = (" ".join(m.group(1).lower().split()) for m in _QUOTED_PHRASE.finditer(question))
    return [ph for ph in found if " " in ph]


def _question_phrases(question: str) -> list[str]:
    """Runs of PHRASE_WORDS or more of the question's words with no stopword among them, as
    lower-case text ("normally closed push button" of "What is the alias of the normally closed push
    button?")."""
    runs = (list(run) for content, run in groupby(_PHRASE_WORD.findall(question.lower()),
                                                  key=lambda w: w not in STOPWORDS) if content)
    return [" ".join(run) for run in runs if len(run) >= PHRASE_WORDS]


def _quotes_a_mail(s: str) -> bool:
    """A sentence of a quoted mail: "> " and prose words, not an interpreter's prompt and its code."""
    return bool(_MAIL_QUOTE.match(s)) and len(_PROSE_WORD.findall(s)) >= MAIL_QUOTE_WORDS


def _settings_named(question: str) -> re.Pattern | None:
    """A pattern for the entry of a setting the question names: the name, "=" and its value
    ("ITL1=x resets the dc iteration limit.", "GMIN = x ..."), as option lists of simulators and
    configuration files print them; None when the question names no identifier."""
    names = [t.norm for t in terms(question) if t.kind == "name" and not t.norm.startswith(("-", "."))]
    if not names:
        return None
    return re.compile(r"(?:" + "|".join(re.escape(n) for n in names) + r")\s*=", re.I)


def _opening(text: str) -> str:
    """The first words of a sentence (OPENING_WORDS), white space collapsed, a leading ellipsis dropped."""
    return " ".join(text.removeprefix("... ").split()[:OPENING_WORDS])


def _lines_named(blocks: Sequence[EvidenceBlock], question: str) -> dict[tuple[int, str], str]:
    """{(block id, the opening of the line below it): name} for each line of the blocks that holds nothing but a name the
    question writes, joined or TeX-like and of six characters or more (`_label_named`'s names): Libgcrypt's options of
    random.conf, "only-urandom" on a line of its own above "Always use the non-blocking /dev/urandom ...", read as no
    term line (a word with a hyphen may be prose's) unless the question names it. A line that reads as a term by its
    looks (`is_term_line`: "gcry_md_hash_buffer") is left to the rules that read it so (a summary's list of routines
    named it above "Convenience function to directly compute a message digest ...", quoted before the answer)."""
    names = {w for w in re.findall(r"[\w\\][\w./\\-]*\w", question) if len(w) >= 6 and re.search(r"[-_\\]", w)}
    found: dict[tuple[int, str], str] = {}
    if not names:
        return found
    for b in blocks:
        lines = [x.strip() for x in b.text.split("\n") if x.strip()]
        for line, below in itertools.pairwise(lines):
            if line in names and not is_term_line(line):  # (a term line by its looks is read as ever)
                found[(b.id, _opening(below))] = line
    return found


def _claims(c: Candidate) -> bool:
    """True when candidate `c` is a short claim of prose that gives no reason (CLAIM_WORDS words at most, a sentence of
    its own that opens in capitals: "In the case of eigenproblems, using libraries is not straightforward."; not a
    list item, a table's fragment, a line of code or an entry's term with its description)."""
    text = c.text.strip()
    return (len(text.split()) <= CLAIM_WORDS and not c.label and not c.below and text[:1].isupper()
            and text.endswith(".") and not _BULLET.match(text) and not _LIST_ITEM.match(text)
            and len(_PROSE_WORD.findall(text)) >= CLAIM_PROSE_WORDS and reads_as_prose(text)
            and not _GIVES_REASON.search(text))


def _inline_entry(sentence: str, name: str) -> bool:
    """True when `sentence` is a definition list's entry of `name` whose term opens its line, its description after it
    in capitals ("AES-256 A known answer tests is run using one test vector and one test key with AES in ECB mode.",
    Libgcrypt's self-tests; not "AES-256 keys are ...", prose about it)."""
    return (sentence.startswith(name + " ") and bool(re.match(r"[A-Z][a-z]*\b", sentence[len(name) + 1:]))
            and reads_as_prose(sentence[len(name) + 1:]))


def _describes(sentence: str, option: str, in_entry: bool) -> bool:
    """True when `sentence` is the entry of the option, dot-command or command name the question
    names: an option list's entry ("-F Normally, AVRDUDE ..."), or, for a dot-command or a name,
    prose that names it where it starts a line or in the section it heads (".TRAN start a transient
    simulation (15.3.10).", "The vectors listed on the .SAVE line are recorded ...", "... opt_clean
    [options] ... This pass identifies wires and cells that are unused ..."), never a bare example or
    synopsis (".save i(vin) node1", ".tran tstep tstop <tstart> Examples:"). A list item's bullet
    does not count ("• oob_softecc_kw File has only page data, ...")."""
    sentence = _BULLET.sub("", sentence.lstrip())
    if option.startswith("-"):
        return starts_with_option(sentence.lstrip(". "), option)
    if not (starts_with_option(sentence, option) or (in_entry and prints_option(sentence, option))):
        return False
    return reads_as_prose(sentence)


def in_section(sentence: str, section: str) -> str:
    """The text a candidate sentence is compared with the question as: its section's title first
    ("Startup Files: This file is used to make personal changes ..."), as the embedder read the
    chunk with its section path."""
    return f"{section}: {sentence}" if section else sentence


# a default stated: "the type defaults to auto", "The default value is 0.5."
_DEFAULT_IS = r"\bdefaults? (?:value |setting )?(?:is|are)\b|\bdefaults? to\b"
# or the default of a thing named between: "Default type is temporary." (Erlang's ssh:start/1), "The default page size
# for new documents is LETTER" (Prawn's); not "the default font is used" nor "Changing the set of default packages is
# normally used to reduce the set for speed ..." (R's). A question about a default prefers such a sentence; what
# carries a value (_SETS_VALUE) is the narrower one ("... -r option on gpasm's command-line." + "The default radix is
# hexadecimal." for "What is the default radix of gpasm?": the second alone is the answer)
_DEFAULT_OF = r"\bdefaults? (?:[a-z][\w-]* ){0,5}?(?:is|are)\b(?! not\b| \w+ly\b| \w+ed\b)|\bdefaults? to\b"
# a sentence that gives a setting's value in words or options ("If the shell variable CFLAGS was not already
# set, it is set to -g -O2 for the GNU C compiler"; "the type defaults to auto")
_SETS_VALUE = re.compile(r"\b(?:is|are|gets?) set to\b|" + _DEFAULT_IS, re.I)
# a ratio in words ("it is more than ten times more efficient to read records dirty than within a transaction",
# Mnesia's): a value for "how much faster ...?" as a number is
_RATIO_WORDS = re.compile(r"\b(?:(?:two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|a hundred|a thousand)"
                          r"\s+times|twice|thrice|an order of magnitude|orders of magnitude)\b", re.I)


# a question about a default, and a sentence that states one, in words or numbers ("Per default the distance
# to the beam axis is the radius of a joint.")
# (or in other words: "what circuit temperature is assumed when none is given", "... unless I change it", "... if I
# don't set one", "... if I leave the gc period unset", "If I don't configure a router ID, ...")
_ASKS_DEFAULT = re.compile(r"\bdefaults?\b|\bunless (?:i|you|we) (?:change|set|specify|give)\b"
                           r"|\bwhen (?:none|nothing|no \w+) is (?:given|set|specified)\b"
                           r"|\bif (?:i|you|we) (?:don't|do not|never) (?:set|specify|give|change|configure|define)\b"
                           r"|\b(?:is|are) not (?:set|configured|given|specified)\b|\bunset\b"
                           r"|\bis assumed\b", re.I)
# a reference entry's field: "... should use higher GC periods. Default: adaptive, based on number of routing tables
# ...", BIRD's; not C's "default:"
_DEFAULT_FIELD = re.compile(r"(?-i:\bDefault:)\s")
# a sentence that gives the default ("Default type is temporary."), not one that says what is done by default
_GIVES_DEFAULT = re.compile(_DEFAULT_FIELD.pattern + "|" + _DEFAULT_OF, re.I)
# or does ("Circuit temperature has a default (nominal) value of 27°C ...")
_STATES_DEFAULT = re.compile(r"\b(?:by|per) default\b|\bdefault (?:\(\w+\) )?values? of\b|" + _GIVES_DEFAULT.pattern,
                             re.I)


def _carries(text: str, asked: str) -> bool:
    """True when `text` holds the kind of term asked for: a key ("key": "⟨F8⟩", "Ctrl+Q", "C-c"), a
    number ("value"), an identifier ("name"), a command-line option ("option": "-F", "--without-fftw"),
    a file or directory ("file": "fit.log", "~/.octaverc", "R_HOME/library")."""
    if asked == "key":
        return _KEY.search(text) is not None
    if asked == "option":
        return any(t.kind == "name" and t.norm.startswith("-") for t in terms(text))
    if asked == "file":
        return any(m.group().rstrip(".").lower() not in _NOT_FILE and not m.group()[:1].isdigit()
                   for m in _FILE_TERM.finditer(text))
    if asked == "value":
        return (any(t.kind == "number" for t in terms(_PAGE_REF.sub(" ", text)))
                or _SETS_VALUE.search(text) is not None or _RATIO_WORDS.search(text) is not None)
    return any(t.kind == "name" for t in terms(text))


def select_sentences(
    question: str,
    blocks: Sequence[EvidenceBlock],
    embedder=None,
    *,
    max_sentences: int = 3,
    max_words: int = 110,
    ranked: Sequence[Candidate] | None = None,
    include: Candidate | None = None,
) -> list[Candidate]:
    """The best sentences for `question` (see `rank_candidates`), grouped by block: the block of the
    best sentence first, then the others by their best sentence; within a block the entry of what
    the question names first ("ITL1=x resets ...", not the default of the setting above it), then the
    best first, a sentence that goes on with another of its block right after that one (`_GOES_ON`: "Then ON
    or OFF determine ..."). Near-duplicates (`near_duplicate`) are skipped. Returns [] when
    the blocks hold no usable sentence.

    `include` (a candidate of `ranked`, the answer model's pick, answer/pick.py) is quoted whatever
    its rank: when the selection leaves it out, it is quoted after the sentences chosen (one more
    sentence; in the place of one it holds). Taking the last sentence's place instead lost as many
    answers as it gained on the asked lists (bench/README.md, session 33)."""
    if ranked is None:
        ranked = rank_candidates(question, blocks, embedder)
    chosen = _choose(ranked, max_sentences, max_words, frozenset(content_terms(question)))
    chosen = _second_part_answered(question, ranked, chosen, max_sentences)
    if include is not None and not any(o is include or _inside(include, o) or near_duplicate(include.text, o.text)
                                       for o in chosen):
        chosen = [c for c in chosen if not _inside(c, include)] + [include]
    return _in_block_order(chosen, blocks)


def second_part(question: str) -> str:
    """A question's second part: "which C++ standard must the compiler support?" of "What is the minimum Qt
    version ..., and which C++ standard must the compiler support?"; "" for a question of one part."""
    m = _SECOND_PART.search(question)
    return question[m.end():] if m else ""


def second_part_terms(question: str) -> frozenset[str]:
    """The content terms of a question's second part that its first part does not use: "What is the
    minimum Qt version ..., and which C++ standard must the compiler support?" -> c++, standard,
    compiler, support; empty for a question of one part."""
    parts = question_parts(question)
    return parts[1][1] if parts else frozenset()


def question_parts(question: str) -> list[tuple[str, frozenset[str]]]:
    """The two parts of a question of two, each with the content terms the other does not use ("What
    optimization level are the MPICH libraries compiled with by default" -> optimization, level, mpich,
    librar, compil, default; "how do I build them with -O3 without -O3 ending up in mpicc?" -> build, -o3,
    end, mpicc); [] for a question of one part."""
    m = _SECOND_PART.search(question)
    if m is None:
        return []
    first, second = question[:m.start()], question[m.end():]
    a, b = frozenset(content_terms(first)), frozenset(content_terms(second))
    return [(first, a - b), (second, b - a)]


def carried(terms: frozenset[str], text: str) -> int:
    """How many of a question part's `terms` (second_part_terms) `text` carries."""
    return len(terms & set(content_terms(text)))


def second_part_need(terms: frozenset[str]) -> int:
    """How many of the second part's `terms` a sentence carries to answer it: one of up to three, else half
    of them (FreeDV's "after how long do the stats on the left of the main window reset by default?" is not
    answered by "... the “Report Frequency” text box in the main window.")."""
    return 1 if len(terms) <= 3 else len(terms) // 2


def _second_part_answered(question: str, ranked: Sequence[Candidate], chosen: list[Candidate],
                          max_sentences: int) -> list[Candidate]:
    """`chosen`, or, when no sentence of it carries the terms of the question's second part
    (second_part_terms, two or more), the best sentence of `ranked` that carries one of them (two of
    four or more) within SECOND_PART_GAP of the first sentence's score, in the last sentence's place
    (after the others when there is room). chemplants: "How much taller does a tank reactor become when
    I add a stirrer pic to it, and is there a single pic that gives the same result?" quoted three
    sentences on the height, "... exactly the same of the stirred reactor, but this last one has still
    its own definition as a single pic ..." ranked sixth."""
    terms = second_part_terms(question)

    need = second_part_need(terms)
    if len(terms) < 2 or not chosen or any(carried(terms, c.text) >= need for c in chosen):
        return chosen
    best = next((c for c in ranked if c not in chosen and carried(terms, c.text) >= need
                 and not any(near_duplicate(c.text, o.text) or _inside(c, o) or _inside(o, c) for o in chosen)), None)
    if best is None or best.score < chosen[0].score - SECOND_PART_GAP:
        return chosen
    return [*chosen[:max_sentences - 1], best]


def with_quote(chosen: list[Candidate], extra: Candidate, at: int = 1) -> list[Candidate]:
    """`chosen` with `extra` quoted at index `at`, taking no sentence's place; in the place of the first
    chosen quote that is a piece of it, the other pieces dropped ("The sprayer has to be bonded to the tank
    reactor using its top left node (or ...", the end of a chunk, beside the next chunk's whole sentence);
    `chosen` unchanged when it already quotes `extra`. (Left out as a near-duplicate of a sentence chosen,
    dev t17 lost "~/.octaverc This file is used to make personal changes ..." beside "startup.m This file
    is used to make personal changes ...".)"""
    pieces = [i for i, c in enumerate(chosen) if _inside(c, extra)]
    kept = [c for i, c in enumerate(chosen) if i not in pieces]
    if any(c.text == extra.text or _inside(extra, c) for c in kept):
        return chosen
    if pieces:
        at = pieces[0]
    return [*kept[:at], extra, *kept[at:]]


def _choose(ranked: Sequence[Candidate], max_sentences: int, max_words: int,
            asked: frozenset[str] = frozenset()) -> list[Candidate]:
    """The best `max_sentences` of `ranked` within `max_words`, near-duplicates skipped (in rank order);
    `asked`, the question's content terms: a table row with the columns of a row chosen is no duplicate
    when it brings ASKED_ROW_TERMS of them that no sentence chosen has ("Which timing character draws a
    zero-width glitch, and which one represents a metastable condition?": "Character: G | Description:
    Glitch (zero width)", then "Character: M | Description: Metastable Condition")."""
    chosen: list[Candidate] = []
    words = 0
    for c in ranked:
        held = next((o for o in chosen if _inside(o, c)), None)  # a piece of `c` (a sentence of a pair) chosen
        cut = held is not None and held.block_id != c.block_id  # a sentence cut at its chunk's end, whole in `c`
        # a sentence stating what is asked is never a repetition of one that only names it: "The default
        # radix is hexadecimal." after "RADIX <symbol> Selects the default radix from "oct" ... or "hex" ..."
        # nor are two entries the question names ("unix-word-rubout (C-w) Kill the word behind point, using
        # white space ..." and "unix-filename-rubout () Kill the word behind point, using white space and the
        # slash character ...": what tells them apart is what is asked); a pair of sentences that holds one
        # chosen repeats it unless it brings a number or name of its own, or the sentence chosen goes on from the
        # other ("If an iteration is to continue until all available data is consumed, use the symbol * ..." +
        # "This can be used to process all columns ...", gnuplot's: the pair takes its place)
        other = " ".join(c.text.replace(held.text, " ").split()) if held is not None and not cut else ""
        # (and so is the sentence that goes on an entry's description when the entry is chosen: "In case both are
        # available, libusb 1.0 takes precedence ..." after "--with-usb Build and install the USB drivers ...", NUT's)
        if other[-1:] in (".", "!", "?") and (
                c.goes_on or (asked & set(content_terms(other))) - set(content_terms(held.text))):
            # but its other sentence, a whole one, is quoted after it when it brings a word of the question that the
            # sentence chosen lacks ("If a delay is not specified, it is assumed to be zero." before "If a gain is not
            # specified, it is assumed to be 1.", chosen for "If I leave out the gain and the delay in \BodeZPK, what
            # values are assumed ...?", bodeplot's; not a lead-in, "\pic at (R-anchor) {stirrer }; and the result
            # is:", which brings "result"): a sentence of its own, the one chosen staying first
            after = c.text.startswith(held.text)
            c, held = replace(c, text=other, position=held.position + 1 if after else c.position, following=""), None
        dups = [o for o in chosen if not (cut and o is held)
                and ((near_duplicate(c.text, o.text, either=o is held and not _GOES_ON.match(o.text))
                      and not (c.states and not o.states)
                      and not (c.entry and o.entry and c.label and o.label and c.label != o.label))
                     or _inside(c, o) or (o is not held and _shares_sentence(c, o)))]
        if dups:
            siblings = bool(_row_keys(c.text)) and not any(_inside(c, o) or near_duplicate(c.text, o.text, columns=False)
                                                           for o in dups)
            said = {t for o in chosen for t in content_terms(o.text)}
            if not (siblings and (c.named or len((asked & set(content_terms(c.text))) - said) >= ASKED_ROW_TERMS)):
                continue
        if held is not None:
            # "In a Unibus system ..." was chosen, then "The RL11 supports the BOOT command. In a
            # Unibus system ...": the longer quote takes its place rather than repeating it
            words += len(c.text.split()) - len(held.text.split())
            chosen[chosen.index(held)] = c
            continue
        w = len(c.text.split())
        if words + w > max_words and not (c.below and _list_cut(c, max_words - words)) and chosen:
            continue
        w = len(c.text.split())
        chosen.append(c)
        words += w
        if len(chosen) >= max_sentences:
            break
    return chosen


def _list_cut(c: Candidate, room: int) -> bool:
    """Cut the list quoted after `c`'s sentence (its lead-in and items, `Candidate.below`) to the items that `room`
    words hold with the sentence, " ..." after the last; False (`c` as it was) when fewer than two items fit."""
    tail = " ".join(c.below)
    if not c.text.endswith(tail):
        return False
    head = c.text[: len(c.text) - len(tail)].rstrip()
    left = room - len(head.split()) - len(c.below[0].split())
    items: list[str] = []
    for item in c.below[1:]:
        if len(item.split()) > left:
            break
        items.append(item)
        left -= len(item.split())
    if len(items) < 2:
        return False
    c.text = " ".join([head, c.below[0], *items[:-1], f"{items[-1].removesuffix(' ...')} ..."])
    return True


# a sentence that goes on with the one before it: it opens with a word that refers back or joins, or names what it
# is about as the one before it did ("You'll know you have this problem if upsd shows up as UTC ...", NUT's)
_GOES_ON = re.compile(r"(?:then|this|that|these|those|it|its|they|their|such|thus|hence|so|therefore|otherwise|however|"
                      r"also|but|and|or|here|there|instead|again|likewise|similarly|finally|afterwards)\b"
                      r"|(?!\d+\s)(?:\S+\s+){1,4}(?:this|these|those|such)\s+\w"  # (not a listing's line number: "3 This pass ...")
                      r"|[^()]*\)", re.I)  # (or closes a bracket the one before it opened: "Reynolds for example) only ...")


def _in_block_order(chosen: list[Candidate], blocks: Sequence[EvidenceBlock]) -> list[Candidate]:
    """`chosen` grouped by block (the block of the best sentence first), each block's sentences
    as `select_sentences` says; a change log's release or a reference entry's name said once, before the
    first quote under it (not when a quote before it names the entry)."""
    first = {}  # block id -> the place of its best sentence among those chosen
    for n, c in enumerate(chosen):
        first.setdefault(c.block_id, n)
    # a table's rows are facts of their own: the best first ("Model: XS-3525/8S-3 | ... | Direction Hold: 200"
    # for the Xylotex drive asked about, not the ST L297 row above it in the table)
    tables = {b.id for b in blocks if b.hit.kind == "table"}
    # and so are a definition list's entries: "--crosshair-color <string> Color of the crosshair. Default:
    # '#ff0000'" asked for comes before the "--black-color" entry above it when both are quoted
    lists = {c.block_id for c in chosen} - {c.block_id for c in chosen if not c.listed}
    # and so are a passage's sentences: the best first (LilyPond's "A Windows user would run forfiles /s /M *.ly ..."
    # after, not before, "The following example searches and processes all input files ... recursively."), but a
    # sentence that goes on with the one before it ("Then ON or OFF determine the initial state of the switch.")
    # right after that one
    chosen.sort(key=lambda c: (first[c.block_id], not c.entry, -c.score))
    for c in [c for c in chosen if _GOES_ON.match(c.text) and c.block_id not in tables | lists]:
        before = [o for o in chosen if o.block_id == c.block_id and o.position < c.position]
        if before:
            chosen.remove(c)
            chosen.insert(chosen.index(max(before, key=lambda o: o.position)) + 1, c)
    by_id, named, said = {b.id: b for b in blocks}, set(), []
    for c in chosen:  # a release or a reference entry is named once, before the first quote under it
        b = by_id[c.block_id]
        bare = b.without_heading(c.text)
        wanted = bare != c.text or (b.entry and not any(b.entry_name in t for t in said)) or bool(b.program_of(bare))
        heading = b.heading(bare)
        c.text = b.named(bare) if wanted and heading not in named else bare
        named.add(heading)
        said.append(c.text)
    return chosen


def distinct(ranked: Sequence[Candidate], n: int) -> list[Candidate]:
    """The best `n` of `ranked` that are not twins: a near-duplicate of one kept, or a quote that
    holds or is held by one, is skipped (the candidates the answer model chooses among, pick.py)."""
    out: list[Candidate] = []
    for c in ranked:
        if any(near_duplicate(c.text, o.text) or _inside(c, o) or _inside(o, c) for o in out):
            continue
        out.append(c)
        if len(out) >= n:
            break
    return out


def _inside(a: Candidate, b: Candidate) -> bool:
    """True when quote `a` is part of quote `b` of the same block (a sentence and the pair or
    term-line quote that holds it), or of another block when it is a sentence cut short, INSIDE_WORDS
    words or more: the chunks overlap, and a sentence cut at one chunk's end is whole in the next ("The
    sprayer has to be bonded to the tank reactor using its top left node (or ..." was quoted after the
    whole sentence). A whole sentence another page repeats is not part of it (the simh manual says the
    same of its disk and of its tape controller), unless the two blocks are neighbouring chunks, whose
    overlap holds it twice, and `b` says more ("Here we use ... JACK." and "To record a file, you'd issue:
    ecasound ... Here we use ... JACK.", a command run into the sentence after it, were both quoted)."""
    # (a chunk's first sentence begun in the chunk before is marked "... with the corresponding “tilt” angle ...",
    # the Colvars manual's spinAngle note, whole in the neighbouring chunk: the mark is no part of the text)
    piece, whole = " ".join(a.text.split()).removeprefix("... "), " ".join(b.text.split())
    if a is b or (a.block_id != b.block_id and not _cut_piece(a.text, b.text)
                  and not (_neighbours(a, b) and len(piece) < len(whole))):
        return False
    return piece in whole


def _shares_sentence(a: Candidate, b: Candidate) -> bool:
    """True when quotes `a` and `b` of one block (or of neighbouring chunks) hold the same sentence of
    INSIDE_WORDS words or more, neither holding the other: "Resistive Sensor Input (SEN): ... SEN is connected
    to 5 volts through a 5.1kΩresistor." and "SEN is connected to 5 volts through a 5.1kΩresistor. It also has
    a built-in analog comparator." say it twice."""
    if a.block_id != b.block_id and not _neighbours(a, b):
        return False
    whole = " ".join(b.text.split())
    return any(len(t.split()) >= INSIDE_WORDS and " ".join(t.split()) in whole
               for t in split_sentences(a.text, newlines=True))


def _neighbours(a: Candidate, b: Candidate) -> bool:
    """True when `a` and `b` are of consecutive chunks of one document, on one page or two pages in turn:
    a chunk's end is the next one's start."""
    return a.chunk[0] == b.chunk[0] >= 0 and abs(a.chunk[1] - b.chunk[1]) == 1 and abs(a.chunk[2] - b.chunk[2]) <= 1


def _cut_piece(piece: str, whole: str) -> bool:
    """True when `piece` may be a sentence cut short at its chunk's end: INSIDE_WORDS words or more, no
    sentence's end, shorter than `whole`, no table row (rows end in a value, and the same row of another
    table, "#: 131 | Name: vmax | ...", the MOS2 and MOS3 models', is that table's)."""
    return (len(piece.split()) >= INSIDE_WORDS and piece.rstrip()[-1:] not in ".!?:;" and " | " not in piece
            and len(" ".join(piece.split())) < len(" ".join(whole.split())))


def quote_text(sentence: str, block_id: int) -> str:
    """One quoted sentence with its citation; a piece that does not end a sentence (a line of a
    list, a fragment) ends with " ..." rather than a full stop the manual did not print; a table
    row ("Name: G | Default: 0.0"), a figure's caption ("Figure 8.1: Output characteristic") and an
    entry ending in a field of its own ("... Y position of light source 3 Default value: 0.3") are
    whole as they are."""
    s = sentence.rstrip()
    if (s and s[-1] not in ".!?:)" and not s.endswith("...") and " | " not in s and not _CAPTION.match(s)
            and not _ENDS_WITH_FIELD.search(s) and not _FIELD_VALUES.match(s)):
        s += " ..."
    return f"{s} [{block_id}]"


def extractive_text(chosen: Sequence[Candidate]) -> str:
    """The answer text: each sentence followed by its citation marker."""
    return " ".join(quote_text(c.text, c.block_id) for c in chosen)
