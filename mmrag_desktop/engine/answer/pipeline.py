"""Answering questions from the library: retrieval -> confidence -> generation or extraction,
with every citation checked against the evidence.

    for ev in answer_events(library, "What supply voltage does the programmer need?"):
        if ev.kind == "token": print(ev.text, end="")
        elif ev.kind == "citation": ...   # ev.citation: doc, page, bbox
        elif ev.kind == "notice": ...     # e.g. fell back to extractive mode, and why
        elif ev.kind == "done": answer = ev.answer
        elif ev.kind == "error": ...      # ev.message, ev.error

Bad input (empty question, a question longer than the model context can hold, a library
without documents, an unknown mode) raises before any event (QueryError / LibraryError).
Failures while running end the stream with an `error` event; a cancel ends it with a `done`
event whose answer has `stopped == "cancelled"`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import Cancelled, EngineError, LibraryError, ModelError, QueryError
from ..jobs import CancelToken
from ..sentence_split import split_sentences
from ..settings import Settings
from .citations import StreamingCitationFilter, check_citations, find_marks, marked_sentence_spans
from .confidence import assess
from .encode_once import EncodeOnce
from .events import (
    Answer,
    AnswerEvent,
    Citation,
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    NoticeEvent,
    SentenceEvent,
    StatusEvent,
    TokenEvent,
)
from .evidence import MAX_BLOCKS, RELEASE_LINE, USAGE_LINE, EvidenceBlock, pack_evidence, section_release
from .extractive import (
    ENTRY_LINE,
    EXTRACTIVE_RANK_WEIGHT,
    EXTRACTIVE_SENTENCES,
    VALUE_BONUS,
    carried,
    opens_inside_entry,
    question_parts,
    quote_text,
    rank_candidates,
    reads_as_prose,
    second_part_need,
    select_sentences,
    with_quote,
)
from .guards import OutputGuard
from .prompt import INSUFFICIENT_REPLY, build_messages, is_insufficient_reply
from .quote_boxes import merge_boxes, quote_boxes
from .rewrite import rewrite_followup
from .runner import POOL, ROLE, close_models
from .support import SentenceCheck, SupportChecker, recite

MODES = ("auto", "generative", "quote", "pick", "extractive")
# "auto" by the answer model's size, as measured on the held-out set (bench/README.md, "Answers"):
# (models below this many parameters, style). Larger models write free text.
# Below 2 B parameters the cited sentences alone beat every model's own answer on the held-out sets
# (bench/README.md, session 12: Qwen2.5-Coder 0.5B and 1.5B, quote first and free text; SmolLM2-135M);
# from 1 B the model's pick among them states the gold fact more often (session 33: Qwen2.5-Coder-1.5B
# on all four sets; the 0.5 B model's and SmolLM2's picks changed nothing)
AUTO_STYLES = ((1_000_000_000, "extractive"), (2_000_000_000, "pick"))
DEFAULT_K = 8
# the first hits that show one passage of their page in place of its better-scored chunk bring that chunk
# as evidence too (Searcher.search's companions): "gpdasm is a disassembler for gputils." for "What does
# gpdasm do?", whose hit shows the page's "The general syntax for running gpdasm is ..."
COMPANIONS = 2
# a question of two parts: a part no hit carries is searched alone in the manuals of the first hits this many,
# and the first of its hits this deep that carries the part's terms is evidence too (_part_hits)
SECOND_PART_DOCS = 3
SECOND_PART_HITS = 3
SECOND_PART_AT = 3  # its place among the hits: after those confidence scores (confidence.TOP_N)
# how far back a change log printed as text is read for the release line above a hit (Valgrind's NEWS lists 3.10.0's
# fixed bugs over 47 chunks)
RELEASE_LOOKBACK = 100
ENTRY_LOOKBACK = 3  # and an entry's fields a chunk opens with, for their entry's numbered line
PROSE_LOOKBACK = 3  # and the chunks of its section before a hit's, for a sentence of prose (`Hit.prose_above`)
USAGE_LOOKBACK = 3  # and for the usage line of the program whose help text the chunk goes on (`Hit.usage_above`)
MAX_QUESTION_CHARS = 4000  # ~1,000 tokens: beyond that no small context holds evidence too
NOT_COVERED = "The indexed manuals do not cover this."

__all__ = [
    "Answer",
    "AnswerEvent",
    "Citation",
    "answer_events",
    "ask",
    "close_models",
    "resolve_answer_model",
]


def validate_question(question: str, settings: Settings | None = None) -> str:
    """The question with whitespace normalised. Raises QueryError when it is empty or too long
    for the answer model's context."""
    q = " ".join((question or "").split())
    if not q:
        raise QueryError("the question is empty: type what you want to know")
    n_ctx = (settings.n_ctx if settings else 4096) or 4096
    limit = min(MAX_QUESTION_CHARS, n_ctx * 2)
    if len(q) > limit:
        raise QueryError(
            f"the question is too long ({len(q)} characters; at most {limit} fit the answer model's "
            f"context of {n_ctx} tokens together with the evidence): shorten it"
        )
    return q


