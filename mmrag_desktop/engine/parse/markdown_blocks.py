"""Markdown block tokens (markdown-it-py) to page-1 `Block`s, in source order.

- heading: a "heading" block (level 1-6, one bold line);
- paragraph: a "text" block; each image in it becomes its own "figure" block, the text
  before and after it separate text blocks;
- list: the paragraphs of consecutive items (nested items too) are the lines of one
  "list" block. Any other block inside an item (code, table, quote...) ends that list
  block and comes next; the list goes on as a new block after it. Images in items are
  kept in the line as alt text and also become figure blocks after the list block;
- fenced or indented code: a "code" block with one monospace line per source line; a
  fence tagged `math`, `latex-math` or `katex`, `$$ … $$` and `\\[ … \\]`: a "formula";
- table: a "table" block with its cells (first row = header), one line per row. It
  ends at the first line without a `|` (GFM would go on to the next blank line): that
  line and the rest become a text block, so a caption line right under a table stays one;
- raw HTML block: its text (tags dropped) as text blocks, `<img>` as figures and each
  `<figcaption>` as a caption of the block's last figure;
- block quotes count as their content; rules, front matter, link reference definitions
  and HTML comments give nothing (a comment between list items does not even end the
  list block).

Every Line's bbox is `(0, first_line, 0, last_line)` with 1-based source line numbers
(markdown-it's `token.map`; images and their split-off text through `markdown_inline`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..elements import Block, Figure, Line, Table, TableCell
from .markdown_inline import InlineImage, TextRun, inline_pieces, is_image, plain_text

_MATH_FENCES = ("math", "latex-math", "katex")


@dataclass
class ImageRef:
    """An image reference found in the source, resolved later (MarkdownDocument.pages())."""

    src: str
    alt: str
    title: str
    line_no: int


def source_line(text: str, first: int, last: int | None = None, **style: Any) -> Line:
    """A page-1 Line without geometry, boxed by its 1-based source lines."""
    end = last if last is not None else first
    return Line(text=text, page=1, bbox=(0.0, float(first), 0.0, float(end)), **style)


def build_blocks(
    tokens: Sequence[Token], md: MarkdownIt, source: str
) -> tuple[list[Block], dict[int, ImageRef]]:
    """Blocks for the token stream `md` parsed from `source`, and the images by figure block index.

    `md` also parses the inline content of raw HTML blocks (which markdown-it leaves raw).
    """
    builder = _Builder(md, source)
    builder.run(tokens)
    return builder.blocks, builder.images


class _Builder:
    def __init__(self, md: MarkdownIt, source: str) -> None:
        self.md = md
        self.source = source
        self._source_lines: list[str] | None = None
        self.blocks: list[Block] = []
        self.images: dict[int, ImageRef] = {}
        self.list_lines: list[Line] = []
        self.list_images: list[InlineImage] = []

    # -- output
    def add(self, block: Block) -> int:
        self.blocks.append(block)
        return len(self.blocks) - 1

    def figure(self, image: InlineImage) -> int:
        texts = [t for t in (image.alt, image.title) if t]
        if len(texts) == 2 and texts[0] == texts[1]:
            texts = texts[:1]
        n = image.line
        fig = Figure(bbox=(0.0, float(n), 0.0, float(n)), source="markdown")
        index = self.add(Block(kind="figure", lines=[source_line(t, n) for t in texts], figure=fig))
        self.images[index] = ImageRef(src=image.src, alt=image.alt, title=image.title, line_no=n)
        return index

    def pieces(self, pieces: Sequence[TextRun | InlineImage]) -> None:
        for piece in pieces:
            if isinstance(piece, TextRun):
                self.add(Block(kind="text", lines=[source_line(piece.text, piece.first, piece.last)]))
            else:
                self.figure(piece)

    def end_list(self) -> None:
        """Emit the list block built so far, then the figures of its items."""
        if self.list_lines:
            self.add(Block(kind="list", lines=self.list_lines))
        for image in self.list_images:
            self.figure(image)
        self.list_lines, self.list_images = [], []

    # -- the token walk
    def run(self, tokens: Sequence[Token]) -> None:
        containers: list[str] = []  # enclosing "list_item_open" / "blockquote_open"
        i = 0
        while i < len(tokens):
            token = tokens[i]
            kind = token.type
            if kind in ("list_item_open", "blockquote_open"):
                containers.append(kind)
            elif kind in ("list_item_close", "blockquote_close"):
                containers.pop()
            elif kind == "paragraph_open":
                i += 1
                if containers and containers[-1] == "list_item_open":
                    self.list_paragraph(tokens[i], token.map)
                else:
                    self.end_list()
                    self.paragraph(tokens[i], token.map)
            elif kind == "heading_open":
                self.end_list()
                i += 1
                self.heading(tokens[i], token)
            elif kind == "table_open":
                self.end_list()
                i = self.table(tokens, i)
            elif kind in ("fence", "code_block"):
                self.end_list()
                self.code(token)
            elif kind == "math_block":
                self.end_list()
                if token.content:
                    self.add(Block(kind="formula", lines=[_mapped_line(token.content, token)]))
            elif kind == "html_block":
                self.html_block(token)
            i += 1
        self.end_list()

    # -- one construct each
    def paragraph(self, inline: Token, span: list[int] | None) -> None:
        children = inline.children or []
        if any(is_image(t) for t in children):
            self.pieces(inline_pieces(children, inline.content, _first_line(span)))
            return
        text = plain_text(children)
        if text:
            self.add(Block(kind="text", lines=[_mapped_line(text, inline, span)]))

    def list_paragraph(self, inline: Token, span: list[int] | None) -> None:
        children = inline.children or []
        text = plain_text(children)
        if text:
            self.list_lines.append(_mapped_line(text, inline, span))
        if any(is_image(t) for t in children):
            pieces = inline_pieces(children, inline.content, _first_line(span))
            self.list_images.extend(p for p in pieces if isinstance(p, InlineImage))

    def heading(self, inline: Token, opener: Token) -> None:
        text = plain_text(inline.children or [])
        if text:
            level = int(opener.tag[1:])
            self.add(Block(kind="heading", lines=[_mapped_line(text, opener, bold=True)], level=level))

    def code(self, token: Token) -> None:
        body = token.content.split("\n")
        if body[-1] == "":
            body.pop()
        first = _first_line(token.map) + (1 if token.type == "fence" else 0)
        info = token.info.strip().lower()
        if token.type == "fence" and info and info.split()[0] in _MATH_FENCES:
            text = "\n".join(body).strip()
            if text:
                self.add(Block(kind="formula", lines=[source_line(text, first, first + len(body) - 1)]))
        elif body:
            lines = [source_line(t.rstrip(), first + k, mono=True) for k, t in enumerate(body)]
            self.add(Block(kind="code", lines=lines))

    def table(self, tokens: Sequence[Token], i: int) -> int:
        """Consume table_open … table_close at `i`; return the index of table_close."""
        opener = tokens[i]
        rows: list[tuple[int, list[str]]] = []
        while tokens[i].type != "table_close":
            token = tokens[i]
            if token.type == "tr_open":
                rows.append((_first_line(token.map), []))
            elif token.type == "inline" and rows:
                rows[-1][1].append(plain_text(token.children or []))
            i += 1
        tail = next((k for k in range(1, len(rows)) if "|" not in self.source_line(rows[k][0])), None)
        after = rows[tail:] if tail is not None else []
        rows = rows[:tail] if tail is not None else rows
        n_cols = len(rows[0][1]) if rows else 0
        cells: list[TableCell] = []
        lines: list[Line] = []
        for r, (n, texts) in enumerate(rows):
            texts = (texts + [""] * n_cols)[:n_cols]
            box = (0.0, float(n), 0.0, float(n))
            cells.extend(TableCell(row=r, col=c, text=t, bbox=box) for c, t in enumerate(texts))
            lines.append(source_line(" | ".join(texts), n))
        first = _first_line(opener.map)
        last = rows[-1][0] if rows else first
        table = Table(
            bbox=(0.0, float(first), 0.0, float(last)), cells=cells, n_rows=len(rows), n_cols=n_cols
        )
        self.add(Block(kind="table", lines=lines, table=table))
        text = " ".join(" ".join(cells) for _, cells in after).strip()
        if text:
            self.add(Block(kind="text", lines=[source_line(" ".join(text.split()), after[0][0], after[-1][0])]))
        return i

    def source_line(self, n: int) -> str:
        """Source line `n` (1-based)."""
        if self._source_lines is None:
            self._source_lines = self.source.split("\n")
        return self._source_lines[n - 1] if 0 < n <= len(self._source_lines) else ""

    def html_block(self, token: Token) -> None:
        """Raw HTML: its inline text and images; `<figcaption>`s caption its last figure.

        A block of HTML comments only is nothing: it does not even end a list block.
        """
        content = _without_open_comment(token.content)
        children = (self.md.parseInline(content, {})[0].children or []) if content.strip() else []
        if all(_is_comment_or_space(t) for t in children):
            return
        self.end_list()
        captions: list[TextRun] = []
        pieces = inline_pieces(children, content, _first_line(token.map), figcaptions=captions)
        start = len(self.blocks)
        self.pieces(pieces)
        figures = [k for k in range(start, len(self.blocks)) if self.blocks[k].kind == "figure"]
        target = figures[-1] if figures else None
        for cap in captions:
            line = source_line(cap.text, cap.first, cap.last)
            self.add(Block(kind="caption", lines=[line], caption_of=target))


def _first_line(span: list[int] | None) -> int:
    return span[0] + 1 if span else 1


def _mapped_line(text: str, token: Token, span: list[int] | None = None, **style: Any) -> Line:
    """A Line over the source lines of `span` (default: the token's own map)."""
    span = span if span is not None else token.map
    if not span:
        return source_line(text, 1, **style)
    return source_line(text, span[0] + 1, max(span[0] + 1, span[1]), **style)


def _is_comment_or_space(token: Token) -> bool:
    if token.type == "html_inline":
        return token.content.startswith("<!--")
    return token.type in ("softbreak", "hardbreak") or (token.type == "text" and not token.content.strip())


def _without_open_comment(html: str) -> str:
    """Drop an HTML comment left open to the end (markdown-it ends such a block at EOF)."""
    start = html.rfind("<!--")
    if start >= 0 and html.find("-->", start + 2) < 0:
        return html[:start]
    return html
