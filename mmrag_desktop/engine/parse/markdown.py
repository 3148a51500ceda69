"""Markdown files (e.g. a textbook chapter with images) as a one-page document.

A small line-based parser, no third-party Markdown library: ATX and setext headings,
paragraphs, bullet and numbered lists, fenced and indented code, pipe tables, block
quotes, `$$` / `\\[ \\]` math, images (`![alt](path "title")`, `<img>`), figure captions,
front matter and HTML comments (skipped).

Markdown has no page geometry: the whole file is page 1 with width = height = 0 (the
marker for "no geometry"), and every Line's bbox is `(0, first_line, 0, last_line)`
with 1-based source line numbers, so a front end can point at the source lines.
Figures keep the same source-line box; their OCR label lines too.
"""

from __future__ import annotations

import base64
import html
import logging
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..elements import Block, Figure, Line, PageContent, Table, TableCell
from ..errors import CorruptDocumentError

log = logging.getLogger(__name__)

SrcLine = tuple[int, str]  # (1-based source line number, text)

# ---------------------------------------------------------------- block patterns
_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_HR_RE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})[ \t]*([^`]*)$")
_LIST_RE = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|[ \t]*$)")
_QUOTE_RE = re.compile(r"^ {0,3}>[ ]?(.*)$")
_TABLE_DELIM_RE = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$")
_HTML_BLOCK_RE = re.compile(r"^ {0,3}<(?:/?[A-Za-z][A-Za-z0-9-]*)(?:\s|/?>|$)")

# ---------------------------------------------------------------- inline patterns
_MD_IMAGE_RE = re.compile(
    r"!\[(?P<alt>(?:[^\[\]\\]|\\.|\[[^\]]*\])*)\]\(\s*(?P<src><[^>]*>|[^\s)]+)(?:\s+(?P<q>[\"'(])(?P<title>.*?)[\"')])?\s*\)"
)
_HTML_IMG_RE = re.compile(r"<img\b(?P<attrs>[^>]*)>", re.IGNORECASE)
_ATTR_RE = re.compile(r"""(\w[\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_FIGCAPTION_RE = re.compile(r"<figcaption\b[^>]*>(.*?)</figcaption>", re.IGNORECASE | re.DOTALL)
_CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
_LINK_RE = re.compile(
    r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)(?:\s+[\"'(].*?[\"')])?\s*\)"
)
_REF_LINK_RE = re.compile(r"\[([^\[\]]+)\]\[[^\[\]]*\]")
_AUTOLINK_RE = re.compile(r"<((?:https?|ftp|mailto):[^>\s]+)>")
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_STRONG_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_STAR_RE = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_EM_UNDER_RE = re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")
_STRIKE_RE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_INLINE_SPECIAL = re.compile(r"[`*_\[<&\\~!]")
_ESCAPE_RE = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")

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


def _preprocess(text: str) -> list[SrcLine]:
    """Split into numbered lines, blanking front matter and HTML comments (outside code)."""
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines: list[SrcLine] = [(i + 1, s.expandtabs(4) if "\t" in s else s) for i, s in enumerate(raw)]
    start = 0
    if raw and raw[0].strip() in ("---", "+++"):
        marker = raw[0].strip()
        closers = ("---", "...") if marker == "---" else ("+++",)
        for j in range(1, min(len(raw), 400)):
            if raw[j].strip() in closers:
                start = j + 1
                break
    out: list[SrcLine] = [(n, "") for n, _ in lines[:start]]
    fence: str | None = None
    in_comment = False
    for n, s in lines[start:]:
        if in_comment:
            end = s.find("-->")
            if end < 0:
                out.append((n, ""))
                continue
            s = s[end + 3 :]
            in_comment = False
        if fence is None:
            m = _FENCE_RE.match(s)
            if m and len(m.group(1)) <= 3:
                fence = m.group(2)
                out.append((n, s))
                continue
            while "<!--" in s:
                a = s.find("<!--")
                b = s.find("-->", a + 4)
                if b < 0:
                    s = s[:a]
                    in_comment = True
                    break
                s = s[:a] + s[b + 3 :]
            out.append((n, s))
        else:
            stripped = s.strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                fence = None
            out.append((n, s))
    return out


# ---------------------------------------------------------------- inline text
def inline_text(s: str) -> str:
    """Plain text of a Markdown inline fragment: markup removed, link text kept, entities decoded."""
    if not _INLINE_SPECIAL.search(s):
        return " ".join(s.split())
    if "[" in s:
        # Links and images first: their text may hold code spans ([`x`](url)).
        s = _MD_IMAGE_RE.sub(lambda m: m.group("alt"), s)
        s = _LINK_RE.sub(r"\1", s)
        s = _REF_LINK_RE.sub(r"\1", s)
    parts = []
    pos = 0
    for m in _CODE_SPAN_RE.finditer(s):
        parts.append(_inline_plain(s[pos : m.start()]))
        parts.append(m.group(2).strip())
        pos = m.end()
    parts.append(_inline_plain(s[pos:]))
    return " ".join("".join(parts).split())


def _inline_plain(s: str) -> str:
    if not s:
        return s
    s = _AUTOLINK_RE.sub(r"\1", s)
    if "<" in s:
        s = _TAG_RE.sub("", s)
    if "*" in s or "_" in s or "~" in s:
        s = _STRONG_RE.sub(r"\2", s)
        s = _EM_STAR_RE.sub(r"\1", s)
        s = _EM_UNDER_RE.sub(r"\1", s)
        s = _STRIKE_RE.sub(r"\1", s)
    if "\\" in s:
        s = _ESCAPE_RE.sub(r"\1", s)
    if "&" in s:
        s = html.unescape(s)
    return s


# ---------------------------------------------------------------- parsed structure
@dataclass
class ImageRef:
    """An image reference found in the source, resolved later (pages())."""

    src: str
    alt: str
    title: str
    line_no: int


@dataclass
class _Parsed:
    blocks: list[Block] = field(default_factory=list)
    images: dict[int, ImageRef] = field(default_factory=dict)  # block index -> image


def _line(text: str, first: int, last: int | None = None, **kw: Any) -> Line:
    return Line(
        text=text, page=1, bbox=(0.0, float(first), 0.0, float(last if last is not None else first)), **kw
    )


class _Parser:
    """Turns numbered source lines into Blocks (page 1), in source order."""

    def __init__(self) -> None:
        self.out = _Parsed()

    # -- emit helpers
    def _add(self, block: Block) -> int:
        self.out.blocks.append(block)
        return len(self.out.blocks) - 1

    def _paragraph(self, lines: list[SrcLine], quote: bool = False) -> None:
        """Emit a paragraph, splitting out images (each its own figure block)."""
        pending: list[SrcLine] = []

        def flush() -> None:
            if not pending:
                return
            text = inline_text(" ".join(s for _, s in pending))
            if text:
                self._add(Block(kind="text", lines=[_line(text, pending[0][0], pending[-1][0])]))
            pending.clear()

        for n, s in lines:
            images = list(_MD_IMAGE_RE.finditer(s)) + list(_HTML_IMG_RE.finditer(s))
            if not images:
                pending.append((n, s))
                continue
            images.sort(key=lambda m: m.start())
            pos = 0
            for m in images:
                before = s[pos : m.start()]
                if before.strip():
                    pending.append((n, before))
                flush()
                self._figure(m, n)
                pos = m.end()
            rest = s[pos:]
            if rest.strip():
                pending.append((n, rest))
        flush()

    def _figure(self, m: re.Match[str], n: int) -> None:
        if m.re is _HTML_IMG_RE:
            attrs = {k.lower(): (a or b or c) for k, a, b, c in _ATTR_RE.findall(m.group("attrs"))}
            src, alt, title = attrs.get("src", ""), attrs.get("alt", ""), attrs.get("title", "")
        else:
            src, alt, title = m.group("src"), m.group("alt"), m.group("title") or ""
        src = src.strip()
        if src.startswith("<") and src.endswith(">"):
            src = src[1:-1]
        alt_text, title_text = inline_text(html.unescape(alt)), inline_text(html.unescape(title))
        texts = [t for t in (alt_text, title_text) if t]
        if len(texts) == 2 and texts[0] == texts[1]:
            texts = texts[:1]
        fig = Figure(bbox=(0.0, float(n), 0.0, float(n)), source="markdown")
        index = self._add(Block(kind="figure", lines=[_line(t, n) for t in texts], figure=fig))
        self.out.images[index] = ImageRef(src=src, alt=alt_text, title=title_text, line_no=n)

    def _html_block(self, lines: list[SrcLine]) -> None:
        joined = "\n".join(s for _, s in lines)
        figcaptions = _FIGCAPTION_RE.findall(joined)
        body = _FIGCAPTION_RE.sub("", joined)
        first_fig = len(self.out.blocks)
        had_image = bool(_HTML_IMG_RE.search(body) or _MD_IMAGE_RE.search(body))
        # Paragraph handling splits images out; remaining tag-stripped text becomes text blocks.
        body_lines = body.split("\n")
        self._paragraph(
            [(lines[min(i, len(lines) - 1)][0], s) for i, s in enumerate(body_lines) if s.strip()]
        )
        for cap in figcaptions:
            text = inline_text(cap)
            if not text:
                continue
            last = lines[-1][0]
            target = None
            if had_image:
                target = next(
                    (
                        i
                        for i in range(len(self.out.blocks) - 1, first_fig - 1, -1)
                        if self.out.blocks[i].kind == "figure"
                    ),
                    None,
                )
            self._add(Block(kind="caption", lines=[_line(text, lines[0][0], last)], caption_of=target))

    def _table(self, rows: list[SrcLine], delim_line: int) -> None:
        header = _split_row(rows[0][1])
        n_cols = len(header)
        cells: list[TableCell] = []
        body_rows = [r for r in rows[1:] if r[0] != delim_line]
        all_rows = [(rows[0][0], header)] + [(n, _split_row(s)) for n, s in body_rows]
        lines: list[Line] = []
        for r, (n, row_cells) in enumerate(all_rows):
            row_cells = (row_cells + [""] * n_cols)[:n_cols]
            box = (0.0, float(n), 0.0, float(n))
            for c, text in enumerate(row_cells):
                cells.append(TableCell(row=r, col=c, text=text, bbox=box))
            lines.append(_line(" | ".join(row_cells), n))
        first, last = rows[0][0], rows[-1][0]
        table = Table(
            bbox=(0.0, float(first), 0.0, float(last)),
            cells=cells,
            n_rows=len(all_rows),
            n_cols=n_cols,
            header_rows=1,
        )
        self._add(Block(kind="table", lines=lines, table=table))

    # -- the main loop
    def parse(self, src: list[SrcLine]) -> _Parsed:
        i, n_lines = 0, len(src)
        para: list[SrcLine] = []

        def end_para() -> None:
            if para:
                self._paragraph(list(para))
                para.clear()

        while i < n_lines:
            n, s = src[i]
            stripped = s.strip()
            if not stripped:
                end_para()
                i += 1
                continue
            indent = len(s) - len(s.lstrip(" "))

            # Fences may be indented (inside list items); checked before indented code.
            m = _FENCE_RE.match(s)
            if m:
                end_para()
                i = self._fenced(src, i, m)
                continue

            # indented code (not a paragraph continuation)
            if indent >= 4 and not para:
                j = i
                code: list[SrcLine] = []
                while j < n_lines and (not src[j][1].strip() or _indent(src[j][1]) >= 4):
                    code.append((src[j][0], src[j][1][4:]))
                    j += 1
                while code and not code[-1][1].strip():
                    code.pop()
                self._add(Block(kind="code", lines=[_line(t.rstrip(), ln, mono=True) for ln, t in code]))
                i = j
                continue

            if _is_math_open(stripped):
                end_para()
                i = self._math(src, i)
                continue

            m = _ATX_RE.match(s)
            if m:
                end_para()
                text = inline_text(m.group(2) or "")
                if text:
                    self._add(Block(kind="heading", lines=[_line(text, n, bold=True)], level=len(m.group(1))))
                i += 1
                continue

            if para and _SETEXT_RE.match(s) and not _LIST_RE.match(para[0][1]):
                level = 1 if stripped.startswith("=") else 2
                text = inline_text(" ".join(t for _, t in para))
                self._add(Block(kind="heading", lines=[_line(text, para[0][0], n, bold=True)], level=level))
                para.clear()
                i += 1
                continue

            if _HR_RE.match(s):
                end_para()
                i += 1
                continue

            if _QUOTE_RE.match(s):
                end_para()
                j = i
                inner: list[SrcLine] = []
                while j < n_lines and src[j][1].strip():
                    qm = _QUOTE_RE.match(src[j][1])
                    inner.append((src[j][0], qm.group(1) if qm else src[j][1]))
                    j += 1
                sub = _Parser()
                sub.parse(inner)
                offset = len(self.out.blocks)
                for k, blk in enumerate(sub.out.blocks):
                    if blk.caption_of is not None:
                        blk.caption_of += offset
                    self.out.blocks.append(blk)
                    if k in sub.out.images:
                        self.out.images[offset + k] = sub.out.images[k]
                i = j
                continue

            m = _LIST_RE.match(s)
            if m and (not para or m.group(3)):
                # A list marker interrupts a paragraph only when the item has content.
                end_para()
                i = self._list(src, i)
                continue

            if "|" in s and i + 1 < n_lines and "|" in src[i + 1][1] and _TABLE_DELIM_RE.match(src[i + 1][1]):
                end_para()
                j = i + 2
                rows = [src[i], src[i + 1]]
                while j < n_lines and src[j][1].strip() and "|" in src[j][1]:
                    rows.append(src[j])
                    j += 1
                self._table(rows, src[i + 1][0])
                i = j
                continue

            if not para and _HTML_BLOCK_RE.match(s) and not _HTML_IMG_RE.match(stripped):
                j = i
                block: list[SrcLine] = []
                while j < n_lines and src[j][1].strip():
                    block.append(src[j])
                    j += 1
                self._html_block(block)
                i = j
                continue

            para.append((n, s.strip()))
            i += 1
        end_para()
        return self.out

    def _fenced(self, src: list[SrcLine], i: int, m: re.Match[str]) -> int:
        fence, info = m.group(2), m.group(3).strip().lower()
        base_indent = len(m.group(1))
        j = i + 1
        body: list[SrcLine] = []
        while j < len(src):
            t = src[j][1]
            ts = t.strip()
            if ts.startswith(fence[0] * len(fence)) and set(ts) == {fence[0]}:
                j += 1
                break
            body.append((src[j][0], _dedent(t, base_indent)))
            j += 1
        lang = info.split()[0] if info else ""
        if lang in ("math", "latex-math", "katex"):
            text = "\n".join(t for _, t in body).strip()
            if text:
                first, last = (body[0][0], body[-1][0]) if body else (src[i][0], src[i][0])
                self._add(Block(kind="formula", lines=[_line(text, first, last)]))
            return j
        if body:
            self._add(Block(kind="code", lines=[_line(t.rstrip(), ln, mono=True) for ln, t in body]))
        return j

    def _math(self, src: list[SrcLine], i: int) -> int:
        n, s = src[i]
        t = s.strip()
        opener = "$$" if t.startswith("$$") else "\\["
        closer = "$$" if opener == "$$" else "\\]"
        rest = t[len(opener) :]
        parts: list[str] = []
        j = i
        if closer in rest:
            parts.append(rest[: rest.index(closer)])
            j = i + 1
        else:
            parts.append(rest)
            j = i + 1
            while j < len(src):
                line = src[j][1]
                if closer in line:
                    parts.append(line[: line.index(closer)])
                    j += 1
                    break
                parts.append(line)
                j += 1
        text = "\n".join(p.strip() for p in parts if p.strip())
        if text:
            self._add(Block(kind="formula", lines=[_line(text, n, src[j - 1][0])]))
        return j

    def _list(self, src: list[SrcLine], i: int) -> int:
        """Consume a list starting at line i; return the index after it.

        One "list" block per run of items (one Line per item, continuation lines joined).
        Fenced code inside an item is emitted in place as a code block; the list goes on
        after it as a new block. Images in items also become figure blocks.
        """
        items: list[tuple[int, int, list[str]]] = []  # (first line, last line, texts)
        j = i
        base = _indent(src[i][1])
        blank_run = 0
        while j < len(src):
            n, s = src[j]
            if not s.strip():
                blank_run += 1
                j += 1
                continue
            m = _LIST_RE.match(s)
            ind = _indent(s)
            if m and not _HR_RE.match(s) and ind >= base - 1:
                items.append((n, n, [m.group(3) or ""]))
                blank_run = 0
                j += 1
                continue
            if blank_run and ind <= base:
                break  # a non-indented line after a blank line ends the list
            if ind <= base + 1 and (
                _ATX_RE.match(s) or _HR_RE.match(s) or _QUOTE_RE.match(s) or _is_math_open(s.strip())
            ):
                break
            fm = _FENCE_RE.match(s)
            if fm:
                if ind <= base:
                    break
                self._emit_items(items)
                items = []
                j = self._fenced(src, j, fm)
                blank_run = 0
                continue
            if items and not blank_run:
                first, _, texts = items[-1]
                texts.append(s.strip())
                items[-1] = (first, n, texts)
            else:
                # A new paragraph inside an item (after a blank line or a code block).
                items.append((n, n, [s.strip()]))
            blank_run = 0
            j += 1
        # Give back trailing blank lines to the caller.
        while j > i and not src[j - 1][1].strip():
            j -= 1
        self._emit_items(items)
        return j

    def _emit_items(self, items: list[tuple[int, int, list[str]]]) -> None:
        lines = []
        for first, last, texts in items:
            text = inline_text(" ".join(texts))
            if text:
                lines.append(_line(text, first, last))
        if lines:
            self._add(Block(kind="list", lines=lines))
        for first, _, texts in items:
            raw = " ".join(texts)
            if _has_image(raw):
                found = list(_MD_IMAGE_RE.finditer(raw)) + list(_HTML_IMG_RE.finditer(raw))
                for m in sorted(found, key=lambda m: m.start()):
                    self._figure(m, first)


def _is_math_open(stripped: str) -> bool:
    """`$$...` opens display math; `\\[` only alone on its line or closed by `\\]` on it
    (otherwise it is an escaped bracket, as in `\\[!TIP]`)."""
    if stripped.startswith("$$"):
        return True
    return stripped == "\\[" or (stripped.startswith("\\[") and stripped.endswith("\\]"))


def _has_image(s: str) -> bool:
    return bool(_MD_IMAGE_RE.search(s) or _HTML_IMG_RE.search(s))


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip(" "))


def _dedent(s: str, n: int) -> str:
    k = 0
    while k < n and k < len(s) and s[k] == " ":
        k += 1
    return s[k:]


def _split_row(s: str) -> list[str]:
    """Cells of a pipe-table row: outer pipes optional, `\\|` and pipes inside code spans kept."""
    t = s.strip()
    if t.startswith("|"):
        t = t[1:]
    if t.endswith("|") and not t.endswith("\\|"):
        t = t[:-1]
    if "`" not in t and "\\" not in t:
        return [inline_text(c) for c in t.split("|")]
    cells, cur, in_code, k = [], [], False, 0
    while k < len(t):
        ch = t[k]
        if ch == "\\" and k + 1 < len(t) and t[k + 1] == "|":
            cur.append("|")
            k += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        k += 1
    cells.append("".join(cur))
    return [inline_text(c) for c in cells]


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


def parse_markdown_text(text: str) -> tuple[list[Block], dict[int, ImageRef]]:
    """Parse Markdown source into page-1 blocks (captions linked) and the images by block index."""
    parsed = _Parser().parse(_preprocess(text))
    _link_captions(parsed.blocks)
    return parsed.blocks, parsed.images


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
        target = (self.path.parent / rel).resolve()
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
        data = path.read_bytes()
    except OSError as e:
        raise CorruptDocumentError(str(path), f"cannot read the file ({e.strerror or e})") from e
    text = decode_markdown_bytes(data, str(path))
    blocks, images = parse_markdown_text(text)
    title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1 and b.text), path.stem)
    return MarkdownDocument(path, blocks, images, title, ocr)