def resolve_answer_model(settings: Settings | None = None):
    """The answer model's `ResolvedModel` from the model registry (path, model_id, source,
    message; a non-empty message says e.g. that the user's choice was unusable and which model
    is used instead). Raises ModelError with the registry's plain message when no usable GGUF is
    available."""
    from ..models.registry import require

    r = require(ROLE, settings)
    if r.path is None:
        raise ModelError(ROLE, r.message or "no answer model available")
    return r


def _load_runner(settings: Settings):
    r = resolve_answer_model(settings)
    # Files the user brought are loaded in a subprocess first: llama.cpp aborts on some bad files.
    verify = r.source not in ("package", "bundled")
    runner = POOL.get(Path(r.path), n_ctx=settings.n_ctx, n_threads=answer_threads(settings),
                      model_id=r.model_id, verify=verify)
    return runner, r.message


def answer_threads(settings: Settings) -> int:
    """Threads for the answer model: `settings.extra["answer_threads"]` when set, else
    `settings.threads` (benchmarked in bench/bench_answer.py)."""
    return max(1, int(settings.extra.get("answer_threads") or settings.threads or 1))


def _nearest(hits: Sequence, n: int = 3) -> list[Citation]:
    out: list[Citation] = []
    seen: set[tuple[str, int]] = set()
    for h in hits:
        if (h.doc, h.page) in seen:
            continue
        seen.add((h.doc, h.page))
        out.append(EvidenceBlock(id=len(out) + 1, hit=h, text=h.text).citation())
        if len(out) >= n:
            break
    return out


def _not_covered_text(nearest: Sequence[Citation]) -> str:
    if not nearest:
        return NOT_COVERED + " Nothing in the library matches the question."
    pages = "; ".join(f"{c.doc}, page {c.page}" for c in nearest)
    return f"{NOT_COVERED} The nearest pages are: {pages}."


def answer_events(
    library: Any,
    question: str,
    *,
    history: Sequence[Any] | None = None,
    mode: str = "auto",
    cancel: CancelToken | None = None,
    settings: Settings | None = None,
    k: int | None = None,
) -> Iterator[AnswerEvent]:
    """Answer `question` from `library`, as a generator of events (see module docstring).

    history: earlier turns, oldest first (`Answer` objects, dicts with "question", or
    (question, answer) pairs): a follow-up is rewritten with the previous turn before retrieval.
    mode: "auto" (the settings' answer mode; generative when an answer model loads, else
    extractive with a notice saying why), "generative" (same fallback) or "extractive".
    Raises QueryError (empty / too long question, unknown mode) and LibraryError (no documents)
    before the first event.
    """
    settings = settings or getattr(library, "settings", None) or Settings()
    q = validate_question(question, settings)
    if mode not in MODES:
        raise QueryError(f"unknown answer mode {mode!r}: use one of {', '.join(MODES)}")
    if mode == "auto" and settings.answer_mode in MODES:
        mode = settings.answer_mode
    docs = library.documents()
    if not docs:
        raise LibraryError("the library has no documents yet: add manuals first (mmrag add PATH, or drop files in the window)")
    return _run(library, q, history, mode, cancel or CancelToken(), settings, k or DEFAULT_K,
                {d.name: d.title for d in docs})


def ask(library: Any, question: str, **kwargs: Any) -> Answer:
    """Run `answer_events` to the end and return the final Answer; an error event is raised
    as its engine exception."""
    for ev in answer_events(library, question, **kwargs):
        if isinstance(ev, DoneEvent) and ev.answer is not None:
            return ev.answer
        if isinstance(ev, ErrorEvent):
            raise ev.error if isinstance(ev.error, EngineError) else EngineError(ev.message)
    raise EngineError("answering ended without an answer")


