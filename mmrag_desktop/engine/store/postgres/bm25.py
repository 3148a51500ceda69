"""BM25 for a PostgreSQL library's keyword search, as SQLite's FTS5 ranks (bm25 with the text
weighted 1.0 and the section 0.4, k1 = 1.2, b = 0.75).

PostgreSQL's own ranking, ts_rank_cd, is not BM25: on held-out set 2 the keyword list it gave shared
a fifth of its top 20 with FTS5's, a gold page was in its top 20 for 0.80 of the questions against
0.96, and search fell from R@1 0.59 / R@5 0.93 to 0.48 / 0.80 (bench/pg_parity.py). So the matching
chunks' best CANDIDATES by ts_rank_cd are scored again here with BM25 statistics the database
keeps: each phrase's document frequency (the GIN index counts it), each chunk's length (its tokens:
the positions in its tsvector) and the average length (cached until the chunk count moves by more
than 5%). A phrase's frequency in a chunk is that of its rarest lexeme, each
occurrence weighted by where it is (text 'A' 1.0, section 'B' 0.4).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

K1 = 1.2
B = 0.75
CANDIDATES = 1000  # matching chunks rescored, best first by ts_rank_cd (at least 10x the limit)
SECTION_WEIGHT = 0.4
AVGDL_SAMPLE = 5000  # chunks read to estimate the average length
# a chunk's length as FTS5 counts it: its tokens (text and section), i.e. the positions in its tsvector
TOKENS = "(SELECT COALESCE(SUM(COALESCE(array_length(u.positions, 1), 1)), 0) FROM unnest({fts}) AS u)"


class Bm25Stats:
    """The corpus statistics BM25 needs, cached per chunk count (any client may add chunks)."""

    def __init__(self, db, config: str):
        self.db = db
        self.config = config
        self._lock = threading.Lock()
        self._avgdl: tuple[int, float] | None = None
        self._df: dict[tuple[str, int, tuple[int, ...] | None], int] = {}
        self._lexemes: dict[str, list[str]] = {}

    def avgdl(self, n: int) -> float:
        """The average chunk length in tokens, estimated from a sample of about AVGDL_SAMPLE chunks
        (all of them in a smaller library); recomputed when `n` moved by more than 5%."""
        with self._lock:
            if self._avgdl is None or abs(self._avgdl[0] - n) > 0.05 * max(n, 1):
                # a sample of about AVGDL_SAMPLE chunks: reading every tsvector takes seconds at 100k chunks
                share = min(100.0, 100.0 * AVGDL_SAMPLE / max(n, 1))
                avg = self.db.one(f"SELECT AVG({TOKENS.format(fts='fts')})::float8 FROM chunks "
                                  f"TABLESAMPLE SYSTEM ({share:.6f})")[0]
                if avg is None:  # the sampled pages held no row
                    avg = self.db.one(f"SELECT AVG({TOKENS.format(fts='fts')})::float8 FROM "
                                      "(SELECT fts FROM chunks LIMIT ?) s", (AVGDL_SAMPLE,))[0]
                self._avgdl = (n, float(avg or 1.0))
            return self._avgdl[1]

    def dfs(self, phrases: list[str], n: int, doc_ids: Sequence[int] | None = None) -> dict[str, int]:
        """Chunks containing each phrase, of the documents `doc_ids` only when given (cached per chunk
        count; the ones not cached are counted in one statement)."""
        docs = tuple(sorted(set(doc_ids))) if doc_ids is not None else None
        within = "" if docs is None else " AND doc_id = ANY(?::bigint[])"
        with self._lock:
            todo = [p for p in dict.fromkeys(phrases) if (p, n, docs) not in self._df]
            if todo:
                if len(self._df) > 20000:
                    self._df.clear()
                for phrase, df in self.db.all(
                        f"SELECT p, (SELECT COUNT(*) FROM chunks WHERE fts @@ phraseto_tsquery('{self.config}', p)"
                        f"{within}) FROM unnest(?::text[]) AS p", ([list(docs)] if docs is not None else []) + [todo]):
                    self._df[(phrase, n, docs)] = int(df)
            return {p: self._df[(p, n, docs)] for p in phrases}

    def lexemes(self, phrases: list[str]) -> dict[str, list[str]]:
        """The distinct lexemes of each phrase as the keyword index stores them."""
        with self._lock:
            todo = [p for p in dict.fromkeys(phrases) if p not in self._lexemes]
            if todo:
                if len(self._lexemes) > 20000:
                    self._lexemes.clear()
                for phrase, lexemes in self.db.all(
                        f"SELECT p, ARRAY(SELECT lexeme FROM unnest(to_tsvector('{self.config}', p))) "
                        "FROM unnest(?::text[]) AS p", (todo,)):
                    self._lexemes[phrase] = list(lexemes)
            return {p: self._lexemes[p] for p in phrases}


def idf(n: int, df: int) -> float:
    """FTS5's BM25 idf: log((N - df + 0.5) / (df + 0.5)), at least 1e-6."""
    return max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)


