"""Map highlight boxes (PDF points, PyMuPDF page space) to viewer pixels.

PyMuPDF reports text boxes in the *unrotated* page space (origin top-left of the
cropbox). A rendered pixmap shows the *rotated* page. `page.rotation_matrix` maps the
first onto the second; the zoom then scales points to logical pixels. Device pixels are
logical pixels times the screen's device pixel ratio; the viewer paints in logical
pixels on a QImage whose devicePixelRatio is set, so highlights stay sharp on HiDPI.
"""

from __future__ import annotations

from dataclasses import dataclass

BBox = tuple[float, float, float, float]
Matrix6 = tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class PageGeometry:
    """What the viewer needs to know about one page to place highlights.

    width/height: size of the page as displayed (rotation applied), in points;
    rotation: 0/90/180/270; matrix: PyMuPDF's `page.rotation_matrix` as (a, b, c, d, e, f).
    """

    width: float
    height: float
    rotation: int = 0
    matrix: Matrix6 = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

    @classmethod
    def from_page(cls, page) -> PageGeometry:
        """Build from a `pymupdf.Page`; returns the displayed size and its rotation matrix."""
        m = page.rotation_matrix
        r = page.rect  # rotated, cropbox-based
        return cls(float(r.width), float(r.height), int(page.rotation),
                   (m.a, m.b, m.c, m.d, m.e, m.f))

    def to_display(self, bbox: BBox) -> BBox:
        """Return `bbox` (unrotated page points) in displayed-page points, normalised."""
        a, b, c, d, e, f = self.matrix
        xs, ys = [], []
        for x, y in ((bbox[0], bbox[1]), (bbox[2], bbox[1]), (bbox[0], bbox[3]), (bbox[2], bbox[3])):
            xs.append(a * x + c * y + e)
            ys.append(b * x + d * y + f)
        return (min(xs), min(ys), max(xs), max(ys))

    def to_pixels(self, bbox: BBox, zoom: float) -> BBox:
        """Return `bbox` in logical viewer pixels at `zoom` (1.0 = 72 dpi = 100%)."""
        x0, y0, x1, y1 = self.to_display(bbox)
        return (x0 * zoom, y0 * zoom, x1 * zoom, y1 * zoom)

    def pixel_size(self, zoom: float) -> tuple[int, int]:
        """Return the displayed page size in logical pixels at `zoom`."""
        return (max(1, round(self.width * zoom)), max(1, round(self.height * zoom)))