def _run(library, q, history, mode, cancel: CancelToken, settings: Settings, k: int,
         titles: dict[str, str]) -> Iterator[AnswerEvent]:
    """The answer's events; `titles` ({file name: title}) of the library's documents."""
    t0 = time.perf_counter()
    search_q = rewrite_followup(q, history)
    answer = Answer(question=q, text="", mode=mode, search_query=search_q)
    stats = answer.stats
    try:
        cancel.check()
        hits = library.search(search_q, k=k, companions=COMPANIONS)
        reserve = [h for h in hits if h.reserve]  # quoted only when a sentence of theirs matches best
        hits = [h for h in hits if not h.reserve]
        at = min(len(hits), SECOND_PART_AT)
        hits[at:at] = _part_hits(library, search_q, hits)
        _lines_above(library, [*hits, *reserve])
        stats["retrieval_s"] = round(time.perf_counter() - t0, 4)
        for notice in getattr(library, "model_notices", []):  # a configured model is not in use
            answer.notices.append(notice)
            yield NoticeEvent(message=notice)
        cancel.check()
        try:
            embedder = EncodeOnce(library.embedder)  # the evidence sentences are embedded by several steps
        except ModelError:
            embedder = None
        threshold = settings.extra.get("answer_confidence_threshold")
        term_df = getattr(library, "term_df", None)
        report = assess(search_q, hits, embedder, threshold, term_df=term_df,
                        unknown_margin=settings.extra.get("answer_unknown_margin"), titles=titles, mates=reserve,
                        doc_term_df=term_df)
        answer.confidence = report.score
        stats["confidence_features"] = {k_: round(v, 4) for k_, v in report.features.items()}
        stats["confidence_threshold"] = report.threshold
        answer.nearest = _nearest(hits)
        if report.insufficient:
            yield from _finish_not_covered(answer, t0, _not_covered_reason(report))
            return

        runner = None
        if mode != "extractive":
            yield StatusEvent(message="Loading the answer model…")
            try:
                runner, note = _load_runner(settings)
                if note:
                    answer.notices.append(note)
                    yield NoticeEvent(message=note)
            except ModelError as e:
                msg = f"No answer model could be used ({e.reason}); showing the best matching sentences instead."
                answer.notices.append(msg)
                yield NoticeEvent(message=msg)
            stats["model_ready_s"] = round(time.perf_counter() - t0, 4)
        lines_of = _lines_reader(library)
        style = mode if runner is None or mode != "auto" else choose_style(runner, settings)
        if runner is not None and style == "extractive":
            msg = (f"{runner.model_id} is too small to write reliable answers; showing the best matching "
                   "sentences from the manuals (Settings ▸ answer style uses it anyway).")
            answer.notices.append(msg)
            yield NoticeEvent(message=msg)
        if runner is None or style == "extractive":
            yield from _extractive(answer, search_q, hits, embedder, settings, t0, lines_of, reserve=reserve)
        elif style == "pick":
            yield from _extractive(answer, search_q, hits, embedder, settings, t0, lines_of, runner=runner,
                                   cancel=cancel, reserve=reserve)
        elif style == "quote":
            yield from _quote_first(answer, runner, search_q, hits, settings, cancel, t0, embedder, lines_of)
        else:
            yield from _generative(answer, runner, search_q, hits, settings, cancel, t0, embedder, lines_of)
    except Cancelled:
        answer.stopped = "cancelled"
        stats["total_s"] = round(time.perf_counter() - t0, 4)
        yield DoneEvent(answer=answer)
    except EngineError as e:
        yield ErrorEvent(message=str(e), error=e)


def _not_covered_reason(report) -> str:
    """What the decision rests on when a word or name of the question is nowhere ("" otherwise)."""
    parts = []
    if report.absent:
        parts.append("no page found mentions " + ", ".join(f"“{t}”" for t in report.absent))
    if report.unknown:
        parts.append("the indexed manuals never use " + ", ".join(f"“{t}”" for t in report.unknown))
    if report.unused:
        docs = report.unused_in
        parts.append("nothing in " + " or ".join(filter(None, (", ".join(docs[:-1]), docs[-1]))) + " uses "
                     + ", ".join(f"“{t}”" for t in report.unused))
    text = "; ".join(parts)
    return f"{text[:1].upper()}{text[1:]}." if parts else ""


def _finish_not_covered(answer: Answer, t0: float, reason: str = "") -> Iterator[AnswerEvent]:
    answer.insufficient_evidence = True
    answer.mode = "insufficient"
    answer.citations = []
    answer.text = _not_covered_text(answer.nearest)
    if reason:
        answer.notices.append(reason)
        yield NoticeEvent(message=reason)
    yield TokenEvent(text=answer.text)
    answer.stats["total_s"] = round(time.perf_counter() - t0, 4)
    yield DoneEvent(answer=answer)


def _lines_above(library, hits: Sequence) -> None:
    """Set what a hit's chunk needs from the chunks before it in the same section: the release of a change log printed
    as text (its section's headings name a change log and no release: `section_release`), the last release line
    (`RELEASE_LINE`) at most RELEASE_LOOKBACK chunks back (`Hit.release_above`); the entry whose fields a chunk
    opens with (`opens_inside_entry`), its numbered line (`ENTRY_LINE`) at most ENTRY_LOOKBACK chunks back
    (`Hit.entry_above`); whether prose of its section comes before it (`_prose_above`, `Hit.prose_above`); the last
    usage line of a program's help text (`USAGE_LINE`) at most USAGE_LOOKBACK chunks back (`Hit.usage_above`). A
    library-like object that cannot read them leaves the hits as they are."""
    read = getattr(library, "texts_before", None)
    if read is None:
        return
    for h in hits:
        release = section_release(h.section) == ""
        entry = opens_inside_entry(h.text)
        try:  # (the chunks above read once, as far back as the furthest of the looks)
            above = read(h.chunk_id, max(RELEASE_LOOKBACK if release else 0, ENTRY_LOOKBACK if entry else 0,
                                         PROSE_LOOKBACK, USAGE_LOOKBACK))
        except LibraryError:  # the document was removed meanwhile
            continue
        if release:
            h.release_above = _last_line_above(above[:RELEASE_LOOKBACK], h, RELEASE_LINE)
        if entry:
            h.entry_above = _last_line_above(above[:ENTRY_LOOKBACK], h, ENTRY_LINE)
        h.prose_above = _prose_above(above[:PROSE_LOOKBACK], h)
        h.usage_above = _last_line_above(above[:USAGE_LOOKBACK], h, USAGE_LINE)


