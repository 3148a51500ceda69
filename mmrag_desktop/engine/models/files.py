"""Cheap checks on model files and folders: what a path holds, without loading any weights.

Nothing here imports a heavy library; every function is safe to call while the GUI starts.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

GGUF_MAGIC = b"GGUF"

# GGUF metadata value types (gguf spec): size in bytes of the fixed-size ones
_GGUF_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def human_size(n: int) -> str:
    """'84.1 MB'-style size (decimal units)."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Return the hex sha256 of a file. Raises OSError when it cannot be read."""
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def path_size(path: Path | None) -> int:
    """Bytes in a file, or in every file under a folder; 0 for None or a missing path."""
    if path is None:
        return 0
    p = Path(path)
    try:
        if p.is_file():
            return p.stat().st_size
        if p.is_dir():
            return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
    except OSError:
        return 0
    return 0


def is_gguf(path: Path) -> bool:
    """True when `path` is a file that starts with the GGUF magic bytes."""
    try:
        with Path(path).open("rb") as f:
            return f.read(4) == GGUF_MAGIC
    except OSError:
        return False


def gguf_metadata(path: Path, keys: tuple[str, ...] = ("general.architecture",), max_kv: int = 64) -> dict:
    """Read selected scalar/string metadata keys from a GGUF header (first `max_kv` entries).

    Returns {key: value} for the keys found (arrays are skipped). Raises ValueError when the
    file is not a readable GGUF file.
    """
    out: dict = {}
    try:
        with Path(path).open("rb") as f:
            if f.read(4) != GGUF_MAGIC:
                raise ValueError(f"{path} is not a GGUF file (wrong magic bytes)")
            version, _n_tensors, n_kv = struct.unpack("<IQQ", f.read(20))
            if version < 2:
                raise ValueError(f"{path} uses GGUF version {version}, which is too old")
            for _ in range(min(n_kv, max_kv)):
                key = _read_str(f)
                vtype = struct.unpack("<I", f.read(4))[0]
                value = _read_value(f, vtype)
                if key in keys:
                    out[key] = value
                if len(out) == len(keys):
                    break
    except (OSError, struct.error, UnicodeDecodeError) as e:
        raise ValueError(f"{path} has a damaged GGUF header ({e})") from e
    return out


def _read_str(f) -> str:
    (n,) = struct.unpack("<Q", f.read(8))
    if n > 1 << 20:
        raise ValueError("implausible string length in GGUF header")
    return f.read(n).decode("utf-8")


def _read_value(f, vtype: int):
    if vtype in _GGUF_FIXED:
        raw = f.read(_GGUF_FIXED[vtype])
        fmt = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
               10: "<Q", 11: "<q", 12: "<d"}[vtype]
        return struct.unpack(fmt, raw)[0]
    if vtype == _GGUF_STRING:
        return _read_str(f)
    if vtype == _GGUF_ARRAY:
        etype, n = struct.unpack("<IQ", f.read(12))
        if etype in _GGUF_FIXED:
            f.seek(_GGUF_FIXED[etype] * n, 1)
        else:
            for _ in range(n):
                _read_value(f, etype)
        return None
    raise ValueError(f"unknown GGUF value type {vtype}")


def gguf_architecture(path: Path) -> str:
    """The `general.architecture` of a GGUF file ('llama', 'clip', ...); '' when absent.

    Raises ValueError when the file is not GGUF.
    """
    return str(gguf_metadata(path).get("general.architecture", ""))


def is_mmproj(path: Path) -> bool:
    """True when `path` is a GGUF multimodal projector (architecture 'clip'), e.g. mmproj-*.gguf."""
    try:
        return is_gguf(path) and gguf_architecture(path) == "clip"
    except ValueError:
        return False


def read_json(path: Path) -> dict:
    """Parse a JSON file into a dict; {} when missing or not a JSON object."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def has_weights(folder: Path) -> bool:
    """True when a transformers-style folder holds a weights file."""
    names = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
             "pytorch_model.bin.index.json")
    return any((folder / n).is_file() for n in names)


def is_sentence_transformer_dir(folder: Path) -> bool:
    """A sentence-transformers folder (modules.json) or a plain transformers encoder with weights."""
    folder = Path(folder)
    if not folder.is_dir():
        return False
    if (folder / "modules.json").is_file():
        return True
    return (folder / "config.json").is_file() and has_weights(folder)


def is_clip_dir(folder: Path) -> bool:
    """A transformers CLIP folder: config.json whose model_type is clip (or siglip) plus weights."""
    folder = Path(folder)
    if not (folder / "config.json").is_file() or not has_weights(folder):
        return False
    return read_json(folder / "config.json").get("model_type", "") in {"clip", "siglip"}


def is_cross_encoder_dir(folder: Path) -> bool:
    """A transformers sequence-classification folder (what sentence-transformers' CrossEncoder loads)."""
    folder = Path(folder)
    if not (folder / "config.json").is_file() or not has_weights(folder):
        return False
    archs = read_json(folder / "config.json").get("architectures") or []
    return any(str(a).endswith("ForSequenceClassification") for a in archs)


OPEN_CLIP_SUFFIXES = (".pt", ".pth", ".bin", ".safetensors")


def is_open_clip_checkpoint(path: Path) -> bool:
    """An open_clip checkpoint file (.pt/.pth/.bin/.safetensors), judged by name only."""
    p = Path(path)
    return p.is_file() and p.suffix.lower() in OPEN_CLIP_SUFFIXES
