"""OCR through RapidOCR (PP-OCRv4 det/rec ONNX models shipped in `rapidocr-onnxruntime`).

The package is imported and the models loaded on first use, never at import time.
`Ocr.read` returns lines with pixel boxes (the text of an image of Latin text without the Chinese
characters the model now and then reads into it: `latin_text`); `ocr_region` maps them back to PDF points
for a rendered page region (scanned pages, raster figures in background enrichment).
"""

from __future__ import annotations

import importlib.util
import io
import logging
import re
import sys
import threading
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..elements import BBox, Line
from ..errors import ModelError

if TYPE_CHECKING:
    from PIL import Image

INSTALL_HINT = (
    "OCR is not available: install the rapidocr-onnxruntime package (pip install rapidocr-onnxruntime)"
)


# The text detector reads an image whose short side is at least DETECT_MIN_SIDE pixels (RapidOCR's own
# default upscales to that, however long the other side gets: a 1,024 x 200 figure crop became 3,770 x
# 736 and one image took over a gigabyte). Here the image is scaled up at most until its long side is
# DETECT_MAX_SIDE. On 89 figure crops of the unseen manuals: 97.5% of the text read by the default
# (3,661 of 3,755 characters), peak 767 MB instead of 1,371, 38 s instead of 85 (bench/README.md,
# session 17).
DETECT_MIN_SIDE = 736
DETECT_MAX_SIDE = 2000


# Chinese characters and fullwidth forms: PP-OCRv4 reads Chinese and English, and on a line of Latin
# text it now and then reads a mark or a smudge as one ("12吨 BROWN", "Help 的 ?" in DDD's screenshots;
# half of that manual's 63 screenshots had one)
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_SHARE = 0.75  # an image whose letters are at least this much Latin is one of Latin text


def latin_text(lines: list[str]) -> list[str]:
    """The lines read in one image, fullwidth forms as their ASCII ("\uff08" -> "("), and, where at least
    LATIN_SHARE of all their letters are Latin, without Chinese characters (a line that was only one
    becomes ""); the text of an image of Chinese text is left as it is."""
    lines = [unicodedata.normalize("NFKC", t) if any("\uff01" <= c <= "\uff5e" for c in t) else t for t in lines]
    letters = sum(c.isalpha() for t in lines for c in t)
    cjk = sum(len(_CJK.findall(t)) for t in lines)
    if not cjk or letters - cjk < LATIN_SHARE * letters:
        return lines
    return [" ".join(_CJK.sub(" ", t).split()) for t in lines]


@dataclass
class OcrLine:
    """One recognised line: `bbox` in pixels of the input image (x0, y0, x1, y1, top-left origin)."""

    text: str
    bbox: BBox
    score: float


class Ocr:
    """A lazily loaded RapidOCR engine. One instance may be shared by threads: calls are serialised.

    Raises ModelError("ocr", ...) on construction when rapidocr-onnxruntime is not installed.
    """

    def __init__(self, *, min_score: float = 0.5, threads: int | None = None):
        if not self.available():
            raise ModelError("ocr", INSTALL_HINT)
        self.min_score = min_score
        self.threads = threads
        self._engine: Any = None
        self._lock = threading.Lock()

    @staticmethod
    def available() -> bool:
        """True when the rapidocr_onnxruntime package can be imported (checked without importing it)."""
        if "rapidocr_onnxruntime" in sys.modules:
            return sys.modules["rapidocr_onnxruntime"] is not None  # None = import blocked
        try:
            return importlib.util.find_spec("rapidocr_onnxruntime") is not None
        except (ImportError, ValueError):
            return False

    def _load(self) -> Any:
        if self._engine is None:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError as e:  # present but broken (e.g. missing opencv / onnxruntime)
                raise ModelError("ocr", f"{INSTALL_HINT} ({e})") from e
            logging.getLogger("RapidOCR").setLevel(logging.WARNING)
            # no upscaling by the detector itself (`read` scales the image); larger images are reduced
            kwargs: dict[str, Any] = {"det_limit_type": "max", "det_limit_side_len": DETECT_MAX_SIDE + 64}
            if self.threads:
                kwargs.update(intra_op_num_threads=self.threads, inter_op_num_threads=1)
            try:
                self._engine = RapidOCR(**kwargs)
            except Exception as e:
                raise ModelError("ocr", f"the OCR models failed to load ({e})") from e
        return self._engine

    def read(self, image: Image.Image | bytes) -> list[OcrLine]:
        """Recognise text in a PIL image or encoded image bytes (PNG/JPEG).

        Returns lines in the engine's order (top to bottom), each with a pixel box and a
        confidence; lines below `min_score` are dropped. Raises ModelError when the engine
        cannot load.
        """
        import numpy as np
        from PIL import Image

        if isinstance(image, bytes | bytearray):
            image = Image.open(io.BytesIO(image))
        image = image.convert("RGB")
        w, h = image.size
        scale = min(DETECT_MIN_SIDE / max(1, min(w, h)), DETECT_MAX_SIDE / max(1, w, h))
        if scale > 1:
            image = image.resize((round(w * scale), round(h * scale)), Image.BICUBIC)
        else:
            scale = 1.0
        arr = np.asarray(image)[:, :, ::-1].copy()  # RapidOCR expects BGR like cv2
        with self._lock:
            engine = self._load()
            result, _ = engine(arr)
        out: list[OcrLine] = []
        result = list(result or ())
        texts = latin_text([str(text).strip() for _, text, _ in result])
        for (box, _, score), text in zip(result, texts, strict=True):
            xs = [float(p[0]) / scale for p in box]
            ys = [float(p[1]) / scale for p in box]
            s = float(score)
            if text and s >= self.min_score:
                out.append(OcrLine(text=text, bbox=(min(xs), min(ys), max(xs), max(ys)), score=s))
        return out


def ocr_region(ocr: Ocr, image_png: bytes, region: BBox, page: int) -> list[Line]:
    """OCR a rendered crop of a page region and return `Line`s in PDF points.

    `image_png` is the crop of `region` (PDF points, top-left origin) rendered at any
    resolution (e.g. `Figure.image_png` with `Figure.bbox`, or a whole page with its rect);
    pixel boxes are scaled back into the region. Raises ModelError when OCR cannot load.
    """
    from PIL import Image

    img = Image.open(io.BytesIO(image_png))
    sx = (region[2] - region[0]) / max(1, img.width)
    sy = (region[3] - region[1]) / max(1, img.height)
    lines = []
    for ol in ocr.read(img):
        b = (
            region[0] + ol.bbox[0] * sx,
            region[1] + ol.bbox[1] * sy,
            region[0] + ol.bbox[2] * sx,
            region[1] + ol.bbox[3] * sy,
        )
        lines.append(Line(text=ol.text, page=page, bbox=b, size=round((b[3] - b[1]) / 1.2, 1)))
    return lines