def _prose_above(before: Sequence[tuple[str, str]], hit) -> bool:
    """True when one of the chunks `before` `hit`'s ((section, text), the nearest first; PROSE_LOOKBACK of them) in
    its section holds a sentence of prose outside the last lines it shares with the chunk after it (chunks overlap),
    or when the section goes on further back than those: the hit's first sentence of prose is not its section's
    first."""
    after = hit.text
    for section, text in before:
        if section != hit.section:
            return False
        lines, later = text.splitlines(), after.splitlines()
        shared = next((k for k in range(min(len(lines), len(later)), 0, -1) if lines[-k:] == later[:k]), 0)
        if any(reads_as_prose(s) for s in split_sentences("\n".join(lines[:len(lines) - shared]))):
            return True
        after = text
    return len(before) == PROSE_LOOKBACK


def _last_line_above(before: Sequence[tuple[str, str]], hit, pattern) -> str:
    """The last line matching `pattern` (re.M) in the chunks `before` `hit`'s ((section, text), the nearest first) of
    its section, white space joined; "" when there is none."""
    for section, text in before:
        if section != hit.section:
            break
        if found := [m.group(0) for m in pattern.finditer(text)]:
            return " ".join(found[-1].split())
    return ""


def _lines_reader(library) -> Callable[[int], list[dict]]:
    """chunk id -> the chunk's stored lines ([] when it is gone), each chunk read once."""
    cache: dict[int, list[dict]] = {}
    read = getattr(library, "chunk", None)  # any library-like object without stored lines: no refinement

    def lines_of(chunk_id: int) -> list[dict]:
        if chunk_id not in cache:
            try:
                cache[chunk_id] = (read(chunk_id).get("lines") or []) if read else []
            except LibraryError:  # the document was removed meanwhile: keep the hit's own box
                cache[chunk_id] = []
        return cache[chunk_id]

    return lines_of


def _without_marks(sentence: str) -> str:
    """`sentence` without its citation markers ("[5]"), all else as it is."""
    for m in reversed(find_marks(sentence)):
        sentence = sentence[:m.start] + sentence[m.end:]
    return sentence.strip()


def _sentence_boxes(block, sentences: list[str], lines_of) -> list | None:
    """The boxes of `sentences` inside `block`'s chunk (see quote_boxes.py), or None to keep the
    hit's own highlight (sentences not found keep the hit's box). A figure keeps its region, and its caption
    quoted is shown under it: code_saturne's "Table 7.1: Standard k − ε model constants [LS74]." (a table drawn
    as a figure) lit the values above it and not the caption the answer quoted."""
    if lines_of is None or not sentences:
        return None
    if block.hit.kind == "figure":
        quoted = merge_boxes([quote_boxes(lines_of(block.hit.chunk_id), s) for s in sentences])
        return merge_boxes([list(block.hit.boxes), quoted]) if quoted and block.hit.boxes else None
    # the hit's text opens with its lead lines and ends with its tail lines
    lines = [*block.hit.lead, *lines_of(block.hit.chunk_id), *block.hit.tail]
    return merge_boxes([quote_boxes(lines, block.without_heading(s)) for s in sentences]) or None


def _pack(runner, question: str, hits, settings: Settings, system_prompt: str, max_new: int):
    """Evidence blocks for a model answer: within the evidence budget and the room the context
    leaves for the question and the answer. Raises QueryError when the question itself is too long."""
    q_tokens = runner.count_tokens(question)
    room = runner.n_ctx - max_new - runner.count_tokens(system_prompt) - 96
    if q_tokens > room // 2:
        raise QueryError(
            f"the question is too long for the answer model ({q_tokens} tokens; its context of "
            f"{runner.n_ctx} tokens must also hold the evidence and the answer): shorten it"
        )
    budget = max(64, min(int(settings.evidence_tokens), room - q_tokens))
    return pack_evidence(hits, budget, runner.count_tokens)


def _checker(blocks, embedder, settings: Settings) -> SupportChecker:
    return SupportChecker(blocks, embedder, settings.extra.get("support_threshold"))


def _finish(answer: Answer, own: str, blocks, checker: SupportChecker, lines_of,
            quoted: Sequence = ()) -> Iterator[AnswerEvent]:
    """Check every sentence of the final answer — the `quoted` candidates (each one sentence of
    the answer, whatever the splitter would make of it), then the model's text `own` — re-cite or
    attribute where another block backs a sentence, and set the answer's text, sentences and
    citations. Each citation highlights the evidence sentences that back the answer sentences
    citing it (re-sent to replace the chip the stream showed); a citation backing nothing keeps
    the hit's own highlight."""
    text, checks = "", []
    for c in quoted:
        piece = quote_text(c.text, c.block_id)
        start = len(text) + (1 if text else 0)
        text = f"{text} {piece}" if text else piece
        checks.append(checker.check(piece, start, len(text), quote=True))
    own = own.strip()
    if own:
        base = len(text) + (1 if text else 0)
        text = f"{text} {own}" if text else own
        for c in checker.check_text(own):
            c.start, c.end = c.start + base, c.end + base
            checks.append(c)
    text = recite(text, checks)
    by_id = {b.id: b for b in blocks}
    final = check_citations(text, by_id)  # the valid ids cited, in order (the text is already clean)
    answer.text = text  # the checks' offsets point into this text
    answer.sentences = checks
    answer.unsupported_sentences = [c.text for c in checks if c.claim and not c.supported]
    moved = [c for c in checks if c.claim and c.supported and c.citations != c.cited_by_model]
    if moved:
        answer.stats["attributed"] = [{"sentence": c.text, "id": c.citations[0], "model_cited": c.cited_by_model}
                                      for c in moved]
        msg = (f"{len(moved)} sentence(s) carried no citation or one that does not back them; "
               "each now cites the evidence that says the same.")
        answer.notices.append(msg)
        yield NoticeEvent(message=msg)
    backing: dict[int, list[str]] = {}
    for c in checks:
        if c.supported and c.support is not None:
            # a verbatim quote is found back by all its words, its bracketed ones too, which the check reads without:
            # "--xtree-memory-file=<filename> [default: xtmemory.kcg.%p] Specifies ..." lit the description's line
            # and not the option's line above it
            said = _without_marks(c.text) if c.quote and c.support.score >= 1.0 else c.support.text
            backing.setdefault(c.support.id, []).append(said)
    answer.citations = []
    for i in final.cited:
        boxes = _sentence_boxes(by_id[i], backing.get(i, []), lines_of)
        answer.citations.append(by_id[i].citation(boxes))
        yield CitationEvent(citation=answer.citations[-1])


