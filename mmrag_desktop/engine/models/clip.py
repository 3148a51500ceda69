"""Image embedders (role `image_embedder`): a small backend interface and a factory keyed by name.

Backends:
- "transformers" (default): a transformers `CLIPModel` folder (config.json + weights + tokenizer
  files + preprocessor_config.json). Images are preprocessed here with Pillow/numpy from the
  folder's preprocessor_config.json, so torchvision is never needed (ENVIRONMENT.md, trap 2).
- "open_clip": an open_clip folder (open_clip_config.json + checkpoint). Optional and UNTESTED on
  the development machines: open-clip-torch needs a torchvision that matches torch, which these
  machines cannot install. Missing packages raise ModelError saying what to install.

Vectors are float32, L2-normalised; image and text vectors of one model share a space.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..images import flatten_on_white

ROLE = "image_embedder"
OPENAI_CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


class ImageEmbedder(ABC):
    """What every image-embedding backend offers."""

    model_id: str
    backend: str
    path: Path | None = None  # what it was loaded from (set by load_image_embedder)

    @property
    @abstractmethod
    def dim(self) -> int:
        """Dimension of the shared image/text space."""

    @abstractmethod
    def encode_images(self, images: list) -> np.ndarray:
        """Embed PIL images; returns float32 [n, dim], rows L2-normalised. Raises ModelError."""

    @abstractmethod
    def encode_text(self, texts: list[str]) -> np.ndarray:
        """Embed texts into the image space; float32 [n, dim], rows L2-normalised. Raises ModelError."""

    def close(self) -> None:  # noqa: B027 - optional hook; backends without native resources keep it
        """Release the model (the object is unusable afterwards)."""


class TransformersClip(ImageEmbedder):
    """A transformers `CLIPModel` (or SigLIP) folder; no torchvision needed."""

    backend = "transformers"

    def __init__(self, folder: Path, *, threads: int | None = None, batch_size: int = 16):
        self.folder = Path(folder)
        self.model_id = self.folder.name
        self.batch_size = batch_size
        self._threads = threads
        self._lock = threading.Lock()
        try:
            import torch
            import transformers
        except ImportError as e:
            raise ModelError(ROLE, f"the CLIP backend needs torch and transformers ({e.name} is not installed)") from e
        self._torch = torch
        if threads:
            torch.set_num_threads(int(threads))
        try:
            self.model = transformers.AutoModel.from_pretrained(str(self.folder), local_files_only=True)
            self.model.eval()
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(self.folder), local_files_only=True)
        except Exception as e:  # noqa: BLE001 - loaders raise many types (safetensors, tokenizers, OSError)
            raise ModelError(ROLE, f"cannot load the CLIP model in {self.folder}: {type(e).__name__}: {e}") from e
        if not hasattr(self.model, "get_image_features"):
            raise ModelError(ROLE, f"{self.folder} is a {type(self.model).__name__}, not a CLIP model")
        self._pre = _preprocess_config(self.folder, self.model.config)

    @property
    def dim(self) -> int:
        cfg = self.model.config
        return int(getattr(cfg, "projection_dim", 0) or cfg.text_config.hidden_size)

    @property
    def max_text_tokens(self) -> int:
        return int(self.model.config.text_config.max_position_embeddings)

    def pixel_values(self, images: list) -> np.ndarray:
        """Preprocess PIL images to float32 [n, 3, H, W] the way the folder's CLIPImageProcessor does."""
        return np.stack([_prepare(im, self._pre) for im in images]).astype(np.float32)

    def encode_images(self, images: list) -> np.ndarray:
        if not images:
            return np.zeros((0, self.dim), dtype=np.float32)
        torch = self._torch
        out = []
        with self._lock, torch.inference_mode():
            self._check_open()
            for start in range(0, len(images), self.batch_size):
                pixels = torch.from_numpy(self.pixel_values(images[start:start + self.batch_size]))
                out.append(_features(self.model.get_image_features(pixel_values=pixels)))
        return _normalise(np.concatenate(out))

    def encode_text(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        torch = self._torch
        out = []
        with self._lock, torch.inference_mode():
            self._check_open()
            for start in range(0, len(texts), self.batch_size):
                enc = self.tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                                     max_length=self.max_text_tokens, return_tensors="pt")
                kwargs = {"input_ids": enc["input_ids"]}
                if "attention_mask" in enc:
                    kwargs["attention_mask"] = enc["attention_mask"]
                out.append(_features(self.model.get_text_features(**kwargs)))
        return _normalise(np.concatenate(out))

    def _check_open(self) -> None:
        if self.model is None:
            raise ModelError(ROLE, f"the CLIP model {self.model_id} was closed")

    def close(self) -> None:
        """Drop the torch model and tokenizer; waits for an encode call in progress to finish."""
        with self._lock:
            self.model = None
            self.tokenizer = None


def _features(out) -> np.ndarray:
    """transformers 4 returns a tensor, 5 may return an output object: take the projected embeddings."""
    if hasattr(out, "detach"):
        return out.detach().float().numpy()
    for name in ("image_embeds", "text_embeds", "pooler_output"):
        value = getattr(out, name, None)
        if value is not None:
            return value.detach().float().numpy()
    raise ModelError(ROLE, f"unexpected CLIP output {type(out).__name__}")


