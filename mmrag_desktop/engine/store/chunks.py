"""Chunks, their full-text index (`chunks_fts`, kept by triggers) and the links between chunks.

The SQL here is the store's portable dialect (`?`, `db.in_list`, ON CONFLICT), so the PostgreSQL
store's `PgChunks` (postgres/chunks.py) is this class with keyword search, term statistics and
insert overridden."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from .db import Database

BATCH = 900  # ids per IN (...) list: SQLite's variable limit is 999 on old builds
COLUMNS = ("id", "doc_id", "ord", "kind", "text", "section", "page", "page_end", "bbox", "spans", "lines",
           "group_key", "meta")
SELECT_COLUMNS = ", ".join(COLUMNS)


@dataclass
class Filters:
    """Optional restrictions: document ids, an inclusive 1-based page range, chunk kinds."""

    doc_ids: list[int] | None = None
    pages: tuple[int, int] | None = None
    kinds: list[str] | None = None

    @property
    def active(self) -> bool:
        return bool(self.doc_ids is not None or self.pages or self.kinds)

    def sql(self, in_list, alias: str = "c") -> tuple[str, list]:
        """A WHERE clause over the chunks table aliased `alias`, and its arguments; `in_list` is the
        database's (`Database.in_list` or `PgDatabase.in_list`)."""
        clauses, args = [], []
        if self.doc_ids is not None:
            test, values = in_list(self.doc_ids)
            clauses.append(f"{alias}.doc_id {test}")
            args.extend(values)
        if self.pages:
            clauses.append(f"{alias}.page_end >= ? AND {alias}.page <= ?")
            args.extend(self.pages)
        if self.kinds:
            test, values = in_list(self.kinds)
            clauses.append(f"{alias}.kind {test}")
            args.extend(values)
        return (" AND ".join(clauses) or "1 = 1"), args


