"""Qt-free plumbing between the GUI and the engine for search and answers.

The job functions here run on the engine thread (they receive the Library); they
return plain `ResultItem`s the GUI can show and the viewer can highlight.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..engine.errors import EngineError
from ..engine.jobs import CancelToken

BBox = tuple[float, float, float, float]
THUMB_KINDS = {"figure"}


@dataclass
class ResultItem:
    """A search hit or an answer citation, ready to list and to highlight.

    number: the citation id [n] (answers) or the 1-based rank (search).
    boxes: every (page, bbox) to highlight; bbox in PDF points, unrotated page space.
    context: (page, bbox) of the hit's whole passage (its chunk), shaded lightly around the boxes.
    thumbnail_png: a small rendering of a figure hit's region (PNG bytes) or None.
    """

    number: int
    doc: str
    page: int
    doc_path: str = ""
    bbox: BBox | None = None
    boxes: list[tuple[int, BBox]] = field(default_factory=list)
    kind: str = "text"
    score: float = 0.0
    text: str = ""
    section: str = ""
    chunk_id: int | None = None
    context: list[tuple[int, BBox]] = field(default_factory=list)
    thumbnail_png: bytes | None = None

    @classmethod
    def from_hit(cls, number: int, hit) -> ResultItem:
        """Build from an engine `Hit`."""
        boxes = [(int(p), tuple(b)) for p, b in (hit.boxes or [])]
        if not boxes and hit.bbox:
            boxes = [(hit.page, tuple(hit.bbox))]
        return cls(number=number, doc=hit.doc, page=hit.page, doc_path=hit.doc_path or "",
                   bbox=tuple(hit.bbox) if hit.bbox else None, boxes=boxes, kind=hit.kind,
                   score=float(hit.score), text=hit.text, section=hit.section or "", chunk_id=hit.chunk_id)

    def to_json(self) -> dict:
        """A JSON-safe dict (thumbnails dropped) for the saved conversation."""
        d = asdict(self)
        d.pop("thumbnail_png")
        return d

    @classmethod
    def from_json(cls, d: dict) -> ResultItem:
        d = dict(d)
        d["boxes"] = [(int(p), tuple(b)) for p, b in d.get("boxes") or []]
        d["context"] = [(int(p), tuple(b)) for p, b in d.get("context") or []]
        if d.get("bbox"):
            d["bbox"] = tuple(d["bbox"])
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class AnswerEvent:
    """What an answer job yields to the GUI: kind = token | citation | sentence | status | notice | done.

    sentence: for kind "sentence", the engine's verdict on one finished sentence of the streamed
    text (text, citations, supported, claim, quote, support, missing, reason, start, end).
    """

    kind: str
    text: str = ""
    item: ResultItem | None = None
    answer: dict | None = None
    sentence: dict | None = None


def figure_thumbnail(path: str, page: int, bbox: BBox | None, max_px: int = 96) -> bytes | None:
    """Return a PNG of the region `bbox` on `page` of `path` (None when it cannot be made)."""
    if not bbox or not path or not Path(path).exists():
        return None
    import pymupdf

    try:
        with pymupdf.open(path) as doc:
            if not 1 <= page <= doc.page_count:
                return None
            p = doc[page - 1]
            clip = pymupdf.Rect(bbox)
            if clip.is_empty:
                return None
            scale = max_px / max(clip.width, clip.height, 1.0)
            pix = p.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=clip, alpha=False)
            return pix.tobytes("png")
    except Exception:  # a thumbnail is decoration; the hit itself is still listed
        return None


def _add_thumbnails(items: list[ResultItem], cancel: CancelToken) -> None:
    for it in items:
        cancel.check()
        if it.kind in THUMB_KINDS and it.thumbnail_png is None:
            it.thumbnail_png = figure_thumbnail(it.doc_path, it.page, it.bbox)


CONTEXT_KINDS = ("text", "table", "caption", "code")


def _add_context(lib, items: list[ResultItem]) -> None:
    """Fill each text-like item's passage boxes from its chunk's spans (figures show their region)."""
    for it in items:
        if it.kind in CONTEXT_KINDS and it.chunk_id is not None and not it.context:
            try:
                spans = lib.chunk(it.chunk_id).get("spans") or []
            except EngineError:  # the chunk went away meanwhile: the highlight alone still shows
                continue
            it.context = _passage_boxes(spans, it.boxes)


def _passage_boxes(spans: list[dict], boxes: list[tuple[int, BBox]]) -> list[tuple[int, BBox]]:
    """The chunk's per-page boxes, left out when they are no bigger than the highlight itself."""
    out = [(int(s["page"]), tuple(s["bbox"])) for s in spans if s.get("bbox")]
    return [] if sorted(out) == sorted(boxes) else out


