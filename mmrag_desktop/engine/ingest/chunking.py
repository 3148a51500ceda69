"""Turn a stream of parsed pages into chunks sized for the text embedder.

Each chunk keeps the boxes of every line it contains (it may cross a page break) and
its segments: sentence-sized character spans of its text, each mapped to its lines, so
search can highlight the lines that match best. Tables become header-repeating row
groups (segments = rows, lines = cells); figures gather caption, label text, section
and the sentences elsewhere that refer to them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace

from ..elements import BBox, Block, Figure, Line, PageContent, union_bbox
from ..sentence_split import sentence_spans
from .dehyphenate import Vocabulary, join_hyphenated

CAPTION_RE = re.compile(r"^\s*(fig(?:ure)?\.?|table|tab\.)\s*([0-9]+(?:[.\-\u2013][0-9]+)*)", re.I)
REFERENCE_RE = re.compile(r"\b(fig(?:ure)?s?\.?|tables?|tab\.)\s+([0-9]+(?:[.\-\u2013][0-9]+)*)", re.I)
# a table-of-contents or index line: dot leaders then a page number, or a term followed by page lists
_NAV_LINE = re.compile(r"(?:(?:\.\s?){4,}|\s{3,}|\u2026)\s*[0-9ivxlc]+\s*$|,\s*\d+(?:\s*,\s*\d+)+\s*$", re.I)
# a chunk's overlap with the next opens with a whole declaration: at most this many lines back to its name,
# whose arguments' bracket stays open to the end of its line
STATEMENT_LINES = 6
# a rule drawn with characters: a text table's "+--------+----+", an underline "=======" (GNU PSPP's output
# tables: each rule line cost a word piece a character, and a chunk held four lines of a table)
_RULE_RUN = re.compile(r"([-=_~*+#\u2500\u2501\u2550])\1{3,}")


def blank_rules(text: str) -> str:
    """`text` with every run of four or more rule characters cut to its first and spaces (the same length:
    the embedder's character offsets of segments stay true), as the embedder and the chunk budget read it."""
    return _RULE_RUN.sub(lambda m: m.group(1) + " " * (len(m.group(0)) - 1), text)

_OPENS_ARGUMENTS = re.compile(r"[A-Za-z_]\w*\([^()]*$")


def group_key_for(label: str, number: str) -> str:
    """'Fig.', '4.12' -> 'figure:4-12'; 'Table', '3' -> 'table:3'."""
    kind = "table" if label.lower().startswith("tab") else "figure"
    return kind + ":" + re.sub("[.\u2013]", "-", number)


@dataclass
class ChunkLine:
    page: int
    bbox: BBox
    text: str
    start: int = 0  # char offsets of this line inside the chunk text
    end: int = 0


@dataclass
class ChunkDraft:
    """A chunk before storage. `segments` are (start, end) char spans of `text`."""

    kind: str
    text: str
    section: str
    lines: list[ChunkLine]
    segments: list[tuple[int, int]]
    group_key: str | None = None
    figure: Figure | None = None
    refers_to: set[str] = field(default_factory=set)
    region: tuple[int, BBox] | None = None  # (page, bbox) of a figure/table region
    meta: dict = field(default_factory=dict)

    @property
    def pages(self) -> list[int]:
        return sorted({ln.page for ln in self.lines} | ({self.region[0]} if self.region else set()))

    def spans(self) -> list[dict]:
        """Per page touched: the union box of this chunk's lines (or its region)."""
        out = []
        for p in self.pages:
            boxes = [ln.bbox for ln in self.lines if ln.page == p]
            if self.region and self.region[0] == p:
                boxes.append(self.region[1])
            bb = union_bbox(boxes)
            if bb:
                out.append({"page": p, "bbox": list(bb)})
        return out

    def segment_lines(self) -> list[list[int]]:
        """For each segment, the indices of the lines it overlaps."""
        out = []
        for a, b in self.segments:
            out.append([i for i, ln in enumerate(self.lines) if ln.start < b and ln.end > a])
        return out


class Chunker:
    """Stateful chunker: feed pages in order with `add_page`, then call `finish`.

    `count_tokens(list[str]) -> list[int]` measures word pieces with the embedder's
    tokenizer; `max_tokens` is the content budget per chunk (model window minus specials);
    `words` are known lower-case words, for joining words hyphenated at line ends (dehyphenate.py).
    """

    def __init__(
        self,
        count_tokens: Callable[[list[str]], list[int]],
        max_tokens: int = 240,
        target_tokens: int = 200,
        overlap_tokens: int = 32,
        words: Collection[str] = frozenset(),
    ):
        self.count = count_tokens
        self.max_tokens = max_tokens
        self.target = min(target_tokens, max_tokens)
        self.overlap = overlap_tokens
        self.headings: list[tuple[int, str]] = []  # (level, text) stack
        self._cur: list[tuple[Line, int]] = []  # current text lines with token counts
        self._cur_tokens = 0
        self._cur_section = ""
        self._block_starts: set[int] = set()  # ids of lines that start a block (paragraph)
        self._notes: list[tuple[Line, int]] = []  # footnotes waiting for the chunk they annotate
        self._ready: list[ChunkDraft] = []
        self._figures: list[ChunkDraft] = []  # held until the end for reference sentences
        self.references: dict[str, list[str]] = {}  # group key -> sentences referring to it
        self.vocabulary = Vocabulary(words)  # the document's words so far: which line-end hyphens to keep

    # ---- public API ---------------------------------------------------------------------
    def add_page(self, page: PageContent) -> list[ChunkDraft]:
        """Consume one page; return the chunks completed so far (figure chunks come in `finish`)."""
        blocks = [_with_short_lines(b) for b in page.blocks]
        self.vocabulary.add(ln.text for b in blocks if b.kind != "table" for ln in b.lines)
        blocks = [b if b.kind in ("table", "figure", "code", "formula") else replace(b, lines=join_hyphenated(b.lines, self.vocabulary))
                  for b in blocks]
        captions = {b.caption_of: b for b in blocks if b.kind == "caption" and b.caption_of is not None}
        # one tokenizer call per page for every text line
        text_lines = [ln for b in blocks if b.kind not in ("table", "figure", "caption") for ln in b.lines]
        counts = self.count([blank_rules(ln.text) for ln in text_lines]) if text_lines else []
        token_of = {id(ln): c for ln, c in zip(text_lines, counts, strict=True)}
        for i, block in enumerate(blocks):
            if block.kind == "heading":
                self._flush()
                self._push_heading(block)
            elif block.kind == "table" and block.table is not None:
                self._flush_if_large()
                self._ready.extend(self._table_chunks(block, captions.get(i), page.page))
            elif block.kind == "figure" and block.figure is not None:
                self._figures.append(self._figure_chunk(block, captions.get(i), page.page))
            elif block.kind == "caption":
                if block.caption_of is None:
                    self._ready.append(self._orphan_caption(block))
            elif block.kind == "footnote":  # after the text it annotates, never inside a sentence
                self._notes.extend((ln, token_of.get(id(ln), 0) + 1) for ln in block.lines if ln.text.strip())
            elif block.kind == "formula":
                self._add_lines(block.lines, token_of)
            else:
                self._add_lines(block.lines, token_of)
        out, self._ready = self._ready, []
        return out

    def finish(self) -> list[ChunkDraft]:
        """Flush the last text chunk and return it with every figure chunk."""
        self._flush()
        out = self._ready
        self._ready = []
        for fig in self._figures:
            refs = self.references.get(fig.group_key or "", [])
            if refs:
                extra = " ".join(refs)
                extra_tokens = self.count([extra])[0]
                own = self.count([fig.text])[0]
                budget = max(0, self.max_tokens - own - 8)
                if extra_tokens > budget:
                    extra = _truncate_words(extra, budget / max(extra_tokens, 1))
                if extra:
                    fig.text = f"{fig.text}\nReferenced as: {extra}"
                    fig.meta["references"] = len(refs)
        out.extend(self._figures)
        self._figures = []
        return out

    # ---- text flow ----------------------------------------------------------------------
    @property
    def section(self) -> str:
        return " > ".join(t for _, t in self.headings)

    def _push_heading(self, block: Block) -> None:
        text = " ".join(ln.text.strip() for ln in block.lines).strip()
        if not text:
            return
        level = max(1, block.level or 1)
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text[:200]))

    def _add_lines(self, lines: list[Line], token_of: dict[int, int]) -> None:
        if not self._cur:
            self._cur_section = self.section
        first = True
        for ln in lines:
            if not ln.text.strip():
                continue
            n = token_of.get(id(ln), 0) + 1
            if self._cur and self._cur_tokens + n > self.target:
                self._flush(keep_overlap=True)
            if first:
                self._block_starts.add(id(ln))
                first = False
            self._cur.append((ln, n))
            self._cur_tokens += n
            self._note_references(ln.text)

    def _note_references(self, text: str) -> None:
        for m in REFERENCE_RE.finditer(text):
            key = group_key_for(m.group(1), m.group(2))
            refs = self.references.setdefault(key, [])
            if len(refs) < 4:
                refs.append(text.strip())

    def _flush_if_large(self) -> None:
        if self._cur_tokens >= self.target // 2:
            self._flush()

    def _flush(self, keep_overlap: bool = False) -> None:
        """Close the current text chunk; waiting footnotes end it (or, when they do not fit, follow
        it as a chunk of their own)."""
        notes, self._notes = self._notes, []
        if not self._cur:
            self._note_chunks(notes, self.section)
            return
        lines = [ln for ln, _ in self._cur]
        if notes and self._cur_tokens + sum(n for _, n in notes) <= self.max_tokens:
            note_lines = [ln for ln, _ in notes]
            self._ready.append(_text_chunk(lines + note_lines, self._cur_section,
                                           self._block_starts | _note_starts(note_lines)))
        else:
            self._ready.append(_text_chunk(lines, self._cur_section, self._block_starts))
            self._note_chunks(notes, self._cur_section)
        if keep_overlap and self.overlap > 0:
            k = len(self._cur)
            t = 0
            while k > 0 and t + self._cur[k - 1][1] <= self.overlap:
                k -= 1
                t += self._cur[k][1]
            k = _statement_start(self._cur, k)
            self._cur = self._cur[k:]
            self._cur_tokens = sum(n for _, n in self._cur)
        else:
            self._cur, self._cur_tokens = [], 0
            self._block_starts.clear()
        self._cur_section = self.section

    def _note_chunks(self, notes: list[tuple[Line, int]], section: str) -> None:
        """Footnotes that did not fit their text's chunk, in chunks of their own within the budget."""
        group: list[Line] = []
        used = 0
        for ln, n in notes:
            if group and used + n > self.max_tokens:
                self._ready.append(_text_chunk(group, section, _note_starts(group)))
                group, used = [], 0
            group.append(ln)
            used += n
        if group:
            self._ready.append(_text_chunk(group, section, _note_starts(group)))

    # ---- tables -------------------------------------------------------------------------
    def _table_chunks(self, block: Block, caption: Block | None, page: int) -> list[ChunkDraft]:
        table = block.table
        assert table is not None
        rows = [r for r in table.rows() if any(c.text.strip() for c in r)]
        if not rows:
            return []
        h = min(max(table.header_rows, 0), len(rows) - 1) if len(rows) > 1 else 0
        header = rows[:h]
        names = _header_names(header, table.n_cols)
        cap_text = caption.text.strip() if caption else ""
        key = _caption_key(cap_text)
        head_text = " | ".join(n for n in names if n)
        prefix_tokens = self.count([cap_text + " " + head_text])[0] + 4
        body = rows[h:]
        row_texts = [_row_text(r, names) for r in body]
        row_tokens = self.count(row_texts) if row_texts else []
        chunks: list[ChunkDraft] = []
        group: list[int] = []
        used = prefix_tokens
        for i, n in enumerate(row_tokens):
            if group and used + n + 1 > self.max_tokens:
                chunks.append(self._table_chunk(caption, cap_text, header, head_text, body, row_texts, group, key, page, table.bbox))
                group, used = [], prefix_tokens
            group.append(i)
            used += n + 1
        if group or not chunks:
            chunks.append(self._table_chunk(caption, cap_text, header, head_text, body, row_texts, group, key, page, table.bbox))
        for c in chunks:
            c.meta["table_parts"] = len(chunks)
        return chunks

    def _table_chunk(self, caption, cap_text, header, head_text, body, row_texts, group, key, page, bbox):
        parts: list[tuple[str, list[ChunkLine], bool]] = []  # (text, lines, is_segment)
        if cap_text:
            parts.append((cap_text, [ChunkLine(ln.page, ln.bbox, ln.text) for ln in caption.lines], True))
        if head_text:
            parts.append((head_text, [ChunkLine(page, c.bbox, c.text) for r in header for c in r if c.text.strip()], False))
        for i in group:
            parts.append((row_texts[i], [ChunkLine(page, c.bbox, c.text) for c in body[i] if c.text.strip()], True))
        text, lines, segments = _assemble(parts)
        return ChunkDraft(
            kind="table", text=text, section=self.section, lines=lines, segments=segments,
            group_key=key, region=(page, bbox),
        )

    # ---- figures ------------------------------------------------------------------------
    def _figure_chunk(self, block: Block, caption: Block | None, page: int) -> ChunkDraft:
        fig = block.figure
        assert fig is not None
        cap_text = caption.text.strip() if caption else ""
        parts: list[tuple[str, list[ChunkLine], bool]] = []
        if cap_text:
            parts.append((cap_text, [ChunkLine(ln.page, ln.bbox, ln.text) for ln in caption.lines], True))
        label_texts = {ln.text.strip() for ln in fig.label_lines}
        context = " ".join(ln.text.strip() for ln in block.lines if ln.text.strip() and ln.text.strip() not in label_texts)
        if context:
            parts.append((context, [], True))
        labels = fig.label_text
        if labels:
            labels = _truncate_words(labels, 1.0, max_words=120)
            parts.append((f"Labels: {labels}", [], True))
        if self.section:
            parts.append((f"Section: {self.headings[-1][1]}", [], False))
        if not parts:
            parts.append(("Figure", [], True))
        text, lines, segments = _assemble(parts)
        return ChunkDraft(
            kind="figure", text=text, section=self.section, lines=lines, segments=segments,
            group_key=_caption_key(cap_text), figure=fig, region=(page, fig.bbox),
            meta={"source": fig.source, "has_caption": bool(cap_text)},
        )

    def _orphan_caption(self, block: Block) -> ChunkDraft:
        parts = [(block.text.strip(), [ChunkLine(ln.page, ln.bbox, ln.text) for ln in block.lines], True)]
        text, lines, segments = _assemble(parts)
        return ChunkDraft(
            kind="caption", text=text, section=self.section, lines=lines, segments=segments,
            group_key=_caption_key(text),
        )


