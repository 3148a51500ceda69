"""Open the library's SQLite database: WAL mode, foreign keys, migrations applied."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import LibraryError
from .migrations import migrate


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at `path`.

    The connection may be used from several threads; callers serialise access.
    Raises LibraryError when the file is not a usable SQLite database.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
        migrate(conn)
    except sqlite3.DatabaseError as e:
        raise LibraryError(f"{path} is not a usable library database: {e}") from e
    except RuntimeError as e:
        raise LibraryError(str(e)) from e
    return conn


class Transaction:
    """`with Transaction(conn):` runs BEGIN IMMEDIATE ... COMMIT, rolling back on any error."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")
        return False
