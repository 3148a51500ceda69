"""Questions about an image ("what is this?"): the figures of the manuals that match a photo or
screenshot, and, with a vision-language model, an answer about the image that cites them.

The image is matched with `Library.search_image` (perceptual hash, CLIP when configured, OCR
text). With a VLM (role `vlm`) the matches are numbered evidence and the model's answer goes
through the same sentence check as text answers (support.py: a sentence about the image that no
evidence backs is marked). Without one the answer lists the matching figures, each cited (those
lines are pointers to the matches, shown as backed). Same events and `Answer` as `answer_events`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from ..errors import ModelError, QueryError
from ..jobs import CancelToken
from ..settings import Settings
from .citations import check_citations
from .events import Answer, AnswerEvent, CitationEvent, DoneEvent, NoticeEvent, StatusEvent, TokenEvent
from .evidence import default_token_counter, pack_evidence, render_evidence
from .support import SentenceCheck, Support, SupportChecker, recite

DEFAULT_QUESTION = "What is this?"
NO_MATCH = "No figure or page of the indexed manuals matches this image."
CITE_INSTRUCTION = ("Use the numbered evidence from the manuals; cite it like [1] after each statement "
                    "that relies on it. If the evidence does not show this image, say so.")


def image_answer_events(
    library: Any, image: Any, question: str = "", *, cancel: CancelToken | None = None,
    settings: Settings | None = None, k: int = 5, vlm: Any = None,
) -> Iterator[AnswerEvent]:
    """Answer `question` (default "What is this?") about `image` (path, bytes or PIL image).

    `vlm` overrides the configured vision-language model (tests, a model already loaded).
    Raises QueryError for an unreadable image before the first event.
    """
    from ..search.image_query import load_query_image

    settings = settings or getattr(library, "settings", None) or Settings()
    img = load_query_image(image)
    q = " ".join((question or "").split()) or DEFAULT_QUESTION
    return _run(library, img, q, cancel or CancelToken(), settings, k, vlm)


def _run(library, img, q: str, cancel: CancelToken, settings: Settings, k: int, vlm) -> Iterator[AnswerEvent]:
    t0 = time.perf_counter()
    answer = Answer(question=q, text="", mode="extractive", search_query="(image)")
    try:
        hits = [h for h in library.search_image(img, k=k) if not h.enriched]
    except QueryError as e:
        hits = []
        answer.notices.append(str(e))
        yield NoticeEvent(message=str(e))
    blocks = pack_evidence(hits, settings.evidence_tokens, default_token_counter, max_blocks=k)
    answer.evidence = [b.citation() for b in blocks]
    if not blocks:
        answer.text, answer.insufficient_evidence, answer.mode = NO_MATCH, True, "insufficient"
        yield TokenEvent(text=answer.text)
        answer.stats["seconds"] = round(time.perf_counter() - t0, 3)
        yield DoneEvent(answer=answer)
        return
    answer.confidence = max(0.0, min(1.0, float(hits[0].score)))
    own = vlm is None
    if vlm is None:
        yield StatusEvent(message="Loading the vision-language model…")
        try:
            from ..models.vlm import load_vlm

            vlm = load_vlm(settings)
        except ModelError as e:
            note = (f"no vision-language model ({e.reason}); showing the manual figures that match the image. "
                    "Add one in Tools ▸ Models to get a description.")
            answer.notices.append(note)
            yield NoticeEvent(message=note)
    cancel.check()
    try:
        if vlm is not None:
            yield StatusEvent(message=f"{getattr(vlm, 'model_id', '') or 'The vision-language model'} is looking at the image…")
            raw = vlm.ask(img, f"{q}\n{CITE_INSTRUCTION}", context=render_evidence(blocks),
                          max_tokens=settings.max_answer_tokens)
            answer.mode, answer.model, answer.raw_text = "generative", getattr(vlm, "model_id", ""), raw
            check = check_citations(raw, [b.id for b in blocks])
            answer.text, answer.removed_citations = check.text.strip(), list(check.removed)
            checks = SupportChecker(blocks, _embedder(library)).check_text(answer.text)
            answer.text = recite(answer.text, checks)
            answer.sentences = checks
            answer.unsupported_sentences = [c.text for c in checks if c.claim and not c.supported]
            cited = check_citations(answer.text, [b.id for b in blocks]).cited
            if not cited:  # the model cited nothing it was shown: the matches still stand, cited
                _append_matches(answer, blocks)
                cited = [b.id for b in blocks]
        else:
            _append_matches(answer, blocks)
            cited = [b.id for b in blocks]
    finally:
        if own and vlm is not None:
            vlm.close()
    by_id = {b.id: b.citation() for b in blocks}
    answer.citations = [by_id[i] for i in cited if i in by_id]
    yield TokenEvent(text=answer.text)
    for c in answer.citations:
        yield CitationEvent(citation=c)
    answer.stats["seconds"] = round(time.perf_counter() - t0, 3)
    yield DoneEvent(answer=answer)


def _embedder(library):
    try:
        return library.embedder
    except (ModelError, AttributeError):  # no text model: nothing the VLM wrote can be shown as backed
        return None


def _append_matches(answer: Answer, blocks) -> None:
    """Append one cited line per matching figure/page (its caption or first line) to the answer,
    each a checked pointer to that match."""
    lead = "The image matches these places in the manuals:"
    text = (answer.text + "\n\n" if answer.text else "") + lead
    answer.sentences.append(SentenceCheck(text=lead, start=len(text) - len(lead), end=len(text), claim=False))
    for b in blocks:
        first = next((ln.strip() for ln in b.hit.text.splitlines() if ln.strip()), b.hit.kind)
        line = f"- {b.hit.doc}, page {b.hit.page}: {first[:160]} [{b.id}]"
        text += "\n" + line
        answer.sentences.append(SentenceCheck(
            text=line, start=len(text) - len(line), end=len(text), citations=[b.id], cited_by_model=[b.id],
            supported=True, quote=True, support=Support(b.id, b.hit.chunk_id, first[:160], 1.0)))
    answer.text = text
