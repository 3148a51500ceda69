"""The last conversation (questions, answers, their sources) saved as JSON in the config dir."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ..engine.settings import config_dir
from .results import ResultItem

log = logging.getLogger(__name__)
MAX_TURNS = 50


def conversation_path() -> Path:
    return config_dir() / "conversation.json"


def save_conversation(turns: list[dict], path: Path | None = None) -> Path:
    """Write `turns` ({question, answer, mode, sources: [ResultItem]}) atomically; returns the file."""
    path = path or conversation_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = [{**t, "sources": [s.to_json() if isinstance(s, ResultItem) else s for s in t.get("sources", [])]}
            for t in turns[-MAX_TURNS:]]
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"version": 1, "turns": data}, indent=1), encoding="utf-8")
    tmp.replace(path)
    return path


def load_conversation(path: Path | None = None) -> list[dict]:
    """Return the saved turns with sources as ResultItems; [] when none or unreadable (logged)."""
    path = path or conversation_path()
    if not path.exists():
        return []
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        turns = raw.get("turns", [])
        for t in turns:
            t["sources"] = [ResultItem.from_json(s) for s in t.get("sources", [])]
        return turns
    except (OSError, ValueError, TypeError, KeyError) as e:
        log.warning("ignoring unreadable conversation file %s: %s", path, e)
        return []
