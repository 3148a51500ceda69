"""The transformers CLIP backend on a tiny random CLIPModel folder built in the test, loaded
through the same code path as a user's folder (registry inspection -> factory -> backend)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from model_builders import build_tiny_clip
from PIL import Image

from mmrag_desktop.engine.errors import ModelError
from mmrag_desktop.engine.models import clip
from mmrag_desktop.engine.models.registry import resolve
from mmrag_desktop.engine.settings import Settings


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    return build_tiny_clip(tmp_path_factory.mktemp("clip") / "tiny-clip")


def test_torchvision_is_not_installed():
    assert importlib.util.find_spec("torchvision") is None  # ENVIRONMENT.md, trap 2


def test_user_choice_resolves_and_encodes(tiny_clip):
    settings = Settings(models={"image_embedder": str(tiny_clip)})
    r = resolve("image_embedder", settings)
    assert r.ok and r.extra["backend"] == "transformers" and r.model_id == "tiny-clip"
    emb = clip.load_image_embedder(settings=settings)
    try:
        assert emb.backend == "transformers" and emb.model_id == "tiny-clip" and emb.dim == 16
        images = [Image.new("RGB", (50, 80), (255, 0, 0)), Image.new("RGBA", (120, 40), (0, 0, 255, 128)),
                  Image.new("L", (33, 33), 128)]
        iv = emb.encode_images(images)
        tv = emb.encode_text(["a red square", "reset button", ""])
        assert iv.shape == (3, 16) and tv.shape == (3, 16)
        assert iv.dtype == np.float32 and tv.dtype == np.float32
        assert np.allclose(np.linalg.norm(iv, axis=1), 1, atol=1e-5)
        assert np.allclose(np.linalg.norm(tv, axis=1), 1, atol=1e-5)
        assert not np.allclose(iv[0], iv[1])  # different images, different vectors
        again = emb.encode_images(images[:1])
        assert np.allclose(again[0], iv[0], atol=1e-5)  # batch-independent
        assert emb.encode_images([]).shape == (0, 16)
    finally:
        emb.close()


def test_preprocessing_matches_transformers_image_processor(tiny_clip):
    """Our numpy preprocessing must equal CLIPImageProcessor (slow, PIL) on the same folder."""
    from transformers import CLIPImageProcessor

    emb = clip.TransformersClip(tiny_clip)
    proc = CLIPImageProcessor.from_pretrained(str(tiny_clip))
    img = Image.effect_mandelbrot((97, 61), (-2, -1.2, 1, 1.2), 60).convert("RGB")
    ours = emb.pixel_values([img])
    theirs = proc(images=[img], return_tensors="np")["pixel_values"]
    assert ours.shape == theirs.shape == (1, 3, 32, 32)
    assert np.abs(ours - theirs).max() < 0.05


def test_errors_are_model_errors(tmp_path, tiny_clip):
    with pytest.raises(ModelError, match="not a CLIP folder"):
        clip.load_image_embedder(tmp_path)
    with pytest.raises(ModelError, match="unknown image embedding backend"):
        clip.load_image_embedder(tiny_clip, backend="nope")
    broken = tmp_path / "broken-clip"
    broken.mkdir()
    for name in ("config.json", "preprocessor_config.json", "vocab.json", "merges.txt", "tokenizer_config.json"):
        (broken / name).write_bytes((tiny_clip / name).read_bytes())
    (broken / "model.safetensors").write_bytes(b"not really weights")
    with pytest.raises(ModelError, match="cannot load the CLIP model"):
        clip.load_image_embedder(broken)


def test_open_clip_backend_reports_not_installed(tmp_path):
    folder = tmp_path / "oc"
    folder.mkdir()
    (folder / "open_clip_config.json").write_text("{}")
    (folder / "open_clip_pytorch_model.bin").write_bytes(b"x")
    r = resolve("image_embedder", Settings(models={"image_embedder": str(folder)}))
    assert r.ok and r.extra["backend"] == "open_clip"
    if importlib.util.find_spec("open_clip") is None:
        with pytest.raises(ModelError, match="open_clip backend is not installed"):
            clip.load_image_embedder(folder)


def test_verify_model_for_clip(tiny_clip):
    from mmrag_desktop.engine.models.verify import verify_model

    v = verify_model("image_embedder", tiny_clip)
    assert v.details == {"dim": 16, "backend": "transformers"} and v.model_id == "tiny-clip"
    assert v.settings_entries() == {"image_embedder": str(tiny_clip)}
