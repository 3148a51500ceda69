"""Figure crops: rendering a figure region to an image and keeping it under the library's cache.

A crop lives at `<library>/cache/figures/<doc_id>/<chunk_id>.png`; the `figures.crop` column
stores the path relative to `<library>/cache/`. Crops are regenerable from the source file.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..errors import DocumentError

CROP_DPI = 144
"""Render resolution of PDF figure crops (2x PDF points)."""

CROP_MAX_SIDE = 1024
"""Longest side of a stored crop in pixels (CLIP/VLM/OCR all downscale further)."""

CROP_MIN_SIDE = 8


def crop_relpath(doc_id: int, chunk_id: int) -> str:
    """Path of a figure's crop relative to the library's cache folder."""
    return f"figures/{int(doc_id)}/{int(chunk_id)}.png"


def cache_dir(library_folder: Path) -> Path:
    """The library's cache folder (rendered pages, figure crops)."""
    return Path(library_folder) / "cache"


def _bounded(image, max_side: int):
    from PIL import Image

    longest = max(image.width, image.height)
    if longest > max_side:
        scale = max_side / longest
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image


def open_pdf_for_crops(pdf_path: Path):
    """Open a PDF with PyMuPDF for repeated `render_pdf_region(..., doc=...)` calls (close it after).

    Raises DocumentError when the file cannot be opened.
    """
    import pymupdf

    try:
        return pymupdf.open(str(pdf_path))
    except Exception as e:  # pymupdf raises several types for damaged files
        raise DocumentError(str(pdf_path), f"cannot open the PDF to crop a figure ({e})") from e


def render_pdf_region(pdf_path: Path, page: int, bbox, dpi: int = CROP_DPI, max_side: int = CROP_MAX_SIDE,
                      *, doc=None):
    """Render `bbox` (PDF points, top-left origin) of 1-based `page` to an RGB PIL image.

    `doc` is an already open PyMuPDF document (opening a large PDF costs ~0.1 s; reuse it for
    several figures); without it the file is opened and closed here.
    Raises DocumentError when the file cannot be opened or the page/region is invalid.
    """
    import pymupdf
    from PIL import Image

    owned = doc is None
    if owned:
        doc = open_pdf_for_crops(pdf_path)
    try:
        if not 1 <= page <= doc.page_count:
            raise DocumentError(str(pdf_path), f"page {page} does not exist (the PDF has {doc.page_count})")
        pg = doc[page - 1]
        rect = pymupdf.Rect(*bbox) & pg.rect
        if rect.is_empty or rect.width < 1 or rect.height < 1:
            raise DocumentError(str(pdf_path), f"figure box {list(bbox)} lies outside page {page}")
        zoom = dpi / 72.0
        longest = max(rect.width, rect.height) * zoom
        if longest > max_side:
            zoom *= max_side / longest
        pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=rect, alpha=False)
        return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    finally:
        if owned:
            doc.close()


def crop_image_file(image_path: Path, bbox, page_size: tuple[float, float] | None = None,
                    max_side: int = CROP_MAX_SIDE):
    """Crop `bbox` out of an image file whose page coordinates are `page_size` (default: pixels).

    Raises DocumentError when the image cannot be read.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(image_path) as im:
            im = ImageOps.exif_transpose(im)
            im = im.convert("RGB")
    except (OSError, UnidentifiedImageError) as e:
        raise DocumentError(str(image_path), f"cannot read the image to crop a figure ({e})") from e
    sx = im.width / page_size[0] if page_size and page_size[0] else 1.0
    sy = im.height / page_size[1] if page_size and page_size[1] else 1.0
    x0, y0, x1, y1 = bbox
    box = (max(0, round(x0 * sx)), max(0, round(y0 * sy)), min(im.width, round(x1 * sx)),
           min(im.height, round(y1 * sy)))
    if box[2] - box[0] < 1 or box[3] - box[1] < 1:
        raise DocumentError(str(image_path), f"figure box {list(bbox)} lies outside the image")
    return _bounded(im.crop(box), max_side)


def to_png_bytes(image) -> bytes:
    """PNG encoding of a PIL image (any mode Pillow can write as PNG; WebP etc. are converted)."""
    buf = io.BytesIO()
    if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
        image = image.convert("RGB")
    image.save(buf, format="PNG", optimize=False, compress_level=3)
    return buf.getvalue()


def save_crop(library_folder: Path, doc_id: int, chunk_id: int, image) -> tuple[str, int, int]:
    """Write a figure crop PNG atomically; returns (path relative to cache/, width, height).

    `image` is a PIL image or PNG bytes. Raises OSError when the cache folder is not writable.
    """
    from PIL import Image

    if isinstance(image, (bytes, bytearray)):
        image = Image.open(io.BytesIO(image))
        image.load()
    image = _bounded(image, CROP_MAX_SIDE)
    rel = crop_relpath(doc_id, chunk_id)
    path = cache_dir(library_folder) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(to_png_bytes(image))
    tmp.replace(path)
    return rel, image.width, image.height


def load_crop(library_folder: Path, rel: str):
    """Open a stored crop as an RGB PIL image. Raises FileNotFoundError when it is gone."""
    from PIL import Image

    path = cache_dir(library_folder) / rel
    with Image.open(path) as im:
        return im.convert("RGB")


def remove_unused_crops(library_folder: Path, keep: set[str]) -> tuple[int, int]:
    """Delete every crop file whose path (relative to cache/) is not in `keep`, unfinished `.tmp`
    files, and the folders left empty. Returns (files deleted, bytes freed)."""
    root = cache_dir(library_folder)
    figures = root / "figures"
    if not figures.is_dir():
        return 0, 0
    stale = [f for f in figures.rglob("*")
             if f.is_file() and (f.suffix == ".tmp" or f.relative_to(root).as_posix() not in keep)]
    freed = 0
    for f in stale:
        freed += f.stat().st_size
        f.unlink()
    for d in sorted((d for d in figures.rglob("*") if d.is_dir()), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    return len(stale), freed


def remove_document_crops(library_folder: Path, doc_id: int) -> None:
    """Delete every crop of a document (after the document is removed from the library)."""
    import shutil

    shutil.rmtree(cache_dir(library_folder) / "figures" / str(int(doc_id)), ignore_errors=True)
