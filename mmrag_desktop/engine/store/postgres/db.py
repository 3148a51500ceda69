"""A library's PostgreSQL database: one psycopg connection, migrations applied, and the lock that
serialises its use (`PgDatabase`, the PostgreSQL counterpart of store/db.py's `Database`). It takes
the store's SQL as the SQLite `Database` does — `?` placeholders, `db.now`, `db.in_list(...)` — so
the repositories that need no PostgreSQL-only SQL (documents, figures, state, folders) are the
SQLite ones; `?` becomes psycopg's `%s` here.

psycopg (3.x) and pgvector are imported here and nowhere else in the engine (lazily, when a
database is opened); a missing one raises LibraryError naming the `server` extra.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from ...errors import LibraryError, LibraryInUseError
from ...location import redact
from .migrations import MIGRATIONS, NOW, current_version, migrate

INSTALL_HINT = "a PostgreSQL library needs the server extra: pip install 'mmrag-desktop[server]'"


def _psycopg():
    try:
        import psycopg
        from pgvector.psycopg import register_vector
    except ImportError as e:
        raise LibraryError(f"{INSTALL_HINT} ({e})") from e
    return psycopg, register_vector


_QUOTED = re.compile(r"('(?:[^']|'')*')")


@lru_cache(maxsize=1024)
def psycopg_sql(sql: str) -> str:
    """The store's SQL for psycopg: `?` placeholders become `%s` (outside quoted literals, which may
    hold a model's name) and every literal `%` is doubled."""
    parts = _QUOTED.split(sql)
    return "".join(p.replace("%", "%%") if i % 2 else p.replace("%", "%%").replace("?", "%s")
                   for i, p in enumerate(parts))


def _params(sql: str, args):
    """(query, parameters) for psycopg; a query without parameters is passed as it is."""
    return (psycopg_sql(sql), args) if args else (sql, None)


def connect(uri: str, *, upgrade: bool = True):
    """Open a connection to the database at `uri` (autocommit: each statement commits unless a
    `transaction()` is open), create the pgvector extension and migrate (`upgrade=False`: check
    the schema is current instead). Raises LibraryError when the server cannot be reached or the
    database cannot be used, LibraryInUseError when it needs an update this process may not make."""
    psycopg, register_vector = _psycopg()
    try:
        conn = psycopg.connect(uri, autocommit=True, connect_timeout=10)
    except psycopg.Error as e:
        raise LibraryError(f"cannot connect to the library database {redact(uri)}: {str(e).strip()}") from e
    try:
        if upgrade:
            migrate(conn)
        elif current_version(conn) < len(MIGRATIONS):
            raise LibraryInUseError(f"{redact(uri)} needs an update that only a program writing to it can make")
        register_vector(conn)
    except psycopg.Error as e:
        conn.close()
        raise LibraryError(f"{redact(uri)} is not a usable library database: {str(e).strip()}") from e
    except RuntimeError as e:
        conn.close()
        raise LibraryError(str(e)) from e
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def _lost_connection_is_a_library_error(uri: str) -> Iterator[None]:
    """psycopg's OperationalError (server gone, restarted, connection cut) as LibraryError, which the
    front ends present; other database errors pass unchanged."""
    psycopg, _ = _psycopg()
    try:
        yield
    except psycopg.OperationalError as e:
        raise LibraryError(f"lost the connection to the library database {redact(uri)}: "
                           f"{str(e).strip() or type(e).__name__}; what was committed is kept") from e


