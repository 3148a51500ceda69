"""Key/value state of a PostgreSQL library (`settings_kv`): the same interface as store/state.py."""

from __future__ import annotations

from .db import PgDatabase


class PgState:
    """The only code that reads or writes `settings_kv` of a PostgreSQL library."""

    def __init__(self, db: PgDatabase):
        self.db = db

    def get(self, key: str) -> str | None:
        """The stored value, or None when unset."""
        row = self.db.one("SELECT value FROM settings_kv WHERE key = %s", (key,))
        return row[0] if row else None

    def set(self, key: str, value: str) -> None:
        """Store `value` under `key` (inside the caller's transaction when one is open)."""
        self.db.run("INSERT INTO settings_kv (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (key, value))
