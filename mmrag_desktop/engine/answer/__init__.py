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
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import Cancelled, EngineError, LibraryError, ModelError, QueryError
from ..jobs import CancelToken
from ..settings import Settings
from .attribution import attribute_uncited
from .citations import StreamingCitationFilter, check_citations
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
    TokenEvent,
)
from .evidence import EvidenceBlock, pack_evidence
from .extractive import extractive_text, select_sentences
from .prompt import INSUFFICIENT_REPLY, build_messages, is_insufficient_reply
from .quote_boxes import merge_boxes, quote_boxes, supporting_sentences
from .rewrite import rewrite_followup
from .runner import POOL, ROLE, close_models

MODES = ("auto", "generative", "extractive")
DEFAULT_K = 8
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
    return _run(library, q, history, mode, cancel or CancelToken(), settings, k or DEFAULT_K)


def ask(library: Any, question: str, **kwargs: Any) -> Answer:
    """Run `answer_events` to the end and return the final Answer; an error event is raised
    as its engine exception."""
    for ev in answer_events(library, question, **kwargs):
        if isinstance(ev, DoneEvent) and ev.answer is not None:
            return ev.answer
        if isinstance(ev, ErrorEvent):
            raise ev.error if isinstance(ev.error, EngineError) else EngineError(ev.message)
    raise EngineError("answering ended without an answer")


def _run(library, q, history, mode, cancel: CancelToken, settings: Settings, k: int) -> Iterator[AnswerEvent]:
    t0 = time.perf_counter()
    search_q = rewrite_followup(q, history)
    answer = Answer(question=q, text="", mode=mode, search_query=search_q)
    stats = answer.stats
    try:
        cancel.check()
        hits = library.search(search_q, k=k)
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
        report = assess(search_q, hits, embedder, threshold)
        answer.confidence = report.score
        stats["confidence_features"] = {k_: round(v, 4) for k_, v in report.features.items()}
        stats["confidence_threshold"] = report.threshold
        answer.nearest = _nearest(hits)
        if report.insufficient:
            yield from _finish_not_covered(answer, t0)
            return

        runner = None
        if mode in ("auto", "generative"):
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
        if runner is None:
            yield from _extractive(answer, search_q, hits, embedder, settings, t0, lines_of)
        else:
            yield from _generative(answer, runner, search_q, hits, settings, cancel, t0, embedder, lines_of)
    except Cancelled:
        answer.stopped = "cancelled"
        stats["total_s"] = round(time.perf_counter() - t0, 4)
        yield DoneEvent(answer=answer)
    except EngineError as e:
        yield ErrorEvent(message=str(e), error=e)


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


def _sentence_boxes(block, sentences: list[str], lines_of) -> list | None:
    """The boxes of `sentences` inside `block`'s chunk (see quote_boxes.py), or None to keep the
    hit's own highlight (figures keep their region; sentences not found keep the hit's box)."""
    if lines_of is None or not sentences or block.hit.kind == "figure":
        return None
    lines = lines_of(block.hit.chunk_id)
    return merge_boxes([quote_boxes(lines, s) for s in sentences]) or None


def _extractive(answer: Answer, question: str, hits, embedder, settings: Settings, t0: float,
                lines_of=None) -> Iterator[AnswerEvent]:
    answer.mode = "extractive"
    count = None
    if embedder is not None:
        count = getattr(embedder, "count_tokens", None)
    blocks = pack_evidence(hits, settings.evidence_tokens, count) if count else pack_evidence(hits, settings.evidence_tokens)
    answer.evidence = [b.citation() for b in blocks]
    chosen = select_sentences(question, blocks, embedder)
    if not chosen:
        yield from _finish_not_covered(answer, t0, "The evidence holds no sentence that answers the question.")
        return
    text = extractive_text(chosen)
    check = check_citations(text, [b.id for b in blocks])
    by_id = {b.id: b for b in blocks}
    quoted: dict[int, list[str]] = {}
    for c in chosen:
        quoted.setdefault(c.block_id, []).append(c.text)
    cite = {i: by_id[i].citation(_sentence_boxes(by_id[i], ss, lines_of)) for i, ss in quoted.items()}
    announced: set[int] = set()
    answer.stats["ttft_s"] = round(time.perf_counter() - t0, 4)
    for c in chosen:
        s = c.text.rstrip()
        yield TokenEvent(text=("" if not announced else " ") + (s if s[-1:] in ".!?:" else s + ".") + f" [{c.block_id}]")
        if c.block_id not in announced:
            announced.add(c.block_id)
            yield CitationEvent(citation=cite[c.block_id])
    answer.text = check.text
    answer.citations = [cite.get(i) or by_id[i].citation() for i in check.cited]
    answer.unsupported_sentences = check.unsupported
    answer.stats["total_s"] = round(time.perf_counter() - t0, 4)
    yield DoneEvent(answer=answer)


