"""Standalone image files (PNG, JPEG, GIF, BMP, TIFF, WebP) as one-page documents.

An image becomes one page per frame of a multi-page TIFF (one page for every other
format) whose size is the image's pixel size (1 px = 1 unit). The page holds a single
"figure" block: the downscaled picture as PNG, the OCR'd text inside it (when an OCR
engine is given) and, as the block's text, the file name and folder turned into words,
so a file called `pinout_atmega328-p.png` in `datasheets/` is found by those words.

Also home of the image helpers the Markdown and Docling parsers share
(`load_image`, `image_to_png`, `ocr_label_lines`).
"""

from __future__ import annotations

import io
import logging
import re
import struct
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..elements import BBox, Block, Figure, Line, PageContent
from ..errors import CorruptDocumentError
from ..images import flatten_on_white

if TYPE_CHECKING:
    from PIL import Image as PILImage

log = logging.getLogger(__name__)

MAX_PIXELS = 80_000_000
"""Images larger than this (in decoded pixels) are refused before decoding: never exhaust memory."""

PNG_MAX_SIDE = 1600
"""Longest side of the stored PNG rendition of a figure."""

OCR_MAX_SIDE = 2400
"""Longest side of the image handed to OCR (boxes are scaled back to the full size)."""

MAX_TIFF_PAGES = 500

_SAFE_MODES = {"1", "L", "LA", "P", "RGB", "RGBA"}


@dataclass
class LoadedImage:
    """One decoded image frame, already oriented and reduced to bounded sizes.

    `width`/`height` are the full pixel size after EXIF orientation; `png` is the PNG
    rendition (longest side <= PNG_MAX_SIDE); `ocr_image` a copy for OCR (longest side
    <= OCR_MAX_SIDE) and `ocr_scale` the factor from its pixels to full-size pixels.
    """

    width: int
    height: int
    png: bytes
    ocr_image: PILImage.Image
    ocr_scale: float


def _pil():
    try:
        from PIL import Image, ImageFile, ImageOps
    except ImportError as e:  # pragma: no cover - pillow is a core dependency
        raise CorruptDocumentError("(images)", "Pillow is not installed; install 'pillow'") from e
    return Image, ImageFile, ImageOps


def _to_safe_mode(im: PILImage.Image) -> PILImage.Image:
    """Convert exotic modes (CMYK, YCbCr, 16-bit, float) to something PNG and OCR take."""
    if im.mode in _SAFE_MODES:
        return im
    if im.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        # Scale high-bit-depth greyscale down to 8 bits instead of clipping it to white.
        import numpy as np

        arr = np.asarray(im, dtype=np.float64)
        hi = float(arr.max()) if arr.size else 0.0
        arr = arr * (255.0 / hi) if hi > 0 else arr
        from PIL import Image

        return Image.fromarray(arr.clip(0, 255).astype("uint8"), mode="L")
    if "A" in im.getbands():
        return im.convert("RGBA")
    return im.convert("RGB")


def _reduced(im: PILImage.Image, max_side: int) -> tuple[PILImage.Image, float]:
    """`im` no larger than `max_side` on its longest side (a new image when resized, `im`
    itself otherwise; the full-size pixels are never copied) and the full/reduced scale."""
    from PIL import Image

    w, h = im.size
    longest = max(w, h)
    if longest <= max_side:
        return im, 1.0
    f = max_side / longest
    size = (max(1, round(w * f)), max(1, round(h * f)))
    if im.mode in ("1", "P"):
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    return im.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0), w / size[0]


_TRANSPOSE = {
    2: "FLIP_LEFT_RIGHT",
    3: "ROTATE_180",
    4: "FLIP_TOP_BOTTOM",
    5: "TRANSPOSE",
    6: "ROTATE_270",
    7: "TRANSVERSE",
    8: "ROTATE_90",
}
"""EXIF orientation -> the Pillow transpose that displays the image upright (as ImageOps.exif_transpose)."""


def _oriented(im: PILImage.Image, orientation: int) -> PILImage.Image:
    from PIL import Image

    name = _TRANSPOSE.get(orientation)
    return im.transpose(getattr(Image.Transpose, name)) if name else im


