"""Cropped page images for an export: the cited region of a page with its highlight drawn in.

PDF pages are rendered with PyMuPDF around the highlight boxes (a margin of context, at least a
readable width, at most MAX_REGION_HEIGHT points tall) at CROP_DPI, the boxes drawn as a
semi-transparent yellow fill with an orange border, like the window's viewer. Standalone images are
cropped with Pillow (1 pixel = 1 unit, EXIF orientation applied, as the image parser measures
them). Every crop is bounded (MAX_SIDE_PX on its longest side) and encoded as PNG, or JPEG when
that is much smaller (photographs). A crop that cannot be made raises CropUnavailable with the
reason in plain words; the export shows the cited text and that reason instead.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..elements import BBox, box_inside

CROP_DPI = 144  # 2x screen size: body text stays legible on screen and on paper
MAX_SIDE_PX = 1400
MARGIN_X, MARGIN_Y = 36.0, 48.0  # points of context around the highlighted lines
MIN_WIDTH, MIN_HEIGHT = 360.0, 150.0  # points: a one-word box still shows its line and neighbours
MAX_REGION_HEIGHT = 620.0  # points: a tall box (a whole-page figure) is shown from its top
MAX_PAGES = 3  # pages shown for one citation whose boxes cross pages
FILL = (1.0, 0.84, 0.0)  # highlight fill (yellow), drawn at FILL_OPACITY
FILL_OPACITY = 0.35
BORDER = (0.9, 0.45, 0.0)  # highlight border (orange)
FILL_RGB = tuple(round(c * 255) for c in FILL)
BORDER_RGB = tuple(round(c * 255) for c in BORDER)
JPEG_WHEN_SMALLER = 0.6  # JPEG is used when it is below this share of the PNG's size


class CropUnavailable(Exception):
    """No image can be made for a citation; the message says why in plain words."""


@dataclass
class Crop:
    """One encoded crop: `page` (1-based), `mime`, the encoded bytes, the pixel size,
    `region` (the cropped area in page units) and `highlight` (the boxes in the crop's pixels)."""

    page: int
    mime: str
    data: bytes
    width: int
    height: int
    region: BBox
    highlight: list[BBox] = field(default_factory=list)


def boxes_by_page(page: int, bbox: BBox | None, boxes: Sequence) -> dict[int, list[BBox]]:
    """{page: [boxes]} in first-seen order from a citation's `boxes` ((page, bbox) pairs or
    {"page", "bbox"} dicts), falling back to (page, bbox); a page without a box maps to []."""
    out: dict[int, list[BBox]] = {}
    for b in boxes or []:
        p, bb = (b.get("page"), b.get("bbox")) if isinstance(b, dict) else b
        if isinstance(p, int) and bb and len(bb) == 4:
            out.setdefault(p, []).append(tuple(float(v) for v in bb))
    if not out:
        out[int(page)] = [tuple(float(v) for v in bbox)] if bbox and len(bbox) == 4 else []
    return out


def _region(boxes: list[BBox], width: float, height: float) -> BBox:
    """The area to show: the boxes' union with margins, widened to MIN_WIDTH x MIN_HEIGHT,
    at most MAX_REGION_HEIGHT tall (from the top of the boxes), inside the page."""
    if not boxes:
        return (0.0, 0.0, width, min(height, width * 1.3))
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    x0, y0, x1, y1 = x0 - MARGIN_X, y0 - MARGIN_Y, x1 + MARGIN_X, y1 + MARGIN_Y
    x0, x1 = _widen(x0, x1, min(MIN_WIDTH, width))
    y0, y1 = _widen(y0, y1, min(MIN_HEIGHT, height))
    y1 = min(y1, y0 + MAX_REGION_HEIGHT)
    x0, x1 = _inside(x0, x1, width)
    y0, y1 = _inside(y0, y1, height)
    return (x0, y0, x1, y1)


def _widen(a: float, b: float, least: float) -> tuple[float, float]:
    if b - a >= least:
        return a, b
    grow = (least - (b - a)) / 2
    return a - grow, b + grow


def _inside(a: float, b: float, limit: float) -> tuple[float, float]:
    """Shift [a, b] into [0, limit] keeping its length where it fits."""
    if a < 0:
        a, b = 0.0, b - a
    if b > limit:
        a, b = max(0.0, a - (b - limit)), limit
    return a, b


def _encode(pil_image, prefer_jpeg: bool = False) -> tuple[str, bytes]:
    png = io.BytesIO()
    pil_image.save(png, "PNG", optimize=True)
    jpeg = io.BytesIO()
    pil_image.convert("RGB").save(jpeg, "JPEG", quality=85, optimize=True)
    if prefer_jpeg or jpeg.tell() < JPEG_WHEN_SMALLER * png.tell():
        return "image/jpeg", jpeg.getvalue()
    return "image/png", png.getvalue()


def _outer(boxes: list[BBox]) -> list[BBox]:
    """The boxes not lying inside another one (a citation lists a sentence's lines and their union)."""
    out: list[BBox] = []
    for i, a in enumerate(boxes):
        if not any(j != i and box_inside(a, b, 1) and (not box_inside(b, a, 1) or j < i) for j, b in enumerate(boxes)):
            out.append(a)
    return out


def _draw_highlight(pil_image, boxes_px: list[BBox], pad: float = 3.0):
    """`pil_image` (RGB) with the boxes (grown by `pad` pixels) filled semi-transparent yellow, once
    where they overlap, and outlined orange."""
    from PIL import Image, ImageDraw

    boxes = [(x0 - pad, y0 - pad, x1 + pad, y1 + pad) for x0, y0, x1, y1 in _outer(boxes_px)]
    if not boxes:
        return pil_image
    mask = Image.new("L", pil_image.size, 0)
    draw = ImageDraw.Draw(mask)
    for b in boxes:
        draw.rectangle(b, fill=round(255 * FILL_OPACITY))
    out = Image.composite(Image.new("RGB", pil_image.size, FILL_RGB), pil_image.convert("RGB"), mask)
    draw = ImageDraw.Draw(out)
    line = max(2, round(pil_image.width / 600))
    for x0, y0, x1, y1 in boxes:
        draw.rectangle((x0 - line, y0 - line, x1 + line, y1 + line), outline=BORDER_RGB, width=line)
    return out


def pdf_crops(path: Path, by_page: dict[int, list[BBox]]) -> list[Crop]:
    """Crops of the PDF at `path` around each page's boxes (at most MAX_PAGES pages).

    Boxes are in PDF points of the unrotated page, top-left origin (what search reports); a
    rotated page is shown as a reader shows it. Raises CropUnavailable when the file cannot be
    opened or a page is missing."""
    import pymupdf
    from PIL import Image

    try:
        doc = pymupdf.open(str(path))
    except Exception as e:  # PyMuPDF raises its own FileDataError / RuntimeError types
        raise CropUnavailable(f"the file cannot be opened ({str(e).splitlines()[0] if str(e) else type(e).__name__})") from e
    try:
        if doc.needs_pass:
            raise CropUnavailable("the PDF needs a password")
        out = []
        for page_no, boxes in list(by_page.items())[:MAX_PAGES]:
            if not 1 <= page_no <= doc.page_count:
                raise CropUnavailable(f"the file has no page {page_no} now ({doc.page_count} pages)")
            page = doc[page_no - 1]
            # the page as shown (rotation applied): map the boxes there, crop and draw in pixels
            m = page.rotation_matrix
            shown = [tuple(pymupdf.Rect(b).transform(m).normalize()) for b in boxes]
            region = _region(shown, page.rect.width, page.rect.height)
            scale = CROP_DPI / 72
            rw, rh = region[2] - region[0], region[3] - region[1]
            scale = max(0.5, min(scale, MAX_SIDE_PX / max(rw, rh, 1.0)))
            try:  # get_pixmap's clip is in the page as shown (measured on a page rotated 90 degrees)
                pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=pymupdf.Rect(region), alpha=False)
            except Exception as e:
                raise CropUnavailable(f"page {page_no} cannot be rendered ({e})") from e
            img = Image.frombytes("RGB" if pix.n == 3 else "L", (pix.width, pix.height), pix.samples).convert("RGB")
            px = [((b[0] - region[0]) * scale, (b[1] - region[1]) * scale,
                   (b[2] - region[0]) * scale, (b[3] - region[1]) * scale) for b in shown]
            img = _draw_highlight(img, px, pad=2 * scale)
            mime, data = _encode(img)
            out.append(Crop(page_no, mime, data, img.width, img.height, region, px))
        return out
    finally:
        doc.close()