def chunk_pages(pages: Iterable[PageContent], chunker: Chunker) -> Iterator[tuple[int, list[ChunkDraft]]]:
    """Yield (page number, chunks completed after that page); the last item has page 0."""
    for page in pages:
        yield page.page, chunker.add_page(page)
    yield 0, chunker.finish()


# ---- helpers ----------------------------------------------------------------------------
def _note_starts(lines: list[Line]) -> set[int]:
    """ids of the footnote lines that begin a note: the first, and each that opens with a mark."""
    return {id(ln) for i, ln in enumerate(lines) if i == 0 or ln.note_mark}


def _text_chunk(lines: list[Line], section: str, block_starts: set[int] | None = None) -> ChunkDraft:
    """Join lines into text; segments are sentences, never crossing a block (paragraph) boundary."""
    text_parts: list[str] = []
    clines: list[ChunkLine] = []
    cuts = [0]
    pos = 0
    for ln in lines:
        t = ln.text.strip()
        if text_parts:
            text_parts.append("\n")
            pos += 1
            if block_starts and id(ln) in block_starts:
                cuts.append(pos)
        clines.append(ChunkLine(ln.page, ln.bbox, t, pos, pos + len(t)))
        text_parts.append(t)
        pos += len(t)
    text = "".join(text_parts)
    cuts.append(len(text))
    segments = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        segments.extend((a + x, a + y) for x, y in _sentences(text[a:b]) if text[a + x : a + y].strip())
    draft = ChunkDraft(kind="text", text=text, section=section, lines=clines, segments=segments or [(0, len(text))])
    nav = sum(1 for ln in clines if _NAV_LINE.search(ln.text))
    if clines and nav / len(clines) >= 0.4:
        draft.meta["nav"] = True  # table of contents / index: ranked lower
    return draft


