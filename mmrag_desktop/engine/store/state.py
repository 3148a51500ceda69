"""Key/value state of a library (`settings_kv`): which text and image models its vectors belong to."""

from __future__ import annotations

from .db import Database  # or postgres.PgDatabase: the SQL here is written for both


class State:
    """The only code that reads or writes `settings_kv`."""

    def __init__(self, db: Database):
        self.db = db

    def get(self, key: str) -> str | None:
        """The stored value, or None when unset."""
        row = self.db.one("SELECT value FROM settings_kv WHERE key = ?", (key,))
        return row[0] if row else None

    def set(self, key: str, value: str) -> None:
        """Store `value` under `key` (inside the caller's transaction when one is open)."""
        self.db.run("INSERT INTO settings_kv (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
