"""Markdown files (e.g. a textbook chapter with images) as a one-page document.

Parsed with markdown-it-py (CommonMark, plus GFM tables and strikethrough, raw HTML)
and mdit-py-plugins (YAML front matter); `markdown_syntax` configures the parser,
`markdown_blocks` turns its tokens into Blocks (headings, paragraphs, lists, code,
tables, `$$` / `\\[ \\]` math, images with figure captions), `markdown_inline` their
inline content into plain text. Parsing takes linear time, whatever the input.

Markdown has no page geometry: the whole file is page 1 with width = height = 0 (the
marker for "no geometry"), and every Line's bbox is `(0, first_line, 0, last_line)`
with 1-based source line numbers, so a front end can point at the source lines.
Figures keep the same source-line box; their OCR label lines too.
"""

from __future__ import annotations

import base64
import logging
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..elements import Block, PageContent
from ..errors import CorruptDocumentError
from .markdown_blocks import ImageRef, build_blocks
from .markdown_inline import plain_text
from .markdown_syntax import markdown_parser, prepare_source

__all__ = [
    "ImageRef",
    "MarkdownDocument",
    "decode_markdown_bytes",
    "inline_text",
    "open_markdown",
    "parse_markdown_text",
]

log = logging.getLogger(__name__)

MAX_MARKDOWN_BYTES = 100 * 10**6  # a book is a few MB; parsing keeps several copies in memory
_CAPTION_RE = re.compile(
    r"^(?:fig(?:ure)?\.?|abb\.|abbildung|plate|illustration)\s*(?:\d+(?:[.\-–]\d+)*[a-z]?|[ivxlc]+\b)\s*[:.\-–—)]?",
    re.IGNORECASE,
)
_LOOSE_CAPTION_RE = re.compile(r"^(?:fig(?:ure)?\.?)\s*[:.\-–—]", re.IGNORECASE)
_TABLE_CAPTION_RE = re.compile(
    r"^(?:table|tab\.)\s*(?:\d+(?:[.\-–]\d+)*[a-z]?|[ivxlc]+\b)\s*[:.\-–—)]?", re.IGNORECASE
)