def search_job(query: str, k: int = 10, docs: list[int] | None = None, kinds: list[str] | None = None,
               image: str | None = None):
    """Return a job function: search (text, or by image when `image` is a path) → list[ResultItem].
    It yields an AnswerEvent("notice") when the search ran without a model the user configured
    (`Library.model_notices`: a reranker that fails to load, an image model that cannot serve)."""

    def run(lib, cancel: CancelToken):
        if image:
            hits = lib.search_image(image, k=k)
        else:
            hits = lib.search(query, k=k, docs=docs or None, kinds=kinds or None)
        for notice in getattr(lib, "model_notices", []):
            yield AnswerEvent("notice", notice)
        items = [ResultItem.from_hit(i + 1, h) for i, h in enumerate(hits)]
        _add_context(lib, items)
        _add_thumbnails(items, cancel)
        return items

    return run


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
_WORD = re.compile(r"[A-Za-z0-9_]{2,}")


def best_sentence(text: str, question: str, max_chars: int = 320) -> str:
    """Return the sentence of `text` sharing the most words with `question` (trimmed)."""
    q = {w.lower() for w in _WORD.findall(question)}
    sentences = [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()] or [text.strip()]
    best = max(sentences, key=lambda s: (len(q & {w.lower() for w in _WORD.findall(s)}), -abs(len(s) - 160)))
    return best if len(best) <= max_chars else best[: max_chars - 1].rsplit(" ", 1)[0] + "…"


def extractive_answer(lib, question: str, cancel: CancelToken, k: int = 5, docs=None, kinds=None,
                      n_cite: int = 3) -> Iterator[AnswerEvent]:
    """Answer without a language model: the best sentence of each top hit, cited [n]."""
    yield AnswerEvent("status", "Searching…")
    hits = lib.search(question, k=k, docs=docs or None, kinds=kinds or None)
    items = [ResultItem.from_hit(i + 1, h) for i, h in enumerate(hits[:n_cite])]
    _add_thumbnails(items, cancel)
    if not items:
        text = "The library has nothing that matches this question."
        yield AnswerEvent("token", text)
        return {"answer": text, "citations": [], "insufficient_evidence": True, "confidence": 0.0,
                "removed_citations": [], "extractive": True}
    parts = []
    for it in items:
        cancel.check()
        yield AnswerEvent("citation", item=it)
        part = f"{best_sentence(it.text, question)} [{it.number}]"
        parts.append(part)
        yield AnswerEvent("token", ("" if len(parts) == 1 else "\n\n") + part)
    answer = {"answer": "\n\n".join(parts),
              "citations": [{"id": it.number, "doc": it.doc, "page": it.page,
                             "bbox": list(it.bbox) if it.bbox else None} for it in items],
              "insufficient_evidence": False, "confidence": float(items[0].score),
              "removed_citations": [], "extractive": True}
    return answer


def _answer_module():
    try:
        from ..engine import answer as mod  # written by another engineer; optional until it lands
    except ImportError:
        return None
    return mod if hasattr(mod, "answer_events") else None


def _ev_kind(ev) -> str:
    if isinstance(ev, tuple):
        return str(ev[0])
    for attr in ("kind", "type", "event"):
        v = getattr(ev, attr, None)
        if isinstance(v, str):
            return v
    if isinstance(ev, dict):
        return str(ev.get("kind") or ev.get("type") or "")
    return type(ev).__name__.lower()


def _ev_payload(ev, *names):
    if isinstance(ev, tuple):
        return ev[1] if len(ev) > 1 else None
    for n in names:
        v = ev.get(n) if isinstance(ev, dict) else getattr(ev, n, None)
        if v is not None:
            return v
    return None