def _stream_quotes(chosen, by_id, checker, lines_of, base: int = 0) -> Iterator[AnswerEvent]:
    """Token, citation and sentence events for quoted evidence sentences; `base` is the length of
    the text streamed before them (the sentence events' offsets count from the stream's start)."""
    offset = base
    for n, c in enumerate(chosen):
        piece = ("" if n == 0 else " ") + quote_text(c.text, c.block_id)
        yield TokenEvent(text=piece)
        b = by_id[c.block_id]
        yield CitationEvent(citation=b.citation(_sentence_boxes(b, [c.text], lines_of)))
        start = offset + len(piece) - len(piece.lstrip())
        yield SentenceEvent(sentence=checker.check(piece.strip(), start, offset + len(piece), quote=True).to_json())
        offset += len(piece)


def _extractive(answer: Answer, question: str, hits, embedder, settings: Settings, t0: float,
                lines_of=None, base: int = 0, runner=None, cancel: CancelToken | None = None,
                reserve: Sequence = ()) -> Iterator[AnswerEvent]:
    """The cited sentences; with `runner`, the answer model picks the one that answers among the
    best (answer/pick.py) and it is quoted with them. A `reserve` hit's sentence (another passage of a
    first hit's page, _from_reserve) is quoted after the first one when it ranks first."""
    answer.mode = "extractive"
    count = getattr(embedder, "count_tokens", None) if embedder is not None else None
    x = settings.extra
    budget = int(x.get("extractive_evidence_tokens", settings.evidence_tokens))
    blocks = pack_evidence(hits, budget, count) if count else pack_evidence(hits, budget)
    # settings.extra's keys are for experiments (bench_answer.py --extra KEY=VALUE)
    weights = {"rank_weight": float(x.get("extractive_rank_weight", EXTRACTIVE_RANK_WEIGHT)),
               "value_bonus": float(x.get("extractive_value_bonus", VALUE_BONUS))}
    ranked = rank_candidates(question, blocks, embedder, **weights)
    extra = _from_reserve(question, blocks, reserve, embedder, weights) if int(x.get("extractive_reserve", 1)) else None
    if extra is not None:
        blocks = [*blocks, extra[0]]
    answer.evidence = [b.citation() for b in blocks]
    picked = None
    if runner is not None and ranked:
        picked = yield from _pick(answer, runner, question, ranked, blocks, cancel)
    chosen = select_sentences(question, blocks, embedder, ranked=ranked,
                              max_sentences=int(x.get("extractive_sentences", EXTRACTIVE_SENTENCES)),
                              include=picked)
    if extra is not None and chosen:
        chosen = with_quote(chosen, extra[1])  # after the first, taking no sentence's place
    if not chosen:
        yield from _finish_not_covered(answer, t0, "The evidence holds no sentence that answers the question.")
        return
    answer.stats["sentence_scores"] = [round(c.score, 4) for c in ranked[:8]]  # how clearly the best stands out
    checker = _checker(blocks, embedder, settings)
    answer.stats["ttft_s"] = round(time.perf_counter() - t0, 4)
    yield from _stream_quotes(chosen, {b.id: b for b in blocks}, checker, lines_of, base)
    yield from _finish(answer, "", blocks, checker, lines_of, chosen)
    answer.stats["total_s"] = round(time.perf_counter() - t0, 4)
    yield DoneEvent(answer=answer)


def _part_hits(library, question: str, hits: list) -> list:
    """For a question of two parts, for each part whose terms no sentence of a hit carries (second_part_need)
    the passage a search for that part alone finds first in the manuals of the first hits, when one of its
    sentences carries them: evidence after the first hits (SECOND_PART_AT). PSPP: "If I use /METHOD=EXACT
    TIMER in NPAR TESTS without giving a number, how long does a test run before it is abandoned, and what
    test proportion does /BINOMIAL assume when p is omitted?" found five passages on exact tests, none on
    /BINOMIAL; MPICH's installer's guide: "What optimization level are the MPICH libraries compiled with by
    default, and how do I build them with -O3 without -O3 ending up in mpicc?" found the -O3 passages, not
    "MPICH libraries are built with default compiler optimization, -O2, ..."."""
    out: list = []
    for part, terms in question_parts(question):
        found = _one_part_hit(library, part, terms, hits, out) if len(terms) >= 2 and hits else None
        if found is not None:
            out.append(found)
    return out


