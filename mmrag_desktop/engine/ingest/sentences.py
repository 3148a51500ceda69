"""Sentence vectors: each segment of a chunk encoded on its own, in the background after ingest.

Ingest pools a segment's vector from the chunk's own token vectors (one forward pass, nothing
extra to encode). Those pooled vectors have seen the whole chunk, so the sentence that restates a
question and the sentence after it (which often holds the answer) come out alike. Encoding each
segment's lines alone tells them apart; search mixes the two (normalised sum,
`store.vectors.match_vectors`) to choose a hit's highlighted sentence and the sentence score its rank uses.

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
from ..memory import trim_heap
from ..search.highlight import segment_texts

if TYPE_CHECKING:
    from ..store import Vectors

BATCH_CHUNKS = 32


def count_pending(vectors: Vectors, model: str, doc_ids: list[int] | None = None) -> int:
    """Chunks of `model` whose segments are not encoded on their own yet."""
    return vectors.count_sentence_pending(model, doc_ids)


def sentence_events(vectors: Vectors, embedder, cancel: CancelToken | None = None, *,
                    doc_ids: list[int] | None = None) -> Iterator[Progress]:
    """Encode the segments of every pending chunk, BATCH_CHUNKS chunks per committed transaction;
    yields Progress(stage="sentences", unit="chunks") per batch (nothing when nothing is pending).
    Raises Cancelled (via the token) between batches; finished batches are kept."""
    cancel = cancel or CancelToken()
    model = embedder.model_id
    total = count_pending(vectors, model, doc_ids)
    if not total:
        return
    yield Progress("sentences", done=0, total=total, unit="chunks",
                   message=f"{total} chunk(s) to encode sentence by sentence")
    t0, done, tried = time.monotonic(), 0, set()
    while True:
        cancel.check()
        rows = vectors.sentence_pending(model, doc_ids, BATCH_CHUNKS)
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
            out.append((cid, model, n, int(enc.shape[1]), own.astype(np.float16).tobytes(), pooled_blob))
        # kept only where the pooled vectors are still the ones these texts came from (a figure may
        # have been enriched, or the chunk re-embedded, meanwhile: it stays pending)
        vectors.put_sentences(out)
        trim_heap()  # the batch's tensors are freed: give the pages back (engine/memory.py)
        done += len(rows)
        elapsed = time.monotonic() - t0
        rate = done / elapsed if elapsed > 0 else None
        total = max(total, done)
        yield Progress("sentences", done=done, total=total, unit="chunks", rate=rate,
                       eta=(total - done) / rate if rate else None)