def image_crops(path: Path, by_page: dict[int, list[BBox]]) -> list[Crop]:
    """Crops of a standalone image (page = frame) around the boxes, in the image's pixels.
    Raises CropUnavailable when the image cannot be read."""
    from PIL import ImageOps

    from ..errors import CorruptDocumentError
    from ..images import flatten_on_white
    from ..parse.image import open_pil

    try:
        im = open_pil(path)
    except CorruptDocumentError as e:
        raise CropUnavailable(e.reason) from e
    try:
        out = []
        for page_no, boxes in list(by_page.items())[:MAX_PAGES]:
            try:
                if page_no > 1:
                    im.seek(page_no - 1)
                frame = flatten_on_white(ImageOps.exif_transpose(im))
            except (OSError, EOFError, ValueError) as e:
                raise CropUnavailable(f"the image cannot be decoded ({e})") from e
            w, h = frame.size
            margin = max(16.0, 0.04 * max(w, h))
            if boxes:
                x0, y0 = min(b[0] for b in boxes) - margin, min(b[1] for b in boxes) - margin
                x1, y1 = max(b[2] for b in boxes) + margin, max(b[3] for b in boxes) + margin
                region = (max(0.0, x0), max(0.0, y0), min(float(w), x1), min(float(h), y1))
            else:
                region = (0.0, 0.0, float(w), float(h))
            crop = frame.crop(tuple(round(v) for v in region))
            scale = min(1.0, MAX_SIDE_PX / max(crop.size))
            if scale < 1.0:
                crop = crop.resize((max(1, round(crop.width * scale)), max(1, round(crop.height * scale))))
            px = [((b[0] - region[0]) * scale, (b[1] - region[1]) * scale,
                   (b[2] - region[0]) * scale, (b[3] - region[1]) * scale) for b in boxes
                  if boxes and (b[2] - b[0]) * (b[3] - b[1]) < 0.9 * w * h]  # a whole-image box is not drawn
            crop = _draw_highlight(crop, px)
            mime, data = _encode(crop, prefer_jpeg=(im.format == "JPEG"))
            out.append(Crop(page_no, mime, data, crop.width, crop.height, region, px))
        return out
    finally:
        im.close()
