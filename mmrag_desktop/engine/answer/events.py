"""What answering yields: streaming events and the final `Answer` (the `ask --json` object)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..elements import BBox


def _box(b: BBox | None) -> list[float] | None:
    return [round(float(v), 2) for v in b] if b else None


@dataclass
class Citation:
    """A citation id resolved to the chunk it points at (document, page, highlight box)."""

    id: int
    chunk_id: int
    doc: str
    doc_id: int
    page: int
    bbox: BBox | None
    kind: str = "text"
    boxes: list[tuple[int, BBox]] = field(default_factory=list)
    doc_path: str = ""
    text: str = ""

    def to_json(self) -> dict:
        """The `citations[]` object of `ask --json`."""
        return {
            "id": self.id,
            "doc": self.doc,
            "page": self.page,
            "bbox": _box(self.bbox),
            "chunk_id": self.chunk_id,
            "kind": self.kind,
            "boxes": [{"page": p, "bbox": _box(b)} for p, b in self.boxes],
        }


@dataclass
class Answer:
    """The final answer.

    mode: "generative" | "extractive" | "insufficient"; `citations` are the evidence blocks the
    text cites (valid ids only); `removed_citations` lists what the check took out (ints for ids
    not among the evidence, raw strings for malformed markers); `unsupported_sentences` are
    sentences left without a valid citation; `nearest` are the closest pages when the manuals do
    not cover the question; `stopped` is "" or "cancelled" / "length" / "guard" (a generation
    guard stopped the model: a loop, garbled text, evidence echoed back; a notice says which).
    `sentences` are the checked sentences of `text` (answer/support.py): every claim is either
    supported by the evidence its citation highlights or marked not supported.
    """

    question: str
    text: str
    mode: str
    citations: list[Citation] = field(default_factory=list)
    insufficient_evidence: bool = False
    confidence: float = 0.0
    removed_citations: list[int | str] = field(default_factory=list)
    unsupported_sentences: list[str] = field(default_factory=list)
    nearest: list[Citation] = field(default_factory=list)
    evidence: list[Citation] = field(default_factory=list)
    search_query: str = ""
    notices: list[str] = field(default_factory=list)
    model: str = ""
    stopped: str = ""
    raw_text: str = ""
    sentences: list = field(default_factory=list)  # [support.SentenceCheck]
    stats: dict = field(default_factory=dict)

    @property
    def checked(self) -> dict:
        """{"supported": n, "claims": m}: how many of the answer's claims the check backed."""
        claims = [s for s in self.sentences if s.claim]
        return {"supported": sum(s.supported for s in claims), "claims": len(claims)}

    def to_json(self) -> dict:
        """The `ask --json` object of DESIGN.md's CLI contract, plus diagnostic fields."""
        return {
            "answer": self.text,
            "citations": [c.to_json() for c in self.citations],
            "insufficient_evidence": self.insufficient_evidence,
            "confidence": round(float(self.confidence), 4),
            "removed_citations": list(self.removed_citations),
            "unsupported_sentences": list(self.unsupported_sentences),
            "sentences": [s.to_json() for s in self.sentences],
            "checked": self.checked,
            "nearest": [c.to_json() for c in self.nearest],
            "mode": self.mode,
            "question": self.question,
            "search_query": self.search_query,
            "model": self.model,
            "notices": list(self.notices),
            "stopped": self.stopped,
            "stats": dict(self.stats),
        }


@dataclass(kw_only=True)
class AnswerEvent:
    """Base class of everything `answer_events` yields; `kind` names the event."""

    kind: str = ""


@dataclass(kw_only=True)
class TokenEvent(AnswerEvent):
    """Cleaned answer text to append (citations already checked)."""

    text: str = ""
    kind: str = "token"


@dataclass(kw_only=True)
class CitationEvent(AnswerEvent):
    """A valid citation id appeared in the answer for the first time."""

    citation: Citation | None = None
    kind: str = "citation"


@dataclass(kw_only=True)
class SentenceEvent(AnswerEvent):
    """A sentence of the streamed text is complete and checked: `sentence` is its `sentences[]`
    dict (offsets into the text streamed so far). The final answer's `sentences` are the truth:
    a fallback may replace the text."""

    sentence: dict | None = None
    kind: str = "sentence"


@dataclass(kw_only=True)
class NoticeEvent(AnswerEvent):
    """Something the user should know that is not an error (fallback to extractive, truncation)."""

    message: str = ""
    kind: str = "notice"


@dataclass(kw_only=True)
class StatusEvent(AnswerEvent):
    """What the engine is doing while the user waits for the first words ("Loading the answer
    model…", "… is choosing the answering sentence …"): shown until text arrives, not kept."""

    message: str = ""
    kind: str = "status"


@dataclass(kw_only=True)
class DoneEvent(AnswerEvent):
    """The last event of a successful run; carries the final answer."""

    answer: Answer | None = None
    kind: str = "done"


@dataclass(kw_only=True)
class ErrorEvent(AnswerEvent):
    """The last event of a failed run: a plain-words message and the engine error behind it."""

    message: str = ""
    error: Exception | None = None
    kind: str = "error"
