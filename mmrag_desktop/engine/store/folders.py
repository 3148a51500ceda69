"""Folders the library keeps in sync with (`watched_folders`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .db import Database  # or postgres.PgDatabase: the SQL here is written for both


@dataclass(frozen=True)
class WatchedFolder:
    """A watched folder: its absolute path, when it was added and since when it is missing
    (None while it is there)."""

    path: str
    added: str
    missing_since: str | None = None


class Folders:
    """The only code that reads or writes `watched_folders`."""

    def __init__(self, db: Database):
        self.db = db

    def all(self) -> list[WatchedFolder]:
        """Every watched folder, in the order they were added."""
        return [WatchedFolder(r["path"], r["added"], r["missing_since"])
                for r in self.db.dicts("SELECT * FROM watched_folders ORDER BY added, path")]

    def add(self, path: Path) -> bool:
        """Watch `path` (absolute); returns False when it was watched already."""
        cur = self.db.run("INSERT INTO watched_folders (path) VALUES (?) ON CONFLICT DO NOTHING", (str(path),))
        return cur.rowcount > 0

    def remove(self, path: Path) -> bool:
        """Stop watching `path`; returns False when it was not watched."""
        return self.db.run("DELETE FROM watched_folders WHERE path = ?", (str(path),)).rowcount > 0

    def set_missing(self, path: Path, missing: bool) -> None:
        """Record that the folder is missing (keeps the first time it was seen missing) or back."""
        if missing:
            self.db.run(f"UPDATE watched_folders SET missing_since = COALESCE(missing_since, {self.db.now}) WHERE path = ?",
                        (str(path),))
        else:
            self.db.run("UPDATE watched_folders SET missing_since = NULL WHERE path = ?", (str(path),))
