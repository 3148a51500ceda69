"""Sentence vectors: each segment of a chunk encoded on its own.

Ingest pools a segment's vector from the chunk's own token vectors (one forward pass, nothing
extra to encode). Those pooled vectors have seen the whole chunk, so the sentence that restates a
question and the sentence after it (which often holds the answer) come out alike. Encoding each
segment's lines alone tells them apart; search mixes the two (normalised sum,
`store.vectors.match_vectors`) to choose a hit's highlighted sentence and the sentence score its rank uses.

Encoding every segment costs about as much again as ingest's own embedding, and search needs
only the segments of the passages it ranks. So search encodes those itself when they are not
stored yet (search/own_sentences.py): results are final as soon as a document is searchable.
Only table rows must be encoded ahead, since the table-row list ranks every row of the library
(search/table_rows.py); background work does them first (`kinds=TABLE_KINDS`), then figure work,
then (optionally) every other chunk, which only makes the first searches faster.
Rows are keyed (chunk, model); a chunk whose text changes (figure enrichment) loses its row and
is encoded again; a row whose segment count no longer matches is ignored.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..jobs import CancelToken, Progress
from ..memory import trim_heap
from ..search.own_sentences import encode_segments

if TYPE_CHECKING:
    from ..store import Vectors

BATCH_CHUNKS = 32
TABLE_KINDS = ("table",)  # chunks whose rows the table-row list ranks: encoded ahead


def count_pending(vectors: Vectors, model: str, doc_ids: list[int] | None = None,
                  kinds: tuple[str, ...] | None = None) -> int:
    """Chunks of `model` (of `kinds`, when given) whose segments are not encoded on their own yet."""
    return vectors.count_sentence_pending(model, doc_ids, kinds)


def sentence_events(vectors: Vectors, embedder, cancel: CancelToken | None = None, *,
                    doc_ids: list[int] | None = None, kinds: tuple[str, ...] | None = None) -> Iterator[Progress]:
    """Encode the segments of every pending chunk (of `kinds`, when given), BATCH_CHUNKS chunks per
    committed transaction; yields Progress(stage="sentences", unit="chunks") per batch (nothing
    when nothing is pending; extra["kinds"] names the kinds). Raises Cancelled (via the token)
    between batches; finished batches are kept."""
    cancel = cancel or CancelToken()
    model = embedder.model_id
    total = count_pending(vectors, model, doc_ids, kinds)
    if not total:
        return
    what = "table(s) to encode row by row" if kinds == TABLE_KINDS else "chunk(s) to encode sentence by sentence"
    extra = {"kinds": list(kinds or ())}
    yield Progress("sentences", done=0, total=total, unit="chunks", message=f"{total} {what}", extra=extra)
    t0, done, tried = time.monotonic(), 0, set()
    while True:
        cancel.check()
        rows = vectors.sentence_pending(model, doc_ids, BATCH_CHUNKS, kinds)
        if not rows or tried.issuperset(r[0] for r in rows):  # nothing, or only chunks that changed under us
            break
        tried.update(r[0] for r in rows)
        own = encode_segments(embedder, [lines for *_x, lines in rows], [n for _c, n, *_x in rows])
        out = [(cid, model, n, int(o.shape[1]), o.tobytes(), pooled_blob)
               for (cid, n, pooled_blob, _lines), o in zip(rows, own, strict=True)]
        # kept only where the pooled vectors are still the ones these texts came from (a figure may
        # have been enriched, or the chunk re-embedded, meanwhile: it stays pending)
        vectors.put_sentences(out)
        trim_heap()  # the batch's tensors are freed: give the pages back (engine/memory.py)
        done += len(rows)
        elapsed = time.monotonic() - t0
        rate = done / elapsed if elapsed > 0 else None
        total = max(total, done)
        yield Progress("sentences", done=done, total=total, unit="chunks", rate=rate,
                       eta=(total - done) / rate if rate else None, extra=extra)
