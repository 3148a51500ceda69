"""The retrieval pipeline (DESIGN.md "Retrieval").

query -> dense (hnswlib) + keyword (FTS5 BM25) + exact identifiers / "Figure N" references
+ table chunks by their best row (table_rows.py) (+ CLIP image list when available) -> weighted
RRF with intent weights -> highlight boxes -> the manuals the query names preferred (doc_names.py)
-> one hit per (doc, page) -> a lead-in that ends a chunk continued into the next chunk -> a
highlight that starts mid-sentence grown back to the sentence's start ->
cross-encoder rerank of the top RERANK_TOP (only when the user installed a reranker;
search/rerank.py) -> MMR -> group enrichment -> hits.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..elements import box_inside, union_bbox
from ..hits import Hit
from ..sentence_split import (
    DOT_LEADERS,
    THIS_NOUN,
    TYPED_SETTING,
    ends_a_row,
    ends_sentence,
    ends_with_noun,
    line_runs_on,
    opens_cross_reference,
    sentence_spans,
)
from ..store.chunks import Filters
from .doc_names import named_documents, without_names
from .fusion import mmr, weighted_rrf
from .highlight import (
    PROSE_WORD,
    Highlight,
    choose_highlight,
    goes_on_after,
    lines_highlight,
    segment_highlight,
)
from .query import (
    OPTION,
    QueryPlan,
    common_words,
    entries_named,
    entry_names,
    heads_section,
    joined_pairs,
    option_fts,
    option_word,
    plan_query,
    prints_option,
    quote_term,
    split_spellings,
    starts_with_option,
    titles_section,
    whatis_line,
)
from .rerank import RERANK_TOP, rerank_sentences, rerank_top

if TYPE_CHECKING:
    from ..models.active import ActiveModels
    from ..store import Chunks, Documents, Figures, Vectors
    from .own_sentences import OwnSentences
    from .table_rows import TableRows

KIND_BOOST = {
    "visual": {"figure": 1.35, "caption": 1.2},
    "table": {"table": 1.3},
    "text": {},
}
# an identifier in more chunks than this share names what a whole manual is about ("NUT", "SDCC",
# "PDP-11", "GNU"): matched exactly it pulls that manual's every page, not the passage asked for
# (held-out 2 R@1 0.648 -> 0.722, the other sets the same or better; bench/README.md, session 21)
EXACT_MAX_SHARE = 0.02
# a word of the query that no dictionary has and at most this many chunks use is matched as exactly as an identifier
# ("How does Valgrind 3.19.0 handle a program that calls the Linux rseq system call?": one chunk of the 397-page manual
# says "The Linux rseq syscall is now implemented as (silently) returning ENOSYS.", and BM25 ranked it tenth, below
# chunks with more of the question's common words); 0 turns it off
RARE_WORD_DF = 3
# and at most this share of the chunks: in a library of a few chunks every word is rare
RARE_WORD_SHARE = 0.02
RARE_WORD_MIN = 4  # letters: shorter words are abbreviations a library writes in many senses
# "rows": table chunks by their best row (table_rows.py); 0.45 chosen on the development set by
# MRR@10 among 0.2-1.0 (0.3-0.6 all lift R@5 from 0.89 to 0.92)
LIST_WEIGHTS = {"dense": 1.0, "keyword": 0.9, "exact": 1.2, "image": 0.6, "rows": 0.45, "options": 2.0}
MMR_LAMBDA = 0.7
# a text chunk of at most TINY_WORDS words ("Portability / GNU Prolog predicates.", the end of an entry
# that a table cut off) is found by its section title alone: the hit shows the entry's text before it
TINY_WORDS = 6
# a chunk's first line that may continue a sentence begun before it opens in lower case ("in fact so
# important that ...", "prefix= option) to rename each yyFlexLexer ..."); what it continues must read as
# prose (three words at least: not "csvread (filename)" above "x = csvread (...)", _sentence_start); a quoted word in
# lower case too ("“the” DCT). (Logical N=2*n, ...)" of FFTW's "... i.e. a DCT-II (sometimes called" above it)
_CONTINUES = re.compile(r"[\"'\u201c\u2018]?[a-z]")
# a line of prose ends with a word in lower case and holds this many of them at least: its sentence goes on past a
# capitalised name on the next line ("... permits to append an existing" / "FunctionSpace of the same Name ...",
# GetDP), where a register table's row does not ("CDCC 16 CD11 column count" / "CDBA 16 CD11 current bus address")
RUNS_ON_PROSE_WORDS = 6
_LOWER_WORD = re.compile(r"(?<![\w.])[a-z]{3,}(?!\w)")
# a term line: an option, an ALL-CAPS code, a snake_case name, a name with <placeholders> or [arguments]
TERM_LEAD_WORDS = 4
_TERM_LEAD = re.compile(r"^\s*(?:[-+]{1,2}\w|[A-Z][A-Z0-9_]{2,}\b|\w+_\w|\S*[<\[])")
# an answer's companion chunk goes after the hit it comes with, and not before the third hit: right after
# it and after the third tied on the development set (fact 0.83), after the fifth lost a fact there
COMPANION_AT = 3
# an answer's reserve: the page-mates of the first RESERVE_HITS hits among the first RESERVE_RANK candidates, and
# up to FIRST_HIT_MATES more of the first hit's (Searcher._reserve)
RESERVE_HITS = 3
RESERVE_RANK = 6
FIRST_HIT_MATES = 2
# an answer's hit shorter than this many words (a NAME line, a heading's chunk) brings the chunk after it
SHORT_HIT_WORDS = 12
# a chunk's last sentence cut by the chunk's end is completed from the next chunk when it ends within
# this many of its lines (Searcher._sentence_end)
TAIL_LINES = 4
# a chunk's last line that ends with a semicolon is a clause of a sentence that goes on in the next chunk when
# it has this many words of prose and no mark of code (_clause_goes_on)
CLAUSE_PROSE_WORDS = 6
_STATEMENT_MARK = re.compile(r"[{}=*]|\w\(|^\s*(?://|#)")
# a sentence that draws the consequence of the one before it: an answer's hit whose matched sentence
# ends its chunk brings the chunk that goes on with such a sentence ("... not possible on UPDI locked
# devices." / "Therefore, ... you have to provide -F to override this check.", AVRDUDE's manual)
# (or the remedy for it: "... users will not be able to double-click on the file name in compilation error messages"
# / "This can be remedied by adding the Visual C/C++ /FC compiler option ...", SCons')
_CONCLUSION = re.compile(r"(?:therefore|thus|hence|consequently|as a result|for this reason|this means|"
                         r"that is why|in that case|otherwise|so)\b(?!-)"  # not "So-called ..."
                         r"|(?:this|that|it) can (?:easily )?be (?:remedied|fixed|avoided|solved|worked around)\b"
                         r"|to (?:fix|avoid|remedy|work around|solve|get around) (?:this|that|it)\b", re.I)
# and a chunk that ends with a command-line option brings the chunk that goes on to say what it does
# ("... through the command line option" / "-sBlendColorProfile = my_blend_profile.icc" / "When this
# option is used, ... the blending result should not depend upon the output device color model.")
_OPTION_LINE = re.compile(r"^\s*" + OPTION)
_EXPLAINS = re.compile(r"(?:(?:when|if|with|once|by using|using) )?(?:this|that|the above|such an?) "
                       r"(?:option|switch|flag|setting|parameter)\b", re.I)
ENTRY_GAP = 0.5  # lines of one paragraph (an entry) are at most this share of a line's height apart
# a section that is a contents page or a back-of-book index ("Contents", "Appendix D Function and
# variable index", "OpenOCD Concept Index"; not "Array index")
_NAV_SECTION = re.compile(
    r"^(?:appendix [a-z0-9]+\.?\s+)?(?:(?:table of )?contents|list of (?:figures|tables)|(?:[\w -]*\b(?:concept|"
    r"function|variable|command|driver|operator|keyword|general|alphabetical|subject|symbol|program|macro|option|"
    r"propert(?:y|ies)|file|name)s?\b[\w -]* )?index|index of [\w -]+)$", re.I)
# a chunk under such a title is navigation when it has dot leaders or this share of its lines ends
# in a page number (contents and index chunks of the bench manuals and three others: 0.25 and more)
NAV_NUMBERED = 0.25
# under any title, a chunk with a line of dot leaders and this share of its lines ending in a page
# number: a contents page whose chapter lines have no leaders ("20 Enclosure Options 65", Sphinx's
# LaTeX contents, cut into chunks of a few lines of which only some have leaders)
NAV_NUMBERED_LEADERS = 0.6
_PAGE_NUMBER_END = re.compile(r"(?:\b[0-9]{1,4}|\b[ivxlc]{1,6})\s*$")
NAV_PENALTY = 0.6  # contents and index chunks, off the final score (the best sentence's match included)
# a chunk is navigation when this share of its lines has dot leaders (unchanged on all four sets at
# 0.4-0.6; avr-libc's contents lines that lost their page numbers ranked first for "How do I declare
# a string constant in program memory with avr-libc?", the best-sentence match outweighing a penalty
# on the fused score alone)
NAV_LEADERS = 0.6
PAGE_HIGHLIGHT_RATIO = 0.55  # a same-kind chunk of the page this close in score may supply its highlight (0.7 before session 23)
# a lead-in after the sentence that matched is continued into the next chunk when it matches at least
# this share as well (R's "To remove objects the function rm is available:" 1.6x the workspace
# sentence before it; OpenOCD's lead-in after the Zephyr sentence 0.5-0.7x)
LEAD_IN_MATCH = 0.8
SEGMENT_WEIGHT = 0.5  # weight of the best sentence's match in the final score
# a hit of a document the query names (doc_names.py): dev R@1 0.651 at 1.0-1.35, 0.667 at 1.5 and the
# same at every value up to 5 on all four sets; 3 puts R-intro first for "How do I read a CSV file
# into R?" (2 leaves gnuplot and Octave ahead; bench/README.md, session 17)
NAMED_DOC_BOOST = 3.0
# highlights matched without the words that name a manual: box@5 dev 0.828 -> 0.862, held-out
# 0.484 -> 0.613, held-out 2 0.804 -> 0.843, unseen 0.467 -> 0.400 (bench/README.md, session 22)
HIGHLIGHT_WITHOUT_NAMES = True
COMMON_DF = 0.05  # a keyword in more than this share of chunks is left out of a large library's query
PRUNE_MIN_CHUNKS = 50_000
OPTION_CANDIDATES = 300  # keyword candidates read for a command-line option the query names
OPTION_QUERY_TERMS = 3  # a query about an option has at most this many other words ("avrdude", "option")
NAMED_ENTRY_TITLES = True  # an entry named by its kind ("the SET directive") may head its section in capitals
# a table question's text hit becomes the page's table only when the table's best row matches the
# question at least this share as well as the text's best sentence ("default heap size for malloc"
# is a table question by its word "default"; the page's table lists printf sizes): dev box@5 0.776
# at 0, 0.793 at 0.5-0.7, 0.810 at 0.8-1.0. Figures keep the swap (0.5 loses a held-out 2 figure box)
REGION_MIN_MATCH = {"visual": 0.0, "table": 0.8}


def _keyword_query(plan: QueryPlan, idf: dict[str, float], n_chunks: int) -> str:
    """The FTS5 expression for the keyword list.

    In a large library a term found in more than COMMON_DF of all chunks adds almost nothing to
    BM25 but makes FTS5 score most of the table; such terms are left out (all of them common: they
    must all appear, AND). Small libraries use every term.
    """
    if n_chunks < PRUNE_MIN_CHUNKS or not plan.terms:
        return plan.fts
    limit = math.log((n_chunks + 1) / (COMMON_DF * n_chunks + 0.5))
    terms = list(dict.fromkeys(plan.terms))
    rare = [t for t in terms if idf.get(t, limit + 1) > limit]
    if len(rare) == len(terms):
        return plan.fts
    if rare:
        return " OR ".join(quote_term(t) for t in rare)
    return " AND ".join(quote_term(t) for t in terms)


def _navigation(row: dict) -> bool:
    """A contents or index chunk: flagged at ingest (lines ending in dot leaders and a page
    number), most of its lines with dot leaders whose page numbers the line lost ("5.4 Storing
    and Retrieving Strings in the Program Space . . . . . ."), a chunk with dot leaders most of whose
    lines end in a page number ("20 Enclosure Options 65"), or a chunk under a section titled as a
    contents page or an index whose lines read as entries (dot leaders, or NAV_NUMBERED of them
    ending in a page number)."""
    if '"nav": true' in row["meta"]:
        return True
    lines = row["text"].split("\n")
    leaders = sum(1 for ln in lines if DOT_LEADERS.search(ln))
    if leaders >= NAV_LEADERS * len(lines):
        return True
    numbered = sum(1 for ln in lines if _PAGE_NUMBER_END.search(ln))
    if leaders and numbered >= NAV_NUMBERED_LEADERS * len(lines):
        return True
    if not _NAV_SECTION.match(row["section"].rpartition(" > ")[2].strip()):
        return False
    # under such a title, the chunk's lines must read as entries: gnuplot's "plot ... index" keyword
    # is a section "Index", and a manual without an outline can leave every chunk under "Table of Contents"
    return bool(leaders) or numbered >= NAV_NUMBERED * len(lines)


def _lead_text(lead: list[dict]) -> list[str]:
    """The text of lead lines (Searcher._sentence_start) from where the sentence begins: its first line
    may end another sentence first ("files spinit or .spiceinit. Each circuit has to have")."""
    if not lead:
        return []
    first = lead[0]["t"]
    if len(lead[0].get("s") or []) > 1:
        spans = sentence_spans(first)
        first = first[spans[-1][0]:] if spans else first
    return [first, *(ln["t"] for ln in lead[1:])]


def _clause_goes_on(line: str) -> bool:
    """True when `line` is prose that ends with a semicolon, its sentence going on below ("... its implementation is
    currently limited to SPD problems;" / "moreover, because the technique requires ... MUMPS.", PETSc's manual, where a
    chunk ended), not a statement of code ("PCShellSetApply(PC pc, ...);", "x = 1;")."""
    t = line.rstrip()
    return t.endswith(";") and len(PROSE_WORD.findall(t)) >= CLAUSE_PROSE_WORDS and not _STATEMENT_MARK.search(t)


def _tail_text(tail: list[dict]) -> list[str]:
    """The text of tail lines (Searcher._sentence_end) up to where the sentence ends: its last line
    may begin another sentence after it ("packages. Those with compiled code need the tools")."""
    if not tail:
        return []
    text = "\n".join(ln["t"] for ln in tail)
    spans = sentence_spans(text)
    if len(spans) > 1:
        text = text[: spans[0][1]]
    return text.split("\n")


def _with_lead(lead: list[str], text: str) -> str:
    """`text` after its lead lines; a lead of a word or two (the sentence begins at the end of its line:
    "The" / "built-in predicates described ...") goes on the line after it, where no splitter takes it
    for a heading ("For" / "example, the default is BL, ..." was quoted from "example")."""
    if not lead:
        return text
    lines = [*lead, text]
    if len(lines[0].split()) <= 2:  # "For" / "example, the default is BL, ...": one line
        lines[:2] = [f"{lines[0]} {lines[1]}"]
    return "\n".join(lines)


def _runs_on(line: str) -> bool:
    """True when `line`, the line before a chunk that opens with a capital, goes on with its sentence: it ends with
    a small word or a comma (`line_runs_on`), or it is prose that ends with a word in lower case
    (RUNS_ON_PROSE_WORDS)."""
    return line_runs_on(line) or (re.search(r"[a-z]$", line.rstrip()) is not None
                                  and len(_LOWER_WORD.findall(line)) >= RUNS_ON_PROSE_WORDS)


def _just_above(line: dict, below: dict) -> bool:
    """True when stored line `line` is the line just before `below` in the flow and does not end a
    sentence: on the same page at most a line's height above it (or overlapping it by less than half a line,
    as tightly set lines' boxes do: the Maxima book's "... ode2 checks to see if" / "there is an integrating
    factor ..."), or at the end of the page before."""
    if ends_sentence(line["t"]):
        return False
    if line["p"] == below["p"] - 1:
        return True
    height = line["b"][3] - line["b"][1]
    return (line["p"] == below["p"] and below["b"][1] > line["b"][1]
            and -height / 2 <= below["b"][1] - line["b"][3] <= height)


def _entry_above(line: dict, below: dict) -> bool:
    """True when stored line `line` is a whole sentence opening a definition entry ("--with-fftw3=no Do not
    check for and use the fftw ... library.") and `below`, no entry of its own, goes on with its description
    in the same paragraph ("Use an internal fft algorithm instead."): at most half a line's height below it
    (entries are a line's height apart)."""
    if not _TERM_LEAD.match(line["t"]) or _TERM_LEAD.match(below["t"]) or len(line.get("s") or []) != 1:
        return False
    height = line["b"][3] - line["b"][1]
    return line["p"] == below["p"] and 0 <= below["b"][1] - line["b"][3] <= ENTRY_GAP * height


def _row_highlight(row: dict, seg_vecs, qvec: np.ndarray, plan: QueryPlan, filters: Filters,
                   idf: dict[str, float]) -> Highlight:
    """The highlight of one stored chunk row for this query (see highlight.choose_highlight)."""
    meta = json.loads(row["meta"] or "{}")
    return choose_highlight(row["kind"], json.loads(row["lines"]), meta.get("region"), seg_vecs, qvec,
                            plan.terms, row["page"], filters.pages, idf)


def _is_fragment(row: dict) -> bool:
    """A text chunk of at most TINY_WORDS words ("Portability / GNU Prolog predicates.")."""
    return row["kind"] == "text" and len(row["text"].split()) <= TINY_WORDS


def _hit_becomes(kept: list[int], i: int, row: dict, hl: Highlight, rows: dict, highlights: dict,
                 scored: dict) -> None:
    """The hit at `kept[i]` becomes the chunk `row`, shown with `hl`, keeping its rank and score (the
    page's better-matching passage, the chunk a lead-in continues in, the entry a fragment ends)."""
    old, new = kept[i], row["id"]
    rows[new], highlights[new], scored[new] = row, hl, scored[old]
    highlights.pop(old, None)
    kept[i] = new


def _prefer_named_documents(named: set[int], rows: dict, scored: dict) -> None:
    """Scale up the candidates of the documents the query names ("... a CSV file into R?",
    doc_names.py; none when it names every document of the library)."""
    for cid in scored:
        if rows[cid]["doc_id"] in named:
            scored[cid] *= NAMED_DOC_BOOST


def _heading_entry_first(names: list[str], rows: dict, scored: dict, titled: Sequence[str] = ()) -> None:
    """A short query about a command or function by its name ("what does the yosys opt_clean pass
    do") is a look-up too: the best-scored chunk of a section whose own heading starts with the
    name ("C.124 opt_clean – remove unused cells and wires") becomes the first hit. Acronyms
    ("UPS") are no such names; an entry the query names by its kind is, in capitals too, when a heading is the
    name alone (`titled`: "What does the SET directive do?", dasm's "6.2.3 SET"; not "UPS HOWTO")."""
    if not names and not titled:
        return
    for cid in sorted(scored, key=scored.get, reverse=True):
        section = rows[cid]["section"]
        if (any(heads_section(section, name) for name in names)
                or any(titles_section(section, name) for name in titled)):
            scored[cid] = max(scored.values()) + 1e-6
            return


def _names(name: str, text: str) -> bool:
    """True when `text` names `name` as a whole word (not inside another name)."""
    return re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])", text) is not None


