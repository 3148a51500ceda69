"""Background figure enrichment: crops, OCR of raster figures, CLIP image vectors, VLM captions.

Runs after a document is already searchable. Per figure (rows of `figures`):
  crop  — render the region when ingest stored none (PDF page region / image file), + pHash/dHash;
  ocr   — raster figures through the OCR role; text appended to the figure chunk, line boxes
          mapped to page coordinates, chunk re-embedded (`figures.ocr_done`);
  clip  — image vector in `vectors` space 'image' (`figures.clip_model`) + the image index when
          the model is the library's active image model; after an image-model change the new
          model's vectors wait in SQLite and the run ends by switching when they cover the
          library (image_model.py);
  vlm   — structured caption in `captions`, description/components appended to the chunk,
          components stored as highlightable lines (`figures.caption_model`).
Each figure's writes are one short transaction, so the job is resumable and cancellable between
figures, and searches (other threads) are never blocked for long.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from ..errors import DocumentError, EngineError, ModelError
from ..jobs import CancelToken, Progress
from ..memory import trim_heap
from ..store.files import LocalFiles

if TYPE_CHECKING:
    from ..models.active import ActiveModels
    from ..store import Chunks, Documents, Figures, Vectors

log = logging.getLogger(__name__)

OCR_SOURCES = {"raster", "image-file", "markdown", "docling"}
OCR_MIN_SCORE = 0.5
AUTO = "auto"


@dataclass
class FigureWork:
    """One figure row and what it still needs."""

    chunk_id: int
    doc_id: int
    doc_name: str
    doc_path: str
    doc_kind: str
    page: int
    bbox: list[float]
    source: str
    crop: str | None
    steps: list[str] = field(default_factory=list)


@dataclass
class Enrichers:
    """The models one enrichment run uses (None = that step is off). `close()` frees them."""

    ocr: object | None = None
    image_embedder: object | None = None
    vlm: object | None = None
    notes: list[str] = field(default_factory=list)
    pdfs: dict = field(default_factory=dict)  # the PDF open for cropping (opening costs ~0.1 s)

    def open_pdf(self, path: str):
        """The PyMuPDF document for `path`, kept open while consecutive figures come from it."""
        from ..figures.crops import open_pdf_for_crops

        if path not in self.pdfs:
            self.close_pdfs()
            self.pdfs[path] = open_pdf_for_crops(Path(path))
        return self.pdfs[path]

    def close_pdfs(self) -> None:
        for doc in self.pdfs.values():
            doc.close()
        self.pdfs.clear()

    def close(self) -> None:
        self.close_pdfs()
        for m in (self.image_embedder, self.vlm):
            if m is not None and hasattr(m, "close"):
                m.close()


def _ocr_lines(ocr, image, w: FigureWork) -> list[dict]:
    """OCR lines of the crop as chunk lines in page coordinates: [{"p", "b", "t"}]."""
    x0, y0, x1, y1 = w.bbox
    sx, sy = (x1 - x0) / image.width, (y1 - y0) / image.height
    out = []
    for ln in ocr.read(image):
        text = " ".join(str(ln.text).split())
        if not text or getattr(ln, "score", 1.0) < OCR_MIN_SCORE:
            continue
        bx0, by0, bx1, by1 = ln.bbox
        out.append({"p": w.page, "b": [round(x0 + bx0 * sx, 2), round(y0 + by0 * sy, 2),
                                       round(x0 + bx1 * sx, 2), round(y0 + by1 * sy, 2)], "t": text})
    return out


def compose_figure_text(base_text: str, ocr_lines: list[dict] | None, caption: dict | None) -> tuple[str, list[tuple[int, int]], list[list[dict]]]:
    """The figure chunk's text with enrichment parts appended.

    Returns (text, spans of the appended parts (one segment each), the lines of each part).
    """
    from ..models.caption_schema import caption_text

    text = base_text
    spans: list[tuple[int, int]] = []
    part_lines: list[list[dict]] = []
    if ocr_lines:
        part = "Text in figure: " + " ".join(ln["t"] for ln in ocr_lines)
        text += "\n"
        spans.append((len(text), len(text) + len(part)))
        text += part
        part_lines.append(ocr_lines)
    if caption:
        part = "Description: " + caption_text(caption)
        text += "\n"
        spans.append((len(text), len(text) + len(part)))
        text += part
        part_lines.append(caption.get("_component_lines", []))
    return text, spans, part_lines


@dataclass
class FigureEnricher:
    """Figure work of one library: reads figures to do, writes crops under `folder`/cache and the
    results through the repositories; models from the active models (or given per run). A figure
    whose file is not on this machine is cropped from `files`' copy (a server library's database)."""

    documents: Documents
    chunks: Chunks
    vectors: Vectors
    figures: Figures
    models: ActiveModels
    folder: Path
    files: LocalFiles = field(default_factory=LocalFiles)

    def load_enrichers(self, image_embedder=AUTO, vlm=AUTO) -> Enrichers:
        """Resolve the OCR, image_embedder and vlm roles for this library's settings.

        A role without a model is simply off (its reason goes to `notes`); a model that is configured
        but fails to load is off too, and its error is in `notes`. Pass objects to use them instead.
        """
        from ..models.registry import resolve

        out = Enrichers(ocr=self.models.ocr())
        if out.ocr is None:
            out.notes.append("ocr: not available; raster figures are not read")
        if image_embedder is AUTO:
            r = resolve("image_embedder", self.models.settings)
            image_embedder = None
            if r.ok:
                try:
                    from ..models.clip import load_image_embedder

                    image_embedder = load_image_embedder(settings=self.models.settings, threads=self.models.settings.threads)
                except ModelError as e:
                    out.notes.append(str(e))
            else:
                out.notes.append(f"image_embedder: {r.message}")
        if vlm is AUTO:
            r = resolve("vlm", self.models.settings)
            vlm = None
            if r.ok:
                try:
                    from ..models.vlm import load_vlm

                    vlm = load_vlm(self.models.settings)
                except ModelError as e:
                    out.notes.append(str(e))
            else:
                out.notes.append(f"vlm: {r.message}")
        out.image_embedder, out.vlm = image_embedder, vlm
        return out

    def pending_figures(self, enrichers: Enrichers, doc_ids: list[int] | None = None) -> list[FigureWork]:
        """Figures of ready documents that still need a step the available models can do."""
        clip_id = getattr(enrichers.image_embedder, "model_id", None)
        vlm_id = getattr(enrichers.vlm, "model_id", None)
        out = []
        for cid, did, name, path, kind, page, bbox, source, crop, ocr_done, clip_model, cap_model in self.figures.work_rows(doc_ids):
            w = FigureWork(cid, did, name, path, kind, page, json.loads(bbox), source, crop)
            if not crop and kind in ("pdf", "image"):
                w.steps.append("crop")
            if enrichers.ocr is not None and not ocr_done and source in OCR_SOURCES:
                w.steps.append("ocr")
            if clip_id and clip_model != clip_id:
                w.steps.append("clip")
            if vlm_id and cap_model != vlm_id:
                w.steps.append("vlm")
            if w.steps:
                out.append(w)
        return out

    def events(self, cancel: CancelToken | None = None, *, doc_ids: list[int] | None = None,
                      image_embedder=AUTO, vlm=AUTO) -> Iterator[Progress]:
        """Enrich every figure not done yet; yields Progress(stage="enrich", unit="figures") per figure
        and a last Progress(stage="finished").

        Models resolve from the library's settings unless given. A failure on one figure is reported in
        that figure's event (message, extra["errors"]) and the job goes on. Raises Cancelled (via the
        token) between figures; everything finished so far is kept and a new run resumes. A run that
        finishes with a new image model switches image search to it when its vectors cover the library.
        """
        from .image_model import change_note, finish_run

        cancel = cancel or CancelToken()
        enrichers = self.load_enrichers(image_embedder, vlm)
        try:
            change = change_note(self.models.image, getattr(enrichers.image_embedder, "model_id", None))
            if change:
                enrichers.notes.append(change)
            work = self.pending_figures(enrichers, doc_ids)
            total = len(work)
            notes = "; ".join(enrichers.notes)
            yield Progress("enrich", done=0, total=total, unit="figures", message=notes or f"{total} figure(s) to enrich")
            t0 = time.monotonic()
            failures = 0
            for i, w in enumerate(work, 1):
                cancel.check()
                errors = self.enrich_figure(w, enrichers)
                trim_heap()  # OCR's and the renderer's freed buffers go back to the OS (engine/memory.py)
                failures += bool(errors)
                elapsed = time.monotonic() - t0
                rate = i / elapsed if elapsed > 0 else None
                yield Progress(
                    "enrich", doc=w.doc_name, doc_id=w.doc_id, done=i, total=total, unit="figures", rate=rate,
                    eta=(total - i) / rate if rate else None,
                    message="; ".join(errors) if errors else f"figure on page {w.page}: {', '.join(w.steps)}",
                    extra={"chunk_id": w.chunk_id, "steps": list(w.steps), "errors": errors},
                )
            self._mark_documents_done(enrichers, doc_ids)
            final = [n for n in enrichers.notes if n != change]  # the change's state is re-read after the switch
            if enrichers.image_embedder is not None:
                final.append(finish_run(self.models.image, enrichers.image_embedder, whole_library=not doc_ids))
            notes = "; ".join(n for n in final if n)
            yield Progress("finished", done=total, total=total, unit="figures",
                           message=f"{total} figure(s) enriched, {failures} with errors" + (f"; {notes}" if notes else ""))
        finally:
            enrichers.close()

    def enrich_figure(self, w: FigureWork, enrichers: Enrichers) -> list[str]:
        """Run the figure's pending steps; returns plain-words errors (empty when all went well)."""
        from ..figures.crops import load_crop

        errors: list[str] = []
        image = None
        if "crop" in w.steps:
            try:
                image = self._make_crop(w, enrichers)
            except (DocumentError, OSError) as e:
                errors.append(f"crop: {e}")
        if image is None and w.crop:
            try:
                image = load_crop(self.folder, w.crop)
            except OSError:
                try:
                    image = self._make_crop(w, enrichers)
                except (DocumentError, OSError) as e:
                    errors.append(f"crop: {e}")
        if image is None:
            if "crop" not in w.steps and not errors:
                # a figure whose image never existed (a Markdown/Docling link that was missing or
                # refused at ingest, where the reason was given): found by its caption, nothing to do
                log.info("%s: figure %s has no image to enrich", w.doc_name, w.chunk_id)
            self.figures.update(w.chunk_id, ocr_done=1 if "ocr" in w.steps else None)
            return errors
        additions: dict = {}
        if "ocr" in w.steps:
            try:
                additions["ocr"] = _ocr_lines(enrichers.ocr, image, w)
            except (EngineError, RuntimeError, ValueError) as e:
                errors.append(f"ocr: {e}")
                additions["ocr"] = None
        if "vlm" in w.steps:
            try:
                additions["vlm"] = enrichers.vlm.caption(image)
            except ModelError as e:
                errors.append(f"vlm: {e.reason}")
                additions["vlm"] = None
        vector = None
        if "clip" in w.steps:
            try:
                vector = enrichers.image_embedder.encode_images([image])[0]
            except (ModelError, RuntimeError, ValueError) as e:
                errors.append(f"clip: {e}")
        self._commit_figure(w, enrichers, additions, vector)
        return errors

    def _source(self, w: FigureWork) -> Path:
        """The figure's document file here: its own, or the copy of the one the library stores."""
        path = Path(w.doc_path)
        if path.is_file():
            return path
        row = self.documents.by_path(path)
        return (self.files.local_copy(row["sha256"], w.doc_name) if row else None) or path

    def _make_crop(self, w: FigureWork, enrichers: Enrichers):
        from ..figures.crops import crop_image_file, render_pdf_region, save_crop
        from ..figures.phash import dhash, phash

        source = self._source(w)
        if w.doc_kind == "pdf":
            image = render_pdf_region(source, w.page, w.bbox, doc=enrichers.open_pdf(str(source)))
        elif w.doc_kind == "image":
            image = crop_image_file(source, w.bbox, self.documents.page_size(w.doc_id, w.page))
        else:
            raise DocumentError(w.doc_path, f"figures of {w.doc_kind} documents are cropped at ingest only")
        rel, width, height = save_crop(self.folder, w.doc_id, w.chunk_id, image)
        self.figures.update(w.chunk_id, crop=rel, width=width, height=height, phash=phash(image), dhash=dhash(image))
        w.crop = rel
        return image

    def _commit_figure(self, w: FigureWork, enrichers: Enrichers, additions: dict, vector) -> None:
        from ..models.caption_schema import component_page_boxes

        caption = additions.get("vlm")
        vlm_id = getattr(enrichers.vlm, "model_id", None)
        clip_id = getattr(enrichers.image_embedder, "model_id", None)
        row = self.chunks.text_row(w.chunk_id)
        if row is None:  # the document was removed or re-ingested meanwhile
            return
        text, section, lines_json, meta_json = row
        meta = json.loads(meta_json or "{}")
        lines = json.loads(lines_json or "[]")
        base = meta.setdefault("base", {"text": text, "n_lines": len(lines), "n_segments": None})
        changed = False
        if additions.get("ocr"):
            meta["ocr_lines"] = additions["ocr"]
            changed = True
        if caption is not None:
            comps = component_page_boxes(caption, w.bbox)
            meta["vlm"] = {"model": vlm_id, "caption": caption,
                           "component_lines": [{"p": w.page, "b": c["bbox"], "t": c["name"], "c": 1} for c in comps]}
            changed = True
        new_vec = new_segs = None
        if changed:
            cap = None
            if meta.get("vlm"):
                cap = dict(meta["vlm"]["caption"], _component_lines=meta["vlm"]["component_lines"])
            new_text, spans, part_lines = compose_figure_text(base["text"], meta.get("ocr_lines"), cap)
            old_segs = self.vectors.segment_vectors([w.chunk_id], self.models.embedder.model_id).get(w.chunk_id)
            if base["n_segments"] is None:
                base["n_segments"] = int(old_segs.shape[0]) if old_segs is not None else 0
            n_base = base["n_segments"]
            lines = lines[: base["n_lines"]]
            for j, plines in enumerate(part_lines):
                lines.extend(dict(ln, s=[n_base + j]) for ln in plines)
            new_vec, extra_segs = self._embed(section, new_text, spans)
            if meta.get("ocr_lines"):
                # the chunk's vector leaves the OCR text out: a screenshot's or schematic's words are
                # many and noisy and pulled the figure away from questions about it (dev question f06
                # fell out of the dense top 40); BM25 and the OCR part's own segment still match them
                dense_text = compose_figure_text(base["text"], None, cap)[0]
                new_vec = self._embed(section, dense_text, [])[0]
            kept = old_segs[:n_base].astype(np.float32) if old_segs is not None else np.zeros((0, new_vec.shape[0]), np.float32)
            new_segs = np.concatenate([kept, extra_segs]) if len(extra_segs) else kept
            text = new_text
        image_index = None
        if vector is not None:  # None while clip_id is a new model waiting to cover the library
            image_index = self.models.image.index_for(clip_id, int(vector.shape[0]),
                                                      getattr(enrichers.image_embedder, "path", None))
        text_model = self.models.embedder.model_id  # read outside the transaction: models, then store
        with self.figures.db.transaction():
            if not self.figures.exists(w.chunk_id):
                return
            if changed:
                self.chunks.update_text(w.chunk_id, text, json.dumps(lines), json.dumps(meta))
                # vectors of another model (a re-embed in progress) are stale now: recomputed later
                self.vectors.replace_chunk_text(w.chunk_id, text_model, new_vec, new_segs)
            if caption is not None:
                data = dict(caption, components=[dict(cp, bbox_page=cl["b"]) for cp, cl in
                                                 zip(caption["components"], meta["vlm"]["component_lines"], strict=True)])
                self.figures.put_caption(w.chunk_id, vlm_id, data)
            if vector is not None:
                self.vectors.put_image(w.chunk_id, clip_id, vector)
            self.figures.update(w.chunk_id, ocr_done=1 if "ocr" in w.steps else None,
                                caption_model=vlm_id if "vlm" in w.steps else None,
                                clip_model=clip_id if "clip" in w.steps and vector is not None else None)
        if changed:
            self.models.text_index().add(np.asarray([w.chunk_id], dtype=np.int64), new_vec[None, :])
        if image_index is not None:
            image_index.add(np.asarray([w.chunk_id], dtype=np.int64), np.asarray(vector, np.float32)[None, :])

    def _embed(self, section: str, text: str, spans: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Chunk vector and the vectors of `spans` (appended parts), the way ingest embeds chunks."""
        from ..ingest.pipeline import embed_text_of

        full, offset = embed_text_of(SimpleNamespace(section=section, text=text))
        enc = self.models.embedder.encode_with_segments([full], [[(a + offset, b + offset) for a, b in spans]])
        return enc.vectors[0], enc.segments[0]

    def _mark_documents_done(self, enrichers: Enrichers, doc_ids: list[int] | None) -> None:
        """Documents whose figures need nothing more from the available models become enrichment 'done'."""
        left = {w.doc_id for w in self.pending_figures(enrichers, doc_ids)}
        self.documents.mark_enrichment_done(
            [d for d in self.documents.enrichment_pending() if d not in left and (not doc_ids or d in doc_ids)])