def image_to_png(im: PILImage.Image, max_side: int = PNG_MAX_SIDE) -> bytes:
    """Encode `im` as PNG bytes, downscaled to at most `max_side` on its longest side."""
    small, _ = _reduced(_to_safe_mode(im), max_side)
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def _check_size(source: str, w: int, h: int) -> None:
    if w <= 0 or h <= 0:
        raise CorruptDocumentError(source, f"the image has an impossible size ({w} x {h} pixels)")
    if w * h > MAX_PIXELS:
        raise CorruptDocumentError(
            source,
            f"the image is too large to open safely ({w} x {h} = {w * h / 1e6:.0f} megapixels; "
            f"the limit is {MAX_PIXELS / 1e6:.0f} megapixels). Reduce it with an image editor and add it again.",
        )


def _decode(im: PILImage.Image, source: str, frame: int = 0) -> LoadedImage:
    """Decode frame `frame` of an opened image into a LoadedImage.

    Raises CorruptDocumentError for damaged, truncated or oversized frames.
    """
    Image, _ImageFile, _ImageOps = _pil()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            if frame:
                im.seek(frame)
            w, h = im.size  # declared size, before draft() may shrink the decode
            _check_size(source, w, h)
            if im.format == "JPEG" and max(w, h) > OCR_MAX_SIDE:
                # libjpeg decodes at 1/2, 1/4 or 1/8 scale: far less memory and time.
                im.draft("RGB", (OCR_MAX_SIDE, OCR_MAX_SIDE))
            im.load()
            orientation = int(im.getexif().get(0x0112, 1) or 1)
            # Reduce first, then orient the small copies: no full-size copy is ever made.
            ocr_image, _ = _reduced(_to_safe_mode(im), OCR_MAX_SIDE)
            png_image, _ = _reduced(ocr_image, PNG_MAX_SIDE)
            ocr_image, png_image = _oriented(ocr_image, orientation), _oriented(png_image, orientation)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as e:
        raise CorruptDocumentError(source, f"the image is too large to open safely ({e})") from e
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, struct.error) as e:
        raise CorruptDocumentError(
            source, f"the image cannot be decoded; it is damaged or truncated ({e})"
        ) from e
    if orientation in (5, 6, 7, 8):
        w, h = h, w
    ocr_image = flatten_on_white(ocr_image)  # dark text on transparency would be black on black for OCR
    if ocr_image is im:
        ocr_image = im.copy()  # the caller closes `im`; keep pixels that outlive it
    return LoadedImage(
        width=w,
        height=h,
        png=image_to_png(png_image, PNG_MAX_SIDE),
        ocr_image=ocr_image,
        ocr_scale=w / ocr_image.size[0] if ocr_image.size[0] else 1.0,
    )