# ---------------------------------------------------------------- text decoding
def decode_markdown_bytes(data: bytes, source: str) -> str:
    """Decode a Markdown file's bytes: BOM-marked UTF-16/UTF-8, else UTF-8, else latin-1.

    Raises CorruptDocumentError when the bytes are evidently binary (NUL bytes or mostly
    control characters).
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as e:
            raise CorruptDocumentError(source, f"the file claims UTF-16 but does not decode ({e})") from e
    head = data[:65536]
    if b"\x00" in head:
        raise CorruptDocumentError(source, "the file is named like Markdown but is binary data, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    sample = text[:65536]
    if sample:
        control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v" or 0x7F <= ord(ch) < 0xA0)
        if control / len(sample) > 0.05:
            raise CorruptDocumentError(source, "the file is named like Markdown but is binary data, not text")
    return text


# ---------------------------------------------------------------- blocks
def inline_text(s: str) -> str:
    """Plain text of a Markdown inline fragment: markup removed, link text kept, entities decoded."""
    md = markdown_parser()
    return plain_text(md.parseInline(prepare_source(s), {})[0].children or [])


def parse_markdown_text(text: str) -> tuple[list[Block], dict[int, ImageRef]]:
    """Parse Markdown source into page-1 blocks (captions linked) and the images by block index."""
    md = markdown_parser()
    source = prepare_source(text)
    blocks, images = build_blocks(md.parse(source, {}), md, source)
    _link_captions(blocks)
    return blocks, images


def _link_captions(blocks: list[Block]) -> None:
    """Turn a text block right after a figure (or before/after a table) into its caption."""
    for i, blk in enumerate(blocks):
        if blk.kind == "figure":
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            if nxt is not None and nxt.kind == "text" and _is_figure_caption(nxt.text):
                nxt.kind = "caption"
                nxt.caption_of = i
        elif blk.kind == "table":
            for j in (i - 1, i + 1):
                if (
                    0 <= j < len(blocks)
                    and blocks[j].kind == "text"
                    and _TABLE_CAPTION_RE.match(blocks[j].text)
                ):
                    blocks[j].kind = "caption"
                    blocks[j].caption_of = i
                    break


def _is_figure_caption(text: str) -> bool:
    t = text.strip()
    return bool(_CAPTION_RE.match(t) or _LOOSE_CAPTION_RE.match(t))


# ---------------------------------------------------------------- the document
class MarkdownDocument:
    """A parsed Markdown file: one page without geometry. `warnings` lists images that
    could not be loaded (the figure then keeps only its alt text)."""

    kind = "markdown"
    page_count = 1

    def __init__(
        self, path: Path, blocks: list[Block], images: dict[int, ImageRef], title: str, ocr: Any | None
    ):
        self.path = path
        self.title = title
        self._blocks = blocks
        self._images = images
        self._ocr = ocr
        self.warnings: list[str] = []

    def _load_figure_image(self, ref: ImageRef, cache: dict[str, Any]):
        from .image import load_image, load_image_bytes
        from .links import inside_folder

        src = ref.src
        if not src:
            return None
        if src.startswith("data:"):
            header, _, payload = src.partition(",")
            if ";base64" not in header or not header[5:].startswith("image/"):
                self._warn(f"line {ref.line_no}: unsupported inline image ({header[:40]})")
                return None
            try:
                data = base64.b64decode(payload, validate=False)
                return load_image_bytes(data, f"{self.path}:{ref.line_no}")
            except (ValueError, CorruptDocumentError) as e:
                self._warn(f"line {ref.line_no}: inline image unreadable ({e})")
                return None
        scheme = urllib.parse.urlsplit(src).scheme
        if scheme and len(scheme) > 1 and scheme != "file":
            self._warn(f"line {ref.line_no}: remote image not fetched ({src})")
            return None
        rel = urllib.parse.unquote(
            urllib.parse.urlsplit(src).path if scheme == "file" else src.split("#")[0].split("?")[0]
        )
        target = inside_folder(self.path.parent, rel)
        if target is None:
            self._warn(f"line {ref.line_no}: image outside the document's folder not read ({rel})")
            return None
        key = str(target)
        if key in cache:
            return cache[key]
        loaded = None
        if not target.is_file():
            self._warn(f"line {ref.line_no}: image file not found ({rel})")
        else:
            try:
                loaded = load_image(target)
            except CorruptDocumentError as e:
                self._warn(f"line {ref.line_no}: image not loaded ({e.reason})")
        cache[key] = loaded
        return loaded

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s: %s", self.path, message)

    def pages(self) -> Iterator[PageContent]:
        """Yield the single page; images are loaded (and OCR'd when an OCR engine was given)
        here. A missing or unreadable image is noted in `warnings`, not raised; errors
        from the OCR engine propagate."""
        from .image import ocr_label_lines

        cache: dict[str, Any] = {}
        ocr_used = False
        for index, ref in self._images.items():
            fig = self._blocks[index].figure
            if fig is None:
                continue
            loaded = self._load_figure_image(ref, cache)
            if loaded is None:
                continue
            fig.image_png = loaded.png
            if self._ocr is not None:
                fig.label_lines = ocr_label_lines(self._ocr, loaded, 1, fixed_bbox=fig.bbox)
                fig.ocr_used = True
                ocr_used = True
        yield PageContent(page=1, width=0.0, height=0.0, blocks=self._blocks, ocr_used=ocr_used)

    def close(self) -> None:
        """Release the parsed blocks."""
        self._blocks = []
        self._images = {}


def open_markdown(path: Path, *, ocr: Any | None = None) -> MarkdownDocument:
    """Read and parse a Markdown file.

    Returns a `MarkdownDocument` (kind "markdown", title = first H1 or the file stem).
    Images are loaded lazily in `pages()`. Raises CorruptDocumentError when the file
    cannot be read or is binary.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_MARKDOWN_BYTES:
            raise CorruptDocumentError(str(path), f"the Markdown file is {size / 1e6:.0f} MB; files over "
                                                  f"{MAX_MARKDOWN_BYTES // 10**6} MB are not read (split it)")
        data = path.read_bytes()
    except OSError as e:
        raise CorruptDocumentError(str(path), f"cannot read the file ({e.strerror or e})") from e
    text = decode_markdown_bytes(data, str(path))
    blocks, images = parse_markdown_text(text)
    title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1 and b.text), path.stem)
    return MarkdownDocument(path, blocks, images, title, ocr)
