"""What parsers produce: pages of positioned blocks, independent of the source format.

Every parser (PDF, image, Markdown, Docling JSON) turns a file into a `ParsedDocument`
whose `pages()` yields `PageContent` one page at a time (pages stream; nothing holds a
whole manual in memory). Coordinates are PDF points with the origin at the top-left of
the page (PyMuPDF's convention); pages are numbered from 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, Protocol

BBox = tuple[float, float, float, float]

BlockKind = Literal["text", "heading", "list", "code", "table", "figure", "caption", "formula", "footnote"]


@dataclass
class Line:
    """One visual line of text with its box on its page."""

    text: str
    page: int
    bbox: BBox
    size: float = 0.0
    bold: bool = False
    mono: bool = False
    note_mark: str = ""  # the small raised number or symbol the line opens with (a footnote's "1", "*")


@dataclass
class TableCell:
    row: int
    col: int
    text: str
    bbox: BBox


@dataclass
class Table:
    """A table region; `cells` row-major, `header_rows` leading rows that are headers."""

    bbox: BBox
    cells: list[TableCell]
    n_rows: int
    n_cols: int
    header_rows: int = 1

    def rows(self) -> list[list[TableCell]]:
        """Cells grouped by row, each row sorted by column."""
        out: list[list[TableCell]] = [[] for _ in range(self.n_rows)]
        for c in self.cells:
            if 0 <= c.row < self.n_rows:
                out[c.row].append(c)
        for r in out:
            r.sort(key=lambda c: c.col)
        return out


@dataclass
class Figure:
    """A figure region (raster image or clustered vector drawing).

    `label_text` is the text found inside the region (vector labels or OCR),
    `image_png` an optional rendered crop of the region (PNG bytes).
    """

    bbox: BBox
    source: Literal["raster", "vector", "image-file", "markdown", "docling"]
    label_lines: list[Line] = field(default_factory=list)
    image_png: bytes | None = None
    ocr_used: bool = False

    @property
    def label_text(self) -> str:
        return " ".join(ln.text for ln in self.label_lines).strip()


@dataclass
class Block:
    """A unit of page content in reading order.

    kind "heading" carries `level` (1 = top). kind "table" carries `table`, kind
    "figure" carries `figure`. A "caption" block is the caption of the figure or
    table block at index `caption_of` (index into the same page's block list), or
    None when no region was matched. `lines` always hold the text with boxes.
    """

    kind: BlockKind
    lines: list[Line]
    level: int = 0
    table: Table | None = None
    figure: Figure | None = None
    caption_of: int | None = None

    @property
    def text(self) -> str:
        return "\n".join(ln.text for ln in self.lines)

    @property
    def bbox(self) -> BBox | None:
        if self.table is not None:
            return self.table.bbox
        if self.figure is not None:
            return self.figure.bbox
        return union_bbox([ln.bbox for ln in self.lines])


@dataclass
class PageContent:
    page: int
    width: float
    height: float
    blocks: list[Block]
    rotation: int = 0
    has_text_layer: bool = True
    ocr_used: bool = False


class ParsedDocument(Protocol):
    """A document opened by a parser. `pages()` streams; `close()` frees the file."""

    title: str
    page_count: int
    kind: str  # "pdf" | "image" | "markdown" | "docling"

    def pages(self) -> Iterator[PageContent]: ...

    def close(self) -> None: ...


def box_inside(inner: BBox, outer: BBox, slack: float = 0.0) -> bool:
    """True when box `inner` lies within box `outer`, each edge allowed `slack` points past it."""
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and inner[2] <= outer[2] + slack
            and inner[3] <= outer[3] + slack)


def union_bbox(boxes: list[BBox]) -> BBox | None:
    """Smallest box containing all `boxes`, or None for an empty list."""
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )
