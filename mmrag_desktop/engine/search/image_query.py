"""Search by image: perceptual-hash matches over stored figures, then CLIP image-to-image
neighbours (when an image embedder is configured), then a search with the image's OCR text.
"""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import QueryError
from ..hits import Hit
from .highlight import Highlight

if TYPE_CHECKING:
    from ..store.chunks import Filters
    from .searcher import Searcher

PHASH_MAX_DISTANCE = 10


def load_query_image(image):
    """A PIL RGB image from a path, bytes or PIL image. Raises QueryError when unreadable."""
    from PIL import Image, UnidentifiedImageError

    try:
        if isinstance(image, (str, Path)):
            with Image.open(image) as im:
                return im.convert("RGB")
        if isinstance(image, (bytes, bytearray)):
            with Image.open(BytesIO(image)) as im:
                return im.convert("RGB")
        return image.convert("RGB")
    except (OSError, UnidentifiedImageError) as e:
        raise QueryError(f"cannot read the query image: {e}") from e


def search_image(searcher: Searcher, image, k: int, filters: Filters) -> list[Hit]:
    """Hits for a query image (see module doc). Raises QueryError when the image is unreadable or
    has neither a match nor readable text."""
    from ..figures.similar import similar_figures

    ocr = searcher.models.ocr()

    img = load_query_image(image)
    matches = similar_figures(searcher.figures.hashes(), img, max_distance=PHASH_MAX_DISTANCE)
    if filters.doc_ids is not None:
        matches = [m for m in matches if m.doc_id in filters.doc_ids]
    hits: list[Hit] = []
    rows = searcher.chunks.rows([m.chunk_id for m in matches[:k]])
    for m in matches[:k]:
        row = rows.get(m.chunk_id)
        if row is None:
            continue
        hl = Highlight.region(m.page, json.loads(m.bbox))
        hits.append(searcher.hit(row, hl, 1.0 - m.distance / 64.0, {"phash": m.distance}, None,
                                 searcher.documents.kind(row["doc_id"])))
    seen = {h.chunk_id for h in hits}
    clip_ids = [c for c in searcher.image_list(img, k, filters) if c not in seen]
    clip_rows = searcher.chunks.rows(clip_ids)
    for rank, cid in enumerate(clip_ids, start=1):
        row = clip_rows.get(cid)
        if row is None:
            continue
        region = json.loads(row["meta"] or "{}").get("region")
        hl = Highlight.region(region["page"], region["bbox"]) if region else Highlight(row["page"], None, [], -1)
        hits.append(searcher.hit(row, hl, 0.5 / (60 + rank), {"image": rank}, None,
                                 searcher.documents.kind(row["doc_id"])))
    text = _ocr_text(ocr, img)
    if text:
        seen = {h.chunk_id for h in hits}
        try:
            more = searcher.search(text, k, filters)
        except QueryError:
            more = []
        hits.extend(h for h in more if h.chunk_id not in seen)
    if not hits:
        if ocr is None:
            raise QueryError("no stored figure looks like this image, and OCR is not available to read its text")
        raise QueryError("no stored figure looks like this image and no readable text was found in it")
    return hits[:k]


def _ocr_text(ocr, img) -> str:
    if ocr is None:
        return ""
    lines = ocr.read(img)
    return " ".join(ln.text for ln in lines if ln.score >= 0.5)[:500]