def _sentences(text: str, max_chars: int = 400) -> list[tuple[int, int]]:
    """Sentence spans of `text` (the shared splitter, sentence_split.py, also cutting after a ';'
    or ':' that a capital follows); long runs without punctuation are cut at line ends."""
    out: list[tuple[int, int]] = []
    for a, b in sentence_spans(text, clauses=True):
        while b - a > max_chars:
            cut = text.rfind("\n", a, a + max_chars)
            if cut <= a:
                cut = a + max_chars
            out.append((a, cut))
            a = cut + 1
        if b > a and text[a:b].strip():
            out.append((a, b))
    return out or [(0, len(text))]


def _assemble(parts: list[tuple[str, list[ChunkLine], bool]]) -> tuple[str, list[ChunkLine], list[tuple[int, int]]]:
    """Join parts with newlines; each part with is_segment=True becomes one segment."""
    text = ""
    lines: list[ChunkLine] = []
    segments: list[tuple[int, int]] = []
    for part, plines, is_segment in parts:
        if text:
            text += "\n"
        a = len(text)
        text += part
        b = len(text)
        for ln in plines:
            lines.append(ChunkLine(ln.page, ln.bbox, ln.text, a, b))
        if is_segment:
            segments.append((a, b))
    return text, lines, segments or [(0, len(text))]


