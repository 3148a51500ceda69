"""The library's SQLite database: one connection, WAL mode, migrations applied, and the lock that
serialises every use of it (`Database`). Only the repositories of this package use it."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import LibraryError, LibraryInUseError
from .migrations import MIGRATIONS, current_version, migrate


def connect(path: Path, *, upgrade: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at `path` (`upgrade=False`: a process
    that must not write checks the schema is current instead).

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
        if upgrade:
            migrate(conn)
        elif current_version(conn) < len(MIGRATIONS):
            raise LibraryInUseError(f"{path.parent} needs an update that only the program writing to it can make")
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


class Database:
    """The connection and its lock. Every read and write of the repositories goes through here, so
    one worker thread can write while others search without two threads using the connection at
    once. `transaction()` groups several repositories' writes into one commit."""

    # The dialect the repositories write in, shared with postgres/db.py's PgDatabase: `?`
    # placeholders, `now` (the current UTC time as ISO text), `in_list` (a column in a set of values).
    now = "strftime('%Y-%m-%dT%H:%M:%SZ','now')"

    @staticmethod
    def in_list(values) -> tuple[str, list]:
        """("IN (?, ...)", the values): a column's test against a set of values."""
        values = list(values)
        return f"IN ({','.join('?' * len(values))})", values

    def __init__(self, path: Path, *, read_only_reason: str | None = None):
        self.path = path
        self.read_only_reason = read_only_reason  # set: another process writes; this one only reads
        self.conn = connect(path, upgrade=read_only_reason is None)
        self.lock = threading.RLock()
        self._on_rollback: list = []

    def _writable(self) -> None:
        if self.read_only_reason is not None:
            raise LibraryInUseError(self.read_only_reason)

    def on_rollback(self, forget) -> None:
        """`forget()` runs after a transaction rolls back (a repository drops what it cached)."""
        self._on_rollback.append(forget)

    def all(self, sql: str, args=()) -> list[tuple]:
        """Every row of a query."""
        with self.lock:
            return self.conn.execute(sql, args).fetchall()

    def one(self, sql: str, args=()) -> tuple | None:
        """The first row of a query, or None."""
        with self.lock:
            return self.conn.execute(sql, args).fetchone()

    def dicts(self, sql: str, args=()) -> list[dict]:
        """Every row of a query as a dict keyed by column name."""
        with self.lock:
            cur = self.conn.execute(sql, args)
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in cur]

    def run(self, sql: str, args=()) -> sqlite3.Cursor:
        """Execute one statement (its own transaction unless inside `transaction()`). Raises
        LibraryInUseError in a read-only database."""
        self._writable()
        with self.lock:
            return self.conn.execute(sql, args)

    def run_many(self, sql: str, rows) -> None:
        """Execute one statement for each row of parameters."""
        self._writable()
        with self.lock:
            self.conn.executemany(sql, rows)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT with the lock held (ROLLBACK on any error). Nested use joins
        the transaction already open (the lock makes it this thread's)."""
        self._writable()
        with self.lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            try:
                with Transaction(self.conn) as c:
                    yield c
            except BaseException:
                for forget in self._on_rollback:
                    forget()
                raise

    def columns(self, table: str) -> list[str]:
        """The columns of `table` that can be written, in order."""
        return [r[1] for r in self.all(f"PRAGMA table_info({table})")]

    def stream(self, sql: str, args=(), batch: int = 2000) -> Iterator[list[tuple]]:
        """The rows of a query in lists of up to `batch`, read as they are needed (a library's
        vectors do not fit in memory at once). Use up the iterator before other statements."""
        with self.lock:
            cur = self.conn.execute(sql, args)
            while rows := cur.fetchmany(batch):
                yield rows

    def copy_rows(self, table: str, columns: list[str], rows) -> None:
        """Write many rows into `table` (a bulk load: an export into the library)."""
        self.run_many(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)

    def analyze(self) -> None:
        """Nothing to do: SQLite's plans here do not depend on statistics."""

    def sync_ids(self, table: str) -> None:
        """Nothing to do: SQLite's AUTOINCREMENT follows rows inserted with their ids."""

    def version(self) -> tuple[int, int]:
        """Changes made through this connection and SQLite's data_version (changes by others)."""
        with self.lock:
            return self.conn.total_changes, self.conn.execute("PRAGMA data_version").fetchone()[0]

    def close(self) -> None:
        with self.lock:
            self.conn.close()
