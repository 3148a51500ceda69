"""The export bundle: everything an expert needs about one answer, as one JSON-ready dict.

`build_bundle` takes the answer (an `Answer` or its `to_json()` dict), the library's documents
and a chunk look-up; it never sees the Library. Citations (and, when the manuals do not cover the
question, the nearest pages) get their cropped page images (crops.py) as base64 or, when no image
can be made, the cited text and a note saying why. The HTML page (page.py) is rendered from this
same dict, and `--export FILE.json` writes it as it is (docs/export.md describes its shape).
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from ..hits import DocumentInfo
from .crops import CropUnavailable, boxes_by_page, image_crops, pdf_crops

log = logging.getLogger(__name__)
FORMAT = "mmrag-expert-export"
FORMAT_VERSION = 1
MAX_TEXT_CHARS = 3000  # cited passage shown per citation
MAX_NEAREST = 5

ChunkLookup = Callable[[int], dict | None]  # chunk id -> {"text", "doc_id", ...} or None when gone


def _answer_dict(answer) -> tuple[dict, dict[int, dict]]:
    """(the answer's JSON object, {citation/nearest key: extra fields the object drops}).

    An `Answer` gives each citation's chunk text, document id and path, which `to_json()` leaves
    out; a dict (the window keeps `to_json()`) has only what it carries."""
    if isinstance(answer, dict):
        return answer, {}
    extra = {}
    for group, cites in (("citations", answer.citations), ("nearest", answer.nearest)):
        for i, c in enumerate(cites):
            extra[(group, i)] = {"text": c.text, "doc_id": c.doc_id, "doc_path": c.doc_path}
    return answer.to_json(), extra


def file_sha256(path: Path) -> str | None:
    """The sha256 of the file at `path`, or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


class _Documents:
    """The library's documents by id and name, each file's state looked at once."""

    def __init__(self, documents: Sequence[DocumentInfo]):
        self.by_id = {d.id: d for d in documents}
        self.by_name: dict[str, list[DocumentInfo]] = {}
        for d in documents:
            self.by_name.setdefault(d.name, []).append(d)
        self.state: dict[int, tuple[str, str | None]] = {}

    def find(self, doc_id: int | None, name: str) -> DocumentInfo | None:
        if doc_id is not None and doc_id in self.by_id:
            return self.by_id[doc_id]
        same = self.by_name.get(name) or []
        return same[0] if len(same) == 1 else None

    def file_state(self, d: DocumentInfo) -> tuple[str, str | None]:
        """("present" | "changed" | "missing", the file's sha256 now or None)."""
        if d.id not in self.state:
            p = Path(d.path)
            now = file_sha256(p) if p.is_file() else None
            self.state[d.id] = ("missing" if now is None else "present" if now == d.sha256 else "changed", now)
        return self.state[d.id]


def _images(doc: DocumentInfo | None, cite: dict, docs: _Documents, path_hint: str) -> tuple[list[dict], str]:
    """(crop dicts, note) for one citation; the note says why there is no image, or warns."""
    kind = doc.kind if doc else ("pdf" if path_hint.lower().endswith(".pdf") else "")
    path = Path(doc.path if doc else path_hint) if (doc or path_hint) else None
    if kind in ("markdown", "docling"):
        what = "a Markdown file" if kind == "markdown" else "a Docling JSON file"
        return [], f"No page image: the source is {what}, which has no pages to show; the cited text is below."
    if path is None or kind not in ("pdf", "image"):
        return [], "No page image: the document is no longer in the library; the cited text is below."
    note = ""
    if doc is not None:
        state, _ = docs.file_state(doc)
        if state == "missing":
            return [], (f"No page image: the source file {doc.path} was not found when this was exported; "
                        "the cited text (as indexed) is below.")
        if state == "changed":
            note = ("The source file changed after it was indexed (its sha256 differs); the image shows the "
                    "file as it is now and may not match the cited text.")
    by_page = boxes_by_page(int(cite.get("page") or 1), cite.get("bbox"), cite.get("boxes") or [])
    try:
        crops = (pdf_crops if kind == "pdf" else image_crops)(path, by_page)
    except CropUnavailable as e:
        return [], f"No page image: {e}; the cited text is below."
    except Exception as e:  # a damaged file must not stop the export; the note says what happened
        log.warning("export: crop of %s failed", path, exc_info=True)
        return [], f"No page image: the page could not be rendered ({type(e).__name__}: {e}); the cited text is below."
    return [{"page": c.page, "mime": c.mime, "width": c.width, "height": c.height,
             "region": [round(v, 2) for v in c.region], "highlight": [[round(v, 1) for v in b] for b in c.highlight],
             "data": base64.b64encode(c.data).decode("ascii")} for c in crops], note


def _entry(cite: dict, extra: dict, chunk: ChunkLookup | None, docs: _Documents,
           quotes: dict[int, list[str]]) -> tuple[dict, DocumentInfo | None]:
    row = None
    if chunk is not None and isinstance(cite.get("chunk_id"), int):
        try:
            row = chunk(cite["chunk_id"])
        except Exception:  # a chunk removed since the answer (re-indexed document): use what the answer has
            row = None
    doc_id = extra.get("doc_id", (row or {}).get("doc_id"))
    doc = docs.find(doc_id, str(cite.get("doc") or ""))
    text = extra.get("text") or (row or {}).get("text") or ""
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS].rsplit(" ", 1)[0] + " …"
    images, note = _images(doc, cite, docs, extra.get("doc_path") or "")
    entry = {
        "id": cite.get("id"), "doc": cite.get("doc"), "title": doc.title if doc else "",
        "page": cite.get("page"), "bbox": cite.get("bbox"), "kind": cite.get("kind", "text"),
        "chunk_id": cite.get("chunk_id"), "boxes": cite.get("boxes") or [],
        "text": text, "quotes": quotes.get(cite.get("id"), []), "note": note, "images": images,
    }
    return entry, doc


