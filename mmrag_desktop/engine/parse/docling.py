"""Docling JSON exports (DoclingDocument) as paged documents.

Schema (docling-core `docling_core/types/doc/document.py`, JSON schema published as
`docs/DoclingDocument.json` in github.com/docling-project/docling-core; examples in its
`test/data/doc/*.json`):
- `texts[]`: {self_ref, parent, children, content_layer ("body" | "furniture"), label
  (title, section_header (+ `level` >= 1), text, paragraph, list_item, caption, footnote,
  code, formula, page_header, page_footer, reference, ...), prov[], orig, text}
- `prov[]`: {page_no, bbox {l, t, r, b, coord_origin "TOPLEFT" | "BOTTOMLEFT"}, charspan [a, b]}
- `tables[]`: {..., captions [{"$ref"}], data {table_cells [{bbox?, row_span, col_span,
  start/end_row_offset_idx, start/end_col_offset_idx, text, column_header, row_header}],
  num_rows, num_cols}}
- `pictures[]`: {..., captions [{"$ref"}], children (text inside the picture), image
  {mimetype, dpi, size, uri}}
- `groups[]`: {children, label ("list", "ordered_list", "chapter", ...)}
- `body` / `furniture`: tree roots; `children` refs in reading order
- `pages`: {"1": {"size": {"width", "height"}, "page_no": 1}}

Reading order is the depth-first walk of `body`. Furniture (page headers/footers) is
skipped. BOTTOMLEFT boxes become top-left with the page height (y0 = H - t, y1 = H - b).
Section headers get level + 1 (a `title` is level 1), as Docling's own Markdown export does.
"""

from __future__ import annotations

import base64
import json
import logging
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..elements import BBox, Block, Figure, Line, PageContent, Table, TableCell, union_bbox
from ..errors import CorruptDocumentError

MAX_JSON_BYTES = 300 * 10**6  # json.loads needs ~10x the file in memory
MAX_TABLE_ROWS = 100_000
MAX_TABLE_COLS = 1_000
log = logging.getLogger(__name__)

NO_BOX: BBox = (0.0, 0.0, 0.0, 0.0)
"""Box given to items that carry no provenance (no position known)."""

_SKIP_LABELS = {"page_header", "page_footer"}
_TEXT_KIND = {
    "title": "heading",
    "section_header": "heading",
    "list_item": "list",
    "code": "code",
    "formula": "formula",
    "caption": "caption",
    "footnote": "footnote",  # the chunker puts it after the text it annotates
}
_COLLECTIONS = ("texts", "tables", "pictures", "groups", "key_value_items", "form_items")
MAX_DEPTH = 200


@dataclass
class _PageBuild:
    width: float
    height: float
    blocks: list[Block] = field(default_factory=list)
    refs: dict[int, str] = field(default_factory=dict)  # block index -> self_ref of its item