def _one_part_hit(library, part: str, terms: frozenset[str], hits: list, found_before: Sequence = ()):
    """The first text hit of a search for `part` alone that carries its `terms`, in the manuals of the first
    `hits`; None when a sentence of the hits the evidence holds (or of the part hits `found_before`) carries them
    already or no such hit is found."""
    # a hit has the part when one of its sentences carries two of its terms (all of a part of two) or what a
    # sentence must carry to answer it (second_part_need), whichever is more: Bacula's "... and which date and time
    # variables can I use?" was held answered by "To create an ISO date: DLT-${Year}-..." (one of "date", "time"),
    # and the list of the variables ("... special variables such as the date and time. The following variables
    # are available: Year - the full year ...") was never searched for
    need = max(second_part_need(terms), 2)

    def carries(h) -> bool:  # in one sentence
        return any(carried(terms, t) >= need for t in split_sentences(h.text, newlines=True))

    # the hits have it: what is quoted is chosen from them (not the words of a screenshot nor a contents line:
    # FreeDV's "Bits:4228 Err:33" and "11.1 Stats Window . . ." are no answer to "what do the Bits and Errs
    # fields in the Stats window show?"; nor a hit after those the evidence holds, MAX_BLOCKS: FAUST's "... a UI
    # architecture module is semantically oriented to handle active widgets, passive widgets and widgets layout.",
    # a companion placed ninth, held "... and which widgets count as passive (display-only)?" answered)
    if any(carries(h) for h in [*hits[:MAX_BLOCKS], *found_before] if h.kind != "figure" and not h.navigation):
        return None
    have = {h.chunk_id for h in [*hits, *found_before]}
    docs = list(dict.fromkeys(h.doc_id for h in hits[:SECOND_PART_DOCS]))
    try:
        found = library.search(part, k=SECOND_PART_HITS, docs=docs)
    except QueryError:
        return None
    return next((h for h in found if h.chunk_id not in have and h.kind == "text" and not h.navigation
                 and carries(h)), None)


def _from_reserve(question: str, blocks: list, reserve: Sequence, embedder, weights: dict) -> tuple | None:
    """(block, its sentence) of the reserve hit (Searcher._reserve) whose sentence ranks first when the
    hit is put after its page's block among `blocks`: the block goes after the others, the sentence is
    quoted with the chosen ones; None when no reserve sentence ranks first. One passage of a page is a hit
    (one hit per page) and another of it says what was asked (Gpredict's "As you can see on figure 4.2,
    satellite AO-51 is drawn in white instead of yellow. This means that AO-51 is selected."). As a
    companion every such passage cost answers as many facts as it brought (bench/README.md, session 35),
    its sentences taking the place of better ones; as the first of the evidence's sentences it cost
    first sentences (session 37). Added, it takes no sentence's place."""
    shown = {b.hit.chunk_id for b in blocks}
    for hit in reserve:
        at = next((i + 1 for i, b in enumerate(blocks) if (b.hit.doc_id, b.hit.page) == (hit.doc_id, hit.page)), None)
        packed = pack_evidence([hit], 10**6) if hit.chunk_id not in shown and at is not None else []
        if not packed:
            continue
        trial = [replace(b, id=i + 1) for i, b in enumerate([*blocks[:at], packed[0], *blocks[at:]])]
        ranked = rank_candidates(question, trial, embedder, **weights)
        if ranked and ranked[0].block_id == at + 1:
            block = replace(packed[0], id=len(blocks) + 1)
            return block, replace(ranked[0], block_id=block.id)
    return None


def _pick(answer: Answer, runner, question: str, ranked, blocks, cancel) -> Generator[AnswerEvent, None, Any]:
    """The candidate of `ranked` the answer model picks (None when there is nothing to choose
    from or the model fails: a notice says so, and the cited sentences stand on their own)."""
    from . import pick
    from .runner import GenerationStats

    gen = GenerationStats()
    yield StatusEvent(message=f"{runner.model_id} is choosing the answering sentence among the best matches…")
    try:
        chosen = pick.choose(runner, question, ranked, blocks, cancel=cancel, stats=gen)
    except ModelError as e:
        msg = f"{runner.model_id} could not choose among the best matching sentences ({e.reason}); showing them as ranked."
        answer.notices.append(msg)
        yield NoticeEvent(message=msg)
        return None
    if chosen is None:
        return None
    answer.model = runner.model_id
    answer.stats["pick"] = {**chosen.to_json(), "generation": gen.to_json()}
    msg = (f"{runner.model_id} chose the answering sentence among the {len(chosen.probs)} best matches; "
           "every sentence is quoted from the manuals.")
    answer.notices.append(msg)
    yield NoticeEvent(message=msg)
    return chosen.candidate


