"""User settings: one JSON file in the platformdirs config dir, typed defaults.

Environment overrides (used by tests and scripts): MMRAG_CONFIG_DIR, MMRAG_DATA_DIR,
MMRAG_CACHE_DIR, MMRAG_LOG_DIR point the app's folders elsewhere.

A settings file that is not valid JSON, or holds a value of the wrong type, never stops the app:
`Settings.load` logs one warning line, uses the defaults for what it could not read, and keeps a
copy of the file as `settings.json.broken` (so saving the settings later overwrites nothing the
user could still want).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import ClassVar

APP_NAME = "mmrag-desktop"

log = logging.getLogger(__name__)


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
    answer_mode: str = "auto"  # auto | quote | pick | generative | extractive (engine/answer/__init__.py)
    theme: str = "light"  # light | dark | system
    evidence_tokens: int = 1000
    max_answer_tokens: int = 384
    # role -> explicit model path chosen by the user (model manager); "" = resolve automatically
    models: dict[str, str] = field(default_factory=dict)
    ocr_enabled: bool = True
    extra: dict = field(default_factory=dict)
    # What `load` could not use (one line each, already logged); the GUI shows them. Not saved.
    load_warnings: ClassVar[tuple[str, ...]] = ()

    @property
    def library_path(self) -> Path | str:
        """The library location: a folder, or a URL kept as a string (a PostgreSQL library,
        engine/location.py, which refuses other kinds of URL)."""
        if not self.library_dir.strip():
            return default_library_dir()
        value = self.library_dir.strip()
        return value if "://" in value else Path(value).expanduser()

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read settings; a missing file gives defaults. Never raises for a bad file: one that is
        unreadable or not valid JSON gives the defaults, a value of the wrong type gives that
        field's default; either way a warning is logged and the file is backed up (`_backup`)."""
        path = path or config_dir() / "settings.json"
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            return cls._defaults_because(path, f"cannot be read ({e.strerror or e})", "using the defaults")
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            return cls._defaults_because(path, f"is not valid JSON ({e})", "using the defaults")
        if not isinstance(raw, dict):
            return cls._defaults_because(path, f"holds a JSON {type(raw).__name__}, not an object",
                                         "using the defaults")
        known = {f.name: f for f in fields(cls)}
        good, bad = {}, []
        for k, v in raw.items():
            if k in known and not _type_ok(known[k], v):
                bad.append(f"{k}={json.dumps(v)[:40]} (wants {_wants(known[k])})")
            elif k in known:
                good[k] = v
        s = cls(**good)
        s.extra.update({k: v for k, v in raw.items() if k not in known})
        if bad:
            s.load_warnings = (_warn(path, "has values of the wrong type: " + ", ".join(bad),
                                     "using their defaults"),)
        return s

    @classmethod
    def _defaults_because(cls, path: Path, problem: str, fallback: str) -> Settings:
        s = cls()
        s.load_warnings = (_warn(path, problem, fallback),)
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


_WANTS = {"str": "text", "int": "a whole number", "bool": "true or false", "dict": "an object",
          "dict[str, str]": "an object of texts"}
_WARNED: set[tuple[str, str]] = set()


def _warn(path: Path, problem: str, fallback: str) -> str:
    """Back the file up, log one warning line (once per process for the same problem); returns it."""
    backup = _backup(path)
    kept = f"; the file is kept as {backup.name}" if backup else ""
    message = f"settings file {path} {problem}; {fallback}{kept}"
    if (str(path), message) not in _WARNED:
        _WARNED.add((str(path), message))
        log.warning("%s", message)
    return message


def _wants(f) -> str:
    """What the file must hold for field `f` (its annotation is a string: postponed annotations)."""
    return _WANTS.get(str(f.type), "")


def _type_ok(f, value) -> bool:
    """Whether `value` from the file fits field `f` (a bool is not taken for a number)."""
    kind = str(f.type)
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "dict[str, str]":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if kind.startswith("dict"):
        return isinstance(value, dict)
    return True  # a field type this check does not know: taken as it is


def _backup(path: Path) -> Path | None:
    """Copy a settings file that could not be used fully to `<name>.broken` (or, when a different
    one is there already, `<name>.broken-YYYYmmdd-HHMMSS`); an existing copy with the same bytes is
    reused. Returns the copy, None when it could not be made (read-only folder)."""
    try:
        data = path.read_bytes()
        for old in sorted(path.parent.glob(path.name + ".broken*")):
            if old.read_bytes() == data:
                return old
        target, n = path.with_name(path.name + ".broken"), 1
        stamp = time.strftime("%Y%m%d-%H%M%S")
        while target.exists():
            target = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n > 1 else ""))
            n += 1
        shutil.copy2(path, target)
        return target
    except OSError:
        return None