def _generative(
    answer: Answer, runner, question: str, hits, settings: Settings, cancel, t0: float, embedder=None,
    lines_of=None,
) -> Iterator[AnswerEvent]:
    from .runner import GenerationStats

    answer.mode = "generative"
    answer.model = runner.model_id
    if not runner.has_chat_template:
        msg = f"{runner.model_id} has no chat template; using a generic prompt (answers may be worse)."
        answer.notices.append(msg)
        yield NoticeEvent(message=msg)
    max_new = int(settings.max_answer_tokens)
    q_tokens = runner.count_tokens(question)
    room = runner.n_ctx - max_new - runner.count_tokens(build_messages("", [])[0]["content"]) - 96
    if q_tokens > room // 2:
        raise QueryError(
            f"the question is too long for the answer model ({q_tokens} tokens; its context of "
            f"{runner.n_ctx} tokens must also hold the evidence and the answer): shorten it"
        )
    budget = max(64, min(int(settings.evidence_tokens), room - q_tokens))
    blocks = pack_evidence(hits, budget, runner.count_tokens)
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
    gen = GenerationStats()
    answer.stats["prepare_s"] = round(time.perf_counter() - t0, 4)
    held = ""  # text held back while it may still become the "INSUFFICIENT EVIDENCE" reply
    shown = False
    stopped = ""

    def emit(piece: str, new_ids: list[int]) -> Iterator[AnswerEvent]:
        nonlocal held, shown
        held += piece
        if INSUFFICIENT_REPLY.lower().startswith(" ".join(held.split()).lower()):
            return  # also holds leading whitespace
        if not shown:
            answer.stats["ttft_s"] = round(time.perf_counter() - t0, 4)
        yield TokenEvent(text=held if shown else held.lstrip())
        shown, held = True, ""
        for i in new_ids:
            yield CitationEvent(citation=by_id[i].citation())

    try:
        for piece in runner.stream(toks, max_tokens=max_new, stop=stop, cancel=cancel, stats=gen):
            text, new = filt.feed(piece)
            yield from emit(text, new)
    except Cancelled:
        stopped = "cancelled"
    except (RuntimeError, ValueError) as e:
        raise ModelError(ROLE, f"generation failed: {e}") from e
    tail, tail_ids = filt.flush()
    raw = filt.raw_text
    check = check_citations(raw, by_id)
    answer.stats["generation"] = gen.to_json()
    answer.stats["total_s"] = round(time.perf_counter() - t0, 4)
    answer.removed_citations = check.removed
    answer.stats["refs_total"] = check.refs_total
    answer.stats["refs_valid"] = check.refs_valid
    answer.stopped = stopped or ("length" if gen.finish_reason == "length" else "")
    answer.raw_text = raw
    if stopped != "cancelled" and (is_insufficient_reply(check.text) or not check.text.strip()):
        reason = "The answer model found no answer in the evidence." if check.text.strip() else "The answer model returned nothing."
        yield from _finish_not_covered(answer, t0, reason)
        return
    if held + tail:
        yield TokenEvent(text=held + tail if shown else (held + tail).lstrip())
    for i in tail_ids:
        yield CitationEvent(citation=by_id[i].citation())
    model_cited = list(check.cited)
    answer.stats["model_cited"] = model_cited
    if not stopped and check.unsupported and embedder is not None:
        text2, attributed = attribute_uncited(check.text, blocks, embedder)
        if attributed:
            check = check_citations(text2, by_id)
            answer.stats["attributed"] = [{"sentence": s_, "id": i} for s_, i in attributed]
            for i in check.cited:
                if i not in model_cited:
                    yield CitationEvent(citation=by_id[i].citation())
    answer.text = check.text.strip()
    answer.citations = [by_id[i].citation() for i in check.cited]
    if check.cited and not stopped:
        # each citation shows the evidence sentence its answer sentences rest on (re-sent: the
        # chips streamed earlier showed the hit's question-matching sentence)
        support = supporting_sentences(answer.text, blocks, embedder)
        for n, c in enumerate(answer.citations):
            boxes = _sentence_boxes(by_id[c.id], support.get(c.id, []), lines_of)
            if boxes:
                answer.citations[n] = by_id[c.id].citation(boxes)
                yield CitationEvent(citation=answer.citations[n])
    answer.unsupported_sentences = check.unsupported
    if answer.stats.get("attributed"):
        msg = (f"{len(answer.stats['attributed'])} sentence(s) had no citation from the model; "
               "citations were added where the evidence says the same.")
        answer.notices.append(msg)
        yield NoticeEvent(message=msg)
    if not check.cited and not stopped:
        if settings.extra.get("uncited_fallback", True):
            # Nothing in the model's answer is backed by the evidence: show cited sentences instead.
            msg = ("The model's answer cites no evidence and matches none of it; "
                   "showing the best matching sentences from the manuals instead.")
            answer.notices.append(msg)
            answer.stats["model_answer"] = answer.text
            answer.stats["fallback_from"] = "generative"
            yield NoticeEvent(message=msg)
            yield TokenEvent(text="\n\nBest matching sentences from the manuals:\n")
            yield from _extractive(answer, question, hits, embedder, settings, t0, lines_of)
            return
        msg = "The model cited no evidence; treat this answer with care (see the nearest pages)."
        answer.notices.append(msg)
        yield NoticeEvent(message=msg)
    yield DoneEvent(answer=answer)