def choose_style(runner, settings: Settings) -> str:
    """The answer style for "auto" with a loaded model: `settings.extra["auto_style"]` when set,
    else by model size (AUTO_STYLES, measured in bench/bench_answer.py): below 2 B parameters the
    model's answers (quote first or free text) were worse than the cited sentences alone, so below
    1 B they are the answer (extractive) and from 1 B the model picks among them (pick); above 2 B
    free text. A model whose size llama.cpp cannot tell writes free text."""
    forced = settings.extra.get("auto_style")
    if forced in ("quote", "generative", "pick", "extractive"):
        return forced
    n = runner.n_params
    return next((style for limit, style in AUTO_STYLES if n and n < limit), "generative")


def _fallback_to_quotes(answer: Answer, question: str, hits, embedder, settings: Settings, t0: float,
                        lines_of, reason: str, streamed: int) -> Iterator[AnswerEvent]:
    """Replace the model's answer by the cited sentences; its text stays one click away.
    `streamed`: the length of the text the stream showed so far."""
    answer.stats["model_answer"] = answer.text
    answer.stats["model_sentences"] = [c.to_json() for c in answer.sentences]
    answer.stats["fallback_from"] = answer.mode
    answer.notices.append(reason)
    yield NoticeEvent(message=reason)
    sep, lead = "\n\n", "Best matching sentences from the manuals:"
    yield TokenEvent(text=sep + lead + "\n")
    start = streamed + len(sep)
    yield SentenceEvent(sentence=SentenceCheck(lead, start, start + len(lead), claim=False).to_json())
    yield from _extractive(answer, question, hits, embedder, settings, t0, lines_of, start + len(lead) + 1)


def _start_model_answer(answer: Answer, runner, style: str) -> Iterator[AnswerEvent]:
    """Record the style and model; a model without a chat template gets a notice."""
    answer.mode = style
    answer.model = runner.model_id
    yield StatusEvent(message=f"{runner.model_id} is reading the evidence…")
    if not runner.has_chat_template:
        msg = f"{runner.model_id} has no chat template; using a generic prompt (answers may be worse)."
        answer.notices.append(msg)
        yield NoticeEvent(message=msg)


def _generative(
    answer: Answer, runner, question: str, hits, settings: Settings, cancel, t0: float, embedder=None,
    lines_of=None,
) -> Iterator[AnswerEvent]:
    from .runner import GenerationStats

    yield from _start_model_answer(answer, runner, "generative")
    max_new = int(settings.max_answer_tokens)
    blocks = _pack(runner, question, hits, settings, build_messages("", [])[0]["content"], max_new)
    if not blocks:
        yield from _finish_not_covered(answer, t0)
        return
    toks, stop = runner.render(build_messages(question, blocks))
    while len(toks) + 32 > runner.n_ctx - max_new and len(blocks) > 1:
        blocks = blocks[:-1]
        toks, stop = runner.render(build_messages(question, blocks))
    answer.evidence = [b.citation() for b in blocks]
    by_id = {b.id: b for b in blocks}
    filt = StreamingCitationFilter(by_id)
    checker = _checker(blocks, embedder, settings)
    guard = OutputGuard([b.text for b in blocks])
    gen = GenerationStats()
    answer.stats["prepare_s"] = round(time.perf_counter() - t0, 4)
    held = ""  # text held back while it may still become the "INSUFFICIENT EVIDENCE" reply
    streamed = ""  # what the token events showed
    n_checked = 0
    stopped = ""
    fired = None

    def emit(piece: str, new_ids: list[int]) -> Iterator[AnswerEvent]:
        nonlocal held, streamed
        held += piece
        if INSUFFICIENT_REPLY.lower().startswith(" ".join(held.split()).lower()):
            return  # also holds leading whitespace
        if not streamed:
            answer.stats["ttft_s"] = round(time.perf_counter() - t0, 4)
        out = held if streamed else held.lstrip()
        streamed += out
        held = ""
        if out:
            yield TokenEvent(text=out)
        for i in new_ids:
            yield CitationEvent(citation=by_id[i].citation())

    def check_complete(final: bool) -> Iterator[AnswerEvent]:
        nonlocal n_checked
        spans = marked_sentence_spans(streamed)
        done = spans if final else spans[:-1]
        for a, b in done[n_checked:]:
            yield SentenceEvent(sentence=checker.check(streamed[a:b], a, b).to_json())
        n_checked = max(n_checked, len(done))

    # settings.extra["free_grammar"]: a GBNF grammar for the free answer (experiments and tests)
    pieces = runner.stream(toks, max_tokens=max_new, stop=stop, cancel=cancel, stats=gen,
                           grammar=settings.extra.get("free_grammar"))
    try:
        for piece in pieces:
            text, new = filt.feed(piece)
            yield from emit(text, new)
            fired = guard.check(filt.raw_text)
            if fired is not None:
                break
            yield from check_complete(final=False)
    except Cancelled:
        stopped = "cancelled"
    except (RuntimeError, ValueError) as e:
        raise ModelError(ROLE, f"generation failed: {e}") from e
    finally:
        pieces.close()  # stops llama.cpp and releases the runner's lock (a guard breaks out early)
    raw = filt.raw_text
    if fired is not None:
        raw = raw[: fired.cut]
        stopped = "guard"
        answer.stats["guard"] = fired.guard
        answer.notices.append(fired.notice)
        yield NoticeEvent(message=fired.notice)
    check = check_citations(raw, by_id)
    answer.stats["generation"] = gen.to_json()
    answer.removed_citations = check.removed
    answer.stats["refs_total"] = check.refs_total
    answer.stats["refs_valid"] = check.refs_valid
    answer.stats["model_cited"] = list(check.cited)
    answer.stopped = stopped or ("length" if gen.finish_reason == "length" else "")
    answer.raw_text = filt.raw_text
    if stopped != "cancelled" and fired is None and (is_insufficient_reply(check.text) or not check.text.strip()):
        reason = "The answer model found no answer in the evidence." if check.text.strip() else "The answer model returned nothing."
        yield from _finish_not_covered(answer, t0, reason)
        return
    if fired is None:
        tail, tail_ids = filt.flush()
        yield from emit(tail, tail_ids)
        if held:
            streamed += held
            yield TokenEvent(text=held)
        yield from check_complete(final=True)
    yield from _finish(answer, check.text, blocks, checker, lines_of)
    answer.stats["total_s"] = round(time.perf_counter() - t0, 4)
    checked = answer.checked
    if stopped != "cancelled" and settings.extra.get("uncited_fallback", True) and (
        not checked["claims"] or checked["supported"] * 2 < checked["claims"]
    ):
        reason = (f"Only {checked['supported']} of the model's {checked['claims']} sentences are backed by the "
                  "manuals; showing the best matching sentences from the manuals instead (the model's "
                  "answer is one click away)." if checked["claims"] else
                  "The model's answer was unusable; showing the best matching sentences from the manuals instead.")
        yield from _fallback_to_quotes(answer, question, hits, embedder, settings, t0, lines_of, reason, len(streamed))
        return
    yield DoneEvent(answer=answer)


