"""Load a candidate model for a role and check it produces output of the right shape.

Used by the model manager ("Add…") and `mmrag models verify` before a choice is saved.
llama.cpp models (answer_llm, vlm) are checked in a separate process (native crashes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ModelError
from ..settings import Settings
from . import files, manifest
from .offline_hf import offline_and_quiet
from .registry import MMPROJ_KEY, ROLES, inspect_path


@dataclass
class Verified:
    """A model that loaded and produced output. `details` holds what was measured (dims, handler)."""

    role: str
    path: Path
    model_id: str
    size: int
    sha256: str = ""
    known_as: str = ""  # manifest name when the sha256 matches a known-good file
    extra: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)

    def settings_entries(self) -> dict[str, str]:
        """What to store in Settings.models for this choice (the VLM adds its projector)."""
        out = {self.role: str(self.path)}
        if self.role == "vlm" and self.extra.get("mmproj"):
            out[MMPROJ_KEY] = str(self.extra["mmproj"])
        return out

    def to_json(self) -> dict:
        return {"role": self.role, "path": str(self.path), "model_id": self.model_id, "size": self.size,
                "sha256": self.sha256, "known_as": self.known_as, "details": self.details,
                "extra": {k: str(v) for k, v in self.extra.items()}}


def _check_text_embedder(path: str) -> dict:
    offline_and_quiet()
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(path, device="cpu")
    vec = model.encode(["verification sentence"], convert_to_numpy=True)
    if vec.ndim != 2 or vec.shape[0] != 1 or vec.shape[1] < 8:
        raise ModelError("text_embedder", f"unexpected embedding shape {tuple(vec.shape)}")
    return {"dim": int(vec.shape[1]), "max_tokens": int(getattr(model, "max_seq_length", 0) or 0)}


def _check_llm_child(path: str) -> dict:  # runs in a child process
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    from .vlm import _import_llama

    llama_cpp, _ = _import_llama()
    try:
        llm = llama_cpp.Llama(model_path=path, n_ctx=256, n_threads=1, n_threads_batch=1, verbose=False)
    except ValueError as e:
        raise ModelError("answer_llm", f"llama.cpp cannot load {Path(path).name}: {e}") from e
    try:
        out = llm.create_completion("Hello", max_tokens=2, temperature=0.0)
        has_template = bool(llm.metadata.get("tokenizer.chat_template"))
        arch = llm.metadata.get("general.architecture", "")
        n_ctx_train = int(llm.metadata.get(f"{arch}.context_length", 0) or 0)
        return {"n_ctx_train": n_ctx_train, "chat_template": has_template,
                "generated": len(out["choices"][0]["text"])}
    finally:
        llm.close()


def _check_image_embedder(path: str) -> dict:
    from PIL import Image

    from .clip import load_image_embedder

    emb = load_image_embedder(Path(path))
    try:
        img = emb.encode_images([Image.new("RGB", (64, 64), (200, 30, 30))])
        txt = emb.encode_text(["a red square"])
    finally:
        emb.close()
    if img.shape != txt.shape or img.shape[0] != 1:
        raise ModelError("image_embedder", f"image {img.shape} and text {txt.shape} vectors do not match")
    return {"dim": int(img.shape[1]), "backend": emb.backend}


def _check_ocr(path: str, det: str, rec: str, cls: str) -> dict:
    import numpy as np
    from PIL import Image, ImageDraw

    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as e:
        raise ModelError("ocr", "rapidocr-onnxruntime is not installed (pip install rapidocr-onnxruntime)") from e
    kwargs = {"det_model_path": det, "rec_model_path": rec}
    if cls:
        kwargs["cls_model_path"] = cls
    engine = RapidOCR(**kwargs)
    img = Image.new("RGB", (240, 60), "white")
    ImageDraw.Draw(img).text((10, 20), "RESET 42", fill="black")
    result, _ = engine(np.asarray(img))
    return {"lines": len(result or [])}


def _check_reranker(path: str) -> dict:
    offline_and_quiet()
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(path, device="cpu", local_files_only=True)
    scores = model.predict([("reset button", "Press the reset button.")], show_progress_bar=False)
    if len(scores) != 1:
        raise ModelError("reranker", "the cross-encoder returned no score")
    labels = int(getattr(model.config, "num_labels", 1) or 1)
    if labels != 1:  # search needs one relevance score per pair (search/rerank.py)
        raise ModelError("reranker", f"the model gives {labels} scores per pair; a reranker must give one")
    return {"score_dims": 1, "max_tokens": int(getattr(model, "max_seq_length", 0) or 0)}


def verify_model(role: str, path: Path, *, mmproj: Path | None = None, settings: Settings | None = None,
                 compute_sha: bool = True, timeout: float = 180.0) -> Verified:
    """Check and load `path` as a model for `role`, run it once, and describe it.

    Raises ModelError with a plain-words reason: wrong file type, missing/mismatched mmproj,
    load failure, crash, out of memory, or output of the wrong shape.
    """
    if role not in ROLES:
        raise ModelError(role, f"unknown model role (known roles: {', '.join(ROLES)})")
    r = inspect_path(role, Path(path), "user-choice", settings, mmproj=mmproj)
    if not r.ok:
        raise ModelError(role, r.message)
    assert r.path is not None
    p = str(r.path)
    try:
        if role == "text_embedder":
            details = _check_text_embedder(p)
        elif role == "answer_llm":
            from .isolated import run_isolated

            details = run_isolated(role, _check_llm_child, (p,), what=r.path.name, timeout=timeout)
        elif role == "vlm":
            from .vlm import verify_vlm

            details = verify_vlm(r.path, r.extra["mmproj"], timeout=timeout)
        elif role == "image_embedder":
            details = _check_image_embedder(p)
        elif role == "ocr":
            details = _check_ocr(p, str(r.extra["det"]), str(r.extra["rec"]), str(r.extra.get("cls", "")))
        else:
            details = _check_reranker(p)
    except ModelError:
        raise
    except MemoryError as e:
        raise ModelError(role, f"not enough memory to load {r.path.name}") from e
    except Exception as e:  # noqa: BLE001 - a third-party loader failed: report it in plain words
        raise ModelError(role, f"{r.path.name} failed to load: {type(e).__name__}: {e}") from e
    sha = ""
    known = ""
    if compute_sha and r.path.is_file():
        sha = files.sha256_file(r.path)
        entry = manifest.known_file(sha)
        known = entry.name if entry else ""
    return Verified(role, r.path, r.model_id, r.size, sha, known, dict(r.extra), details)


def save_choice(verified: Verified, settings: Settings, path: Path | None = None) -> Path:
    """Store a verified model as the user's choice for its role and write the settings file."""
    settings.models = dict(settings.models or {})
    if verified.role == "vlm":
        settings.models.pop(MMPROJ_KEY, None)
    settings.models.update(verified.settings_entries())
    return settings.save(path)


def clear_choice(role: str, settings: Settings, path: Path | None = None) -> Path:
    """Forget the user's explicit choice for `role` (automatic resolution applies again)."""
    settings.models = {k: v for k, v in (settings.models or {}).items()
                       if k != role and not (role == "vlm" and k == MMPROJ_KEY)}
    return settings.save(path)