class PgDatabase:
    """The connection and its lock, with the interface of store/db.py's `Database`: `all`, `one`,
    `dicts`, `run`, `run_many`, `transaction()` (nested use joins the one open), `on_rollback`,
    `version()`, `close()`, `read_only_reason`. Other clients' commits are visible to the next
    statement (READ COMMITTED, PostgreSQL's default)."""

    now = NOW

    @staticmethod
    def in_list(values) -> tuple[str, list]:
        """("= ANY(?)", [the values as one array]): a column's test against a set of values."""
        return "= ANY(?)", [list(values)]

    def __init__(self, uri: str, *, read_only_reason: str | None = None):
        self.uri = uri
        self.read_only_reason = read_only_reason
        self.conn = connect(uri, upgrade=read_only_reason is None)
        self.lock = threading.RLock()
        self._on_rollback: list = []
        self._depth = 0
        self._own_changes = 0

    def _writable(self) -> None:
        if self.read_only_reason is not None:
            raise LibraryInUseError(self.read_only_reason)

    def on_rollback(self, forget) -> None:
        """`forget()` runs after a transaction rolls back (a repository drops what it cached)."""
        self._on_rollback.append(forget)

    @contextmanager
    def _use(self) -> Iterator:
        """The lock held and the connection (reconnected first when it broke outside a
        transaction); a lost connection becomes LibraryError."""
        with self.lock, _lost_connection_is_a_library_error(self.uri):
            if self.conn.broken and not self._depth:
                self.conn.close()
                self.conn = connect(self.uri, upgrade=False)
            yield self.conn

    def all(self, sql, args=()) -> list[tuple]:
        """Every row of a query."""
        with self._use() as conn:
            return conn.execute(*_params(sql, args), binary=True).fetchall()

    def one(self, sql, args=()) -> tuple | None:
        """The first row of a query, or None."""
        with self._use() as conn:
            return conn.execute(*_params(sql, args), binary=True).fetchone()

    def dicts(self, sql, args=()) -> list[dict]:
        """Every row of a query as a dict keyed by column name."""
        with self._use() as conn:
            cur = conn.execute(*_params(sql, args), binary=True)
            cols = [c.name for c in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def run(self, sql, args=()):
        """Execute one statement (its own transaction unless inside `transaction()`); returns the
        cursor (`rowcount`, and rows of a RETURNING clause). Raises LibraryInUseError when this
        process may only read."""
        self._writable()
        with self._use() as conn:
            cur = conn.execute(*_params(sql, args))
            self._own_changes += 1
            return cur

    def run_many(self, sql, rows) -> None:
        """Execute one statement for each row of parameters (pipelined by psycopg)."""
        self._writable()
        rows = list(rows)
        if not rows:
            return
        with self._use() as conn, conn.cursor() as cur:
            cur.executemany(psycopg_sql(sql), rows)
            self._own_changes += 1

    @contextmanager
    def transaction(self) -> Iterator:
        """BEGIN ... COMMIT with the lock held (ROLLBACK on any error, then the repositories'
        `on_rollback` callbacks). Nested use joins the transaction already open."""
        self._writable()
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            try:
                with self._use() as conn, conn.transaction():
                    yield conn
            except BaseException:
                for forget in self._on_rollback:
                    forget()
                raise
            finally:
                self._depth = 0

    def literal(self, value) -> str:
        """`value` as an SQL literal (for the few statements whose values must be part of the text,
        e.g. a partial index's predicate the planner has to match)."""
        from psycopg import sql

        with self.lock:
            return sql.Literal(value).as_string(self.conn)

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def columns(self, table: str) -> list[str]:
        """The columns of `table` that can be written, in order (generated ones left out)."""
        return [r[0] for r in self.all(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,))]

    def stream(self, sql: str, args=(), batch: int = 2000) -> Iterator[list[tuple]]:
        """The rows of a query in lists of up to `batch`, through a server-side cursor (a library's
        vectors do not fit in memory at once). Use up the iterator before other statements."""
        with self._use() as conn, conn.transaction(), conn.cursor(name=f"stream_{id(self)}") as cur:
            cur.execute(*_params(sql, args))
            while rows := cur.fetchmany(batch):
                yield rows

    def copy_rows(self, table: str, columns: list[str], rows) -> None:
        """Write many rows into `table` with COPY (a bulk load: an export into the database)."""
        self._writable()
        with self._use() as conn, conn.cursor() as cur, cur.copy(
                f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
            self._own_changes += 1

    def analyze(self) -> None:
        """Refresh the planner's statistics (after a bulk load: until autovacuum gets to it, the
        planner takes the loaded tables for empty and scans them instead of using their indices)."""
        self.run("ANALYZE")

    def sync_ids(self, table: str) -> None:
        """Move the id sequence of `table` past its largest id (after rows were inserted with
        their ids, as an export does)."""
        self.one(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) "
                 f"FROM {table}")

    def version(self) -> tuple[int, int]:
        """(writes made through this connection, a number that grows whenever any client of the
        server starts a writing transaction: the xmax of a fresh snapshot). The second may move
        without a change to this library; it never stays put after one."""
        row = self.one("SELECT pg_snapshot_xmax(pg_current_snapshot())::text")
        return self._own_changes, int(row[0])

    def close(self) -> None:
        with self.lock:
            self.conn.close()
