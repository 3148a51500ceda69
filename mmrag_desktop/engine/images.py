"""Pillow helpers shared by parsing, figure hashing and the image models."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image as PILImage


def flatten_on_white(image: PILImage.Image) -> PILImage.Image:
    """Return `image` as an RGB image with any transparency composited onto white.

    Transparency is an alpha band (RGBA, LA, PA, ...) or a transparent palette or colour key
    (`info["transparency"]`, as in GIF and PNG). Transparent pixels become white rather than
    the black (or arbitrary colour) a plain RGB conversion would give them: dark text or lines
    on a transparent background stay readable for OCR, hashing and the image models. An RGB
    image without a colour key is returned as it is (not copied); anything else becomes a new
    RGB image.
    """
    from PIL import Image

    transparent = "transparency" in image.info or any(b in ("A", "a") for b in image.getbands())
    if image.mode == "RGB" and not transparent:
        return image
    if transparent:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")