def _preprocess_config(folder: Path, config) -> dict:
    from .files import read_json

    raw = read_json(folder / "preprocessor_config.json")
    image_size = int(getattr(getattr(config, "vision_config", None), "image_size", 224) or 224)
    size = raw.get("size", image_size)
    if isinstance(size, dict):
        shortest = size.get("shortest_edge") or min(size.get("height", image_size), size.get("width", image_size))
        exact = None if "shortest_edge" in size else (size.get("width", image_size), size.get("height", image_size))
    else:
        shortest, exact = int(size), None
    crop = raw.get("crop_size", image_size)
    if isinstance(crop, dict):
        crop = (int(crop.get("width", image_size)), int(crop.get("height", image_size)))
    else:
        crop = (int(crop), int(crop))
    return {
        "shortest": int(shortest),
        "exact": exact,
        "do_center_crop": bool(raw.get("do_center_crop", exact is None)),
        "crop": crop,
        "rescale": float(raw.get("rescale_factor", 1 / 255)) if raw.get("do_rescale", True) else 1.0,
        "normalize": bool(raw.get("do_normalize", True)),
        "mean": tuple(raw.get("image_mean", OPENAI_CLIP_MEAN)),
        "std": tuple(raw.get("image_std", OPENAI_CLIP_STD)),
        "resample": int(raw.get("resample", 3)),
    }


def _prepare(image, pre: dict) -> np.ndarray:
    """Resize (shortest edge), centre-crop, rescale, normalise; returns float32 [3, H, W]."""
    from PIL import Image

    image = flatten_on_white(image)
    resample = Image.Resampling(pre["resample"])
    if pre["exact"]:
        image = image.resize(tuple(pre["exact"]), resample)
    else:
        s = pre["shortest"]
        w, h = image.size
        scale = s / min(w, h)
        image = image.resize((max(s, int(w * scale)), max(s, int(h * scale))), resample)  # as transformers
    if pre["do_center_crop"]:
        cw, ch = pre["crop"]
        w, h = image.size
        left, top = max(0, (w - cw) // 2), max(0, (h - ch) // 2)
        image = image.crop((left, top, left + cw, top + ch))
    arr = np.asarray(image, dtype=np.float32) * pre["rescale"]
    if pre["normalize"]:
        arr = (arr - np.asarray(pre["mean"], dtype=np.float32)) / np.asarray(pre["std"], dtype=np.float32)
    return arr.transpose(2, 0, 1)


class OpenClipEmbedder(ImageEmbedder):
    """An open_clip folder (open_clip_config.json + checkpoint). Untested here: see the module docstring."""

    backend = "open_clip"

    def __init__(self, checkpoint: Path, *, threads: int | None = None):
        path = Path(checkpoint)
        folder = path if path.is_dir() else path.parent
        self.model_id = folder.name
        try:
            import open_clip
            import torch
        except ImportError as e:
            raise ModelError(ROLE, "the open_clip backend is not installed (pip install open-clip-torch, with a "
                                   "torchvision build matching your torch); it is untested in this app") from e
        self._torch = torch
        if threads:
            torch.set_num_threads(int(threads))
        try:
            model, _, preprocess = open_clip.create_model_and_transforms(f"local-dir:{folder}")
            tokenizer = open_clip.get_tokenizer(f"local-dir:{folder}")
        except Exception as e:  # open_clip raises many types for a bad folder
            raise ModelError(ROLE, f"cannot load the open_clip model in {folder}: {e}") from e
        self.model, self.preprocess, self.tokenizer = model.eval(), preprocess, tokenizer

    @property
    def dim(self) -> int:
        return int(self.model.text_projection.shape[1])

    def encode_images(self, images: list) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            batch = torch.stack([self.preprocess(im.convert("RGB")) for im in images])
            return _normalise(self.model.encode_image(batch).float().numpy())

    def encode_text(self, texts: list[str]) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            return _normalise(self.model.encode_text(self.tokenizer(list(texts))).float().numpy())

    def close(self) -> None:
        self.model = None


BACKENDS: dict[str, type[ImageEmbedder]] = {
    "transformers": TransformersClip,
    "open_clip": OpenClipEmbedder,
}


def load_image_embedder(path: Path | None = None, backend: str | None = None, *,
                        threads: int | None = None, settings=None, model_id: str = "") -> ImageEmbedder:
    """Load an image embedder from `path` (or the resolved `image_embedder` role when None).

    `backend` is a key of BACKENDS; by default it comes from the registry's inspection of the path.
    `model_id` overrides the id the vectors are tagged with (a library reloading the model it
    recorded passes the recorded id, which may come from a manifest rather than the folder name).
    The embedder's `path` is the file or folder it was loaded from.
    Raises ModelError when nothing is configured, the backend is unknown, or the model fails to load.
    """
    from .registry import inspect_path, require

    if path is None:
        resolved = require(ROLE, settings)
    else:
        resolved = inspect_path(ROLE, Path(path), "user-choice", settings)
        if not resolved.ok:
            raise ModelError(ROLE, resolved.message)
    name = backend or resolved.extra.get("backend", "transformers")
    if name not in BACKENDS:
        raise ModelError(ROLE, f"unknown image embedding backend '{name}' (known: {', '.join(BACKENDS)})")
    assert resolved.path is not None
    embedder = BACKENDS[name](resolved.path, threads=threads)
    if model_id or resolved.model_id:
        embedder.model_id = model_id or resolved.model_id
    embedder.path = resolved.path
    return embedder