def _entry_of(row: dict, shown: dict, names: list[str]) -> Highlight | None:
    """The highlight of the entry in text chunk `row` of a name the query gives (a line opening with it
    and the sentence after: "118 Overwriting previous address contents." / "gpasm was instructed to
    write ...") when `shown`, the page's chunk already a hit, never names it (gpasm's error list:
    the page's first chunk, errors 101 to 116, matched "What does gpasm error 118 mean?" better).
    None when there is no such entry, or when `row` lacks a name `shown` has."""
    if any(_names(name, shown["text"]) and not _names(name, row["text"]) for name in names):
        return None
    for name in names:
        if _names(name, shown["text"]):
            continue
        lines = _boxed_lines(row)
        # a line that opens with the name and a sentence of its own, not a wrapped line of the sentence above
        line = next((ln for i, ln in enumerate(lines) if ln.get("s") and starts_with_option(ln["t"], name)
                     and (i == 0 or ln["s"][0] not in (lines[i - 1].get("s") or []))), None)
        if line is not None:
            segments = {line["s"][0], line["s"][0] + 1}
            return lines_highlight([ln for ln in lines if ln.get("b") and segments & set(ln.get("s") or [])],
                                   line["s"][0], 1.0)
    return None


def _companions(n: int, plan: QueryPlan, chosen: list[int], order: list[int], replaced: dict[int, int],
                rows: dict, candidate_hl: dict, highlights: dict) -> list[tuple[int, int]]:
    """(place among the hits, chunk id) of the chunks that come along with the first `n` hits as an
    answer's evidence (Searcher.search's `companions`): the better-scored chunk of its page a hit stands
    for, else for a part of a table cut into chunks the best other part among the candidates (SDCC's
    data types: "long long" and "float" in one part, "long" in the other), else a chunk of its page
    naming an option or identifier of the query that no hit names ("unlock_joints_mask": the hit is
    the page's example, the chunk before it names the parameter)."""
    if not n:
        return []
    missing = [w for w in dict.fromkeys(plan.options + plan.identifiers)
               if not any(_names(w, rows[c]["text"]) for c in chosen)]
    entries = [e for e in entries_named(plan.text) if not any(whatis_line(e, rows[c]["text"]) for c in chosen)]
    out = []
    for i, c in enumerate(chosen[:n]):
        other = replaced.get(c)
        if other is None and rows[c]["kind"] == "table":  # the rest of a table cut into parts
            other = next((o for o in order if o not in chosen and _same_table(rows[o], rows[c])), None)
        if other is None and missing:
            other = next((o for o in order if o not in chosen and rows[o]["doc_id"] == rows[c]["doc_id"]
                          and candidate_hl[o].page == highlights[c].page
                          and any(_names(w, rows[o]["text"]) for w in missing)), None)
        if other is not None and other not in chosen and other not in (o for _, o in out):
            out.append((i, other))
        if entries:
            # and the manual page's NAME line of the entry asked about ("tof − IEC TOF timer - delay falling
            # edge on a signal"), when the hit shows the page's PINS
            name = next((o for o in order if o not in chosen and rows[o]["doc_id"] == rows[c]["doc_id"]
                         and rows[o]["page"] == rows[c]["page"]
                         and any(whatis_line(e, rows[o]["text"]) for e in entries)), None)
            if name is not None and name not in (o for _, o in out):
                out.append((i, name))
    return out