def _quote_first(
    answer: Answer, runner, question: str, hits, settings: Settings, cancel, t0: float, embedder=None,
    lines_of=None,
) -> Iterator[AnswerEvent]:
    from . import quote_first as qf
    from .runner import GenerationStats

    yield from _start_model_answer(answer, runner, "quote")
    max_new = min(int(settings.max_answer_tokens), qf.MAX_TOKENS)
    blocks = _pack(runner, question, hits, settings, qf.SYSTEM_PROMPT, max_new)
    ranked = rank_candidates(question, blocks, embedder) if blocks else []
    if not ranked:
        yield from _finish_not_covered(answer, t0, "The evidence holds no sentence that answers the question.")
        return
    cands = ranked[: qf.MAX_CANDIDATES]
    answer.evidence = [b.citation() for b in blocks]
    by_id = {b.id: b for b in blocks}
    where = qf.located(blocks)
    toks, stop = runner.render(qf.build_messages(question, cands, where))
    while len(toks) + 32 > runner.n_ctx - max_new and len(cands) > 1:
        cands = cands[:-1]
        toks, stop = runner.render(qf.build_messages(question, cands, where))
    checker = _checker(blocks, embedder, settings)
    gen = GenerationStats()
    answer.stats["prepare_s"] = round(time.perf_counter() - t0, 4)
    raw, quoted, own_shown, stopped = "", None, 0, ""

    shown_quotes: list = []  # quoted candidates streamed so far, each as soon as its id is complete

    streamed = 0  # characters of the quotes streamed so far

    def show_quotes(ids: list[int], final: bool) -> Iterator[AnswerEvent]:
        nonlocal quoted, streamed
        chosen = [cands[i - 1] for i in ids] or (cands[:1] if final else [])  # the grammar names one at least
        for c in chosen:
            if c in shown_quotes:
                continue
            if not shown_quotes:
                answer.stats["ttft_s"] = round(time.perf_counter() - t0, 4)
            else:
                yield TokenEvent(text=" ")
                streamed += 1
            yield from _stream_quotes([c], by_id, checker, lines_of, streamed)
            streamed += len(quote_text(c.text, c.block_id))
            shown_quotes.append(c)
        if final:
            quoted = list(shown_quotes)
            answer.stats["quoted"] = list(ids)

    pieces = runner.stream(toks, max_tokens=max_new, stop=stop, cancel=cancel, stats=gen,
                           grammar=qf.grammar(len(cands)))
    try:
        for piece in pieces:
            raw += piece
            reply = qf.parse_reply(raw, len(cands))
            if quoted is None:
                yield from show_quotes(reply.ids[: reply.complete], reply.quotes_done)
            if quoted is not None and len(reply.own) > own_shown:
                yield TokenEvent(text=(" " if not own_shown else "") + reply.own[own_shown:])
                own_shown = len(reply.own)
    except Cancelled:
        stopped = "cancelled"
    except (RuntimeError, ValueError) as e:
        raise ModelError(ROLE, f"generation failed: {e}") from e
    finally:
        pieces.close()
    reply = qf.parse_reply(raw, len(cands))
    if quoted is None:
        yield from show_quotes(reply.ids, True)
    answer.raw_text = raw
    answer.stats["generation"] = gen.to_json()
    answer.stopped = stopped or ("length" if gen.finish_reason == "length" else "")
    own = qf.own_sentences(reply.own, [c.text for c in quoted])
    yield from _finish(answer, own, blocks, checker, lines_of, quoted)
    answer.stats["total_s"] = round(time.perf_counter() - t0, 4)
    yield DoneEvent(answer=answer)