class _Builder:
    """Walks a DoclingDocument dict and distributes blocks to pages."""

    def __init__(self, data: dict, path: Path):
        self.data = data
        self.path = path
        self.warnings: list[str] = []
        self.page_sizes: dict[int, tuple[float, float]] = {}
        for key, page in (data.get("pages") or {}).items():
            try:
                no = int(page.get("page_no", key))
                size = page.get("size") or {}
                self.page_sizes[no] = (float(size.get("width", 0.0)), float(size.get("height", 0.0)))
            except (TypeError, ValueError, AttributeError):
                self._warn(f"page entry {key!r} is malformed; ignored")
        self.pages: dict[int, _PageBuild] = {}
        self.emitted: set[str] = set()
        self.caption_target: dict[str, str] = {}
        for coll in ("tables", "pictures"):
            for item in data.get(coll) or []:
                if isinstance(item, dict):
                    for ref in item.get("captions") or []:
                        r = _ref(ref)
                        if r:
                            self.caption_target[r] = item.get("self_ref", "")

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        log.warning("%s: %s", self.path, message)

    # -- references and geometry
    def resolve(self, ref: str) -> dict | None:
        parts = ref.lstrip("#").strip("/").split("/")
        if len(parts) != 2 or parts[0] not in _COLLECTIONS:
            return None
        try:
            item = (self.data.get(parts[0]) or [])[int(parts[1])]
        except (ValueError, IndexError, TypeError):
            return None
        return item if isinstance(item, dict) else None

    def page(self, no: int) -> _PageBuild:
        if no not in self.pages:
            w, h = self.page_sizes.get(no, (0.0, 0.0))
            self.pages[no] = _PageBuild(width=w, height=h)
        return self.pages[no]

    def box(self, raw: Any, page_no: int) -> BBox | None:
        """A Docling bbox dict as a top-left (x0, y0, x1, y1) box on `page_no`, or None."""
        if not isinstance(raw, dict):
            return None
        try:
            left, top, right, bottom = (float(raw[k]) for k in ("l", "t", "r", "b"))
        except (KeyError, TypeError, ValueError):
            return None
        origin = str(raw.get("coord_origin", "TOPLEFT")).upper()
        if origin.endswith("BOTTOMLEFT"):
            height = self.page(page_no).height
            if height <= 0:
                height = self._estimated_height(page_no)
            top, bottom = height - top, height - bottom
        return (min(left, right), min(top, bottom), max(left, right), max(top, bottom))

    def _estimated_height(self, page_no: int) -> float:
        """Page height when `pages` lacks it: the highest coordinate used on that page."""
        best = 0.0
        for coll in ("texts", "tables", "pictures"):
            for item in self.data.get(coll) or []:
                for prov in (item or {}).get("prov") or []:
                    if prov.get("page_no") == page_no and isinstance(prov.get("bbox"), dict):
                        b = prov["bbox"]
                        best = max(best, float(b.get("t", 0) or 0), float(b.get("b", 0) or 0))
        self._warn(f"page {page_no} has no size; estimated height {best:.1f} from its boxes")
        pb = self.page(page_no)
        pb.height = best
        return best

    def provs(self, item: dict) -> list[tuple[int, BBox | None, tuple[int, int] | None]]:
        out = []
        for prov in item.get("prov") or []:
            if not isinstance(prov, dict):
                continue
            try:
                no = int(prov.get("page_no", 1))
            except (TypeError, ValueError):
                continue
            span = prov.get("charspan")
            span_t = (int(span[0]), int(span[1])) if isinstance(span, list) and len(span) == 2 else None
            out.append((no, self.box(prov.get("bbox"), no), span_t))
        return out

    # -- emitting
    def add(self, page_no: int, block: Block, ref: str) -> None:
        pb = self.page(page_no)
        pb.blocks.append(block)
        pb.refs[len(pb.blocks) - 1] = ref

    def walk(self, root: dict) -> None:
        stack: list[tuple[dict, int]] = [(root, 0)]
        # Depth-first, children in order: push reversed.
        while stack:
            node, depth = stack.pop()
            ref = node.get("self_ref", "")
            if ref and ref in self.emitted:
                continue
            if ref:
                self.emitted.add(ref)
            if node.get("content_layer") == "furniture" and ref != "#/body":
                continue
            descend = self.emit(node, ref)
            if descend and depth < MAX_DEPTH:
                children = []
                for child_ref in node.get("children") or []:
                    r = _ref(child_ref)
                    child = self.resolve(r) if r else None
                    if child is None:
                        if r:
                            self._warn(f"reference {r} points nowhere; skipped")
                        continue
                    children.append((child, depth + 1))
                stack.extend(reversed(children))

    def walk_orphans(self) -> None:
        """Body items the tree does not reach (older or hand-made exports), in array order."""
        for coll in ("texts", "tables", "pictures"):
            for i, item in enumerate(self.data.get(coll) or []):
                if not isinstance(item, dict):
                    continue
                ref = item.get("self_ref") or f"#/{coll}/{i}"
                if ref in self.emitted or item.get("content_layer") == "furniture":
                    continue
                if (
                    _ref(item.get("parent")) not in ("", "#/body")
                    and self.resolve(_ref(item.get("parent"))) is not None
                ):
                    continue  # reachable only through a parent that was skipped (e.g. furniture)
                self.walk({**item, "self_ref": ref})

    def emit(self, node: dict, ref: str) -> bool:
        """Emit blocks for one node; return True when its children should be walked."""
        coll = ref.lstrip("#/").split("/")[0] if ref else ""
        label = str(node.get("label", ""))
        if coll == "texts":
            if label in _SKIP_LABELS:
                return False
            self.emit_text(node, ref, label)
            return True
        if coll == "tables":
            self.emit_table(node, ref)
            self.emit_captions(node)
            return True
        if coll == "pictures":
            self.emit_picture(node, ref)
            self.emit_captions(node)
            return False  # the picture's children became its label lines
        return coll in ("groups", "") or ref in ("#/body",)

    def emit_captions(self, node: dict) -> None:
        """Captions referenced by a table/picture but absent from the body walk go right after it."""
        for c in node.get("captions") or []:
            r = _ref(c)
            item = self.resolve(r) if r else None
            if item is not None and r not in self.emitted:
                self.emitted.add(r)
                self.emit_text(item, r, "caption")

    def emit_text(self, node: dict, ref: str, label: str) -> None:
        text = str(node.get("text") or node.get("orig") or "").strip()
        if not text:
            return
        kind = _TEXT_KIND.get(label, "text")
        level = 0
        if label == "title":
            level = 1
        elif label == "section_header":
            try:
                level = int(node.get("level") or 1) + 1
            except (TypeError, ValueError):
                level = 2
        provs = self.provs(node)
        if not provs:
            provs = [(1, None, None)]
        pieces = _split_by_charspan(text, provs)
        parent = _ref(node.get("parent"))
        for (page_no, box, _span), piece in zip(provs, pieces, strict=True):
            if not piece:
                continue
            line = Line(
                text=piece,
                page=page_no,
                bbox=box or NO_BOX,
                bold=kind == "heading",
                mono=kind == "code",
            )
            pb = self.page(page_no)
            # Consecutive list items of the same list share one "list" block.
            if kind == "list" and pb.blocks and pb.blocks[-1].kind == "list":
                last_ref = pb.refs.get(len(pb.blocks) - 1, "")
                last_item = self.resolve(last_ref) if last_ref else None
                if last_item is not None and _ref(last_item.get("parent")) == parent:
                    pb.blocks[-1].lines.append(line)
                    continue
            self.add(page_no, Block(kind=kind, lines=[line], level=level), ref)

    def emit_table(self, node: dict, ref: str) -> None:
        provs = self.provs(node)
        page_no, box = (provs[0][0], provs[0][1]) if provs else (1, None)
        data = node.get("data") or {}
        raw_cells = [c for c in data.get("table_cells") or [] if isinstance(c, dict)]
        cells: list[TableCell] = []
        headers: dict[int, list[bool]] = {}
        for c in raw_cells:
            try:
                row = int(c.get("start_row_offset_idx", 0))
                col = int(c.get("start_col_offset_idx", 0))
            except (TypeError, ValueError):
                continue
            cell_box = self.box(c.get("bbox"), page_no) or box or NO_BOX
            cells.append(TableCell(row=row, col=col, text=str(c.get("text") or "").strip(), bbox=cell_box))
            headers.setdefault(row, []).append(bool(c.get("column_header")))
        # the grid is what the cells span (a declared num_rows of a billion must not build a billion rows)
        n_rows = max((c.row + 1 for c in cells), default=0)
        n_cols = max((c.col + 1 for c in cells), default=0)
        if min((min(c.row, c.col) for c in cells), default=0) < 0 or n_rows > MAX_TABLE_ROWS or n_cols > MAX_TABLE_COLS:
            raise CorruptDocumentError(str(self.path), f"{ref}: a table of {n_rows} x {n_cols} cells (or a negative "
                                       f"index) is not a table this app reads (limit {MAX_TABLE_ROWS:,} x {MAX_TABLE_COLS:,})")
        header_rows = 0
        while header_rows in headers and all(headers[header_rows]):
            header_rows += 1
        cells.sort(key=lambda c: (c.row, c.col))
        table_box = box or union_bbox([c.bbox for c in cells if c.bbox != NO_BOX]) or NO_BOX
        table = Table(bbox=table_box, cells=cells, n_rows=n_rows, n_cols=n_cols, header_rows=header_rows)
        lines = []
        for row in table.rows():
            texts = [c.text for c in row]
            if any(texts):
                row_box = union_bbox([c.bbox for c in row if c.bbox != NO_BOX]) or table_box
                lines.append(Line(text=" | ".join(texts), page=page_no, bbox=row_box))
        self.add(page_no, Block(kind="table", lines=lines, table=table), ref)

    def emit_picture(self, node: dict, ref: str) -> None:
        provs = self.provs(node)
        page_no, box = (provs[0][0], provs[0][1]) if provs else (1, None)
        captions = {_ref(c) for c in node.get("captions") or []}
        labels: list[Line] = []
        for child_ref in node.get("children") or []:
            r = _ref(child_ref)
            child = self.resolve(r) if r else None
            if child is None or r in captions:
                continue
            self.emitted.add(r)
            text = str(child.get("text") or "").strip()
            if not text:
                continue
            cprovs = self.provs(child)
            cbox = cprovs[0][1] if cprovs else None
            labels.append(Line(text=text, page=page_no, bbox=cbox or box or NO_BOX))
        for desc in _descriptions(node):
            labels.append(Line(text=desc, page=page_no, bbox=box or NO_BOX))
        fig = Figure(
            bbox=box or NO_BOX, source="docling", label_lines=labels, image_png=self.picture_png(node, ref)
        )
        self.add(page_no, Block(kind="figure", lines=[], figure=fig), ref)
        # Captions that are children of the picture come right after it.
        for c in node.get("children") or []:
            r = _ref(c)
            if r in captions and r not in self.emitted:
                item = self.resolve(r)
                if item is not None:
                    self.emitted.add(r)
                    self.emit_text(item, r, "caption")

    def picture_png(self, node: dict, ref: str) -> bytes | None:
        """The picture's embedded image (data URI or a file next to the JSON) as PNG, or None."""
        from .image import load_image, load_image_bytes
        from .links import inside_folder

        uri = str(((node.get("image") or {}).get("uri")) or "")
        if not uri:
            return None
        try:
            if uri.startswith("data:"):
                header, _, payload = uri.partition(",")
                if ";base64" not in header:
                    return None
                return load_image_bytes(base64.b64decode(payload), f"{self.path} {ref}").png
            parts = urllib.parse.urlsplit(uri)
            if parts.scheme and len(parts.scheme) > 1 and parts.scheme != "file":
                return None
            target = inside_folder(self.path.parent, urllib.parse.unquote(parts.path))
            if target is None:
                self._warn(f"{ref}: image outside the document's folder not read ({uri[:120]})")
                return None
            return load_image(target).png if target.is_file() else None
        except (ValueError, CorruptDocumentError) as e:
            self._warn(f"{ref}: embedded image not loaded ({e})")
            return None

    def finish(self) -> dict[int, PageContent]:
        """Link captions to their table/picture on the same page and build PageContents."""
        out: dict[int, PageContent] = {}
        for no in set(self.page_sizes) | set(self.pages):
            pb = self.page(no)
            index_of = {r: i for i, r in pb.refs.items() if pb.blocks[i].kind in ("table", "figure")}
            for i, blk in enumerate(pb.blocks):
                if blk.kind == "caption":
                    target = self.caption_target.get(pb.refs.get(i, ""))
                    blk.caption_of = index_of.get(target) if target else None
            out[no] = PageContent(page=no, width=pb.width, height=pb.height, blocks=pb.blocks)
        return out