def _boxed_lines(row: dict) -> list[dict]:
    """A chunk's stored lines that have a box on the page (the text the reader sees)."""
    return [ln for ln in json.loads(row["lines"] or "[]") if ln.get("b")]


def _reads_as_prose(row: dict) -> bool:
    """True when most of a chunk's words stand in lines of prose: five words or more, four in five of them words of
    letters (not a listing's "text 'This text is flowing from the right. ' * 4, align: :right" / "move_down 15")."""
    words = prose = 0
    for line in row["text"].split("\n"):
        tokens = line.split()
        words += len(tokens)
        if len(tokens) >= 5 and sum(t.strip(".,;:!?()\"'").isalpha() for t in tokens) >= 0.8 * len(tokens):
            prose += len(tokens)
    return prose > 0.5 * words


def _closing_lead_in(row: dict) -> dict | None:
    """The last boxed line of a text chunk when it is a lead-in (ends with ":", as the chunk does), else None."""
    if row["kind"] != "text" or not row["text"].rstrip().endswith(":"):
        return None
    lines = _boxed_lines(row)
    return lines[-1] if lines and lines[-1]["t"].rstrip().endswith(":") else None


def _shared_line(lines: list[dict], last: dict, within: int = 3) -> int | None:
    """The index of `last` (a chunk's last line) among the first `within` of `lines` (the next chunk's:
    chunks overlap by a line or two), None when it is not there."""
    return next((j for j, ln in enumerate(lines[:within]) if ln["t"] == last["t"] and ln["p"] == last["p"]), None)


def _same_table(row_a: dict, row_b: dict) -> bool:
    """True when the two chunks are parts of one table (chunking.py cuts a long table into
    `table_parts` chunks of its rows, one after the other, each with the table's region)."""
    if row_a["kind"] != "table" or row_b["kind"] != "table" or row_a["doc_id"] != row_b["doc_id"]:
        return False
    meta_a, meta_b = json.loads(row_a["meta"] or "{}"), json.loads(row_b["meta"] or "{}")
    parts = meta_a.get("table_parts", 1)
    return (parts > 1 and meta_a.get("region") is not None and meta_a.get("region") == meta_b.get("region")
            and abs(row_a["ord"] - row_b["ord"]) < parts)


