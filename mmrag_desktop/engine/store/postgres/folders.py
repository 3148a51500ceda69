"""Folders a PostgreSQL library keeps in sync with (`watched_folders`): the same interface as
store/folders.py. The paths are the writing client's own (a team shares them only when every
client sees the same folders at the same paths)."""

from __future__ import annotations

from pathlib import Path

from ..folders import WatchedFolder
from .db import PgDatabase
from .migrations import NOW


class PgFolders:
    """The only code that reads or writes `watched_folders` of a PostgreSQL library."""

    def __init__(self, db: PgDatabase):
        self.db = db

    def all(self) -> list[WatchedFolder]:
        """Every watched folder, in the order they were added."""
        return [WatchedFolder(r["path"], r["added"], r["missing_since"])
                for r in self.db.dicts("SELECT * FROM watched_folders ORDER BY added, path")]

    def add(self, path: Path) -> bool:
        """Watch `path` (absolute); returns False when it was watched already."""
        cur = self.db.run("INSERT INTO watched_folders (path) VALUES (%s) ON CONFLICT DO NOTHING", (str(path),))
        return cur.rowcount > 0

    def remove(self, path: Path) -> bool:
        """Stop watching `path`; returns False when it was not watched."""
        return self.db.run("DELETE FROM watched_folders WHERE path = %s", (str(path),)).rowcount > 0

    def set_missing(self, path: Path, missing: bool) -> None:
        """Record that the folder is missing (keeps the first time it was seen missing) or back."""
        if missing:
            self.db.run(f"UPDATE watched_folders SET missing_since = COALESCE(missing_since, {NOW}) WHERE path = %s",
                        (str(path),))
        else:
            self.db.run("UPDATE watched_folders SET missing_since = NULL WHERE path = %s", (str(path),))