def _ref(obj: Any) -> str:
    if isinstance(obj, dict):
        r = obj.get("$ref") or obj.get("cref") or ""
        return r if isinstance(r, str) else ""
    return obj if isinstance(obj, str) else ""


def _split_by_charspan(text: str, provs: list[tuple[int, BBox | None, tuple[int, int] | None]]) -> list[str]:
    """Text per provenance: slices by charspan when they tile the text, else all on the first."""
    if len(provs) == 1:
        return [text]
    spans = [p[2] for p in provs]
    if all(s is not None for s in spans):
        ok = all(0 <= a < b <= len(text) for a, b in spans)  # type: ignore[misc]
        if ok:
            return [text[a:b].strip() for a, b in spans]  # type: ignore[misc]
    return [text] + [""] * (len(provs) - 1)


def _descriptions(node: dict) -> list[str]:
    """VLM descriptions stored with a picture (old `annotations`, new `meta.description`)."""
    out = []
    for ann in node.get("annotations") or []:
        if isinstance(ann, dict) and ann.get("kind") == "description" and ann.get("text"):
            out.append(str(ann["text"]).strip())
    meta = node.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("description"), dict):
        t = meta["description"].get("text")
        if t:
            out.append(str(t).strip())
    return [t for t in out if t]


class DoclingDocument:
    """A parsed Docling JSON file; `pages()` yields its pages in page order."""

    kind = "docling"

    def __init__(self, path: Path, title: str, pages: dict[int, PageContent], warnings: list[str]):
        self.path = path
        self.title = title
        self._pages = pages
        self.page_count = len(pages)
        self.warnings = warnings

    def pages(self) -> Iterator[PageContent]:
        """Yield every page in ascending page number (also pages without content)."""
        for no in sorted(self._pages):
            yield self._pages[no]

    def close(self) -> None:
        """Release the parsed pages."""
        self._pages = {}