def rescore_sql(query: str, where: str, rank: str) -> str:
    """The statement that takes the best matching chunks by `rank` and orders them by BM25, reading
    each candidate's tsvector once (its length and the query lexemes' weighted frequencies).
    Parameters, in order: the tsquery's arguments, the filter's, the candidate count, the query's
    lexemes twice, the four arrays of `term_rows`, avgdl, the limit."""
    tf = f"(SELECT SUM(CASE w WHEN 'A' THEN 1.0 WHEN 'B' THEN {SECTION_WEIGHT} ELSE 0 END) FROM unnest(u.weights) AS w)"
    return f"""
    WITH top AS (
        SELECT c.id, c.fts FROM chunks c, (SELECT {query} AS q) x
        WHERE c.fts @@ x.q AND {where} ORDER BY {rank} DESC, c.id LIMIT ?),
    cand AS (
        SELECT top.id, s.dl, s.lexemes, s.tfs FROM top, LATERAL (
            SELECT SUM(COALESCE(array_length(u.positions, 1), 1)) AS dl,
                   array_agg(u.lexeme) FILTER (WHERE u.lexeme = ANY(?::text[])) AS lexemes,
                   array_agg({tf}) FILTER (WHERE u.lexeme = ANY(?::text[])) AS tfs
            FROM unnest(top.fts) AS u) s),
    terms AS (SELECT * FROM unnest(?::int[], ?::text[], ?::int[], ?::float8[]) AS t(phrase, lexeme, plen, idf)),
    per_phrase AS (
        SELECT c.id, MAX(c.dl) AS dl, t.phrase, MAX(t.idf) AS idf, MIN(x.tf) AS tf, COUNT(*) AS found,
               MAX(t.plen) AS plen
        FROM cand c, unnest(c.lexemes, c.tfs) AS x(lexeme, tf), terms t WHERE t.lexeme = x.lexeme
        GROUP BY c.id, t.phrase)
    SELECT top.id FROM top LEFT JOIN (
        SELECT id, SUM(idf * tf * {K1 + 1} / (tf + {K1} * (1 - {B} + {B} * dl / ?::float8))) AS score
        FROM per_phrase WHERE found = plen GROUP BY id) s ON s.id = top.id
    ORDER BY COALESCE(s.score, 0) DESC, top.id LIMIT ?"""


def term_rows(stats: Bm25Stats, phrases: list[str], n: int) -> tuple[list, list, list, list]:
    """The four arrays of `rescore_sql` for these phrases (one row per phrase and lexeme)."""
    nums, lexemes, lens, idfs = [], [], [], []
    phrases = list(dict.fromkeys(phrases))
    all_lex, dfs = stats.lexemes(phrases), stats.dfs(phrases, n)
    for i, phrase in enumerate(phrases):
        lex = all_lex[phrase]
        if not lex:
            continue
        weight = idf(n, dfs[phrase])
        for lexeme in lex:
            nums.append(i)
            lexemes.append(lexeme)
            lens.append(len(lex))
            idfs.append(weight)
    return nums, lexemes, lens, idfs