def _same_region(row_a, hl_a: Highlight, row_b, hl_b: Highlight) -> bool:
    """One hit per page: a lower-ranked chunk whose highlight is on a page already shown adds
    nothing a user would not see there (and would push other pages out of the top k)."""
    if row_a["doc_id"] != row_b["doc_id"] or hl_a.page != hl_b.page:
        return False
    if hl_a.bbox is None or hl_b.bbox is None:
        return row_a["id"] == row_b["id"] or row_a["page"] == row_b["page"]
    return True


@dataclass
class Searcher:
    """Text search over one library: the chunk, document and vector repositories it reads, the
    active models (query encoder, image model, reranker), the in-memory table rows and the
    sentence vectors it matches (own_sentences.py)."""

    chunks: Chunks
    documents: Documents
    vectors: Vectors
    figures: Figures
    models: ActiveModels
    table_rows: TableRows
    sentences: OwnSentences

    def image_list(self, query, n: int, filters: Filters) -> list[int]:
        """Figure chunk ids ranked by image-model similarity to `query` (text, or a PIL image), []
        without image vectors or model. Raises ModelError when the image model fails to load."""
        return self.models.image.ranked(query, n, self.chunks.allowed_ids(filters) if filters.active else None)

    def _match_vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        return self.sentences.match_vectors(ids)

    def _fetched_highlight(self, row: dict, qvec: np.ndarray, plan: QueryPlan, filters: Filters, idf) -> Highlight:
        """The highlight of a chunk fetched after the candidates were scored (`row`, its stored row), its
        sentence vectors read for it alone."""
        return _row_highlight(row, self._match_vectors([row["id"]]).get(row["id"]), qvec, plan, filters, idf)

    def search(self, query: str, k: int = 10, filters: Filters | None = None, *, companions: int = 0) -> list[Hit]:
        """Ranked hits for `query` (see module doc). Raises QueryError for unusable queries, ModelError
        when no text embedder is available.

        `companions` (answers, not the Search list): each of the first `companions` hits that shows the
        passage of its page whose sentence matches best, in place of the page's better-scored chunk,
        is followed by that chunk too ("gpdasm is a disassembler for gputils." for "What does gpdasm
        do?", where the hit shows the page's "The general syntax for running gpdasm is ..."), as is one
        whose page has a chunk naming what no hit names (`_companions`); not before the COMPANION_AT-th
        hit."""
        plan = self._with_library_spellings(plan_query(query))
        filters = filters or Filters()
        k = max(1, min(int(k), 200))
        n_cand = max(40, k * 4)
        titles = self.documents.titles()
        named_docs = named_documents(plan.text, titles)
        if len(named_docs) == len(titles):  # a query that names every manual prefers none
            named_docs = set()
        # The sentences to highlight (and their share of the score) are matched without the words
        # that name a manual (hvec): they say which manual (_prefer_named_documents), not which
        # sentence, and the embedder reads them as the subject ("What does the Asymptote command
        # filldraw do?"). The chunks are still found with the whole query (finding them without the
        # names lost held-out top-5 places; bench/README.md, session 22).
        bare = without_names(plan.text, titles, named_docs) if HIGHLIGHT_WITHOUT_NAMES else plan.text
        qvec, hvec = self.models.embedder.encode([plan.text, bare]) if bare != plan.text else \
            (self.models.embedder.encode([plan.text])[0],) * 2
        allowed = self.chunks.allowed_ids(filters) if filters.active else None
        lists: dict[str, list[int]] = {}
        dense = self.models.text_index().query(qvec, n_cand, filter_ids=allowed)
        lists["dense"] = [cid for cid, _ in dense]
        similarity = dict(dense)
        idf = self.chunks.term_idf(plan.terms)
        lists["keyword"] = self.chunks.keyword_ids(_keyword_query(plan, idf, self.chunks.count()), n_cand, filters)
        exact_fts = self._rare_exact(plan)
        exact = self.chunks.keyword_ids(exact_fts, 20, filters) if exact_fts else []
        if plan.ref_keys:
            named = self.chunks.by_group_keys(plan.ref_keys, filters)
            exact = named + [c for c in exact if c not in set(named)]
        if plan.options and len(plan.terms) <= OPTION_QUERY_TERMS:
            # the query is about the option ("what does the avrdude -F option do"), not a query
            # that names one on the way ("part id to pass to avrdude -p for an ATmega88PB")
            printed = self._option_ids(plan, filters)
            if printed:
                lists["options"] = printed
        if exact:
            lists["exact"] = exact
        if not filters.kinds or "table" in filters.kinds:
            table_rows = self.table_rows.ranked(qvec, n_cand, allowed)
            if table_rows:
                lists["rows"] = table_rows
        image = self.image_list(plan.text, n_cand, filters) if not filters.kinds or "figure" in filters.kinds else []
        if image:
            lists["image"] = image
        weights = dict(LIST_WEIGHTS)
        if plan.intent == "visual":
            weights["image"] = 1.0
        fused = weighted_rrf(lists, weights)
        if not fused:
            return []
        ranks = {name: {cid: r for r, cid in enumerate(ids, start=1)} for name, ids in lists.items()}
        pool = sorted(fused, key=fused.get, reverse=True)[: max(k * 3, 30)]
        rows = self.chunks.rows(pool)
        boost = KIND_BOOST.get(plan.intent, {})
        scored = {
            cid: fused[cid] * boost.get(rows[cid]["kind"], 1.0)
            for cid in pool if cid in rows
        }
        order = sorted(scored, key=scored.get, reverse=True)
        segs = self._match_vectors(order)
        candidate_hl = {cid: _row_highlight(rows[cid], segs.get(cid), hvec, plan, filters, idf) for cid in order}
        # rerank: fused rank evidence plus how well the best sentence of the chunk matches (max-sim)
        top = max(scored.values())
        for cid in order:
            best = candidate_hl[cid].score
            scored[cid] = scored[cid] / top + SEGMENT_WEIGHT * (best if np.isfinite(best) else 0.0)
            if _navigation(rows[cid]):  # its contents line matches the query as well as the heading does
                scored[cid] *= NAV_PENALTY
        _prefer_named_documents(named_docs, rows, scored)
        if "options" in lists:
            self._option_entry_first(plan, lists["options"], rows, candidate_hl, scored)
        elif len(plan.terms) <= OPTION_QUERY_TERMS:
            _heading_entry_first([w for w in plan.identifiers if not w.isupper()], rows, scored,
                                 entries_named(plan.text) if NAMED_ENTRY_TITLES else ())
        order.sort(key=scored.get, reverse=True)
        highlights: dict[int, Highlight] = {}
        kept: list[int] = []
        replaced: dict[int, int] = {}  # hit's chunk -> the better-scored chunk of its page it stands for
        # (document, page) -> the text candidates among the first RESERVE_RANK that one hit per page left out, the
        # page's mate first
        mates: dict[tuple[int, int], list[int]] = {}
        names = entry_names(plan)
        for place, cid in enumerate(order):
            row = rows[cid]
            hl = candidate_hl[cid]
            same = next((o for o in kept if _same_region(row, hl, rows[o], highlights[o])), None)
            if same is not None:
                # the page is already a hit: keep its rank, but show the passage of the page whose
                # sentence matches best (the hit becomes that chunk, so its text, passage shading and
                # highlight agree), or the entry of what the query names that the hit lacks
                entry = _entry_of(row, rows[same], names) if row["kind"] == rows[same]["kind"] == "text" else None
                if entry is not None:
                    replaced[cid] = replaced.pop(same, same)
                    _hit_becomes(kept, kept.index(same), row, entry, rows, highlights, scored)
                elif (row["kind"] == rows[same]["kind"] and hl.score > highlights[same].score
                        and scored[cid] >= PAGE_HIGHLIGHT_RATIO * scored[same]):
                    replaced[cid] = replaced.pop(same, same)
                    _hit_becomes(kept, kept.index(same), row, hl, rows, highlights, scored)
                elif place < RESERVE_RANK and row["kind"] == "text":
                    # (the first, or the first that reads as prose where the first is a listing: Prawn's "Vertical text
                    # alignment can be achieved using the :valign option ..." ranked below its example's source)
                    key = (row["doc_id"], highlights[same].page)
                    found = mates.setdefault(key, [])
                    found.insert(0 if found and not _reads_as_prose(rows[found[0]]) and _reads_as_prose(row)
                                 else len(found), cid)
                continue
            highlights[cid] = hl
            kept.append(cid)
        self._entries_of_fragments(kept, rows, highlights, scored, hvec, plan, filters, idf)
        held = self._continue_lead_ins(kept, rows, highlights, scored, segs, hvec)
        leads: dict[int, list[dict]] = {}  # chunk id -> the lines where its first sentence begins
        tails: dict[int, list[dict]] = {}  # chunk id -> the lines where its last sentence ends

        def lead(cid: int) -> list[dict]:
            if cid not in leads:
                leads[cid] = self._sentence_start(rows[cid])
            return leads[cid]

        def tail(cid: int) -> list[dict]:
            if cid not in tails:
                tails[cid] = self._sentence_end(rows[cid])
            return tails[cid]

        for cid in kept:
            highlights[cid] = self._whole_sentences(rows[cid], highlights[cid], lead, tail)
        if plan.intent in ("visual", "table"):
            self._prefer_page_regions(plan, hvec, idf, kept, rows, highlights, scored, filters, replaced)
        reranked = rerank_top(self.models.rerank_scores, plan.text, kept, rows, scored)
        vecs = self.vectors.chunk_vectors(kept, self.models.embedder.model_id)
        # chunks without a vector of the active model (a re-embed in progress) are ranked by fusion only
        missing = [c for c in kept if c not in vecs]
        kept_mmr = [c for c in kept if c in vecs]
        chosen = mmr(kept_mmr, np.array([scored[c] for c in kept_mmr]),
                     np.stack([vecs[c] for c in kept_mmr]) if kept_mmr else np.zeros((0, 1)), k, MMR_LAMBDA)
        chosen += missing[: max(0, k - len(chosen))]
        # ties in score keep the cross-encoder's order
        chosen.sort(key=lambda c: (scored[c], -reranked[c][0] if c in reranked else -RERANK_TOP - 1), reverse=True)
        if reranked:
            rerank_sentences(self.models.rerank_scores, plan.text, chosen, rows, highlights)
        hits = [
            self.hit(rows[c], highlights[c], scored[c], {n: r[c] for n, r in ranks.items() if c in r},
                 similarity.get(c), self.documents.kind(rows[c]["doc_id"]), rerank=reranked.get(c), lead=lead(c),
                 tail=tail(c))
            for c in chosen
        ]
        along = _companions(companions, plan, chosen, order, replaced, rows, candidate_hl, highlights)
        followers = self._followers(companions, chosen, rows, highlights, along, held)
        follower_vecs = self._match_vectors([nxt for _, nxt in followers]) if followers else {}
        for i, nxt in followers:
            candidate_hl[nxt] = _row_highlight(rows[nxt], follower_vecs.get(nxt), hvec, plan, filters, idf)
            along.append((i, nxt))
        for i, other in reversed(sorted(along)):
            hl = self._whole_sentences(rows[other], candidate_hl[other], lead, tail)
            hits.insert(max(i + 1, COMPANION_AT),
                        self.hit(rows[other], hl, scored[chosen[i]], {n: r[other] for n, r in ranks.items() if other in r},
                                 similarity.get(other), self.documents.kind(rows[other]["doc_id"]), lead=lead(other),
                                 tail=tail(other)))
        hits.extend(self._enrich(hits, plan, hvec, idf, filters))
        if companions:
            # (the first hit's continuation first: its passage goes on there)
            reserve = self._continuation(hits, rows, hvec, plan, filters, idf, lead, tail)
            going_on = {h.chunk_id for h in reserve}
            reserve += [h for h in self._reserve(hits, mates, rows, candidate_hl, scored, lead, tail)
                        if h.chunk_id not in going_on]
            hits.extend(reserve)
        return hits

    def _continuation(self, hits: list[Hit], rows: dict, hvec: np.ndarray, plan: QueryPlan, filters: Filters,
                      idf, lead: Callable[[int], list[dict]], tail: Callable[[int], list[dict]]) -> list[Hit]:
        """A reserve hit of an answer's search: the text chunk after the first hit when it goes on with the
        same section on the same page ("The edge is a degenerated one. A work-around is to split the domain
        ..." after NETGEN's "Degenerated edges ... A sphere on top of a cylinder my be described by: ..."),
        its score the first hit's."""
        if not hits or hits[0].kind != "text" or hits[0].chunk_id not in rows:
            return []
        first = rows[hits[0].chunk_id]
        found = self._next_text(first)
        if found is None:
            return []
        row = found[0]
        if (row["id"] in {h.chunk_id for h in hits} or row["page"] != first["page"]
                or row["section"] != first["section"]):
            return []
        rows[row["id"]] = row
        hl = self._whole_sentences(row, self._fetched_highlight(row, hvec, plan, filters, idf), lead, tail)
        hit = self.hit(row, hl, hits[0].score, {}, None, self.documents.kind(row["doc_id"]),
                       lead=lead(row["id"]), tail=tail(row["id"]))
        hit.reserve = True
        return [hit]

    def _reserve(self, hits: list[Hit], mates: dict[tuple[int, int], list[int]], rows: dict, candidate_hl: dict,
                 scored: dict, lead: Callable[[int], list[dict]], tail: Callable[[int], list[dict]]) -> list[Hit]:
        """The reserve hits of an answer's search: for each of the first RESERVE_HITS hits, the text chunk of
        its page that ranked among the first RESERVE_RANK candidates and was left out because the page is a
        hit already (Gpredict's "... satellite AO-51 is drawn in white instead of yellow. This means that
        AO-51 is selected.", third of all candidates, under the page's first paragraph). A mate whose last
        line is a lead-in goes on in the next chunk of its page, which is reserve too (DRBD's "On the local
        node, issue the following command:" ends the chunk that opens "Using truck based replication"; the
        command is in the next). After them come up to FIRST_HIT_MATES more of the first hit's page-mates: a page
        of short chunks says what is asked in several (HMMER's "One workaround is to install the two packages each in
        their own hierarchy ..." was the fourth of the first page's five chunks among the first six candidates)."""
        have = {h.chunk_id for h in hits if not h.enriched}  # (a paragraph joined to a figure comes last)
        shown: list[tuple[dict, Highlight, float]] = []
        for h in hits[:RESERVE_HITS]:
            cid = next(iter(mates.get((h.doc_id, h.page), ())), None)
            if cid is None or cid in have:
                continue
            have.add(cid)
            shown.append((rows[cid], candidate_hl[cid], scored[cid]))
            if (last := _closing_lead_in(rows[cid])) is not None:
                found = self._lead_in_goes_on(rows[cid], last, candidate_hl[cid].score)
                if found is not None and found[0]["id"] not in have and found[0]["page"] == rows[cid]["page"]:
                    have.add(found[0]["id"])
                    rows[found[0]["id"]] = found[0]
                    shown.append((*found, scored[cid]))
        have |= {h.chunk_id for h in hits}
        more = mates.get((hits[0].doc_id, hits[0].page), [])[1:1 + FIRST_HIT_MATES] if hits else []
        shown += [(rows[cid], candidate_hl[cid], scored[cid]) for cid in more if cid not in have]
        out: list[Hit] = []
        for row, hl, score in shown:
            hl = self._whole_sentences(row, hl, lead, tail)
            hit = self.hit(row, hl, score, {}, None, self.documents.kind(row["doc_id"]),
                           lead=lead(row["id"]), tail=tail(row["id"]))
            hit.reserve = True
            out.append(hit)
        return out

    def _followers(self, n: int, chosen: list[int], rows: dict, highlights: dict,
                   along: list[tuple[int, int]], held: dict[int, int]) -> list[tuple[int, int]]:
        """(place among the hits, chunk id) of the chunk after each of the first `n` hits that is
        shorter than SHORT_HIT_WORDS and brings no other companion (`along`): a manual page's NAME line
        ("hexagui - Vismach Virtual Machine GUI") says what the DESCRIPTION after it explains
        ("... simulating a Horizontal Boring Machine."). The follower is the document's next text
        chunk on the same page, fetched into `rows`; for a hit whose closing lead-in was not
        continued (`held`, _continue_lead_ins), the chunk that continues it; for any of the `n` hits
        whose matched sentence ends its chunk, the next chunk when it goes on with a conclusion
        (_concluded); for any that ends with a command-line option, the next chunk when it says what
        the option does (_explained)."""
        out: list[tuple[int, int]] = []
        for i, c in enumerate(chosen[:n]):
            # with or without another companion
            concluding = self._concluded(rows[c], highlights[c]) or self._explained(rows[c])
            if concluding is None and any(j == i for j, _ in along):
                continue
            nxt = concluding["id"] if concluding is not None else held.get(c)
            same_page = nxt is None  # a short hit's next chunk follows it on its own page only
            if same_page and rows[c]["kind"] == "text" and len(rows[c]["text"].split()) < SHORT_HIT_WORDS:
                nxt = self.chunks.next_text(rows[c]["doc_id"], rows[c]["ord"])
            if nxt is None or nxt in chosen or any(o == nxt for _, o in along + out):
                continue
            row = rows.get(nxt) or concluding or self.chunks.rows([nxt]).get(nxt)
            if row is None or (same_page and row["page"] != rows[c]["page"]):
                continue
            rows[nxt] = row
            out.append((i, nxt))
        return out

    def _concluded(self, row: dict, hl: Highlight) -> dict | None:
        """The text chunk (row) after `row` when `row`'s matched sentence (the highlight's segment)
        is its last and the next chunk, past the line the two share, opens with a conclusion drawn
        from it (_CONCLUSION: "Therefore, ...", "In that case ..."); None otherwise."""
        if row["kind"] != "text" or hl.segment < 0:
            return None
        lines = _boxed_lines(row)
        if not lines or (lines[-1].get("s") or [None])[-1] != hl.segment:
            return None
        return self._next_opening(row, lines, _CONCLUSION, after_cut=True)

    def _explained(self, row: dict) -> dict | None:
        """The text chunk (row) after `row` when `row` ends with a command-line option and the next
        chunk, past the line the two share, opens by saying what it does (_EXPLAINS); None otherwise."""
        if row["kind"] != "text":
            return None
        lines = _boxed_lines(row)
        if not lines or not _OPTION_LINE.match(lines[-1]["t"]):
            return None
        return self._next_opening(row, lines, _EXPLAINS)

    def _next_opening(self, row: dict, lines: list[dict], opening: re.Pattern, after_cut: bool = False) -> dict | None:
        """The text chunk (row) after `row` (whose boxed lines are `lines`) when, past the line the two
        share, it opens with `opening` (`after_cut`: past the end of a sentence `row` cuts short, too); None
        otherwise."""
        found = self._next_text(row)
        if found is None:
            return None
        new, new_lines = found
        j = _shared_line(new_lines, lines[-1])
        text = " ".join(ln["t"] for ln in new_lines[(-1 if j is None else j) + 1:]).lstrip()
        if after_cut and not ends_sentence(lines[-1]["t"]):
            # the sentence `row` cuts ends in the next chunk first: what opens after it ("... users will not be able
            # to double-click on the file name ... output" / "window. This can be remedied by adding ...", SCons')
            spans = sentence_spans(text)
            text = text[spans[1][0]:] if len(spans) > 1 else ""
        return new if opening.match(text) else None

    def _next_text(self, row: dict) -> tuple[dict, list[dict]] | None:
        """The document's next text chunk after `row` (its row) and its boxed lines, None at the end."""
        nxt = self.chunks.next_text(row["doc_id"], row["ord"])
        new = self.chunks.rows([nxt]).get(nxt) if nxt is not None else None
        return (new, _boxed_lines(new)) if new is not None else None

    def _with_library_spellings(self, plan: QueryPlan) -> QueryPlan:
        """`plan` with the words the query writes apart that the library writes as one and never apart ("job
        name": bodeplot's "Added jobname to gnuplot prefix"; not "code model" of ngspice's manual, which writes
        both; `joined_pairs`) among its keywords, and the phrase the library writes for a word of the query it
        never writes ("changeover": tikz-relay's "change over contact"; `split_spellings`)."""
        pairs = [(p.replace(" ", ""), p) for p in joined_pairs(plan.text)]  # ("jobname", "job name")
        words = [t for t in dict.fromkeys(plan.terms) if split_spellings(t)]
        df = self.chunks.term_df([*(one for one, _ in pairs), *(apart for _, apart in pairs), *words])
        known = [one for one, apart in pairs if df[one] and not df[apart] and one not in plan.terms]
        unwritten = [w for w in words if not df[w]]
        splits = self.chunks.term_df([s for w in unwritten for s in split_spellings(w)])
        phrases = [s for s, n in splits.items() if n]
        if not (known or phrases):
            return plan
        return replace(plan, terms=[*plan.terms, *known],
                       fts=" OR ".join([plan.fts, *map(quote_term, known), *map(quote_term, phrases)]))

    def _rare_exact(self, plan: QueryPlan) -> str:
        """The query's exact phrases without identifiers found in more than EXACT_MAX_SHARE of
        the chunks, and its rare words (`_rare_words`)."""
        phrases = list(plan.exact_phrases)
        if plan.identifiers:
            dfs = self.chunks.term_df(plan.identifiers)
            limit = EXACT_MAX_SHARE * self.chunks.count()
            common = {quote_term(w) for w in plan.identifiers if dfs.get(w, 0) > limit}
            phrases = [p for p in phrases if p not in common]
        return " OR ".join(phrases + self._rare_words(plan, phrases))

    def _rare_words(self, plan: QueryPlan, phrases: list[str]) -> list[str]:
        """The query's words in letters that no dictionary has (`common_words`) and RARE_WORD_DF chunks or fewer use
        (RARE_WORD_SHARE of them at most), as FTS5 phrases not among `phrases`."""
        known = {w.lower() for w in plan.identifiers}
        words = [t for t in dict.fromkeys(plan.terms) if t.isalpha() and len(t) >= RARE_WORD_MIN and t not in known
                 and t not in common_words()]
        if not RARE_WORD_DF or not words:
            return []
        dfs = self.chunks.term_df(words)
        limit = min(RARE_WORD_DF, RARE_WORD_SHARE * self.chunks.count())
        return [q for w in words if 0 < dfs.get(w, 0) <= limit and (q := quote_term(w)) not in phrases]

    def _option_ids(self, plan: QueryPlan, filters: Filters, n: int = 20) -> list[int]:
        """Chunks that print a command-line option or dot-command the query names ("-F", ".save").
        FTS5 drops the dash and the dot, so keyword candidates with the option's word (with another
        query term, then alone) are read and kept when the option itself is in their text: its
        entry (a section headed by it, then a line starting with it) before a mention, a chunk with
        another query term before one without, then by keyword rank."""
        found: dict[int, tuple] = {}
        for option in plan.options:
            context = self.chunks.keyword_ids(option_fts(plan, option), OPTION_CANDIDATES, filters)
            alone = self.chunks.keyword_ids(quote_term(option_word(option)), OPTION_CANDIDATES, filters)
            ids = list(dict.fromkeys(context + alone))
            rows = self.chunks.rows(ids)
            near = set(context)
            for rank, cid in enumerate(ids):
                how = prints_option(rows[cid]["text"], option, rows[cid]["section"]) if cid in rows else 0
                if how:
                    found[cid] = min(found.get(cid, (0, 0, 0)), (-how, cid not in near, rank))
        return sorted(found, key=found.get)[:n]

    @staticmethod
    def _option_entry_first(plan: QueryPlan, printed: list[int], rows: dict, candidate_hl: dict,
                            scored: dict) -> None:
        """A query about an option ("what does -e do in avrdude") is a look-up: the best chunk of
        `printed` holding the option's entry becomes the first hit, highlighting the entry (a chunk
        of a section headed by the option keeps its best-matching lines). The embedder cannot see
        a one-letter option, so the sentence score alone would not find it."""
        for cid in printed:
            if cid not in scored:
                continue
            if any(heads_section(rows[cid]["section"], option) for option in plan.options):
                scored[cid] = max(scored.values()) + 1e-6
                return
            lines = json.loads(rows[cid]["lines"] or "[]")
            for option in plan.options:
                line = next((ln for ln in lines if ln.get("b") and starts_with_option(ln["t"], option)), None)
                if line is None or not line.get("s"):
                    continue
                hl = segment_highlight(lines, line["s"][0], 1.0, line["p"])
                if hl is not None:
                    candidate_hl[cid] = hl
                    scored[cid] = max(scored.values()) + 1e-6
                    return

    def _continue_lead_ins(self, kept: list[int], rows: dict, highlights: dict, scored: dict,
                           segs: dict[int, np.ndarray], hvec: np.ndarray) -> dict[int, int]:
        """A text hit whose highlight ends with its chunk's last line, a lead-in ("To remove
        objects the function rm is available:"), shows what that line announces: the next chunk
        repeats the line in its first lines (chunks overlap) and goes on with it ("> rm(x, y, ...)"), so the
        hit becomes that chunk, highlighting the lead-in and the segment after it. Not when the
        lead-in only follows the sentence that matched and matches the query much less
        (LEAD_IN_MATCH): "Zephyr must be compiled with the DEBUG_THREAD_INFO option." is the
        answer, not "FreeRTOS and uC/OS-III RTOSes may require ... linked along with the project:"; the
        chunk that continues such a lead-in is returned (hit -> it) to follow the hit in answers."""
        held: dict[int, int] = {}
        for i, cid in enumerate(kept):
            row, hl = rows[cid], highlights[cid]
            last = _closing_lead_in(row) if hl.segment >= 0 else None
            if last is None:
                continue
            if not any(box_inside(last["b"], b, 1) for p, b in hl.boxes if p == last["p"]):  # the lead-in is shown
                continue
            if last.get("s") and last["s"][-1] > hl.segment + 1:
                # the line is shown for the sentence that ends on it, not for the lead-in: "floor is the
                # mathematician's integer part ... −3." matched, "... here's the explanation:" did not
                continue
            vecs = segs.get(cid)
            weak = bool(last.get("s") and last["s"][-1] == hl.segment + 1 and vecs is not None
                        and last["s"][-1] < len(vecs)
                        and float(vecs[last["s"][-1]] @ hvec) < LEAD_IN_MATCH * float(vecs[hl.segment] @ hvec))
            found = self._lead_in_goes_on(row, last, hl.score)
            if found is None or found[0]["id"] in kept:
                continue
            if weak:
                held[cid] = found[0]["id"]
                continue
            _hit_becomes(kept, i, *found, rows, highlights, scored)
        return held

    def _lead_in_goes_on(self, row: dict, last: dict, score: float) -> tuple[dict, Highlight] | None:
        """The next text chunk of `row`'s document (its row) and the highlight of the lead-in `last` (the
        chunk's last line) with the segment after it, when that chunk repeats the line in its first lines
        (chunks overlap) and goes on after it; None otherwise."""
        found = self._next_text(row)
        if found is None:
            return None
        new, new_lines = found
        j = _shared_line(new_lines, last)
        if j is None or len(new_lines) < j + 2 or not new_lines[j].get("s"):
            return None
        lead = new_lines[j]["s"][-1]
        after = next((s for ln in new_lines[j + 1:] for s in ln.get("s") or [] if s > lead), None)
        if after is None:
            return None
        chosen = [ln for ln in new_lines if {lead, after} & set(ln.get("s") or [])]
        return new, lines_highlight(chosen, lead, score)

    def _entries_of_fragments(self, kept: list[int], rows: dict, highlights: dict, scored: dict, hvec: np.ndarray,
                              plan: QueryPlan, filters: Filters, idf: dict[str, float]) -> None:
        """A hit that is a fragment of a few words (TINY_WORDS) becomes the text chunk before it in
        its section, the entry it ends, keeping its rank: "Portability / GNU Prolog predicates."
        (cut off from read_token's entry by its Errors table) ranks by its section title and says
        nothing; the entry above it does. A fragment whose entry is already a hit, or whose entry's
        page another hit shows, leaves the list."""
        for cid in list(kept):
            row = rows[cid]
            if not _is_fragment(row):
                continue
            prev_row = self._text_row_before(row)
            if prev_row is None or prev_row["section"] != row["section"] or _is_fragment(prev_row):
                continue
            prev = prev_row["id"]
            i = kept.index(cid)
            if prev in kept or any(rows[o]["doc_id"] == prev_row["doc_id"] and highlights[o].page == prev_row["page"]
                                   for o in kept if o != cid):
                del kept[i], highlights[cid]
                continue
            hl = self._fetched_highlight(prev_row, hvec, plan, filters, idf)
            _hit_becomes(kept, i, prev_row, hl, rows, highlights, scored)

    def _text_row_before(self, row: dict) -> dict | None:
        """The stored row of the document's text chunk before `row`, None at its start."""
        prev = self.chunks.previous_text(row["doc_id"], row["ord"])
        return self.chunks.rows([prev]).get(prev) if prev is not None else None

    def _sentence_start(self, row: dict) -> list[dict]:
        """The stored lines of the chunk before a text chunk where the chunk's first sentence begins,
        when that sentence began there (chunks overlap by lines, not sentences: "name of a subcircuit
        defined beforehand."); [] when the chunk opens with a sentence of its own."""
        if row["kind"] != "text":
            return []
        lines = _boxed_lines(row)
        first = lines[0] if lines else None
        continues = bool(first and _CONTINUES.match(first["t"]))
        # (or a cross-reference's parenthesis the line above leaves open goes on: "... Gri draws xy graphs (Chapter 5"
        # / "[X-y Plots], page 19), contour plots ...", Gri's)
        bracket = bool(first) and first["t"][:1] in "(["
        if not first or not (continues or bracket or first["t"][:1].isupper()):
            return []
        prev_row = self._text_row_before(row)
        if prev_row is None:
            return []
        before = _boxed_lines(prev_row)
        at = next((i for i, ln in enumerate(before) if ln["p"] == first["p"] and ln["b"] == first["b"]), None)
        if not continues:
            # the term of a definition or a reference entry's name is the line before the chunk and
            # the description opens it ("-Werror-<message>" / "Promote the specified warning ...")
            if at is None:  # no overlap: the chunk before's last line
                term = before[-1] if before else None
            else:  # the chunks overlap from the first line on: the line before it
                term = before[at - 1] if at > 0 else None
            if term is None or (bracket and not opens_cross_reference(term["t"])):
                return []
            lead = _TERM_LEAD.match(term["t"]) or TYPED_SETTING.match(" ".join(term["t"].split()))
            if len(term["t"].split()) <= TERM_LEAD_WORDS and lead and _just_above(term, first):
                return [term]
            # the entry's first sentence, with its term, is the line before a chunk that goes on with the
            # description ("--with-fftw3=no Do not check for ..." / "Use an internal fft algorithm instead.")
            if _entry_above(term, first):
                return [term]
            # a chunk that opens with what the sentence above ends with ("... refer to the /boot/System.map-`uname -r`
            # file." / "This file lists the starting addresses for each function, ...", SystemTap's guide): that sentence
            if ((this := THIS_NOUN.match(first["t"])) and term.get("s") and ends_with_noun(term["t"], this.group(1))
                    and (at is not None or _just_above(term, first))):
                sentence = max(term["s"])
                start = [ln for ln in (before[:at] if at is not None else before) if sentence in (ln.get("s") or [])]
                return start if len(PROSE_WORD.findall(" ".join(ln["t"] for ln in start))) >= 3 else []
            # else a capitalised word may go on with the sentence of the line above ("Moving data from R16 to
            # DDRB and" / "PORTB is done using both ...", microHOPE): the sentences of the chunk before say
            if not _runs_on(term["t"]) and not bracket:
                return []
        if at is not None:  # the chunks overlap: the first line is the chunk before's too
            if not before[at].get("s"):
                return []
            sentence = min(before[at]["s"])  # the sentence this chunk's first line continues
            start = [ln for ln in before[:at] if sentence in (ln.get("s") or [])]
        elif before and before[-1].get("s") and _just_above(before[-1], first):
            sentence = max(before[-1]["s"])  # no overlap: the chunk before ends with the sentence's start
            start = [ln for ln in before if sentence in (ln.get("s") or [])]
        else:
            return []
        if start and ends_a_row(start[-1]["t"], first["t"]):  # "... Default: 0.2" / "timing/zslope=...": rows
            return []
        # prose, not a synopsis or code above it ("csvread (filename)" / "x = csvread (filename, ...)")
        return start if len(PROSE_WORD.findall(" ".join(ln["t"] for ln in start))) >= 3 else []

    def _sentence_end(self, row: dict) -> list[dict]:
        """The stored lines of the chunk after a text chunk where the chunk's last sentence ends, when
        it ends there (chunks overlap by lines, not sentences: "... Real time simulation speeds of" /
        "20Mhz pics are possible."); [] when the chunk ends its sentence, ends with a lead-in (see
        _continue_lead_ins), or the sentence does not end with a full stop within TAIL_LINES lines (nor with a
        colon and the line of code it announces: "... you simply put the target" / "file name to the left of the
        source file name:" / "Program('new_hello', 'hello.c')"), or is not prose."""
        if row["kind"] != "text":
            return []
        lines = _boxed_lines(row)
        last = lines[-1] if lines else None
        if not last or not last.get("s") or (ends_sentence(last["t"]) and not _clause_goes_on(last["t"])):
            return []
        found = self._next_text(row)
        if found is None:
            return []
        after = found[1]
        j = _shared_line(after, last)
        if j is not None:  # the chunks overlap: the line is the next chunk's too
            if not after[j].get("s"):
                return []
            sentence, rest = max(after[j]["s"]), after[j + 1:]
        elif (after and after[0].get("s") and _just_above(last, after[0])
              and not (after[0]["t"][:1].isupper() and len(PROSE_WORD.findall(last["t"])) < 3)):
            # no overlap: the next chunk opens with the sentence's end (not a sentence of its own after a line of
            # code: LilyPond's "\displayMusic \addAccent c4" ends a page, "Advanced tweaks may be performed by using
            # Scheme." opens the next section on the next page)
            sentence, rest = min(after[0]["s"]), after
        else:
            return []
        end: list[dict] = []
        i = 0
        while i < len(rest) and len(end) < TAIL_LINES:  # up to the line that ends the sentence
            ln = rest[i]
            if sentence not in (ln.get("s") or []):
                # a formula or a line of code set apart inside the sentence, which goes on in lower case after
                # it ("The recurrence relation" / "j(l+1)(x) = ..." / "is used either downwards for x < 2 lmax ...")
                k = goes_on_after(rest, i)
                if k is None:
                    return []  # its segment ends with no full stop: code ("set xtics format ..."), a heading
                end.extend(rest[i:k])
                sentence, i = min(rest[k]["s"]), k
                continue
            end.append(ln)
            i += 1
            text = "\n".join(e["t"] for e in end)
            if text.rstrip()[-1:] in ".!?" or len(sentence_spans(text)) > 1:
                break
            if text.rstrip().endswith(":") and i < len(rest) and _STATEMENT_MARK.search(rest[i]["t"]):
                # a lead-in that ends in the next chunk, with the line of code it announces ("... you simply put the
                # target" / "file name to the left of the source file name:" / "Program('new_hello', 'hello.c')")
                end.append(rest[i])
                break
        else:
            return []  # a sentence the next chunk does not end within TAIL_LINES lines
        words = " ".join([last["t"], *(ln["t"] for ln in end)])
        return end if len(PROSE_WORD.findall(words)) >= 3 else []

    def _whole_sentences(self, row: dict, hl: Highlight, lead: Callable[[int], list[dict]],
                         tail: Callable[[int], list[dict]]) -> Highlight:
        """A text highlight that starts with its chunk's first sentence, which began in the chunk
        before, grows back to the lines where that sentence starts (`lead`: chunk id -> those lines,
        see _sentence_start); one that ends with its chunk's last sentence, which ends in the chunk
        after, grows on to the lines where it ends (`tail`, _sentence_end): the box shows the whole
        sentence."""
        if row["kind"] != "text" or hl.segment < 0 or hl.bbox is None:
            return hl
        lines = _boxed_lines(row)
        if not lines:
            return hl
        more = [*(lead(row["id"]) if hl.segment == min(lines[0].get("s") or [-1]) else []),
                *(tail(row["id"]) if hl.segment == max(lines[-1].get("s") or [-1]) else [])]
        if not more:
            return hl
        boxes = dict(hl.boxes)
        for ln in more:
            boxes[ln["p"]] = union_bbox([boxes[ln["p"]], tuple(ln["b"])]) if ln["p"] in boxes else tuple(ln["b"])
        return Highlight(hl.page, boxes[hl.page], sorted(boxes.items()), hl.segment, hl.score)

    def _prefer_page_regions(self, plan: QueryPlan, qvec: np.ndarray, idf: dict[str, float], kept: list[int],
                             rows: dict, highlights: dict, scored: dict, filters: Filters,
                             replaced: dict[int, int]) -> None:
        """For a visual (table) question, a text hit on a page that holds a figure (table) becomes that
        figure (table): the page was found by its words, the region is what the user asked to see
        -- unless the region matches the question much worse than the text (REGION_MIN_MATCH). The
        text is what the region stands for (`replaced`): an answer's evidence keeps it as a companion
        (Asymptote's "How do I draw a secondary logarithmic y axis on a graph?" found the page by "A
        secondary logarithmic y axis can be drawn like this:"; its plot's tick labels alone read as
        not covered)."""
        want = {"visual": ("figure",), "table": ("table",)}[plan.intent]
        if filters.kinds and not set(want) & set(filters.kinds):
            return
        for i, cid in enumerate(kept):
            row = rows[cid]
            if row["kind"] in want:
                continue
            page = highlights[cid].page
            cands = [c for c in self.chunks.on_page(row["doc_id"], want, page) if c not in kept]
            if not cands:
                continue
            new_rows = self.chunks.rows(cands)
            segs = self._match_vectors(cands)
            best = None
            for c in cands:
                hl = _row_highlight(new_rows[c], segs.get(c), qvec, plan, filters, idf)
                if hl.page == page and (best is None or hl.score > best[1].score):
                    best = (c, hl)
            if best is None or best[1].score < REGION_MIN_MATCH[plan.intent] * highlights[cid].score:
                continue
            c, hl = best
            rows[c] = new_rows[c]
            highlights[c] = hl
            scored[c] = scored[cid]
            kept[i] = c
            replaced[c] = replaced.pop(cid, cid)

    def hit(self, row, hl: Highlight, score: float, sources: dict, sim, doc_kind: str,
             enriched: bool = False, rerank: tuple[int, float] | None = None, lead: list[dict] = (),
             tail: list[dict] = ()) -> Hit:
        """The Hit of a stored chunk row shown with highlight `hl` (no boxes for Markdown documents);
        `lead`: the lines before the chunk where its first sentence begins, put before its text;
        `tail`: the lines after it where its last sentence ends, put after it."""
        doc = self.documents.names()[row["doc_id"]]
        geometry = doc_kind not in ("markdown",)
        if rerank is not None:
            sources = {**sources, "rerank": rerank[0]}
        return Hit(
            chunk_id=row["id"], doc_id=row["doc_id"], doc=doc[0], doc_path=doc[1], page=hl.page,
            bbox=hl.bbox if geometry else None, kind=row["kind"], score=score,
            text="\n".join([_with_lead(_lead_text(lead), row["text"]), *_tail_text(tail)]),
            section=row["section"], boxes=hl.boxes if geometry else [], enriched=enriched, sources=sources,
            similarity=sim, rerank_score=rerank[1] if rerank is not None else None, lead=list(lead), tail=list(tail),
            navigation=_navigation(row),
        )

    def _enrich(self, hits: list[Hit], plan: QueryPlan, qvec: np.ndarray, idf: dict[str, float],
                filters: Filters) -> list[Hit]:
        """Join the figure/table a top text hit refers to, or the paragraph referring to a top figure/table."""
        have = {h.chunk_id for h in hits}
        extra: list[Hit] = []
        for h in hits[:3]:
            for cid in self.chunks.linked(h.chunk_id, referring=h.kind in ("figure", "table", "caption")):
                if cid in have:
                    continue
                rows = self.chunks.rows([cid])
                if cid not in rows:
                    continue
                row = rows[cid]
                if filters.kinds and row["kind"] not in filters.kinds:
                    continue
                hl = self._fetched_highlight(row, qvec, plan, filters, idf)
                extra.append(self.hit(row, hl, h.score, {}, None, self.documents.kind(row["doc_id"]), enriched=True))
                have.add(cid)
        return extra

    def search_image(self, image, k: int, filters: Filters) -> list[Hit]:
        """Hits for a query image (image_query.py). Raises QueryError."""
        from .image_query import search_image

        return search_image(self, image, k, filters)
