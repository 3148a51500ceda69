"""Chunks, their keyword index (the generated `chunks.fts` tsvector, GIN-indexed) and the links
between chunks in PostgreSQL: the same interface as store/chunks.py.

Keyword search takes the same FTS5-style expressions search/query.py builds ("a" OR "b",
"a" AND "b", each string a phrase) and runs them as tsqueries: each quoted string becomes
`phraseto_tsquery`, OR becomes `||`, AND `&&`. Ranking is BM25 as FTS5's (postgres/bm25.py) over
the best candidates by `ts_rank_cd` (cover density, text weighted 1.0 and the section 0.4); ranking
by ts_rank_cd alone cost search 0.11 R@1 and 0.13 R@5 on held-out set 2.
"""

from __future__ import annotations

import math
import re

from ..chunks import Filters
from . import bm25
from .db import PgDatabase

COLUMNS = ("id", "doc_id", "ord", "kind", "text", "section", "page", "page_end", "bbox", "spans", "lines",
           "group_key", "meta")
SELECT_COLUMNS = ", ".join(COLUMNS)
COLUMN_TYPES = ("bigint", "bigint", "int", "text", "text", "text", "int", "int", "text", "text", "text", "text",
                "text")
CONFIG = "mmrag"  # the text search configuration of migration 1
RANK_WEIGHTS = "{0, 0, 0.4, 1.0}"  # D, C, B (section), A (text)
RANK_NORMALISATION = 1  # divide by 1 + log(document length)

_TOKEN = re.compile(r'\s*(?:"((?:[^"]|"")*)"|(OR|AND)\b)')


def fts_to_tsquery(expr: str) -> tuple[str, list[str]]:
    """An SQL tsquery expression and its arguments for an FTS5-style expression of quoted phrases
    joined by OR / AND (search/query.py). Raises ValueError for anything else."""
    parts, args, pos = [], [], 0
    expect_phrase = True
    while pos < len(expr.rstrip()):
        m = _TOKEN.match(expr, pos)
        if m is None:
            raise ValueError(f"not a keyword expression: {expr!r}")
        phrase, op = m.groups()
        if expect_phrase != (phrase is not None):
            raise ValueError(f"not a keyword expression: {expr!r}")
        if phrase is not None:
            parts.append(f"phraseto_tsquery('{CONFIG}', ?)")
            args.append(phrase.replace('""', '"'))
        else:
            parts.append("||" if op == "OR" else "&&")
        expect_phrase = not expect_phrase
        pos = m.end()
    if not parts or expect_phrase:
        raise ValueError(f"not a keyword expression: {expr!r}")
    return "(" + " ".join(parts) + ")", args


class PgChunks:
    """The only code that writes `chunks` and `links` of a PostgreSQL library. Caches the chunk
    count and term document frequencies until a write or `invalidate()`."""

    def __init__(self, db: PgDatabase):
        self.db = db
        self._count: int | None = None
        self._bm25 = bm25.Bm25Stats(db, CONFIG)
        db.on_rollback(self.invalidate)

    def invalidate(self) -> None:
        """Forget the cached count (another client may have added or removed chunks)."""
        with self.db.lock:
            self._count = None

    # ---- reads -----------------------------------------------------------------------------
    def rows(self, ids: list[int]) -> dict[int, dict]:
        """{chunk id: row dict} for the ids that exist (JSON columns left as text)."""
        if not ids:
            return {}
        return {r["id"]: r for r in self.db.dicts(f"SELECT {SELECT_COLUMNS} FROM chunks WHERE id = ANY(?)",
                                                  (list(ids),))}

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
        """Chunk ids matching a keyword expression (module doc), best BM25 first (text weighted
        over section; postgres/bm25.py). Raises ValueError for an expression search/query.py would not build."""
        if not fts:
            return []
        query, phrases = fts_to_tsquery(fts)
        where, args = filters.sql(self.db.in_list, "c")
        n = self.count()
        terms = bm25.term_rows(self._bm25, phrases, n)
        rank = f"ts_rank_cd('{RANK_WEIGHTS}', c.fts, x.q, {RANK_NORMALISATION})"
        return [r[0] for r in self.db.all(bm25.rescore_sql(query, where, rank), [
            *phrases, *args, max(bm25.CANDIDATES, 10 * limit), terms[1], terms[1], *terms, self._bm25.avgdl(n),
            limit])]

    def by_group_keys(self, keys: list[str], filters: Filters, limit: int = 20) -> list[int]:
        """Chunks of the named figures/tables ('figure:3' ...), figures and tables before text."""
        where, args = filters.sql(self.db.in_list, "c")
        return [r[0] for r in self.db.all(
            f"SELECT c.id FROM chunks c WHERE c.group_key = ANY(?) AND {where}"
            " ORDER BY c.kind = 'text', c.id LIMIT ?", [list(keys), *args, limit])]

    def on_page(self, doc_id: int, kinds: tuple[str, ...], page: int) -> list[int]:
        """Chunks of these kinds that cover `page` of the document."""
        return [r[0] for r in self.db.all(
            "SELECT id FROM chunks WHERE doc_id = ? AND kind = ANY(?) AND page <= ? AND page_end >= ? ORDER BY id",
            (doc_id, list(kinds), page, page))]

    def term_idf(self, terms: list[str]) -> dict[str, float]:
        """Inverse document frequency of each term over the chunks (GIN index counts, one
        statement for the terms not cached, cached until the chunk count changes):
        log((N + 1) / (df + 0.5)), at least 0.1."""
        n = self.count()
        dfs = self._bm25.dfs(list(terms), n)
        return {t: max(math.log((n + 1) / (dfs[t] + 0.5)), 0.1) for t in terms}

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
        if not rows:
            return []
        with self.db.lock:
            # ids drawn first, so they come back in the rows' order (RETURNING promises no order)
            ids = sorted(r[0] for r in self.db.all(
                "SELECT nextval(pg_get_serial_sequence('chunks', 'id')) FROM generate_series(1, ?)", (len(rows),)))
            values = [ids, *([row[c] for row in rows] for c in COLUMNS[1:])]
            unnest = ", ".join(f"?::{t}[]" for t in COLUMN_TYPES)
            self.db.run(f"INSERT INTO chunks ({SELECT_COLUMNS}) SELECT * FROM unnest({unnest})", values)
            self._count = None
            return ids

    def add_links(self, links: set[tuple[int, int, str]]) -> None:
        """(src, dst, relation) links between chunks."""
        self.db.run_many("INSERT INTO links (src, dst, relation) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                         sorted(links))

    def update_text(self, chunk_id: int, text: str, lines_json: str, meta_json: str) -> None:
        """New text, lines and meta of a chunk (figure enrichment); the keyword index follows
        (generated column)."""
        self.db.run("UPDATE chunks SET text = ?, lines = ?, meta = ? WHERE id = ?",
                    (text, lines_json, meta_json, chunk_id))
