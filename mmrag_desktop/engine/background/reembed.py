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

import numpy as np

from ..jobs import CancelToken, Progress
from ..store.db import Transaction
from ..store.vector_index import VectorIndex

if TYPE_CHECKING:
    from ..library import Library

BATCH = 64


def _missing(library: Library, model: str, limit: int) -> list[tuple]:
    with library.lock:
        return library.conn.execute(
            "SELECT c.id, c.text, c.section, c.meta FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v "
            "WHERE v.chunk_id = c.id AND v.space = 'text' AND v.model = ?) ORDER BY c.id LIMIT ?",
            (model, limit),
        ).fetchall()


def _segments(text_len: int, meta: dict) -> list[tuple[int, int]]:
    segs = meta.get("segments")
    return [tuple(x) for x in segs] if segs else [(0, text_len)]


def reembed_events(library: Library, cancel: CancelToken) -> Iterator[Progress]:
    """See module doc. Yields Progress(stage="reembed", unit="chunks"), then "finished"."""
    from ..ingest.chunking import ChunkDraft
    from ..ingest.pipeline import embed_text_of

    library.embedder  # noqa: B018 - resolve active/pending
    target = library._pending_embedder
    if target is None:
        yield Progress("finished", unit="chunks", message="the library already uses the chosen text model")
        return
    model = target.model_id
    with library.lock:
        total = library.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    done = total - len(_missing(library, model, total + 1))
    t0 = time.monotonic()
    start_done = done
    yield Progress("reembed", done=done, total=total, unit="chunks", message=f"re-embedding with {model}")
    while True:
        cancel.check()
        rows = _missing(library, model, BATCH)
        if not rows:
            break
        texts, spans = [], []
        for _cid, text, section, meta_json in rows:
            draft = ChunkDraft(kind="text", text=text, section=section, lines=[],
                               segments=_segments(len(text), json.loads(meta_json or "{}")))
            full, offset = embed_text_of(draft)
            texts.append(full)
            spans.append([(a + offset, b + offset) for a, b in draft.segments])
        enc = target.encode_with_segments(texts, spans)
        dim = int(enc.vectors.shape[1])
        with library.lock, Transaction(library.conn) as c:
            c.executemany(
                "INSERT OR REPLACE INTO vectors (chunk_id, space, model, dim, vec) VALUES (?, 'text', ?, ?, ?)",
                [(r[0], model, dim, v.astype(np.float32).tobytes()) for r, v in zip(rows, enc.vectors, strict=True)],
            )
            c.executemany(
                "INSERT OR REPLACE INTO segment_vectors (chunk_id, model, n, dim, vecs) VALUES (?, ?, ?, ?, ?)",
                [(r[0], model, int(sv.shape[0]), dim, sv.astype(np.float16).tobytes())
                 for r, sv in zip(rows, enc.segments, strict=True)],
            )
        done += len(rows)
        with library.lock:
            total = library.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        elapsed = time.monotonic() - t0
        rate = (done - start_done) / elapsed if elapsed > 0 else None
        yield Progress("reembed", done=done, total=total, unit="chunks", rate=rate,
                       eta=(total - done) / rate if rate else None)
    _switch(library, target)
    yield Progress("finished", done=total, total=total, unit="chunks",
                   message=f"now searching with {model}; {total} chunks re-embedded in {time.monotonic() - t0:.1f} s")


def _switch(library: Library, target) -> None:
    """Make `target` the active model: build its index, drop the old vectors."""
    model = target.model_id
    index = VectorIndex(library.index_dir, "text", model, target.dim, threads=library.settings.threads)
    with library.lock:
        index.rebuild(library.conn, reason=f"switched to {model}")
        with Transaction(library.conn) as c:
            c.execute("DELETE FROM vectors WHERE space = 'text' AND model != ?", (model,))
            c.execute("DELETE FROM segment_vectors WHERE model != ?", (model,))
            c.execute("DELETE FROM sentence_vectors WHERE model != ?", (model,))
            c.execute("INSERT OR REPLACE INTO settings_kv (key, value) VALUES ('text_model', ?)", (model,))
            c.execute("INSERT OR REPLACE INTO settings_kv (key, value) VALUES ('text_model_path', ?)",
                      (str(target.model_dir),))
        library._indices["text"] = index
        library._embedder = target
        library._pending_embedder = None