def _citation_item(lib, c, doc_paths: dict[str, str]) -> ResultItem:
    """Turn an engine citation (answer.events.Citation, a Hit, or a dict) into a ResultItem."""
    get = c.get if isinstance(c, dict) else (lambda k, d=None: getattr(c, k, d))
    bbox = tuple(get("bbox")) if get("bbox") else None
    page = int(get("page", 1) or 1)
    boxes = [(int(p), tuple(b)) for p, b in (get("boxes") or [])]
    item = ResultItem(number=int(get("id", 0) or get("number", 0) or 0), doc=str(get("doc", "")), page=page,
                      bbox=bbox, boxes=boxes or ([(page, bbox)] if bbox else []),
                      kind=str(get("kind", "text") or "text"), score=float(get("score", 0.0) or 0.0),
                      text=str(get("text", "") or ""), section=str(get("section", "") or ""),
                      chunk_id=get("chunk_id"))
    item.doc_path = str(get("doc_path", "") or doc_paths.get(item.doc, ""))
    if item.chunk_id is not None and (not boxes or not item.text or item.kind in CONTEXT_KINDS):
        try:
            ch = lib.chunk(item.chunk_id)
        except EngineError:  # the boxes from the chunk are a refinement; the citation's own bbox remains
            return item
        spans = ch.get("spans") or []
        chunk_boxes = [(int(s["page"]), tuple(s["bbox"])) for s in spans if s.get("bbox")]
        if chunk_boxes and not boxes:
            item.boxes = chunk_boxes
        item.text = item.text or ch.get("text", "")
        if item.kind in CONTEXT_KINDS:
            item.context = _passage_boxes(spans, item.boxes)
    return item


def answer_job(question: str, history: list[dict] | None = None, mode: str = "auto",
               docs: list[int] | None = None, kinds: list[str] | None = None, image: str | None = None):
    """Return a job function yielding AnswerEvents and returning the final answer dict.

    Uses `engine.answer.answer_events` when it exists (and mode is not "extractive"
    handled by it); otherwise answers extractively from `lib.search`. With `image` (a file path)
    the question is about that image ("what is this?": `image_answer_events`).
    """

    def run(lib, cancel: CancelToken):
        mod = _answer_module()
        if mod is None:
            return (yield from extractive_answer(lib, question, cancel, docs=docs, kinds=kinds))
        yield AnswerEvent("status", "Loading the answer model…" if mode != "extractive" else "Searching…")
        doc_paths = {d.name: d.path for d in lib.documents()}
        final: dict | None = None
        if image is not None:
            from ..engine.answer.image_question import image_answer_events

            events = image_answer_events(lib, image, question, cancel=cancel)
        else:
            events = mod.answer_events(lib, question, history=history or [], mode=mode, cancel=cancel)
        for ev in events:
            cancel.check()
            kind = _ev_kind(ev)
            if kind == "token":
                yield AnswerEvent("token", str(_ev_payload(ev, "text", "token", "data") or ""))
            elif kind == "citation":
                c = _ev_payload(ev, "citation", "hit", "data") or ev
                item = _citation_item(lib, c, doc_paths)
                if item.kind in THUMB_KINDS:
                    item.thumbnail_png = figure_thumbnail(item.doc_path, item.page, item.bbox)
                yield AnswerEvent("citation", item=item)
            elif kind == "sentence":
                s = _ev_payload(ev, "sentence", "data")
                s = s.to_json() if hasattr(s, "to_json") else s
                if isinstance(s, dict):
                    yield AnswerEvent("sentence", sentence=dict(s))
            elif kind == "done":
                ans = _ev_payload(ev, "answer", "data") or ev
                final = ans.to_json() if hasattr(ans, "to_json") else dict(ans)
                yield AnswerEvent("done", answer=final)
            elif kind == "error":
                err = _ev_payload(ev, "error", "message", "data")
                if isinstance(err, BaseException):
                    raise err
                raise EngineError(str(_ev_payload(ev, "message") or err))
            elif kind == "notice":
                yield AnswerEvent("notice", str(_ev_payload(ev, "message", "text") or ""))
            else:
                msg = _ev_payload(ev, "message", "text")
                if msg:
                    yield AnswerEvent("status", str(msg))
        return final or {}

    return run


def ingest_job(paths: list[str]):
    """Return a job function that ingests `paths` (files or folders), yielding Progress.

    The work runs in the engine's child process (`isolated=True`) so PyMuPDF's long native calls
    cannot hold the GIL of the window's process; searches run between the progress events.
    """

    def run(lib, cancel: CancelToken):
        return (yield from lib.add([Path(p) for p in paths], cancel=cancel, isolated=True))

    return run


def reembed_job():
    """Return a job function that re-embeds the library with the newly chosen text model."""

    def run(lib, cancel: CancelToken):
        lib.models_changed()
        return (yield from lib.reembed(cancel))

    return run


def models_changed_job():
    """Return a job function that makes the engine forget its loaded models (they reload on need)."""

    def run(lib, _cancel: CancelToken):
        lib.models_changed()
        return True

    return run


def enrich_job():
    """Return a job function that runs pending figure work (OCR, image vectors, captions) in the
    engine's child process, yielding Progress."""

    def run(lib, cancel: CancelToken):
        return (yield from lib.enrich(cancel, isolated=True))

    return run