def _statement_start(lines: list[tuple[Line, int]], k: int) -> int:
    """Where a chunk's overlap with the next starts: at `k`, or earlier when the line at `k` closes a
    round bracket opened at most STATEMENT_LINES lines above (a declaration's arguments over lines: the
    next chunk opens with "int gsicc_init_device_profile_struct(gx_device * dev, char *profile_name,",
    not with "gsicc_profile_types_t profile_type);" above the description of the function it names)."""
    if not 0 < k < len(lines):
        return k
    text = lines[k][0].text
    need = text.count(")") - text.count("(")
    j = k
    while need > 0 and j > 0 and k - j < STATEMENT_LINES:
        j -= 1
        text = lines[j][0].text
        need -= text.count("(") - text.count(")")
    # a name's arguments, not a remark in brackets that prose goes on with ("... are used (they have
    # their special meanings then and act as string" / "delimiters).")
    return j if need <= 0 and _OPENS_ARGUMENTS.search(lines[j][0].text) else k


MAX_LINE_CHARS = 1000  # a chunk stores the lines it touches: a 1 MB "line" would be stored by each of them


def _with_short_lines(block: Block) -> Block:
    """The block with every text line longer than MAX_LINE_CHARS cut at spaces into pieces with the
    same box (a Markdown paragraph is one source "line"; a hostile one is megabytes long)."""
    if block.kind in ("table", "figure") or all(len(ln.text) <= MAX_LINE_CHARS for ln in block.lines):
        return block
    lines = []
    for ln in block.lines:
        text = ln.text
        while len(text) > MAX_LINE_CHARS:
            cut = text.rfind(" ", MAX_LINE_CHARS // 2, MAX_LINE_CHARS)
            cut = cut if cut > 0 else MAX_LINE_CHARS
            lines.append(replace(ln, text=text[:cut]))
            text = text[cut:].lstrip()
        if text:
            lines.append(replace(ln, text=text))
    return replace(block, lines=lines)


def _header_names(header: list, n_cols: int) -> list[str]:
    names = [""] * n_cols
    for row in header:
        for c in row:
            if 0 <= c.col < n_cols and c.text.strip():
                names[c.col] = (names[c.col] + " " + c.text.strip()).strip()
    return names


def _row_text(row: list, names: list[str]) -> str:
    cells = []
    for c in row:
        t = " ".join(c.text.split())
        if not t:
            continue
        name = names[c.col] if 0 <= c.col < len(names) else ""
        cells.append(f"{name}: {t}" if name and name != t else t)
    return " | ".join(cells)


def _caption_key(caption: str) -> str | None:
    m = CAPTION_RE.match(caption or "")
    return group_key_for(m.group(1), m.group(2)) if m else None


def _truncate_words(text: str, ratio: float, max_words: int | None = None) -> str:
    words = text.split()
    keep = int(len(words) * min(ratio, 1.0))
    if max_words is not None:
        keep = min(keep, max_words)
    return " ".join(words[:keep])
