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
from collections.abc import Sequence

from ..chunks import COLUMNS, SELECT_COLUMNS, Chunks, Filters
from . import bm25
from .db import PgDatabase

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


class PgChunks(Chunks):
    """`Chunks` over a PgDatabase: the same SQL but for keyword search (tsvector, BM25), term
    statistics (GIN index counts) and insert (ids drawn from the sequence first)."""

    def __init__(self, db: PgDatabase):
        super().__init__(db)
        self._bm25 = bm25.Bm25Stats(db, CONFIG)

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

    def term_df(self, terms: list[str], doc_ids: Sequence[int] | None = None) -> dict[str, int]:
        """How many chunks contain each term (a word or a phrase; GIN index counts, one statement
        for the terms not cached, cached until the chunk count changes); only the chunks of `doc_ids`
        when given."""
        return self._bm25.dfs(list(terms), self.count(), doc_ids)

    def term_idf(self, terms: list[str]) -> dict[str, float]:
        """Inverse document frequency of each term over the chunks (`term_df`):
        log((N + 1) / (df + 0.5)), at least 0.1."""
        n = self.count()
        dfs = self.term_df(terms)
        return {t: max(math.log((n + 1) / (dfs[t] + 0.5)), 0.1) for t in terms}

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
