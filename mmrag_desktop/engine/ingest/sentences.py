"""Sentence vectors: each segment of a chunk encoded on its own, in the background after ingest.

Ingest pools a segment's vector from the chunk's own token vectors (one forward pass, nothing
extra to encode). Those pooled vectors have seen the whole chunk, so the sentence that restates a
question and the sentence after it (which often holds the answer) come out alike. Encoding each
segment's lines alone tells them apart; search mixes the two (normalised sum,
`match_vectors`) to choose a hit's highlighted sentence and the sentence score its rank uses.

Encoding every segment costs about as much again as ingest's own embedding, so it is background
work like figure enrichment (Library.enrich runs it first): documents are searchable at once with
the pooled vectors, and each batch of chunks switches to the mixed vectors when it is committed.
Rows are keyed (chunk, model); a chunk whose text changes (figure enrichment) loses its row and
is encoded again; a row whose segment count no longer matches is ignored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..jobs import CancelToken, Progress
from ..search.highlight import segment_texts
from ..store.db import Transaction

if TYPE_CHECKING:
    from ..library import Library

BATCH_CHUNKS = 32


def _pending_sql(doc_ids: list[int] | None) -> tuple[str, list]:
    sql = ("FROM segment_vectors s JOIN chunks c ON c.id = s.chunk_id WHERE s.model = ? AND NOT EXISTS "
           "(SELECT 1 FROM sentence_vectors t WHERE t.chunk_id = s.chunk_id AND t.model = s.model)")
    args: list = []
    if doc_ids:
        sql += f" AND c.doc_id IN ({','.join('?' * len(doc_ids))})"
        args.extend(doc_ids)
    return sql, args


def count_pending(library: Library, doc_ids: list[int] | None = None) -> int:
    """Chunks of the active text model whose segments are not encoded on their own yet."""
    sql, args = _pending_sql(doc_ids)
    with library.lock:
        return library.conn.execute(f"SELECT COUNT(*) {sql}", [library.embedder.model_id, *args]).fetchone()[0]


def sentence_events(library: Library, cancel: CancelToken | None = None, *,
                    doc_ids: list[int] | None = None) -> Iterator[Progress]:
    """Encode the segments of every pending chunk, BATCH_CHUNKS chunks per committed transaction;
    yields Progress(stage="sentences", unit="chunks") per batch (nothing when nothing is pending).
    Raises Cancelled (via the token) between batches; finished batches are kept."""
    cancel = cancel or CancelToken()
    embedder = library.embedder
    model = embedder.model_id
    total = count_pending(library, doc_ids)
    if not total:
        return
    sql, args = _pending_sql(doc_ids)
    yield Progress("sentences", done=0, total=total, unit="chunks",
                   message=f"{total} chunk(s) to encode sentence by sentence")
    t0, done, tried = time.monotonic(), 0, set()
    while True:
        cancel.check()
        with library.lock:
            rows = library.conn.execute(
                f"SELECT s.chunk_id, s.n, s.vecs, c.lines {sql} ORDER BY s.chunk_id LIMIT ?",
                [model, *args, BATCH_CHUNKS]).fetchall()
        if not rows or tried.issuperset(r[0] for r in rows):  # nothing, or only chunks that changed under us
            break
        tried.update(r[0] for r in rows)
        texts = [segment_texts(json.loads(lines or "[]"), n) for _cid, n, _v, lines in rows]
        flat = [t.strip() for ts in texts for t in ts]
        # sentences sharing their lines have the same text: encode each text once
        unique = list(dict.fromkeys(t for t in flat if t))
        encoded = embedder.encode(unique) if unique else np.zeros((0, embedder.dim), np.float32)
        where = {t: i for i, t in enumerate(unique)}
        enc = np.zeros((len(flat), embedder.dim), np.float32)  # no text: the pooled vector alone decides
        for i, t in enumerate(flat):
            if t:
                enc[i] = encoded[where[t]]
        out, i = [], 0
        for (cid, n, pooled_blob, _lines), ts in zip(rows, texts, strict=True):
            own = enc[i : i + len(ts)]
            i += len(ts)
            out.append((cid, model, n, int(enc.shape[1]), own.astype(np.float16).tobytes(), cid, model, pooled_blob))
        with library.lock, Transaction(library.conn) as c:
            # only when the pooled vectors are still the ones these texts came from (a figure may
            # have been enriched, or the chunk re-embedded, meanwhile: it stays pending)
            c.executemany(
                "INSERT OR REPLACE INTO sentence_vectors (chunk_id, model, n, dim, vecs) SELECT ?, ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM segment_vectors WHERE chunk_id = ? AND model = ? AND vecs = ?)", out)
        done += len(rows)
        elapsed = time.monotonic() - t0
        rate = done / elapsed if elapsed > 0 else None
        total = max(total, done)
        yield Progress("sentences", done=done, total=total, unit="chunks", rate=rate,
                       eta=(total - done) / rate if rate else None)


def match_vectors(pooled: dict[int, np.ndarray], own: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Per chunk, the vectors search matches a query against: pooled + own, L2-normalised, where
    the chunk has own vectors of the same shape; the pooled ones alone otherwise."""
    out = {}
    for cid, p in pooled.items():
        o = own.get(cid)
        if o is None or o.shape != p.shape:
            out[cid] = p
            continue
        m = p.astype(np.float32) + o.astype(np.float32)
        norms = np.linalg.norm(m, axis=1, keepdims=True)
        out[cid] = m / np.where(norms > 0, norms, 1.0)
    return out