class Chunks:
    """The only code that writes `chunks` and `links` (and so, through triggers, `chunks_fts`).
    Caches the chunk count and term document frequencies until a write or `invalidate()`."""

    def __init__(self, db: Database):
        self.db = db
        self._count: int | None = None
        self._df: dict[tuple[str, int, tuple[int, ...] | None], int] = {}
        db.on_rollback(self.invalidate)

    def invalidate(self) -> None:
        """Forget the cached count (another process may have added or removed chunks)."""
        with self.db.lock:
            self._count = None

    # ---- reads -----------------------------------------------------------------------------
    def rows(self, ids: list[int]) -> dict[int, dict]:
        """{chunk id: row dict} for the ids that exist (JSON columns left as text)."""
        out: dict[int, dict] = {}
        for start in range(0, len(ids), BATCH):
            test, values = self.db.in_list(ids[start : start + BATCH])
            for r in self.db.dicts(f"SELECT {SELECT_COLUMNS} FROM chunks WHERE id {test}", values):
                out[r["id"]] = r
        return out

    def count(self) -> int:
        """How many chunks the library holds."""
        with self.db.lock:
            if self._count is None:
                self._count = self.db.one("SELECT COUNT(*) FROM chunks")[0]
            return self._count

    def ids_of_document(self, doc_id: int) -> list[int]:
        """The document's chunk ids."""
        return [r[0] for r in self.db.all("SELECT id FROM chunks WHERE doc_id = ? ORDER BY id", (doc_id,))]

    def allowed_ids(self, filters: Filters) -> set[int]:
        """Ids of the chunks the filters let through."""
        where, args = filters.sql(self.db.in_list, "c")
        return {r[0] for r in self.db.all(f"SELECT c.id FROM chunks c WHERE {where}", args)}

    def keyword_ids(self, fts: str, limit: int, filters: Filters) -> list[int]:
        """Chunk ids matching an FTS5 expression, best BM25 first (text weighted over section)."""
        if not fts:
            return []
        if filters.active:
            where, args = filters.sql(self.db.in_list, "c")
            sql = ("SELECT f.rowid FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                   f"WHERE chunks_fts MATCH ? AND {where} ORDER BY bm25(chunks_fts, 1.0, 0.4) LIMIT ?")
            return [r[0] for r in self.db.all(sql, [fts, *args, limit])]
        return [r[0] for r in self.db.all(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, 1.0, 0.4) LIMIT ?",
            [fts, limit])]

    def by_group_keys(self, keys: list[str], filters: Filters, limit: int = 20) -> list[int]:
        """Chunks of the named figures/tables ('figure:3' ...), figures and tables before text."""
        where, args = filters.sql(self.db.in_list, "c")
        test, values = self.db.in_list(keys)
        return [r[0] for r in self.db.all(
            f"SELECT c.id FROM chunks c WHERE c.group_key {test} AND {where}"
            " ORDER BY c.kind = 'text', c.id LIMIT ?", [*values, *args, limit])]

    def on_page(self, doc_id: int, kinds: tuple[str, ...], page: int) -> list[int]:
        """Chunks of these kinds that cover `page` of the document."""
        test, values = self.db.in_list(kinds)
        return [r[0] for r in self.db.all(
            f"SELECT id FROM chunks WHERE doc_id = ? AND kind {test} AND page <= ? AND page_end >= ? ORDER BY id",
            (doc_id, *values, page, page))]

    def next_text(self, doc_id: int, ord_: int) -> int | None:
        """The id of the document's next text chunk after position `ord_`, None at its end."""
        row = self.db.one("SELECT id FROM chunks WHERE doc_id = ? AND ord > ? AND kind = 'text' ORDER BY ord LIMIT 1",
                          (doc_id, ord_))
        return row[0] if row else None

    def previous_text(self, doc_id: int, ord_: int) -> int | None:
        """The id of the document's text chunk before position `ord_`, None at its start."""
        row = self.db.one("SELECT id FROM chunks WHERE doc_id = ? AND ord < ? AND kind = 'text' ORDER BY ord DESC LIMIT 1",
                          (doc_id, ord_))
        return row[0] if row else None

    def texts_before(self, doc_id: int, ord_: int, n: int) -> list[tuple[str, str]]:
        """(section, text) of the document's `n` text chunks before position `ord_`, the nearest first."""
        return [(r[0], r[1]) for r in self.db.all(
            "SELECT section, text FROM chunks WHERE doc_id = ? AND ord < ? AND kind = 'text' ORDER BY ord DESC LIMIT ?",
            (doc_id, ord_, n))]

    def term_df(self, terms: list[str], doc_ids: Sequence[int] | None = None) -> dict[str, int]:
        """How many chunks contain each term (a word or a phrase; FTS5 counts, cached until the
        chunk count changes); only the chunks of `doc_ids` when given."""
        docs = tuple(sorted(set(doc_ids))) if doc_ids is not None else None
        sql = "SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
        if docs is not None:
            sql = ("SELECT COUNT(*) FROM chunks_fts f JOIN chunks c ON c.id = f.rowid WHERE chunks_fts MATCH ? "
                   f"AND c.doc_id IN ({', '.join('?' * len(docs))})")
        with self.db.lock:
            n = self.count()
            out = {}
            for t in terms:
                key = (t, n, docs)
                if key not in self._df:
                    try:
                        df = self.db.one(sql, ('"' + t.replace('"', '""') + '"', *(docs or ())))[0]
                    except sqlite3.OperationalError:
                        df = 0
                    if len(self._df) > 20000:
                        self._df.clear()
                    self._df[key] = int(df)
                out[t] = self._df[key]
            return out

    def term_idf(self, terms: list[str]) -> dict[str, float]:
        """Inverse document frequency of each term over the chunks (`term_df`):
        log((N + 1) / (df + 0.5)), at least 0.1."""
        n = self.count()
        return {t: max(math.log((n + 1) / (df + 0.5)), 0.1) for t, df in self.term_df(terms).items()}

    def linked(self, chunk_id: int, *, referring: bool) -> list[int]:
        """The first chunk linked by 'refers_to': the paragraph referring to `chunk_id` when
        `referring`, else the figure/table `chunk_id` refers to."""
        if referring:
            sql = "SELECT src FROM links WHERE dst = ? AND relation = 'refers_to' ORDER BY src LIMIT 1"
        else:
            sql = "SELECT dst FROM links WHERE src = ? AND relation = 'refers_to' ORDER BY dst LIMIT 1"
        return [r[0] for r in self.db.all(sql, (chunk_id,))]

    def text_row(self, chunk_id: int) -> tuple[str, str, str, str] | None:
        """(text, section, lines JSON, meta JSON) of a chunk, or None when it is gone."""
        return self.db.one("SELECT text, section, lines, meta FROM chunks WHERE id = ?", (chunk_id,))

    def count_without_vector(self, model: str) -> int:
        """How many chunks have no text vector of `model`."""
        return self.db.one("SELECT COUNT(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v "
                           "WHERE v.chunk_id = c.id AND v.space = 'text' AND v.model = ?)", (model,))[0]

    def without_vector(self, model: str, limit: int) -> list[tuple]:
        """(id, text, section, meta) of chunks with no text vector of `model`, by id."""
        return self.db.all(
            "SELECT c.id, c.text, c.section, c.meta FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v "
            "WHERE v.chunk_id = c.id AND v.space = 'text' AND v.model = ?) ORDER BY c.id LIMIT ?", (model, limit))

    # ---- writes ----------------------------------------------------------------------------
    def delete_document(self, doc_id: int) -> None:
        """Delete the document's chunks (their vectors, figures and links go by cascade)."""
        self.db.run("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
        self._count = None

    def insert(self, rows: list[dict]) -> list[int]:
        """Insert `rows` (dicts with the table's columns) in order; returns their new ids. Call
        inside the document's transaction."""
        with self.db.lock:
            ids = [self.db.run(
                "INSERT INTO chunks (doc_id, ord, kind, text, section, page, page_end, bbox, spans, lines, group_key, meta)"
                " VALUES (:doc_id, :ord, :kind, :text, :section, :page, :page_end, :bbox, :spans, :lines, :group_key,"
                " :meta)", row).lastrowid for row in rows]
            self._count = None
            return ids

    def add_links(self, links: set[tuple[int, int, str]]) -> None:
        """(src, dst, relation) links between chunks."""
        self.db.run_many("INSERT INTO links (src, dst, relation) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                         sorted(links))

    def update_text(self, chunk_id: int, text: str, lines_json: str, meta_json: str) -> None:
        """New text, lines and meta of a chunk (figure enrichment); the keyword index follows (a
        trigger in SQLite, a generated column in PostgreSQL)."""
        self.db.run("UPDATE chunks SET text = ?, lines = ?, meta = ? WHERE id = ?",
                    (text, lines_json, meta_json, chunk_id))