def build_bundle(answer, *, documents: Sequence[DocumentInfo], chunk: ChunkLookup | None = None,
                 question: str | None = None, versions: dict | None = None,
                 created: datetime | None = None) -> dict:
    """The export bundle of `answer` (an `Answer` or its `to_json()` dict).

    `documents`: the library's documents (manifest: name, title, sha256, added; kind and path to
    render from); `chunk(chunk_id)`: the chunk's row ({"text", "doc_id"}), or None / an exception
    when it is gone; `question` overrides the answer's own; `versions` adds to the app version
    (answer model, text embedder, ...). Never raises for a missing or unreadable source file: the
    citation then carries a note and its text."""
    a, extra = _answer_dict(answer)
    docs = _Documents(documents)
    quotes: dict[int, list[str]] = {}
    for s in a.get("sentences") or []:
        sup = s.get("support") if isinstance(s, dict) else None
        if sup and sup.get("text") and sup["text"] not in quotes.setdefault(sup.get("id"), []):
            quotes[sup.get("id")].append(sup["text"])
    cited: dict[int, tuple[DocumentInfo, set[int]]] = {}

    def entries(group: str, items: list[dict]) -> list[dict]:
        out = []
        for i, c in enumerate(items):
            e, doc = _entry(c, extra.get((group, i), {}), chunk, docs, quotes if group == "citations" else {})
            out.append(e)
            if doc is not None and isinstance(c.get("page"), int):
                cited.setdefault(doc.id, (doc, set()))[1].add(c["page"])
        return out

    citations = entries("citations", list(a.get("citations") or []))
    uncovered = bool(a.get("insufficient_evidence")) or not citations
    nearest = entries("nearest", list(a.get("nearest") or [])[:MAX_NEAREST]) if uncovered else []
    manifest = []
    for doc, pages in cited.values():
        state, now = docs.file_state(doc)
        manifest.append({"name": doc.name, "title": doc.title, "path": doc.path, "kind": doc.kind,
                         "pages": doc.pages, "pages_cited": sorted(pages), "sha256": doc.sha256,
                         "file": state, "sha256_now": now, "added": doc.added})
    import mmrag_desktop

    created = created or datetime.now().astimezone()
    stats = a.get("stats") or {}
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "created": created.isoformat(timespec="seconds"),
        "question": question if question is not None else a.get("question", ""),
        "search_query": a.get("search_query", ""),
        "answer": a.get("answer", ""),
        "mode": a.get("mode", ""),
        "insufficient_evidence": bool(a.get("insufficient_evidence")),
        "confidence": a.get("confidence"),
        "sentences": [s for s in a.get("sentences") or [] if isinstance(s, dict)],
        "checked": a.get("checked") or {},
        "notices": list(a.get("notices") or []),
        "stopped": a.get("stopped", ""),
        "removed_citations": list(a.get("removed_citations") or []),
        "model_answer": stats.get("model_answer") if isinstance(stats.get("model_answer"), str) else "",
        "citations": citations,
        "nearest": nearest,
        "documents": manifest,
        "versions": {"app": mmrag_desktop.__version__, "answer_model": a.get("model", ""),
                     "answer_mode": a.get("mode", ""), **(versions or {})},
    }
