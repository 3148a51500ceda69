"""flatten_on_white: one way to put a transparent image on white, used by parsing, hashing and
the image models."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

from mmrag_desktop.engine.figures.phash import dhash, phash
from mmrag_desktop.engine.images import flatten_on_white

WHITE, INK = (255, 255, 255), (20, 40, 200)


def rgba_drawing() -> Image.Image:
    """Ink strokes on a fully transparent background, one half-transparent pixel at (0, 0)."""
    im = Image.new("RGBA", (40, 30), (0, 0, 0, 0))  # transparent *black*: plain RGB shows it black
    ImageDraw.Draw(im).rectangle([10, 10, 29, 19], fill=(*INK, 255))
    im.putpixel((0, 0), (0, 0, 0, 128))
    return im


def test_rgba_transparency_becomes_white_and_opaque_ink_stays():
    out = flatten_on_white(rgba_drawing())
    assert out.mode == "RGB" and out.size == (40, 30)
    assert out.getpixel((5, 25)) == WHITE  # transparent → white, not the black a convert("RGB") gives
    assert out.getpixel((15, 15)) == INK
    assert out.getpixel((0, 0)) == pytest.approx((127, 127, 127), abs=1)  # half black over white
    assert rgba_drawing().convert("RGB").getpixel((5, 25)) == (0, 0, 0)


def test_la_transparency_becomes_white():
    im = Image.new("LA", (8, 8), (0, 0))
    im.putpixel((3, 3), (60, 255))
    out = flatten_on_white(im)
    assert out.mode == "RGB"
    assert out.getpixel((0, 0)) == WHITE and out.getpixel((3, 3)) == (60, 60, 60)


def test_palette_with_a_transparent_index_becomes_white():
    im = Image.new("P", (8, 8), 0)
    im.putpalette([0, 0, 0, *INK] + [0] * 762)  # index 0 black (transparent), index 1 ink
    im.putpixel((2, 2), 1)
    buf = io.BytesIO()
    im.save(buf, format="GIF", transparency=0)  # a real GIF round trip: transparency in .info
    gif = Image.open(io.BytesIO(buf.getvalue()))
    assert gif.mode == "P" and "transparency" in gif.info
    out = flatten_on_white(gif)
    assert out.mode == "RGB" and out.getpixel((0, 0)) == WHITE and out.getpixel((2, 2)) == INK


def test_palette_without_transparency_keeps_its_colours():
    im = Image.new("P", (4, 4), 1)
    im.putpalette([0, 0, 0, *INK] + [0] * 762)
    im.putpixel((0, 0), 0)
    out = flatten_on_white(im)
    assert out.getpixel((0, 0)) == (0, 0, 0) and out.getpixel((1, 1)) == INK


def test_plain_rgb_is_returned_as_it_is():
    im = Image.new("RGB", (5, 5), (1, 2, 3))
    assert flatten_on_white(im) is im
    gray = Image.new("L", (5, 5), 77)
    out = flatten_on_white(gray)
    assert out.mode == "RGB" and out.getpixel((0, 0)) == (77, 77, 77)


def test_hashes_see_a_transparent_figure_as_the_same_figure_on_white():
    transparent = rgba_drawing()
    on_white = Image.new("RGB", transparent.size, WHITE)
    on_white.paste(transparent, mask=transparent.getchannel("A"))
    assert phash(transparent) == phash(on_white) and dhash(transparent) == dhash(on_white)


def test_image_models_prepare_transparent_images_on_white():
    """The CLIP preprocessing and the VLM's image preparation both flatten onto white."""
    from mmrag_desktop.engine.models.clip import _prepare
    from mmrag_desktop.engine.models.vlm import prepare_image

    im = Image.new("RGBA", (32, 32), (0, 0, 0, 0))
    vlm_img = prepare_image(im)
    assert vlm_img.mode == "RGB" and vlm_img.getpixel((16, 16)) == WHITE
    pre = {"exact": (16, 16), "shortest": 16, "do_center_crop": False, "crop": (16, 16), "rescale": 1.0,
           "normalize": False, "mean": (0, 0, 0), "std": (1, 1, 1), "resample": 3}
    arr = _prepare(im, pre)
    assert arr.shape == (3, 16, 16) and np.allclose(arr, 255.0)