def open_pil(path: Path) -> PILImage.Image:
    """Open `path` lazily with Pillow after checking its declared size.

    Returns the opened (not yet decoded) image. Raises CorruptDocumentError when the file
    is not an image Pillow can identify or declares more than MAX_PIXELS pixels.
    """
    Image, _ImageFile, _ImageOps = _pil()
    source = str(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(path)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as e:
        raise CorruptDocumentError(source, f"the image is too large to open safely ({e})") from e
    except Image.UnidentifiedImageError as e:
        raise CorruptDocumentError(
            source, "the file is not an image Pillow can read (unknown or damaged format)"
        ) from e
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as e:
        raise CorruptDocumentError(source, f"the image cannot be opened; it is damaged ({e})") from e
    w, h = im.size
    try:
        _check_size(source, w, h)
    except CorruptDocumentError:
        im.close()
        raise
    return im


def load_image(path: Path, frame: int = 0) -> LoadedImage:
    """Decode one frame of the image file at `path` into a bounded `LoadedImage`.

    Raises CorruptDocumentError (plain-words reason) for unreadable, truncated or
    oversized images; never decodes more than MAX_PIXELS pixels.
    """
    im = open_pil(path)
    try:
        return _decode(im, str(path), frame)
    finally:
        im.close()


def load_image_bytes(data: bytes, source: str) -> LoadedImage:
    """Like `load_image` for image bytes in memory (e.g. a data URI); `source` names it in errors."""
    Image, _ImageFile, _ImageOps = _pil()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as e:
        raise CorruptDocumentError(source, f"the image is too large to open safely ({e})") from e
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as e:
        raise CorruptDocumentError(source, f"the embedded image cannot be read ({e})") from e
    try:
        return _decode(im, source)
    finally:
        im.close()


def _box_from_ocr(bbox: Any) -> BBox:
    """Accept (x0, y0, x1, y1) or a 4-point quad [[x, y], ...] and return (x0, y0, x1, y1)."""
    seq = list(bbox)
    if len(seq) == 4 and all(isinstance(v, (int, float)) for v in seq):
        x0, y0, x1, y1 = (float(v) for v in seq)
        return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    xs = [float(p[0]) for p in seq]
    ys = [float(p[1]) for p in seq]
    return (min(xs), min(ys), max(xs), max(ys))


def ocr_label_lines(
    ocr: Any,
    loaded: LoadedImage,
    page: int,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    scale: float = 1.0,
    fixed_bbox: BBox | None = None,
) -> list[Line]:
    """Run `ocr.read()` on a loaded image and return its text lines as `Line`s.

    Each OCR box (pixels of the OCR copy) is scaled to full-size pixels, then multiplied
    by `scale` and shifted by `origin` (to place it on a page). With `fixed_bbox` every
    line gets that box instead (sources without page geometry). Lines with no text are
    dropped. Errors from the OCR engine propagate unchanged.
    """
    out: list[Line] = []
    for ol in ocr.read(loaded.ocr_image):
        text = (getattr(ol, "text", "") or "").strip()
        if not text:
            continue
        if fixed_bbox is not None:
            box = fixed_bbox
        else:
            x0, y0, x1, y1 = _box_from_ocr(ol.bbox)
            f = loaded.ocr_scale * scale
            box = (origin[0] + x0 * f, origin[1] + y0 * f, origin[0] + x1 * f, origin[1] + y1 * f)
        out.append(Line(text=text, page=page, bbox=box, size=round(box[3] - box[1], 2)))
    return out


_SPLIT_RE = re.compile(r"[\s_\-.+,;=~#]+")
_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")


def name_to_words(name: str) -> str:
    """File or folder name as words: "pinout_atmega328-p" -> "pinout atmega328 p"."""
    words = _SPLIT_RE.sub(" ", _CAMEL_RE.sub(" ", name))
    return " ".join(words.split())


class ImageDocument:
    """A parsed image file: `pages()` yields one PageContent per frame (TIFF pages) or one."""

    kind = "image"

    def __init__(self, path: Path, first: LoadedImage, frames: int, ocr: Any | None):
        self.path = path
        self.title = path.stem
        self.page_count = frames
        self._first: LoadedImage | None = first
        self._ocr = ocr
        self.warnings: list[str] = []

    def _context_lines(self, page: int, bbox: BBox) -> list[Line]:
        lines = [Line(text=name_to_words(self.path.stem) or self.path.name, page=page, bbox=bbox)]
        folder = name_to_words(self.path.parent.name)
        if folder:
            lines.append(Line(text=folder, page=page, bbox=bbox))
        return lines

    def _page(self, page: int, loaded: LoadedImage) -> PageContent:
        w, h = loaded.width, loaded.height
        bbox: BBox = (0.0, 0.0, float(w), float(h))
        labels: list[Line] = []
        if self._ocr is not None:
            labels = ocr_label_lines(self._ocr, loaded, page)
        fig = Figure(
            bbox=bbox,
            source="image-file",
            label_lines=labels,
            image_png=loaded.png,
            ocr_used=self._ocr is not None,
        )
        block = Block(kind="figure", lines=self._context_lines(page, bbox), figure=fig)
        return PageContent(
            page=page,
            width=float(w),
            height=float(h),
            blocks=[block],
            has_text_layer=False,
            ocr_used=self._ocr is not None,
        )

    def pages(self) -> Iterator[PageContent]:
        """Yield each page (decoding later TIFF frames on demand). Raises CorruptDocumentError
        when a later frame is damaged."""
        for index in range(self.page_count):
            if index == 0 and self._first is not None:
                loaded, self._first = self._first, None
            else:
                loaded = load_image(self.path, frame=index)
            yield self._page(index + 1, loaded)

    def close(self) -> None:
        """Drop the decoded first frame (the file itself is not held open)."""
        self._first = None


def open_image(path: Path, *, ocr: Any | None = None) -> ImageDocument:
    """Open an image file as a document after verifying it decodes.

    `ocr` is an `Ocr` engine (`read(image) -> [OcrLine]`) or None for no OCR.
    Returns an `ImageDocument` (kind "image", title = file stem).
    Raises CorruptDocumentError for unreadable, truncated, mislabelled or oversized images.
    """
    path = Path(path)
    im = open_pil(path)
    try:
        frames = 1
        if im.format == "TIFF":
            frames = max(1, min(int(getattr(im, "n_frames", 1) or 1), MAX_TIFF_PAGES))
        first = _decode(im, str(path), 0)
    finally:
        im.close()
    return ImageDocument(path, first, frames, ocr)
