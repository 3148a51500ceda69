"""Inline Markdown (markdown-it-py tokens) as plain text, images and source lines.

Markup goes, its text stays: emphasis and link markers are dropped, link and code-span
text kept, entities and escapes decoded, raw HTML tags dropped, whitespace collapsed.
Images (`![alt](src "title")` or an HTML `<img>`) are either reduced to their alt text
(`plain_text`) or split out with the source line they sit on (`inline_pieces`), using
the `meta["span"]` offsets that `markdown_syntax` records on inline tokens.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

from markdown_it.token import Token

_IMG_TAG_RE = re.compile(r"<img\b", re.IGNORECASE)
_FIGCAPTION_OPEN_RE = re.compile(r"<figcaption\b", re.IGNORECASE)
_FIGCAPTION_CLOSE_RE = re.compile(r"</figcaption\b", re.IGNORECASE)
_NEWLINE_RE = re.compile("\n")


@dataclass
class TextRun:
    """Plain text of consecutive inline tokens, from source line `first` to `last`."""

    text: str
    first: int
    last: int


@dataclass
class InlineImage:
    """An image in inline content: where it points, its alt text and title, its line."""

    src: str
    alt: str
    title: str
    line: int


def collapse(text: str) -> str:
    """Whitespace runs to single spaces, ends trimmed."""
    return " ".join(text.split())


def plain_text(tokens: Sequence[Token]) -> str:
    """Plain text of inline tokens; images count as their alt text, HTML tags as nothing."""
    return collapse("".join(_token_text(t, images_as_alt=True) for t in tokens))


def is_image(token: Token) -> bool:
    """A Markdown image or an HTML `<img>` tag."""
    return token.type == "image" or (token.type == "html_inline" and bool(_IMG_TAG_RE.match(token.content)))


def _token_text(token: Token, images_as_alt: bool = False) -> str:
    kind = token.type
    if kind in ("text", "text_special"):
        return token.content
    if kind == "code_inline":
        return token.content.strip()
    if kind == "math_inline":
        return f"${token.content}$"
    if kind in ("softbreak", "hardbreak"):
        return " "
    if kind == "image" and images_as_alt:
        return plain_text(token.children or [])
    return ""


def image_of(token: Token, line: int) -> InlineImage:
    """The image a Markdown image token or an HTML `<img>` tag refers to."""
    if token.type == "image":
        src, title = str(token.attrs.get("src", "")), str(token.attrs.get("title", ""))
        alt = plain_text(token.children or [])
    else:
        attrs = _tag_attributes(token.content)
        src, alt, title = attrs.get("src", ""), attrs.get("alt", ""), attrs.get("title", "")
    src = src.strip()
    if src.startswith("<") and src.endswith(">"):
        src = src[1:-1]
    return InlineImage(src=src, alt=collapse(alt), title=collapse(title), line=line)


class _AttributeReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attrs: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.attrs:
            self.attrs = {name: value or "" for name, value in attrs}


def _tag_attributes(tag: str) -> dict[str, str]:
    """Attributes of one HTML start tag (names lower-cased, character references decoded)."""
    reader = _AttributeReader()
    reader.feed(tag)
    reader.close()
    return reader.attrs


class _LineIndex:
    """Source line of an offset in an inline token's content (its first line given)."""

    def __init__(self, content: str, first_line: int):
        self.first_line = first_line
        self.newlines = [m.start() for m in _NEWLINE_RE.finditer(content)]

    def at(self, pos: int) -> int:
        return self.first_line + bisect_left(self.newlines, pos)


@dataclass
class _Run:
    parts: list[str] = field(default_factory=list)
    first: int | None = None
    last: int = 0

    def add(self, text: str, first: int, last: int) -> None:
        self.parts.append(text)
        if text.strip():
            if self.first is None:
                self.first = first
            self.last = last

    def flush_into(self, out: list) -> None:
        text = collapse("".join(self.parts))
        if text and self.first is not None:
            out.append(TextRun(text, self.first, self.last))
        self.parts, self.first = [], None


def inline_pieces(
    tokens: Sequence[Token], content: str, first_line: int, *, figcaptions: list[TextRun] | None = None
) -> list[TextRun | InlineImage]:
    """Split inline tokens at images: text runs and images, in order, with source lines.

    `content` is the inline source the tokens were parsed from and `first_line` its
    1-based line. When `figcaptions` is a list, text inside `<figcaption>` tags goes
    there instead (for HTML blocks).
    """
    index = _LineIndex(content, first_line)
    out: list[TextRun | InlineImage] = []
    run, caption = _Run(), None
    running = first_line
    for token in tokens:
        span = token.meta.get("span")
        if span is None:
            first = last = running
        else:
            first = index.at(span[0])
            last = first if token.type == "text" else index.at(max(span[0], span[1] - 1))
            running = first if token.nesting == 1 else index.at(span[1])
        if is_image(token):
            run.flush_into(out)
            out.append(image_of(token, first))
        elif figcaptions is not None and token.type == "html_inline" and _FIGCAPTION_OPEN_RE.match(token.content):
            if caption is not None:  # an unclosed one before
                caption.flush_into(figcaptions)
            caption = _Run()
        elif caption is not None and token.type == "html_inline" and _FIGCAPTION_CLOSE_RE.match(token.content):
            caption.flush_into(figcaptions)  # type: ignore[arg-type]
            caption = None
        else:
            text = _token_text(token)
            if text:
                (caption if caption is not None else run).add(text, first, last)
    run.flush_into(out)
    if caption is not None and figcaptions is not None:
        caption.flush_into(figcaptions)
    return out