def _title(data: dict, path: Path) -> str:
    for item in data.get("texts") or []:
        if isinstance(item, dict) and item.get("label") == "title" and str(item.get("text") or "").strip():
            return str(item["text"]).strip()
    name = str(data.get("name") or "").strip()
    if name and name.lower() not in ("document", "_root_", "untitled"):
        return name
    return path.stem


def open_docling(path: Path) -> DoclingDocument:
    """Read a Docling JSON export (DoclingDocument) into pages of blocks.

    Returns a `DoclingDocument` (kind "docling"). Raises CorruptDocumentError when the
    file is not readable JSON or not a DoclingDocument.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise CorruptDocumentError(str(path), f"the Docling JSON file is {size / 1e6:.0f} MB; files over "
                                                  f"{MAX_JSON_BYTES // 10**6} MB are not read")
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except OSError as e:
        raise CorruptDocumentError(str(path), f"cannot read the file ({e.strerror or e})") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CorruptDocumentError(str(path), f"not valid JSON ({e})") from e
    if not isinstance(data, dict) or not (
        data.get("schema_name") == "DoclingDocument" or ("texts" in data and "body" in data)
    ):
        raise CorruptDocumentError(
            str(path), "the JSON file is not a Docling document (no DoclingDocument schema)"
        )
    body = data.get("body")
    if not isinstance(body, dict):
        raise CorruptDocumentError(str(path), "the Docling document has no 'body' tree")
    builder = _Builder(data, path)
    body = {**body, "self_ref": body.get("self_ref") or "#/body"}
    builder.walk(body)
    builder.walk_orphans()
    pages = builder.finish()
    return DoclingDocument(path, _title(data, path), pages, builder.warnings)
