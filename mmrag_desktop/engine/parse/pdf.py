"""PDF parser: streams pages of positioned blocks (text, headings, lists, code, tables,
figures, captions) with PyMuPDF. Pages without a text layer are OCR'd when an `Ocr` is given.

Per page: one textpage ("dict" lines), running headers/footers dropped by comparing the
margins with a small window of neighbouring pages, ruled tables (gated) and borderless tables
named by a "Table N:" caption, figures (raster
and vector), reading order by columns, paragraphs, headings from the outline or fonts,
captions linked to their figure or table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..elements import BBox, Block, Figure, Line, PageContent
from ..errors import CorruptDocumentError, EncryptedDocumentError, EngineError
from .ocr import Ocr
from .pdf_blocks import caption_kind, group_paragraphs
from .pdf_captions import link_captions
from .pdf_figures import (
    image_coverage,
    lines_inside,
    merge_close,
    pad_with_labels,
    raster_regions,
    render_crop,
    repeated_images,
    vector_regions,
)
from .pdf_footnotes import footnote_lines, mark_set_apart
from .pdf_furniture import Signature, boxed_header, drawing_mark, furniture_ids, margin_marks, signature
from .pdf_headings import FontStats, match_toc, toc_by_page
from .pdf_layout import reading_segments, same_row
from .pdf_lines import (
    char_count,
    dict_with_underscores,
    exponent_marks,
    has_tex_codes,
    join_underscored,
    lines_from_dict,
    listing_numbers,
    margin_notes,
    mark_exponents,
    merge_row,
    textpage_flags,
    underscore_rules,
    words_from_raw,
)
from .pdf_tables import (
    TableMode,
    find_captioned_tables,
    find_ruled_tables,
    has_ruling,
    table_lines,
    uncaptioned_table_captions,
)

WINDOW = 2  # neighbouring pages on each side compared for running headers/footers
SAMPLE_PAGES = 12  # pages sampled for the body font size
OCR_DPI = 200
OCR_MAX_PIXELS = 25_000_000  # a poster-sized scanned page is read at lower resolution, not rendered at 200 dpi
SCANNED_IMAGE_COVERAGE = 0.5

T = TypeVar("T")


@dataclass
class _Extracted:
    index: int
    page: Any
    textpage: Any
    lines: list[Line]
    sig: Signature
    exponents: list[tuple[BBox, str]]
    drawings: list[dict[str, Any]]
    underscores: list[BBox]  # the short rules among `drawings` (underscore_rules)
    tex_codes: bool = False  # the page's text holds a TeX font's codes (has_tex_codes)
    marks: frozenset = frozenset()  # where the drawings in the margin bands lie (margin_marks)

    def words(self) -> list[tuple]:
        """The page's word list, exponents marked ("10^6"), words an underscore rule joins joined;
        from the characters where a TeX font's codes would split MuPDF's words (words_from_raw)."""
        words = words_from_raw(self.textpage.extractRAWDICT()) if self.tex_codes else self.textpage.extractWORDS()
        return join_underscored(mark_exponents(words, self.exponents), self.underscores)


class PdfDocument:
    """An open PDF. `pages()` streams `PageContent`; call `close()` (or use `with`) when done."""

    kind = "pdf"

    def __init__(
        self,
        path: Path,
        doc: Any,
        *,
        ocr: Ocr | None = None,
        tables: TableMode = "layout",
        figure_crops: bool = True,
    ):
        self.path = path
        self._doc = doc
        self.ocr = ocr
        self.tables = tables
        self.figure_crops = figure_crops
        self.page_count: int = doc.page_count
        meta_title = (doc.metadata or {}).get("title") or ""
        self.title: str = meta_title.strip() or path.stem
        toc = doc.get_toc(simple=False)
        heights = {
            e[2]: float(doc.page_cropbox(e[2] - 1).height) for e in toc if 1 <= e[2] <= self.page_count
        }
        self._toc = toc_by_page(toc, heights)
        self._stats = self._font_stats()
        self._repeated = repeated_images(doc)
        # Counters for diagnostics and benchmarks (filled while pages() runs).
        self.stats: dict[str, int] = {
            "toc_entries": sum(len(v) for v in self._toc.values()),
            "toc_matched": 0,
            "table_pages_checked": 0,
            "captioned_table_pages_checked": 0,
            "tables": 0,
            "figures": 0,
            "ocr_pages": 0,
            "footnotes": 0,
        }

    def __enter__(self) -> PdfDocument:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def repaired(self) -> bool:
        """True when the file was damaged (e.g. cut short) and PyMuPDF had to repair it to read it."""
        return bool(getattr(self._doc, "is_repaired", False))

    def close(self) -> None:
        """Release the file."""
        if self._doc is not None:
            self._doc.close()
            self._doc = None

    @property
    def has_outline(self) -> bool:
        """True when the PDF has an outline (bookmarks) used for headings."""
        return bool(self._toc)

    @property
    def body_size(self) -> float:
        """The body text font size found in the sampled pages."""
        return self._stats.body_size

    def pages(self) -> Iterator[PageContent]:
        """Yield each page's content in order (page numbers from 1).

        Raises CorruptDocumentError naming the page when a page cannot be parsed, and
        ModelError when OCR is needed, was requested, and cannot load.
        """
        if self._doc is None:
            raise CorruptDocumentError(str(self.path), "the document is closed")
        n = self.page_count
        buf: dict[int, _Extracted] = {}
        nxt = 0
        for i in range(n):
            while nxt < n and nxt <= i + WINDOW:
                buf[nxt] = self._guard(nxt, self._extract, nxt)
                nxt += 1
            near = [buf[k] for k in range(i - WINDOW, i + WINDOW + 1) if k != i and k in buf]
            content = self._guard(i, self._finish, buf[i], [e.sig for e in near], [e.marks for e in near])
            buf[i].textpage = None
            buf[i].page = None
            buf[i].drawings = []
            buf.pop(i - WINDOW, None)
            yield content

    # -- internals -------------------------------------------------------------------

    def _guard(self, index: int, fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except EngineError:
            raise
        except Exception as e:
            raise CorruptDocumentError(
                str(self.path), f"page {index + 1} could not be read ({type(e).__name__}: {e})"
            ) from e

    def _font_stats(self) -> FontStats:
        n = self.page_count
        step = max(1, n // SAMPLE_PAGES)
        lines: list[Line] = []
        for i in range(0, n, step)[:SAMPLE_PAGES]:
            try:
                page = self._doc[i]
                lines.extend(lines_from_dict(page.get_text("dict", flags=textpage_flags()), i + 1))
            except Exception:  # noqa: BLE001 - a bad page is reported by pages(), not by the sample
                continue
        return FontStats.from_lines(lines)

    def _extract(self, index: int) -> _Extracted:
        page = self._doc[index]
        tp = page.get_textpage(flags=textpage_flags())
        drawings = page.get_drawings()
        rules = underscore_rules(drawings)
        # only a page with short rules pays for the characters' boxes (an underscore TeX drew)
        page_dict = dict_with_underscores(tp.extractRAWDICT(), rules) if rules else tp.extractDICT()
        lines = lines_from_dict(page_dict, index + 1)
        return _Extracted(index, page, tp, lines, signature(lines, page.rect.height), exponent_marks(page_dict),
                          drawings, rules, has_tex_codes(page_dict), margin_marks(drawings, page.rect.height))

    def _finish(self, ext: _Extracted, neighbours: list[Signature], neighbour_marks: Sequence[frozenset] = ()) -> PageContent:
        page = ext.page
        pno = ext.index + 1
        width, height = float(page.rect.width), float(page.rect.height)
        rotation = int(page.rotation)
        drop = furniture_ids(ext.lines, height, neighbours, ext.sig) | listing_numbers(ext.lines)
        lines = [ln for ln in ext.lines if id(ln) not in drop]
        notes = margin_notes(lines)
        lines = [ln for ln in lines if id(ln) not in notes]
        has_images = bool(page.get_images(full=True))

        if (
            char_count(ext.lines) == 0
            and has_images
            and image_coverage(page, width, height) > SCANNED_IMAGE_COVERAGE
        ):
            if self.ocr is None:
                return PageContent(pno, width, height, [], rotation=rotation, has_text_layer=False)
            blocks = self._ocr_blocks(page, pno, width, height)
            self.stats["ocr_pages"] += 1
            return PageContent(
                pno, width, height, blocks, rotation=rotation, has_text_layer=False, ocr_used=True
            )

        regions: list[Block] = []
        drawings = ext.drawings
        # a drawing in a margin band where a neighbouring page has one too is the page's furniture, no figure: a
        # logo in the running header or footer and its rule (Bacula's manuals, SCons' user guide: each page's
        # "figure" was the logo, and outranked the text in search)
        running = {m for m in ext.marks if any(m in other for other in neighbour_marks)}
        drawn = [d for d in drawings if drawing_mark(d) not in running] if running else drawings
        clusters: list[BBox] = []
        if len(drawings) >= 2 and drawn:  # (one drawing left of several is a cluster of its own)
            clusters = [(r.x0, r.y0, r.x1, r.y1) for r in page.cluster_drawings(drawings=drawn)]
        words: list[tuple] | None = None
        tables = []
        if (
            self.tables != "off"
            and drawings
            and has_ruling(drawings)
            and not _only_code_frames(drawings, lines)
        ):
            words = ext.words()
            tables = find_ruled_tables(page, words, lines, pno, self.tables, drawings)
            self.stats["table_pages_checked"] += 1
            self.stats["tables"] += len(tables)
        # a ruled box round the running header (code_saturne's "EDF R&D | Code Saturne Theory Guide | Page
        # 301/428" atop every page: 335 "tables" and 68 "figures" of its theory guide) is the page's furniture
        furniture = [ln for ln in ext.lines if id(ln) in drop]
        tables, boxed, lines = _without_header_boxes(tables, lambda t: t.bbox, lines, ext.lines, furniture, height)
        captions = uncaptioned_table_captions(lines, tables) if self.tables == "layout" else []
        if captions:
            if words is None:
                words = ext.words()
            found = find_captioned_tables(page, words, lines, pno, captions, tables, drawings)
            self.stats["captioned_table_pages_checked"] += 1
            self.stats["tables"] += len(found)
            tables += found
        for t in tables:
            inside = lines_inside(t.bbox, lines)
            ids = {id(ln) for ln in inside}
            lines = [ln for ln in lines if id(ln) not in ids]
            regions.append(Block("table", table_lines(t, pno, inside), table=t))

        figures = self._figure_boxes(page, ext, clusters, words, lines, [t.bbox for t in tables] + boxed, has_images,
                                     drawings)
        figures, _, lines = _without_header_boxes(figures, lambda f: f[0], lines, ext.lines, furniture, height)
        for box, source in figures:
            labels = [ln for ln in lines_inside(box, lines) if not caption_kind(ln.text)]
            ids = {id(ln) for ln in labels}
            lines = [ln for ln in lines if id(ln) not in ids]
            png = render_crop(page, box) if self.figure_crops else None
            fig = Figure(bbox=box, source=source, label_lines=labels, image_png=png)  # type: ignore[arg-type]
            regions.append(Block("figure", list(labels), figure=fig))
            self.stats["figures"] += 1

        notes = footnote_lines(lines, height)  # after tables and figure labels left
        if notes:
            note_ids = {id(ln) for ln in notes}
            lines = [ln for ln in lines if id(ln) not in note_ids]
        blocks = self._assemble(lines, regions, pno)
        link_captions(blocks)
        if notes:
            blocks.append(Block("footnote", [mark_set_apart(ln) for ln in notes]))
            self.stats["footnotes"] += sum(bool(ln.note_mark) for ln in notes)
        return PageContent(pno, width, height, blocks, rotation=rotation)

    def _figure_boxes(
        self,
        page: Any,
        ext: _Extracted,
        clusters: list[BBox],
        words: list[tuple] | None,
        lines: list[Line],
        tables: list[BBox],
        has_images: bool,
        drawings: list[dict[str, Any]],
    ) -> list[tuple[BBox, str]]:
        width, height = float(page.rect.width), float(page.rect.height)
        raster: list[BBox] = []
        if has_images:
            for b in raster_regions(page, width, height, self._repeated):
                area = (b[2] - b[0]) * (b[3] - b[1])
                if area > 0.8 * width * height and char_count(lines_inside(b, lines)) > 200:
                    continue  # a page background behind the text, not a figure
                if any(_overlap(b, t) > 0.5 * area for t in tables):
                    continue
                raster.append(b)
        vector: list[BBox] = []
        if clusters:
            if words is None:
                words = ext.words()
            vector = [
                pad_with_labels(b, lines) for b in vector_regions(clusters, words, tables, width, height)
                if not (_code_frame(b, drawings, lines) or _text_frame(b, drawings, lines))
            ]
        if not raster and not vector:
            return []
        merged = merge_close(raster + vector, 0.0)
        out: list[tuple[BBox, str]] = []
        for m in merged:
            src = "raster" if any(_overlap(m, r) > 0 for r in raster) else "vector"
            out.append((m, src))
        return out

    def _assemble(self, lines: list[Line], regions: list[Block], pno: int) -> list[Block]:
        """Reading order, rows merged, headings marked, paragraphs grouped; regions placed in the flow."""
        boxes: list[BBox] = [ln.bbox for ln in lines] + [r.bbox or (0, 0, 0, 0) for r in regions]
        n = len(lines)
        # Each segment becomes runs of merged row lines, separated by regions.
        plan: list[list[Line] | Block] = []
        for seg in reading_segments(boxes, [ln.text for ln in lines] + [""] * len(regions)):
            run: list[Line] = []
            row: list[Line] = []
            for i in seg:
                if i >= n:
                    if row:
                        run.append(merge_row(row))
                        row = []
                    if run:
                        plan.append(run)
                        run = []
                    plan.append(regions[i - n])
                    continue
                ln = lines[i]
                if row and not same_row(row[-1].bbox, ln.bbox):
                    run.append(merge_row(row))
                    row = []
                row.append(ln)
            if row:
                run.append(merge_row(row))
            if run:
                plan.append(run)
        flat = [ln for item in plan if isinstance(item, list) for ln in item]
        entries = self._toc.get(pno, [])
        heading_level = match_toc(flat, entries, self._stats) if entries else {}
        if heading_level:
            self.stats["toc_matched"] += len({lvl_line for lvl_line in _first_lines(flat, heading_level)})
        allow_bold = not self._toc

        def heuristic(para: list[Line], numbered: bool) -> int:
            if numbered and self._toc:  # the outline names the headings: Yosys's numbered steps are
                return 0  # set larger than its body text, and they are list items
            return self._stats.level_for(para, allow_bold_body=allow_bold and not numbered)

        blocks: list[Block] = []
        for item in plan:
            if isinstance(item, Block):
                blocks.append(item)
            else:
                blocks.extend(group_paragraphs(item, heading_level, heuristic))
        return blocks

    def _ocr_blocks(self, page: Any, pno: int, width: float, height: float) -> list[Block]:
        import pymupdf
        from PIL import Image

        assert self.ocr is not None
        zoom = min(OCR_DPI / 72.0, (OCR_MAX_PIXELS / max(width * height, 1.0)) ** 0.5)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        img = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
        sx, sy = width / pix.width, height / pix.height
        lines: list[Line] = []
        derotate = page.derotation_matrix if page.rotation else None
        for ol in self.ocr.read(img):
            b = (ol.bbox[0] * sx, ol.bbox[1] * sy, ol.bbox[2] * sx, ol.bbox[3] * sy)
            if derotate is not None:  # the render is rotated; text boxes live in unrotated page space
                r = pymupdf.Rect(b) * derotate
                b = (r.x0, r.y0, r.x1, r.y1)
            lines.append(Line(text=ol.text, page=pno, bbox=b, size=round((b[3] - b[1]) / 1.2, 1)))
        blocks = self._assemble(lines, [], pno)
        for b in blocks:
            if b.kind == "heading":
                b.kind, b.level = "text", 0  # OCR sizes are too rough for heading levels
        return blocks


def _without_header_boxes(regions: list[T], box_of: Callable[[T], BBox], lines: list[Line], page_lines: list[Line],
                          furniture: list[Line], height: float) -> tuple[list[T], list[BBox], list[Line]]:
    """The `regions` (tables or figures) whose box is no ruled box round the running header (`boxed_header` of the
    page's `page_lines` and `furniture` lines inside it), the boxes that are, and the `lines` outside those."""
    boxed = [box_of(r) for r in regions if furniture and boxed_header(
        box_of(r), lines_inside(box_of(r), page_lines), lines_inside(box_of(r), furniture), height)]
    if not boxed:
        return regions, [], lines
    return [r for r in regions if box_of(r) not in boxed], boxed, _outside(lines, boxed)


def _outside(lines: list[Line], boxes: list[BBox]) -> list[Line]:
    """The `lines` in none of the `boxes`."""
    inside = {id(ln) for box in boxes for ln in lines_inside(box, lines)}
    return [ln for ln in lines if id(ln) not in inside]


def _only_code_frames(drawings: list[dict[str, Any]], lines: list[Line]) -> bool:
    """True when the ruled areas only frame monospaced text (code boxes), so no table search is needed."""
    if len(drawings) > 200:
        return False
    rects = [
        (float(d["rect"].x0), float(d["rect"].y0), float(d["rect"].x1), float(d["rect"].y1)) for d in drawings
    ]
    frames = [r for r in merge_close(rects, 8.0) if r[2] - r[0] > 20 and r[3] - r[1] > 10]
    return _mostly_mono([ln for c in frames for ln in lines_inside(c, lines)])


def _mostly_mono(lines: list[Line]) -> bool:
    """True when there are lines and nine in ten of them are monospaced (code, not prose)."""
    return bool(lines) and sum(1 for ln in lines if ln.mono) >= 0.9 * len(lines)


CODE_INDENT = 40.0  # pt: lines of a listing start at its margin or a few indents from it


def _code_frame(box: BBox, drawings: list[dict[str, Any]], lines: list[Line]) -> bool:
    """True when a vector region is a frame or shaded box around monospaced text (a code listing,
    a command's synopsis, a shell command) rather than a figure: nine in ten of the lines inside
    monospaced, a third of them starting at one margin (indented at most CODE_INDENT), and its
    drawings only straight lines or rectangles (a figure's shapes have curves;
    the Yosys manual's whole command reference is such frames and was indexed as 350 figures)."""
    inside = lines_inside(box, lines)
    if not _mostly_mono(inside):
        return False
    left = min(ln.bbox[0] for ln in inside)
    if sum(1 for ln in inside if ln.bbox[0] - left < CODE_INDENT) < 0.3 * len(inside):
        return False  # labels scattered over a drawing, not lines of code starting at one margin
    for d in drawings:
        r = d["rect"]
        if _overlap(box, (float(r.x0), float(r.y0), float(r.x1), float(r.y1))) > 0 and any(
                item[0] not in ("l", "re") for item in d["items"]):
            return False
    return True


FRAME_EDGE = 3.0  # pt: a frame's border lines lie this close to the box they frame
FRAME_MIN_CHARS = 12  # a framed text has at least this many characters ("pacman -S hackrf")


def _text_frame(box: BBox, drawings: list[dict[str, Any]], lines: list[Line]) -> bool:
    """True when a vector region's drawings are only its own frame around lines of text: a filled or
    stroked rectangle covering the box and straight lines along its edges, nothing drawn among the
    text (or filled bands as wide as the box, one behind each line: `_shading_band`). Sphinx's LaTeX sets each
    literal block ("hackrf_operacake -a A2 -b B3") in such a box, in a
    font whose name ("F29") and flags do not say it is monospaced; the commands were taken for figures
    and left out of the text they belong to. A block diagram's boxes and arrows are drawn inside it."""
    if char_count(lines_inside(box, lines)) < FRAME_MIN_CHARS:
        return False  # a diagram's box with its one-word label ("prod")
    x0, y0, x1, y1 = box
    area = max(1.0, (x1 - x0) * (y1 - y0))
    for d in drawings:
        r = d["rect"]
        rb = (float(r.x0), float(r.y0), float(r.x1), float(r.y1))
        if rb[0] < x0 - FRAME_EDGE or rb[1] < y0 - FRAME_EDGE or rb[2] > x1 + FRAME_EDGE or rb[3] > y1 + FRAME_EDGE:
            continue  # not inside this box
        if (rb[2] - rb[0]) * (rb[3] - rb[1]) >= 0.9 * area:
            continue  # the box's background or outline
        if _shading_band(d, rb, x0, x1):
            continue  # a band of the box's background behind one of its lines
        on_edge = (rb[2] - rb[0] < 1.0 and min(abs(rb[0] - x0), abs(rb[2] - x1)) < FRAME_EDGE) or (
            rb[3] - rb[1] < 1.0 and min(abs(rb[1] - y0), abs(rb[3] - y1)) < FRAME_EDGE)
        if not on_edge:
            return False
    return True


def _shading_band(drawing: dict[str, Any], rect: BBox, x0: float, x1: float) -> bool:
    """True when `drawing` is only filled rectangles, nothing stroked, as wide as the box from `x0` to `x1`: a band of
    its background. LaTeX's listings shade a code box line by line (the Dibbler user's guide's configuration examples,
    each line on a grey band as wide as the text; one box, at a page's top, read as a figure, its lines left out of
    the example they end)."""
    return (drawing.get("color") is None and drawing.get("fill") is not None
            and all(item[0] == "re" for item in drawing["items"])
            and abs(rect[0] - x0) < FRAME_EDGE and abs(rect[2] - x1) < FRAME_EDGE)


def _first_lines(lines: list[Line], heading_level: dict[int, int]) -> list[int]:
    """Indices of lines that start a matched outline heading (for counting matches)."""
    out = []
    prev = False
    for i, ln in enumerate(lines):
        cur = id(ln) in heading_level
        if cur and not prev:
            out.append(i)
        prev = cur
    return out


def _overlap(a: BBox, b: BBox) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def open_pdf(
    path: Path,
    *,
    ocr: Ocr | None = None,
    tables: TableMode = "layout",
    figure_crops: bool = True,
) -> PdfDocument:
    """Open a PDF for parsing.

    `ocr` reads pages without a text layer (None: such pages are yielded empty with
    `has_text_layer=False`). `tables`: "layout" (PyMuPDF layout model on pages with
    ruling lines), "lines" (line finder only, faster, misses rule-light tables), "off".
    `figure_crops`: render each figure to a PNG crop.

    Raises EncryptedDocumentError when a password is needed, CorruptDocumentError when
    the file cannot be opened or has no pages.
    """
    import pymupdf

    path = Path(path)
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception as e:
        raise CorruptDocumentError(str(path), f"the file cannot be opened as a PDF ({e})") from e
    try:
        if doc.needs_pass and not doc.authenticate(""):
            raise EncryptedDocumentError(
                str(path), "the PDF is password-protected; a password is needed to open it"
            )
        if doc.page_count == 0:
            raise CorruptDocumentError(str(path), "the PDF has no pages (it may be cut short or damaged)")
        return PdfDocument(path, doc, ocr=ocr, tables=tables, figure_crops=figure_crops)
    except EngineError:
        doc.close()
        raise
    except Exception as e:
        doc.close()
        raise CorruptDocumentError(str(path), f"the PDF structure is damaged ({e})") from e
