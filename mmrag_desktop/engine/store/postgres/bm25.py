"""BM25 for a PostgreSQL library's keyword search, as SQLite's FTS5 ranks (bm25 with the text
weighted 1.0 and the section 0.4, k1 = 1.2, b = 0.75).

PostgreSQL's own ranking, ts_rank_cd, is not BM25: on held-out set 2 the keyword list it gave shared
a fifth of its top 20 with FTS5's, a gold page was in its top 20 for 0.80 of the questions against
0.96, and search fell from R@1 0.59 / R@5 0.93 to 0.48 / 0.80 (bench/pg_parity.py). So the matching
chunks' best CANDIDATES by ts_rank_cd are scored again here with BM25 statistics the database
keeps: each phrase's document frequency (the GIN index counts it), each chunk's length (its
number of distinct lexemes, `length(fts)`) and the average length (cached until the chunk count
moves by more than 5%). A phrase's frequency in a chunk is that of its rarest lexeme, each
occurrence weighted by where it is (text 'A' 1.0, section 'B' 0.4).
"""

from __future__ import annotations

import math
import threading

K1 = 1.2
B = 0.75
CANDIDATES = 200  # matching chunks rescored, best first by ts_rank_cd (at least 10x the limit)
SECTION_WEIGHT = 0.4


class Bm25Stats:
    """The corpus statistics BM25 needs, cached per chunk count (any client may add chunks)."""

    def __init__(self, db, config: str):
        self.db = db
        self.config = config
        self._lock = threading.Lock()
        self._avgdl: tuple[int, float] | None = None
        self._df: dict[tuple[str, int], int] = {}
        self._lexemes: dict[str, list[str]] = {}

    def avgdl(self, n: int) -> float:
        """The average chunk length in lexemes (recomputed when `n` moved by more than 5%)."""
        with self._lock:
            if self._avgdl is None or abs(self._avgdl[0] - n) > 0.05 * max(n, 1):
                avg = self.db.one("SELECT AVG(length(fts))::float8 FROM chunks")[0]
                self._avgdl = (n, float(avg or 1.0))
            return self._avgdl[1]

    def dfs(self, phrases: list[str], n: int) -> dict[str, int]:
        """Chunks containing each phrase (cached per chunk count; the ones not cached are counted
        in one statement)."""
        with self._lock:
            todo = [p for p in dict.fromkeys(phrases) if (p, n) not in self._df]
            if todo:
                if len(self._df) > 20000:
                    self._df.clear()
                for phrase, df in self.db.all(
                        f"SELECT p, (SELECT COUNT(*) FROM chunks WHERE fts @@ phraseto_tsquery('{self.config}', p)) "
                        "FROM unnest(?::text[]) AS p", (todo,)):
                    self._df[(phrase, n)] = int(df)
            return {p: self._df[(p, n)] for p in phrases}

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
    """The statement that takes the CANDIDATES best matching chunks by `rank` and orders them by
    BM25. Parameters, in order: the tsquery's arguments, the filter's, the candidate count, then
    four arrays (phrase number, lexeme, phrase length, idf per lexeme row), avgdl, the limit."""
    return f"""
    WITH cand AS (
        SELECT c.id, c.fts FROM chunks c, (SELECT {query} AS q) x
        WHERE c.fts @@ x.q AND {where} ORDER BY {rank} DESC, c.id LIMIT ?),
    terms AS (SELECT * FROM unnest(?::int[], ?::text[], ?::int[], ?::float8[]) AS t(phrase, lexeme, plen, idf)),
    lex AS (
        SELECT cand.id, u.lexeme,
               (SELECT SUM(CASE w WHEN 'A' THEN 1.0 WHEN 'B' THEN {SECTION_WEIGHT} ELSE 0 END)
                FROM unnest(u.weights) AS w) AS tf
        FROM cand, unnest(cand.fts) AS u WHERE u.lexeme IN (SELECT lexeme FROM terms)),
    per_phrase AS (
        SELECT l.id, t.phrase, MAX(t.idf) AS idf, MIN(l.tf) AS tf, COUNT(*) AS found, MAX(t.plen) AS plen
        FROM lex l JOIN terms t ON t.lexeme = l.lexeme GROUP BY l.id, t.phrase)
    SELECT cand.id FROM cand LEFT JOIN (
        SELECT p.id, SUM(p.idf * p.tf * {K1 + 1} / (p.tf + {K1} * (1 - {B} + {B} * length(c2.fts) / ?::float8)))
               AS score
        FROM per_phrase p JOIN cand c2 ON c2.id = p.id WHERE p.found = p.plen GROUP BY p.id) s ON s.id = cand.id
    ORDER BY COALESCE(s.score, 0) DESC, cand.id LIMIT ?"""


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
