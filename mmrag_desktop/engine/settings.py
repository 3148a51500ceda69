"""User settings: one JSON file in the platformdirs config dir, typed defaults.

Environment overrides (used by tests and scripts): MMRAG_CONFIG_DIR, MMRAG_DATA_DIR,
MMRAG_CACHE_DIR, MMRAG_LOG_DIR point the app's folders elsewhere.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

APP_NAME = "mmrag-desktop"


def _dir(env: str, kind: str) -> Path:
    if os.environ.get(env):
        return Path(os.environ[env])
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP_NAME, appauthor=False))


def config_dir() -> Path:
    return _dir("MMRAG_CONFIG_DIR", "config")


def data_dir() -> Path:
    return _dir("MMRAG_DATA_DIR", "data")


def cache_dir() -> Path:
    return _dir("MMRAG_CACHE_DIR", "cache")


def log_dir() -> Path:
    return _dir("MMRAG_LOG_DIR", "log")


def default_library_dir() -> Path:
    return data_dir() / "library"


def user_models_dir() -> Path:
    return data_dir() / "models"


@dataclass
class Settings:
    """Everything the user can choose. Unknown keys in the file are kept but ignored."""

    library_dir: str = ""  # "" = default_library_dir()
    threads: int = 2
    n_ctx: int = 4096
    answer_mode: str = "auto"  # auto | quote | generative | extractive (engine/answer/__init__.py)
    theme: str = "light"  # light | dark | system
    evidence_tokens: int = 1000
    max_answer_tokens: int = 384
    # role -> explicit model path chosen by the user (model manager); "" = resolve automatically
    models: dict[str, str] = field(default_factory=dict)
    ocr_enabled: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def library_path(self) -> Path:
        return Path(self.library_dir) if self.library_dir else default_library_dir()

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read settings; a missing file gives defaults, an unreadable one raises ValueError."""
        path = path or config_dir() / "settings.json"
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"settings file {path} is unreadable: {e}") from e
        known = {f.name for f in fields(cls)}
        s = cls(**{k: v for k, v in raw.items() if k in known})
        s.extra.update({k: v for k, v in raw.items() if k not in known})
        return s

    def save(self, path: Path | None = None) -> Path:
        """Write settings atomically; returns the file written."""
        path = path or config_dir() / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = asdict(self)
        extra = data.pop("extra")
        data.update({k: v for k, v in extra.items() if k not in data})
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        tmp.replace(path)
        return path
