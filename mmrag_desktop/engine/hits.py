"""What search returns: ranked hits that carry their highlight boxes."""

from __future__ import annotations

from dataclasses import dataclass, field

from .elements import BBox


@dataclass
class Hit:
    """One ranked search result.

    page is 1-based; bbox is the highlight box on `page` (PDF points, top-left origin)
    of the lines that best match the query, or None for a source without pages.
    `boxes` lists every highlight box as (page, bbox); a chunk crossing a page break
    has boxes on both pages. `navigation` marks a contents or index chunk. `enriched` marks
    a hit joined by group enrichment (a figure's caption, a referencing paragraph); its score is
    not comparable.
    `sources` maps each retriever ("dense", "keyword", "exact", "rows", "image") to the 1-based rank it
    gave this chunk, and "rerank" to its rank by the cross-encoder when one reordered the top
    hits (its raw score is `rerank_score`).
    """

    chunk_id: int
    doc_id: int
    doc: str
    page: int
    bbox: BBox | None
    kind: str
    score: float
    text: str
    section: str = ""
    boxes: list[tuple[int, BBox]] = field(default_factory=list)
    enriched: bool = False
    sources: dict[str, int] = field(default_factory=dict)
    doc_path: str = ""
    similarity: float | None = None  # cosine of query and chunk vectors (None when not in the dense list)
    rerank_score: float | None = None  # the cross-encoder's score (None when it did not rerank this hit)
    # the stored lines (of the chunk before) where the chunk's first sentence begins: `text` starts with them
    lead: list[dict] = field(default_factory=list)
    # the stored lines (of the chunk after) where the chunk's last sentence ends: `text` ends with them
    tail: list[dict] = field(default_factory=list)
    navigation: bool = False  # a contents or index chunk: found by search, never quoted in an answer
    # another passage of a top hit's page that one hit per page left out (answers' search only, after the
    # hits): evidence only when one of its sentences matches the question best (answer/pipeline.py)
    reserve: bool = False
    # the last release line above the chunk in a change log printed as text ("Release 3.10.1 (25 November 2014)"):
    # the release of the chunk's first entries (answers only: answer/pipeline.py, EvidenceBlock.release_of)
    release_above: str = ""
    # the numbered entry line above the chunk when it opens inside that entry's fields ("6.27.3.127 service: whois" over
    # "Server Ports:" / "• tcp/43"; answers only: answer/pipeline.py, extractive.candidate_sentences)
    entry_above: str = ""
    # a sentence of prose in the chunks before it of its section (at most PROSE_LOOKBACK, answers only: the first
    # sentence of prose in a section headed by a name is its definition, not a later chunk's first; answer/pipeline.py)
    prose_above: bool = False
    # the last usage line of a program in the chunks above the chunk in its section ("Usage: genrang
    # [-P#] ..." over genrang's options: a suite's help texts one after another; answers only: answer/pipeline.py)
    usage_above: str = ""

    def to_json(self) -> dict:
        """The CLI contract's hit object (DESIGN.md, "CLI contract")."""
        return {
            "doc": self.doc,
            "page": self.page,
            "bbox": [round(v, 2) for v in self.bbox] if self.bbox else None,
            "kind": self.kind,
            "score": round(float(self.score), 6),
            "chunk_id": self.chunk_id,
            "text": self.text,
            "section": self.section,
            "boxes": [{"page": p, "bbox": [round(v, 2) for v in b]} for p, b in self.boxes],
            "enriched": self.enriched,
            "sources": dict(self.sources),
            **({"rerank_score": round(float(self.rerank_score), 6)} if self.rerank_score is not None else {}),
        }


@dataclass
class DocumentInfo:
    """A document row of the library. status: pending | indexing | ready | failed."""

    id: int
    path: str
    name: str
    sha256: str
    kind: str
    title: str
    pages: int
    status: str
    error: str | None
    chunks: int
    added: str
    enrichment: str = ""

    def to_json(self) -> dict:
        return dict(self.__dict__)
