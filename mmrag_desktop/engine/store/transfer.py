"""Moving a whole library between backends without parsing anything again: a folder library
(SQLite + hnswlib) to a PostgreSQL database and back (`mmrag export --to/--from`).

Every table is copied row by row with its ids, vectors included, in one transaction of the
destination, which must be empty: a failure or a cancel leaves it as it was. What differs between
the backends is converted on the way: a vector is a float32 blob in SQLite and a pgvector
`vector` in PostgreSQL; PostgreSQL's keyword index (`chunks.fts`) is generated from the text, and
SQLite's FTS5 table is filled by its triggers. The source files go with the documents: into the
database for a server library (each once, by sha256), and for a folder library, when a document's
file is not on this machine, a copy under the library folder's `files/` that the document then
points at. The destination's vector indices are built at the end.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import LibraryError
from ..jobs import CancelToken, Progress
from .files import LocalFiles, copy_path

# parents before children (foreign keys); `vectors.vec` is converted between the backends
TABLES = ("documents", "pages", "chunks", "links", "vectors", "segment_vectors", "sentence_vectors", "figures",
          "captions", "settings_kv", "watched_folders")


def _converter(column: str, to_server: bool):
    if column == "vec":
        if to_server:
            return lambda v: np.frombuffer(v, dtype=np.float32)
        return lambda v: np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float32).tobytes()
    if not to_server:  # psycopg gives bytea as memoryview / bytes
        return lambda v: bytes(v) if isinstance(v, memoryview) else v
    return None


def _document_row(columns: list[str]):
    """Documents arrive at rest: an indexing under way in the source is not the destination's."""
    status, indexing = columns.index("status"), columns.index("indexing_sha")

    def settle(row: list) -> list:
        if row[indexing] is not None:
            row[indexing] = None
            if row[status] == "indexing":
                row[status] = "pending"
        return row

    return settle


def _copy_table(src, dst, table: str, cancel: CancelToken, to_server: bool) -> Iterator[int]:
    """Copy `table`'s rows from `src` to `dst` (database objects); yields the rows copied so far."""
    columns = [c for c in src.columns(table) if c in set(dst.columns(table))]
    convert = [(i, f) for i, c in enumerate(columns) if (f := _converter(c, to_server)) is not None]
    settle = _document_row(columns) if table == "documents" else None
    done = 0
    order = " ORDER BY id" if "id" in columns else ""
    for rows in src.stream(f"SELECT {', '.join(columns)} FROM {table}{order}"):
        cancel.check()
        out = []
        for row in rows:
            row = list(row)
            for i, f in convert:
                if row[i] is not None:
                    row[i] = f(row[i])
            out.append(settle(row) if settle else row)
        dst.copy_rows(table, columns, out)
        done += len(out)
        yield done
    if "id" in columns:
        dst.sync_ids(table)


def _carry_files(src, dst, cancel: CancelToken) -> Iterator[Progress]:
    """Each ready document's source file into the destination: stored in a server's database, or
    for a folder library copied under its `files/` when the file is not on this machine."""
    docs = dst.db.all("SELECT id, path, name, sha256 FROM documents WHERE status = 'ready' ORDER BY id")
    missing = []
    for n, (doc_id, path, name, sha) in enumerate(docs, 1):
        cancel.check()
        here = Path(path)
        source = here if here.is_file() else src.files.local_copy(sha, name)
        if source is None:
            missing.append(name)
        elif isinstance(dst.files, LocalFiles):
            if source != here:
                target = copy_path(dst.folder / "files", sha, name)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
                dst.db.run("UPDATE documents SET path = ? WHERE id = ?", (str(target), doc_id))
        else:
            dst.files.put(sha, source)
        yield Progress("files", doc=name, done=n, total=len(docs), unit="documents")
    if missing:
        yield Progress("files", done=len(docs), total=len(docs), unit="documents",
                       message=f"{len(missing)} document(s) have no source file here or in the source library "
                               f"({', '.join(missing[:5])}{'…' if len(missing) > 5 else ''}): searchable, but their "
                               "pages cannot be shown", extra={"missing": missing})


def copy_library(src, dst, cancel: CancelToken | None = None) -> Iterator[Progress]:
    """Copy the library in store `src` into the empty store `dst` (a Store or a PgStore each);
    yields Progress(stage "copy" per table batch, "files", "index"). Raises LibraryError when
    `dst` is not empty, Cancelled when cancelled (`dst` is left as it was)."""
    cancel = cancel or CancelToken()
    held = dst.db.one("SELECT COUNT(*) FROM documents")[0]
    if held:
        raise LibraryError(f"the destination already holds {held} document(s); export into a new, empty library")
    to_server = not isinstance(dst.files, LocalFiles)
    totals = {t: src.db.one(f"SELECT COUNT(*) FROM {t}")[0] for t in TABLES}
    with dst.db.transaction():
        for table in TABLES:
            for done in _copy_table(src.db, dst.db, table, cancel, to_server):
                yield Progress("copy", doc=table, done=done, total=totals[table], unit="rows")
        yield from _carry_files(src, dst, cancel)
    dst.db.analyze()
    dst.refresh()
    for space, model, dim in dst.db.all("SELECT space, model, MAX(dim) FROM vectors GROUP BY space, model"):
        cancel.check()
        yield Progress("index", doc=space, message=f"building the {space} index of {model}")
        dst.vectors.rebuild_index(space, model, int(dim), reason="export")


__all__ = ["TABLES", "copy_library"]
