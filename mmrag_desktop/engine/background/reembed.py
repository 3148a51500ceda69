"""Re-embedding after the user picks another text embedder (DESIGN.md "Models").

Vectors are tagged by model id, so the new model's vectors are written next to the old ones in
committed batches; search keeps using the old model and index meanwhile. When every chunk has a
new vector the library switches: the new model becomes active, its index is built from SQLite,
and the old vectors are deleted. Cancelling keeps the finished batches; a new run resumes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..jobs import CancelToken, Progress

if TYPE_CHECKING:
    from ..models.active import ActiveModels
    from ..store import Chunks, Vectors

BATCH = 64


def _segments(text_len: int, meta: dict) -> list[tuple[int, int]]:
    segs = meta.get("segments")
    return [tuple(x) for x in segs] if segs else [(0, text_len)]


def reembed_events(chunks: Chunks, vectors: Vectors, models: ActiveModels, cancel: CancelToken) -> Iterator[Progress]:
    """See module doc. Yields Progress(stage="reembed", unit="chunks"), then "finished"."""
    from ..ingest.chunking import ChunkDraft
    from ..ingest.pipeline import embed_text_of

    target = models.pending_embedder
    if target is None:
        yield Progress("finished", unit="chunks", message="the library already uses the chosen text model")
        return
    model = target.model_id
    total = chunks.count()
    done = total - chunks.count_without_vector(model)
    t0 = time.monotonic()
    start_done = done
    yield Progress("reembed", done=done, total=total, unit="chunks", message=f"re-embedding with {model}")
    while True:
        cancel.check()
        rows = chunks.without_vector(model, BATCH)
        if not rows:
            break
        texts, spans = [], []
        for _cid, text, section, meta_json in rows:
            draft = ChunkDraft(kind="text", text=text, section=section, lines=[],
                               segments=_segments(len(text), json.loads(meta_json or "{}")))
            full, offset = embed_text_of(draft)
            texts.append(full)
            spans.append([(a + offset, b + offset) for a, b in draft.segments])
        enc = target.encode_with_segments(texts, spans, bulk=True)
        vectors.put_text([r[0] for r in rows], model, enc.vectors, enc.segments)
        done += len(rows)
        chunks.invalidate()  # another process may add documents meanwhile
        total = chunks.count()
        elapsed = time.monotonic() - t0
        rate = (done - start_done) / elapsed if elapsed > 0 else None
        yield Progress("reembed", done=done, total=total, unit="chunks", rate=rate,
                       eta=(total - done) / rate if rate else None)
    models.switch_text(target)
    yield Progress("finished", done=total, total=total, unit="chunks",
                   message=f"now searching with {model}; {total} chunks re-embedded in {time.monotonic() - t0:.1f} s")
