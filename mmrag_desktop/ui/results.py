"""Qt-free plumbing between the GUI and the engine for search and answers.

The job functions here run on the engine thread (they receive the Library); they
return plain `ResultItem`s the GUI can show and the viewer can highlight.
"""

from __future__ import annotations

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
    It yields the engine's NoticeEvent when the search ran without a model the user configured
    (`Library.model_notices`: a reranker that fails to load, an image model that cannot serve)."""

    def run(lib, cancel: CancelToken):
        from ..engine.answer.events import NoticeEvent

        if image:
            hits = lib.search_image(image, k=k)
        else:
            hits = lib.search(query, k=k, docs=docs or None, kinds=kinds or None)
        for notice in getattr(lib, "model_notices", []):
            yield NoticeEvent(message=notice)
        items = [ResultItem.from_hit(i + 1, h) for i, h in enumerate(hits)]
        _add_context(lib, items)
        _add_thumbnails(items, cancel)
        return items

    return run


def _source_item(lib, c, doc_paths: dict[str, str]) -> ResultItem:
    """The row the sources list shows for an engine `Citation` (engine/answer/events.py): its
    passage boxes from the chunk's spans (and the chunk's boxes and text when the citation
    carries none), and a figure's thumbnail."""
    bbox = tuple(c.bbox) if c.bbox else None
    boxes = [(int(p), tuple(b)) for p, b in c.boxes or []]
    item = ResultItem(number=int(c.id), doc=c.doc, page=int(c.page), doc_path=c.doc_path or doc_paths.get(c.doc, ""),
                      bbox=bbox, boxes=boxes or ([(int(c.page), bbox)] if bbox else []), kind=c.kind or "text",
                      text=c.text or "", chunk_id=c.chunk_id)
    if item.chunk_id is not None and (not boxes or not item.text or item.kind in CONTEXT_KINDS):
        try:
            ch = lib.chunk(item.chunk_id)
        except EngineError:  # the chunk went away meanwhile: the citation's own box remains
            ch = None
        if ch is not None:
            spans = ch.get("spans") or []
            chunk_boxes = [(int(s["page"]), tuple(s["bbox"])) for s in spans if s.get("bbox")]
            if chunk_boxes and not boxes:
                item.boxes = chunk_boxes
            item.text = item.text or ch.get("text", "")
            if item.kind in CONTEXT_KINDS:
                item.context = _passage_boxes(spans, item.boxes)
    if item.kind in THUMB_KINDS:
        item.thumbnail_png = figure_thumbnail(item.doc_path, item.page, item.bbox)
    return item


def answer_job(question: str, history: list[dict] | None = None, mode: str = "auto", image: str | None = None):
    """Return a job function that streams the engine's answer events and returns the final answer
    dict (`Answer.to_json()`).

    The events are the engine's own (engine/answer/events.py: TokenEvent, CitationEvent,
    SentenceEvent, NoticeEvent, DoneEvent); each CitationEvent comes as a `SourceEvent` (a
    CitationEvent carrying the `ResultItem` its citation resolves to, resolved here on the engine
    thread, which owns the library), and an ErrorEvent is raised as its engine error. When the
    manuals do not cover the question, the nearest pages come as SourceEvents before the DoneEvent.
    `engine.answer.answer_events` answers (it falls back to the best matching sentences itself
    when no answer model can be used); with `image` (a file path) the question is about that image
    ("what is this?": `image_answer_events`). The engine answers from the whole library (the query
    bar's document and kind filters are for searches).
    """

    def run(lib, cancel: CancelToken):
        from ..engine.answer import answer_events
        from ..engine.answer.events import CitationEvent, DoneEvent, ErrorEvent
        from .source_event import SourceEvent

        if image is not None:
            from ..engine.answer.image_question import image_answer_events

            events = image_answer_events(lib, image, question, cancel=cancel)
        else:
            events = answer_events(lib, question, history=history or [], mode=mode, cancel=cancel)
        doc_paths = {d.name: d.path for d in lib.documents()}
        final: dict = {}
        for ev in events:
            cancel.check()
            if isinstance(ev, ErrorEvent):
                raise ev.error if ev.error is not None else EngineError(ev.message)
            if isinstance(ev, CitationEvent):
                if ev.citation is not None:
                    yield SourceEvent(citation=ev.citation, item=_source_item(lib, ev.citation, doc_paths))
                continue
            if isinstance(ev, DoneEvent) and ev.answer is not None:
                if ev.answer.insufficient_evidence:  # not covered: the nearest pages, listed to open
                    for c in ev.answer.nearest:
                        yield SourceEvent(citation=c, item=_source_item(lib, c, doc_paths))
                final = ev.answer.to_json()
            yield ev
        return final

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
