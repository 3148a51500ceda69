"""The engine facade both front ends use: one library folder on disk.

    lib = Library.open(folder)
    for event in lib.add(paths, cancel=token): ...     # Progress events
    hits = lib.search("query", k=10)
    lib.remove(doc); lib.reindex(); lib.close()

Layout: `library.sqlite` (source of truth), `index/<space>.hnsw` + manifest (derived),
`cache/` (figure crops; regenerable). Public methods are safe to call from one worker
thread while another searches; writes are serialised by `lock`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .errors import DocumentError, LibraryError, ModelError
from .hits import DocumentInfo, Hit
from .jobs import CancelToken, Progress
from .settings import Settings
from .store.db import Transaction, connect
from .store.vector_index import VectorIndex


class Library:
    """A library folder. Create with `Library.open(folder)`; call `close()` when done."""

    def __init__(self, folder: Path, settings: Settings | None = None, embedder=None):
        self.folder = Path(folder).expanduser().resolve()
        self.settings = settings or Settings()
        self.lock = threading.RLock()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LibraryError(f"cannot create the library folder {self.folder}: {e.strerror or e}") from e
        if not self.folder.is_dir():
            raise LibraryError(f"{self.folder} is not a folder")
        self.conn = connect(self.folder / "library.sqlite")
        self._embedder = embedder
        self._indices: dict[str, VectorIndex] = {}
        self._ocr = None
        self._ocr_checked = False
        self._clip = None  # the active image embedder: None = not tried, False = unavailable
        self._clip_target = None  # the configured image model (ResolvedModel) while its vectors are incomplete
        self.image_notice: str | None = None  # why image search does not use the model it should
        self._pending_embedder = None  # the newly chosen text embedder while re-embedding
        self._worker_proc = None  # child process for isolated add/enrich
        self._idf_cache: dict[tuple[str, int], float] = {}
        self._table_rows = None  # search/table_rows.py: row vectors of the tables, built on first search
        self._n_chunks: int | None = None
        self._active_recorded = False if embedder is not None else None
        self._names: dict[int, tuple[str, str]] | None = None
        self._kinds: dict[int, str] = {}
        self._reranker = None  # the cross-encoder (search/rerank.py): None = not resolved, False = none
        self.rerank_notice: str | None = None  # why a configured reranker is not used
        self._closed = False

    @classmethod
    def open(cls, folder: Path | str | None = None, settings: Settings | None = None, embedder=None) -> Library:
        """Open (creating if needed) the library in `folder` (default: the settings' library folder).

        Raises LibraryError when the folder or its database cannot be used.
        """
        settings = settings or Settings()
        return cls(Path(folder) if folder else settings.library_path, settings, embedder)

    # ---- resources ----------------------------------------------------------------------
    @property
    def db(self):
        """A sqlite_utils.Database over the library's connection (for inspection and scripts)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    @property
    def cache_dir(self) -> Path:
        return self.folder / "cache"

    @property
    def index_dir(self) -> Path:
        return self.folder / "index"

    @property
    def embedder(self):
        """The *active* text embedder: the model whose vectors the index holds (loaded lazily).

        When the user chose another model, the active one stays until `reembed()` has computed
        every vector with the new one, so search keeps working meanwhile. Raises ModelError when
        no text embedder is available.
        """
        if self._embedder is None:
            self._embedder = self._choose_active_embedder()
        elif self._active_recorded is False:
            self._record_active(self._embedder)
        return self._embedder

    @property
    def model_notices(self) -> list[str]:
        """Why a model the user configured is not serving search right now (a reranker that failed
        to load; an image model change whose old model is gone); [] when every model is in use."""
        return [n for n in (self.rerank_notice, self.image_notice) if n]

    def models_changed(self) -> None:
        """Forget loaded/resolved models after the settings' model choices changed: the text
        embedder is resolved again (a new one is re-embedded by `reembed()` while the active one
        keeps serving searches); the image embedder is resolved again on next use (a new one is
        embedded by `enrich()` while the active one keeps serving image search); OCR reloads."""
        with self.lock:
            if self._embedder is not None and self._kv_get("text_model") is None:
                self._record_active(self._embedder)
            self._embedder = None
            self._pending_embedder = None
            clip, self._clip, self._clip_target, self.image_notice = self._clip, None, None, None
            self._ocr, self._ocr_checked = None, False
            reranker, self._reranker, self.rerank_notice = self._reranker, None, None
        if clip:
            clip.close()
        if reranker:
            reranker.close()

    def _target_embedder(self):
        """The text embedder the settings ask for (user choice, else the registry's default)."""
        from .models.text_embedder import TextEmbedder

        choice = self.settings.models.get("text_embedder") or None
        return TextEmbedder(choice, threads=self.settings.threads)

    def _choose_active_embedder(self):
        from .models.text_embedder import TextEmbedder

        target = self._target_embedder()
        active_id, active_path = self._kv_get("text_model"), self._kv_get("text_model_path")
        if (active_id and active_id != target.model_id and active_path and Path(active_path).is_dir()
                and self._count_vectors(active_id)):
            self._pending_embedder = target  # reembed() switches when the new vectors are complete
            return TextEmbedder(active_path, threads=self.settings.threads)
        self._record_active(target)
        return target

    def _record_active(self, embedder) -> None:
        with self.lock:
            if self._kv_get("text_model") != embedder.model_id:
                self._kv_set("text_model", embedder.model_id)
                self._kv_set("text_model_path", str(embedder.model_dir))
        self._active_recorded = True

    def _kv_get(self, key: str) -> str | None:
        with self.lock:
            row = self.conn.execute("SELECT value FROM settings_kv WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _kv_set(self, key: str, value: str) -> None:
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO settings_kv (key, value) VALUES (?, ?)", (key, value))

    def _count_vectors(self, model: str, space: str = "text") -> int:
        with self.lock:
            return self.conn.execute("SELECT COUNT(*) FROM vectors WHERE space = ? AND model = ?",
                                     (space, model)).fetchone()[0]

    @property
    def image_change_pending(self) -> bool:
        """True when the settings name an image embedder whose figure vectors are not complete yet
        (image search keeps using the previous one until `enrich()` has embedded every figure)."""
        from .background.image_model import active_model, is_pending, missing_vectors
        from .models.registry import resolve

        target = resolve("image_embedder", self.settings)
        return (target.ok and is_pending(self, active_model(self)[0], target.model_id)
                and missing_vectors(self, target.model_id) > 0)

    @property
    def reembed_pending(self) -> bool:
        """True when the settings name a text embedder whose vectors are not complete yet."""
        self.embedder  # noqa: B018 - resolves active and pending models
        return self._pending_embedder is not None

    def reembed(self, cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Compute text vectors with the newly chosen embedder for every chunk, in committed
        batches (resumable, cancellable), then switch the active model and rebuild the index.
        Search uses the previous model until the switch. Yields Progress(stage="reembed")."""
        from .background.reembed import reembed_events

        yield from reembed_events(self, cancel or CancelToken())

    def ocr(self):
        """The OCR engine, or None when OCR is disabled or not installed."""
        if not self._ocr_checked:
            self._ocr_checked = True
            if self.settings.ocr_enabled:
                from .parse.ocr import Ocr

                self._ocr = Ocr() if Ocr.available() else None
        return self._ocr

    def text_index(self) -> VectorIndex:
        """The hnswlib index of the text space, opened (and repaired from SQLite) on first use."""
        return self._index("text", self.embedder.model_id, self.embedder.dim)

    def _index(self, space: str, model: str, dim: int) -> VectorIndex:
        with self.lock:
            idx = self._indices.get(space)
            if idx is None or idx.model != model or idx.dim != dim:
                idx = VectorIndex(self.index_dir, space, model, dim, threads=self.settings.threads)
                idx.open(self.conn)
                self._indices[space] = idx
            return idx

    def close(self) -> None:
        """Save indices and close the database. Safe to call twice."""
        if self._closed:
            return
        if self._worker_proc is not None:
            self._worker_proc.close()
        with self.lock:
            for idx in self._indices.values():
                idx.save()
            if self._clip:  # the only image model a library holds (enrichment closes its own)
                self._clip.close()
            self._clip = self._clip_target = None
            if self._reranker:
                self._reranker.close()
            self._reranker = None
            self.conn.close()
            self._closed = True

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- documents ----------------------------------------------------------------------
    def add(self, paths: Iterable[Path | str], cancel: CancelToken | None = None, *,
            isolated: bool = False) -> Iterator[Progress]:
        """Ingest files and folders; a generator of Progress events (see ingest.py).

        isolated=True runs the work in a child process (worker_process.py) so native parsing
        code cannot stall the caller's process (the GUI uses this); this library's index is
        refreshed from SQLite after each committed document.
        """
        if isolated:
            yield from self._worker().run(("add", [str(p) for p in paths]), cancel or CancelToken(), self.refresh)
            return
        from .ingest.pipeline import ingest_events

        try:
            yield from ingest_events(self, paths, cancel)
        finally:
            with self.lock:
                for idx in self._indices.values():
                    idx.save()

    def enrich(self, cancel: CancelToken | None = None, *, doc_ids: list[int] | None = None,
               isolated: bool = False) -> Iterator[Progress]:
        """Background work after ingest: each chunk's sentences encoded on their own (sentences.py),
        then figure work (OCR of raster figures, CLIP vectors, VLM captions; enrich.py). Resumable
        and cancellable; search keeps working meanwhile. `isolated` as in add."""
        if isolated:
            yield from self._worker().run(("enrich", doc_ids), cancel or CancelToken(), self.refresh)
            return
        from .background.enrich import enrich_events
        from .ingest.sentences import sentence_events

        try:
            yield from sentence_events(self, cancel, doc_ids=doc_ids)
            yield from enrich_events(self, cancel, doc_ids=doc_ids)
        finally:
            with self.lock:
                for idx in self._indices.values():
                    idx.save()

    def ask(self, question: str, **kwargs) -> Iterator:
        """Answer a question as a generator of answer events (see answer/__init__.py)."""
        from .answer import answer_events

        return answer_events(self, question, **kwargs)

    def _worker(self):
        if self._worker_proc is None:
            from .ingest.worker_process import WorkerProcess

            self._worker_proc = WorkerProcess(self.folder, self.settings)
        return self._worker_proc

    def refresh(self) -> None:
        """Catch up with changes another process committed: indices reconciled with SQLite
        (new vectors added, removed ones marked deleted), cached names dropped."""
        from .background.image_model import sync

        sync(self)  # another process may have switched the image model
        with self.lock:
            self._names = None
            self._n_chunks = None
            self._kinds.clear()
            for idx in self._indices.values():
                idx.reconcile(self.conn)

    def documents(self) -> list[DocumentInfo]:
        """Every document, oldest first, with its chunk count."""
        with self.lock:
            rows = self.conn.execute(
                "SELECT d.*, (SELECT COUNT(*) FROM chunks c WHERE c.doc_id = d.id) AS n_chunks "
                "FROM documents d ORDER BY d.id"
            ).fetchall()
            cols = [c[0] for c in self.conn.execute("SELECT d.*, 0 AS n_chunks FROM documents d LIMIT 0").description]
        return [self._info(dict(zip(cols, r, strict=True))) for r in rows]

    def document(self, doc: int | str) -> DocumentInfo:
        """One document by id, file name or path. Raises LibraryError when unknown or ambiguous."""
        for d in self._match_docs(doc):
            return d
        raise LibraryError(f"no document {doc!r} in this library")

    def _match_docs(self, doc: int | str) -> list[DocumentInfo]:
        docs = self.documents()
        if isinstance(doc, int) or (isinstance(doc, str) and doc.isdigit()):
            found = [d for d in docs if d.id == int(doc)]
            if found:
                return found
        s = str(doc)
        found = [d for d in docs if d.path == s or d.path == str(Path(s).expanduser().resolve())]
        if not found:
            found = [d for d in docs if d.name == s]
        if len(found) > 1:
            raise LibraryError(f"{s!r} names {len(found)} documents; use the id ({', '.join(str(d.id) for d in found)})")
        return found

    def remove(self, doc: int | str) -> DocumentInfo:
        """Delete a document from SQLite, the indices and the cache. Returns what was removed."""
        info = self.document(doc)
        with self.lock:
            ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE doc_id = ?", (info.id,))]
            with Transaction(self.conn) as c:
                c.execute("DELETE FROM documents WHERE id = ?", (info.id,))
            for idx in self._indices.values():
                idx.remove(ids)
                idx.save()
            self._names = None
            self._n_chunks = None
        crops = self.cache_dir / "figures" / str(info.id)
        if crops.is_dir():
            import shutil

            shutil.rmtree(crops, ignore_errors=True)
        return info

    def reindex(self, cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Re-ingest every document whose source file still exists (changed or not), then rebuild
        the vector indices from SQLite. Missing source files are reported, their data kept."""
        cancel = cancel or CancelToken()
        docs = self.documents()
        for d in docs:
            if not Path(d.path).exists():
                yield Progress("failed", doc=d.name, doc_id=d.id, message="source file is missing; kept as indexed")
        present = [Path(d.path) for d in docs if Path(d.path).exists()]
        with self.lock:
            self.conn.execute("UPDATE documents SET status = 'pending' WHERE status = 'ready' AND path IN "
                              f"({','.join('?' * len(present))})", [str(p) for p in present]) if present else None
        yield from self.add(present, cancel)
        cancel.check()
        idx = self.text_index()
        t0 = time.monotonic()
        with self.lock:
            n = idx.rebuild(self.conn, reason="reindex")
        yield Progress("index", done=n, total=n, unit="vectors", message=f"text index rebuilt in {time.monotonic() - t0:.1f} s")

    # ---- search -------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, *, docs: list[int | str] | None = None,
               pages: tuple[int, int] | None = None, kinds: list[str] | None = None) -> list[Hit]:
        """Ranked hits (best first). Raises QueryError for empty/absurd queries, ModelError when
        no text embedder is available."""
        from .search.searcher import search

        return search(self, query, k, self._filters(docs, pages, kinds))

    def rerank_scores(self, query: str, passages: list[str]) -> np.ndarray | None:
        """Cross-encoder scores of (query, passage) pairs (search/rerank.py), or None when no
        reranker is in use: none installed, or the configured one is unusable or fails to load or
        run — then `rerank_notice` says why (logged once) and search ranks without it until
        `models_changed()`. The reranker is resolved on the first call and loaded on first use."""
        from .search.rerank import configured, off_notice

        if self._reranker is None:
            with self.lock:
                if self._reranker is None:
                    model, self.rerank_notice = configured(self.settings)
                    self._reranker = model or False
        reranker = self._reranker
        if not reranker:
            return None
        try:
            return reranker.score(query, passages)
        except ModelError as e:
            with self.lock:
                if self._reranker is reranker:
                    self._reranker = False
                    self.rerank_notice = off_notice(reranker.model_id, e.reason)
            reranker.close()
            return None

    def search_image(self, image, k: int = 10, *, docs: list[int | str] | None = None) -> list[Hit]:
        """Hits for an image: figures with the same perceptual hash first, then a search with the
        image's OCR text. Raises QueryError when the image has neither a match nor readable text."""
        from .search.image_query import search_image

        return search_image(self, image, k, self._filters(docs, None, None))

    def image_list(self, query, n: int, filters) -> list[int]:
        """Figure chunk ids ranked by CLIP similarity to `query` (text, or a PIL image for search by
        image), or [] when there are no image vectors or no image embedder (loaded once, on need).

        Uses the *active* image model and its index: after an image-model change that is the
        previous model until the new one's vectors cover the library (image_model.py). Raises
        ModelError when the image model fails to load.
        """
        with self.lock:
            if self.conn.execute("SELECT 1 FROM vectors WHERE space = 'image' LIMIT 1").fetchone() is None:
                return []
        query_vec = self._image_query_vector(query)
        if query_vec is None:
            return []
        model, dim, vec = query_vec
        index = self._index("image", model, dim)
        allowed = self._allowed_ids(filters) if filters.active else None
        return [cid for cid, _ in index.query(vec, n, filter_ids=allowed)]

    def _image_query_vector(self, query) -> tuple[str, int, np.ndarray] | None:
        """(model id, dim, query vector) from the active image model, or None when there is no image
        model or it has no vectors yet. Raises ModelError."""
        for attempt in range(2):
            clip = self._image_embedder()
            if clip is None:
                return None
            with self.lock:  # only vectors of the loaded model are comparable with its queries
                row = self.conn.execute("SELECT dim FROM vectors WHERE space = 'image' AND model = ? LIMIT 1",
                                        (clip.model_id,)).fetchone()
            if row is None:
                return None
            try:
                vec = (clip.encode_text([query]) if isinstance(query, str) else clip.encode_images([query]))[0]
            except ModelError:
                if attempt or clip is self._clip:
                    raise
                continue  # another thread switched models and closed this one: use the new active one
            return clip.model_id, int(row[0]), vec
        return None

    def _image_embedder(self):
        """The active image embedder (loaded on first use; after a change, switched lazily when the
        new model's vectors are complete), or None when no image model is configured. Raises
        ModelError when the model to use fails to load (image search then stays off until
        `models_changed()`)."""
        from .background.image_model import choose_active, sync

        sync(self)
        if self._clip is None:
            try:
                self._clip = choose_active(self) or False
            except ModelError:
                self._clip = False
                raise
        return self._clip or None

    def term_idf(self, terms: list[str]) -> dict[str, float]:
        """Inverse document frequency of each term over the chunks (FTS5 counts, cached until the
        library changes): log((N + 1) / (df + 0.5))."""
        import math

        with self.lock:
            n = self._chunk_count()
            out = {}
            for t in terms:
                key = (t, n)
                if key not in self._idf_cache:
                    try:
                        df = self.conn.execute("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                                               ('"' + t.replace('"', '""') + '"',)).fetchone()[0]
                    except sqlite3.OperationalError:
                        df = 0
                    if len(self._idf_cache) > 20000:
                        self._idf_cache.clear()
                    self._idf_cache[key] = math.log((n + 1) / (df + 0.5))
                out[t] = max(self._idf_cache[key], 0.1)
            return out

    def _chunk_count(self) -> int:
        if self._n_chunks is None:
            self._n_chunks = self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return self._n_chunks

    def _filters(self, docs, pages, kinds):
        from .search.searcher import Filters

        doc_ids = None
        if docs:
            doc_ids = []
            for d in docs:
                doc_ids.extend(m.id for m in self._match_docs(d))
        return Filters(doc_ids=doc_ids, pages=tuple(pages) if pages else None, kinds=list(kinds) if kinds else None)

    def chunk(self, chunk_id: int) -> dict:
        """One chunk with decoded spans/lines/meta. Raises LibraryError when unknown."""
        rows = self._chunk_rows([chunk_id])
        if chunk_id not in rows:
            raise LibraryError(f"no chunk {chunk_id}")
        row = dict(rows[chunk_id])
        for key in ("spans", "lines", "meta"):
            row[key] = json.loads(row[key] or "null")
        row["bbox"] = json.loads(row["bbox"]) if row["bbox"] else None
        return row

    # ---- internals used by ingest/search ----------------------------------------------------
    def _info(self, r: dict) -> DocumentInfo:
        return DocumentInfo(
            id=r["id"], path=r["path"], name=r["name"], sha256=r["sha256"], kind=r["kind"], title=r["title"],
            pages=r["pages"], status=r["status"], error=r["error"], chunks=r["n_chunks"], added=r["added"],
            enrichment=r.get("enrichment", ""),
        )

    def _doc_by_path(self, path: Path) -> dict | None:
        with self.lock:
            cur = self.conn.execute("SELECT * FROM documents WHERE path = ?", (str(path),))
            row = cur.fetchone()
            return dict(zip([c[0] for c in cur.description], row, strict=True)) if row else None

    def _ready_doc_by_sha(self, sha: str) -> dict | None:
        with self.lock:
            cur = self.conn.execute("SELECT * FROM documents WHERE sha256 = ? AND status = 'ready' LIMIT 1", (sha,))
            row = cur.fetchone()
            return dict(zip([c[0] for c in cur.description], row, strict=True)) if row else None

    def _register(self, path: Path, sha: str, size: int, mtime: float, status: str) -> int:
        """Insert (or reset) the document row for `path`; returns its id."""
        with self.lock:
            existing = self._doc_by_path(path)
            if existing:
                self.conn.execute(
                    "UPDATE documents SET sha256 = ?, size = ?, mtime = ?, status = ?, error = NULL,"
                    " updated = strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id = ?",
                    (sha, size, mtime, status if existing["status"] != "ready" else "ready", existing["id"]),
                )
                return existing["id"]
            cur = self.conn.execute(
                "INSERT INTO documents (path, name, sha256, size, mtime, status) VALUES (?, ?, ?, ?, ?, ?)",
                (str(path), path.name, sha, size, mtime, status if status != "unknown" else "pending"),
            )
            self._names = None
            return cur.lastrowid

    def _set_status(self, doc_id: int, status: str, error: str | None = None) -> None:
        with self.lock:
            self.conn.execute(
                "UPDATE documents SET status = ?, error = ?, updated = strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id = ?",
                (status, error, doc_id),
            )

    def _set_failed(self, doc_id: int, reason: str) -> None:
        self._set_status(doc_id, "failed", reason)

    def _set_error(self, doc_id: int, reason: str) -> None:
        with self.lock:
            self.conn.execute("UPDATE documents SET error = ? WHERE id = ?", (reason, doc_id))

    def _commit_document(self, doc_id: int, path: Path, sha: str, stat, meta: dict, job) -> None:
        """Replace the document's content with `job` in one transaction, then update the index."""
        from .ingest.pipeline import write_document

        model_id = self.embedder.model_id
        index = self.text_index()
        with self.lock:
            old_ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]
            with Transaction(self.conn) as c:
                c.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
                ids = write_document(c, self, doc_id, job, model_id)
                c.execute(
                    "UPDATE documents SET sha256 = ?, size = ?, mtime = ?, kind = ?, title = ?, pages = ?,"
                    " status = 'ready', error = ?, enrichment = ?, updated = strftime('%Y-%m-%dT%H:%M:%SZ','now')"
                    " WHERE id = ?",
                    (sha, stat.st_size, stat.st_mtime, meta["kind"], meta["title"], meta["pages"],
                     meta.get("warning"), "pending" if any(d.kind == "figure" for d in job.drafts) else "", doc_id),
                )
            index.remove(old_ids)
            index.add(np.asarray(ids, dtype=np.int64), np.stack(job.vectors))
            self._kinds[doc_id] = meta["kind"]
            self._names = None
            self._n_chunks = None

    def _doc_names(self) -> dict[int, tuple[str, str]]:
        with self.lock:
            if self._names is None:
                self._names = {r[0]: (r[1], r[2]) for r in self.conn.execute("SELECT id, name, path FROM documents")}
            return self._names

    def doc_kind(self, doc_id: int) -> str:
        if doc_id not in self._kinds:
            with self.lock:
                row = self.conn.execute("SELECT kind FROM documents WHERE id = ?", (doc_id,)).fetchone()
            self._kinds[doc_id] = row[0] if row else "pdf"
        return self._kinds[doc_id]

    def _chunk_rows(self, ids: list[int]) -> dict[int, dict]:
        out: dict[int, dict] = {}
        with self.lock:
            for start in range(0, len(ids), 900):
                part = ids[start : start + 900]
                cur = self.conn.execute(f"SELECT * FROM chunks WHERE id IN ({','.join('?' * len(part))})", part)
                cols = [c[0] for c in cur.description]
                for r in cur:
                    out[r[0]] = dict(zip(cols, r, strict=True))
        return out

    def _segment_vectors(self, ids: list[int], table: str = "segment_vectors") -> dict[int, np.ndarray]:
        """Per chunk, its float16 [n_segments, dim] vectors of the active model from `table`
        (`segment_vectors`: pooled at ingest; `sentence_vectors`: encoded on their own)."""
        if not ids:
            return {}
        with self.lock:
            rows = self.conn.execute(
                f"SELECT chunk_id, n, dim, vecs FROM {table} WHERE model = ? AND chunk_id IN "
                f"({','.join('?' * len(ids))})", [self.embedder.model_id, *ids]
            ).fetchall()
        return {cid: np.frombuffer(blob, dtype=np.float16).reshape(n, dim) for cid, n, dim, blob in rows}

    @property
    def table_rows(self):
        """The in-memory row vectors of this library's tables (search/table_rows.py)."""
        if self._table_rows is None:
            from .search.table_rows import TableRows

            self._table_rows = TableRows()
        return self._table_rows

    def _match_vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """The segment vectors search matches queries against: pooled, mixed with each segment's
        own vector once the background pass has encoded it (sentences.py)."""
        from .ingest.sentences import match_vectors

        pooled = self._segment_vectors(ids)
        own = self._segment_vectors(list(pooled), "sentence_vectors") if pooled else {}
        return match_vectors(pooled, own)

    def _chunk_vectors(self, ids: list[int], space: str = "text") -> dict[int, np.ndarray]:
        if not ids:
            return {}
        model = self.embedder.model_id
        with self.lock:
            rows = self.conn.execute(
                f"SELECT chunk_id, vec FROM vectors WHERE space = ? AND model = ? AND chunk_id IN "
                f"({','.join('?' * len(ids))})", [space, model, *ids]
            ).fetchall()
        return {cid: np.frombuffer(blob, dtype=np.float32) for cid, blob in rows}

    def _allowed_ids(self, filters) -> set[int]:
        where, args = filters.sql("c")
        with self.lock:
            return {r[0] for r in self.conn.execute(f"SELECT c.id FROM chunks c WHERE {where}", args)}


__all__ = ["Library", "DocumentError", "ModelError"]
