"""The engine facade both front ends use, and the composition root: one library, a folder on disk
or a PostgreSQL database (a team library).

    lib = Library.open(folder)                         # or Library.open("postgresql://user@host/db")
    for event in lib.add(paths, cancel=token): ...     # Progress events
    hits = lib.search("query", k=10)
    lib.remove(doc); lib.reindex(); lib.close()

Folder layout: `library.sqlite` (source of truth), `index/<space>.hnsw` + manifest (derived),
`cache/` (figure crops; regenerable). A database library keeps everything, the source files
included, in the database; each machine keeps its figure crops and the files it fetched to render
pages in its own folder for that database (engine/location.py `local_folder`). This module only wires the parts and exposes the verbs:
the store (store/: one repository per concern), the active models (models/active.py) and the
services (ingest/, background/, search/, answer/), each given the collaborators it needs. Public
methods are safe to call from one worker thread while another searches.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from .background.enrich import FigureEnricher
from .background.reembed import reembed_events
from .errors import DocumentError, LibraryError, LibraryInUseError, ModelError, WorkerDiedError
from .figures.crops import remove_document_crops, remove_unused_crops
from .hits import DocumentInfo, Hit
from .ingest.pipeline import Ingester
from .ingest.sentences import TABLE_KINDS, sentence_events
from .ingest.worker_process import WorkerProcess, prepare_child, serve
from .jobs import CancelToken, Progress
from .location import describe, is_database_uri, library_location, local_folder
from .models.active import ActiveModels
from .search.own_sentences import OwnSentences
from .search.searcher import Searcher
from .search.table_rows import TableRows
from .settings import Settings
from .store import Filters, WatchedFolder, open_store
from .store.lock import WriterLock
from .store.transfer import copy_library
from .store.vector_index import VectorIndex
from .watch import plan_reconcile

ACCESS = ("write", "auto", "read", "child")


class Library:
    """A library folder. Create with `Library.open(folder)`; call `close()` when done.

    One process writes to a library at a time (store/lock.py). `access`: "write" (default) takes
    the writer lock or raises LibraryInUseError naming the holder; "auto" falls back to read-only
    when another process holds it; "read" never writes; "child" is the window's indexing process,
    which works under its parent's lock. A read-only library searches and answers, sees what the
    writer commits, and refuses to change anything (`read_only_reason` says why).
    """

    def __init__(self, location: Path | str, settings: Settings | None = None, embedder=None, *,
                 access: str = "write"):
        if access not in ACCESS:
            raise ValueError(f"access must be one of {ACCESS}")
        location = library_location(location)
        self.on_server = is_database_uri(location)
        self.location = location if self.on_server else Path(location).resolve()
        self.folder = local_folder(self.location).resolve()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LibraryError(f"cannot create the library folder {self.folder}: {e.strerror or e}") from e
        if not self.folder.is_dir():
            raise LibraryError(f"{self.folder} is not a folder")
        settings = settings or Settings()
        # a folder has one writer at a time; a database server takes many (each document in its
        # own transaction, unfinished work owned by its client: store/postgres/documents.py)
        self._lock = None if self.on_server else WriterLock(self.folder)
        read_only_reason = "the library was opened read-only" if access == "read" else None
        if access in ("write", "auto") and self._lock is not None:
            try:
                self._lock.acquire()
            except LibraryInUseError as e:
                if access == "write":
                    raise
                read_only_reason = f"{e}; it can be searched here but not changed"
        try:
            self.store = open_store(self.location, self.folder, settings.threads, read_only_reason=read_only_reason)
        except BaseException:
            self._release_lock()
            raise
        s = self.store
        self.models = ActiveModels(settings, s.vectors, s.figures, s.state, embedder)
        self.table_rows = TableRows(s.chunks, s.vectors, self.models)
        self.searcher = Searcher(s.chunks, s.documents, s.vectors, s.figures, self.models, self.table_rows,
                                 OwnSentences(s.chunks, s.vectors, self.models))
        self.ingester = Ingester(s.documents, s.chunks, s.vectors, s.figures, self.models, self.folder, s.files)
        self.enricher = FigureEnricher(s.documents, s.chunks, s.vectors, s.figures, self.models, self.folder, s.files)
        self._settings = settings
        self._worker: WorkerProcess | None = None  # child process for isolated add/enrich
        self._local_paths: dict[int, str] = {}  # server library: document id -> the file shown here
        self._closed = False
        # work this process's library started and never ended died with the program that did it
        if self._lock is not None and self._lock.held or self.on_server and access in ("write", "auto"):
            self.ingester.recover_interrupted("the program stopped while reading it")

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.release()

    @classmethod
    def open(cls, location: Path | str | None = None, settings: Settings | None = None, embedder=None, *,
             access: str = "write") -> Library:
        """Open (creating if needed) the library at `location`: a folder, or a PostgreSQL URL
        (`postgresql://user@host/db`, engine/location.py); default: the settings' library location.

        Raises LibraryError when the folder or its database cannot be used (a server that cannot
        be reached, the `server` extra missing), LibraryInUseError (a LibraryError) when another
        process writes to a folder library and `access` is "write".
        """
        settings = settings or Settings()
        return cls(location if location else settings.library_path, settings, embedder, access=access)

    @property
    def where(self) -> str:
        """The library's location for people: its folder, or its URL without the password."""
        return describe(self.location)

    @property
    def read_only_reason(self) -> str | None:
        """Why this process may only read the library (another program writes to it), or None."""
        return self.store.db.read_only_reason

    @property
    def read_only(self) -> bool:
        """True when this process may only read the library (`read_only_reason` says why)."""
        return self.store.read_only

    def _check_writable(self) -> None:
        if self.read_only_reason is not None:
            raise LibraryInUseError(self.read_only_reason)

    def _catch_up(self) -> None:
        """Pick up what another process committed since the last look (one cheap PRAGMA)."""
        if self.store.changed_elsewhere():
            self.refresh()

    # ---- resources ----------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The settings in use; assigning new ones reaches every part (call `models_changed()`
        when the model choices changed)."""
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self._settings = settings
        self.models.use_settings(settings)
        self.store.vectors.threads = settings.threads

    @property
    def conn(self):
        """The database connection, SQLite's or psycopg's (read-only inspection in tests and
        scripts; the engine writes through the store's repositories)."""
        return self.store.db.conn

    @property
    def cache_dir(self) -> Path:
        return self.folder / "cache"

    @property
    def index_dir(self) -> Path | None:
        """The folder of the hnswlib index files (None on a server: its indices are in the database)."""
        return self.store.vectors.index_dir

    @property
    def embedder(self):
        """The *active* text embedder: the model whose vectors the index holds (loaded lazily).
        Raises ModelError when no text embedder is available."""
        return self.models.embedder

    @property
    def model_notices(self) -> list[str]:
        """Why a model the user configured is not serving search right now; [] when all are."""
        return self.models.notices

    @property
    def rerank_notice(self) -> str | None:
        """Why a configured reranker is not used, or None."""
        return self.models.rerank_notice

    @property
    def image_notice(self) -> str | None:
        """Why image search does not use the image model it should, or None."""
        return self.models.image.notice

    def models_changed(self) -> None:
        """Forget loaded/resolved models after the settings' model choices changed (the active
        ones keep serving search until the new ones' vectors are complete)."""
        self.models.changed()

    @property
    def image_change_pending(self) -> bool:
        """True when the settings name an image embedder whose figure vectors are not complete yet
        (image search keeps using the previous one until `enrich()` has embedded every figure)."""
        return self.models.image.change_pending

    @property
    def reembed_pending(self) -> bool:
        """True when the settings name a text embedder whose vectors are not complete yet."""
        return self.models.pending_embedder is not None

    def reembed(self, cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Compute text vectors with the newly chosen embedder for every chunk, in committed
        batches (resumable, cancellable), then switch the active model and rebuild the index.
        Search uses the previous model until the switch. Yields Progress(stage="reembed")."""
        self._check_writable()
        s = self.store
        yield from reembed_events(s.chunks, s.vectors, self.models, cancel or CancelToken())

    def ocr(self):
        """The OCR engine, or None when OCR is disabled or not installed."""
        return self.models.ocr()

    def text_index(self) -> VectorIndex:
        """The hnswlib index of the text space, opened (and repaired from SQLite) on first use."""
        return self.models.text_index()

    def close(self) -> None:
        """Save indices, close models and the database. Safe to call twice."""
        if self._closed:
            return
        if self._worker is not None:
            self._worker.close()
        self.models.close()
        self.store.close()
        self._release_lock()
        self._closed = True

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- documents ----------------------------------------------------------------------
    def add(self, paths: Iterable[Path | str], cancel: CancelToken | None = None, *,
            isolated: bool = False) -> Iterator[Progress]:
        """Ingest files and folders; a generator of Progress events (see ingest/pipeline.py).

        isolated=True runs the work in a child process (ingest/worker_process.py) so native
        parsing code cannot stall the caller's process (the GUI uses this); this library's index
        is refreshed from SQLite after each committed document.
        """
        self._check_writable()
        if isolated:
            yield from self._add_in_child([str(p) for p in paths], cancel or CancelToken())
            return
        try:
            yield from self.ingester.events(paths, cancel)
        finally:
            self.store.vectors.save_indices()
            self._local_paths.clear()

    def enrich(self, cancel: CancelToken | None = None, *, doc_ids: list[int] | None = None,
               isolated: bool = False, warm_up: bool = True) -> Iterator[Progress]:
        """Background work after ingest, in this order: table rows encoded on their own (the
        table-row list ranks them all), figure work (OCR of raster figures, image vectors, VLM
        captions; background/enrich.py) — after these search is at full quality — then, when
        `warm_up`, every other chunk's sentences encoded ahead, which only saves each first search
        the encoding of the passages it ranks (search/own_sentences.py). Resumable and cancellable;
        search keeps working meanwhile. `isolated` as in add."""
        self._check_writable()
        if isolated:
            yield from self._child().run(("enrich", doc_ids, warm_up), cancel or CancelToken(), self.refresh)
            return
        embedder = self.models.embedder
        try:
            yield from sentence_events(self.store.vectors, embedder, cancel, doc_ids=doc_ids, kinds=TABLE_KINDS)
            finished = None
            for ev in self.enricher.events(cancel, doc_ids=doc_ids):
                if ev.stage == "finished":  # the job's last word, said when all of it is done
                    finished = ev
                else:
                    yield ev
            if warm_up:
                yield from sentence_events(self.store.vectors, embedder, cancel, doc_ids=doc_ids)
            if finished is not None:
                yield finished
        finally:
            self.store.vectors.save_indices()

    def ask(self, question: str, **kwargs) -> Iterator:
        """Answer a question as a generator of answer events (see answer/pipeline.py)."""
        from .answer import answer_events

        return answer_events(self, question, **kwargs)

    def export_answer(self, answer, path: Path | str, *, question: str | None = None, fmt: str | None = None) -> Path:
        """Write `answer` (an Answer or its to_json() dict) as one self-contained file for an expert
        (engine/export/: HTML, or JSON for a name ending .json); returns the path written. Raises
        ExportError when the file cannot be written; a missing source file is a note in the file."""
        from .export import export_answer

        def chunk(chunk_id: int) -> dict | None:
            rows = self.store.chunks.rows([chunk_id])
            return dict(rows[chunk_id]) if chunk_id in rows else None

        try:
            embedder = self.embedder.model_id
        except ModelError:
            embedder = ""
        import pymupdf

        return export_answer(answer, path, documents=self.documents(), chunk=chunk, question=question, fmt=fmt,
                             versions={"text_embedder": embedder, "pymupdf": pymupdf.__version__})

    def _add_in_child(self, paths: list[str], cancel: CancelToken) -> Iterator[Progress]:
        """`add` in the child process. When the child dies (a file crashed its parser, or it was
        killed), the document it was reading is marked failed with the reason and a new child
        goes on with the others; two deaths in a row with nothing finished in between end the
        job with the error."""
        deaths_in_a_row = 0
        while True:
            try:
                for ev in self._child().run(("add", paths), cancel, self.refresh):
                    if ev.stage in ("done", "skipped", "failed"):
                        deaths_in_a_row = 0
                    yield ev
                return
            except WorkerDiedError as e:
                self.refresh()
                crashed = self.ingester.recover_interrupted(f"the indexing process stopped: {e.exit}")
                if not crashed or deaths_in_a_row:
                    raise
                deaths_in_a_row += 1
                yield from crashed
                # the file named on its own is not tried again in this job; files found in folders
                # are skipped by the next run because they crashed it
                names = {ev.doc for ev in crashed}
                paths = [p for p in paths if Path(p).is_dir() or Path(p).name not in names]
                if not paths:
                    return

    def release_child(self) -> None:
        """End the child process of isolated jobs, if one runs, giving back the memory its models
        hold; the next isolated job starts a new one."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _child(self) -> WorkerProcess:
        if self._worker is None:
            self._worker = WorkerProcess(self.location, self.settings, child_main)
        return self._worker

    def refresh(self) -> None:
        """Catch up with changes another process committed: the image model it may have switched,
        indices reconciled with SQLite (new vectors added, removed ones marked deleted), caches."""
        self.models.image.sync()
        self.store.refresh()
        self._local_paths.clear()

    def documents(self) -> list[DocumentInfo]:
        """Every document, oldest first, with its chunk count."""
        return [_info(r) for r in self.store.documents.all()]

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
        self._check_writable()
        info = self.document(doc)
        s = self.store
        ids = s.chunks.ids_of_document(info.id)
        s.documents.delete(info.id)
        s.chunks.invalidate()
        s.vectors.remove_from_indices(ids)
        s.files.forget_unused()
        self._local_paths.pop(info.id, None)
        remove_document_crops(self.folder, info.id)
        return info

    def reindex(self, cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Re-ingest every document whose source file still exists (changed or not), then rebuild
        the vector indices from SQLite. Missing source files are reported, their data kept."""
        self._check_writable()
        cancel = cancel or CancelToken()
        docs = self.documents()
        for d in docs:
            if not Path(d.path).exists():
                yield Progress("failed", doc=d.name, doc_id=d.id, message="source file is missing; kept as indexed")
        present = [Path(d.path) for d in docs if Path(d.path).exists()]
        self.store.documents.mark_pending(present)
        yield from self.add(present, cancel)
        cancel.check()
        emb = self.models.embedder
        t0 = time.monotonic()
        idx = self.store.vectors.rebuild_index("text", emb.model_id, emb.dim, reason="reindex")
        n = len(idx)
        yield Progress("index", done=n, total=n, unit="vectors", message=f"text index rebuilt in {time.monotonic() - t0:.1f} s")

    def compact(self) -> list[str]:
        """Reclaim space: rebuild indices that carry many deleted entries, delete index files no
        manifest names, figure crops no figure names (documents removed or re-indexed) and
        unfinished temporary files. Returns what was done, in words (empty: nothing to do)."""
        self._check_writable()
        s = self.store
        # each space's index of its recorded active model is held (and caught up) before it is
        # judged; no model is loaded for this
        for space, key in (("text", "text_model"), ("image", "image_model")):
            model = s.state.get(key)
            dim = s.vectors.dim(space, model) if model else None
            if dim:
                s.vectors.index(space, model, dim)
        done = s.vectors.compact_indices()
        if n := s.files.forget_unused():
            done.append(f"{n} stored file(s) no document uses deleted")
        n, freed = remove_unused_crops(self.folder, s.figures.crops())
        if n:
            done.append(f"{n} unused figure crop file(s) deleted ({freed / 1e6:.1f} MB)")
        return done

    # ---- moving between backends -------------------------------------------------------
    def export_to(self, location: Path | str, cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Copy this library, vectors and source files included, into the new, empty library at
        `location` (a folder or a PostgreSQL URL; store/transfer.py): nothing is parsed or embedded
        again. Yields Progress ("copy", "files", "index"). Raises LibraryError when the destination
        cannot be opened or is not empty, Cancelled when cancelled (the destination is left empty)."""
        dest = Library.open(location, self.settings, access="write")
        try:
            yield from copy_library(self.store, dest.store, cancel)
        finally:
            dest.close()

    def import_from(self, location: Path | str, cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Copy the library at `location` into this one, which must be empty (as `export_to`, the
        other way round). Raises LibraryError when the source cannot be opened or this library is
        not empty."""
        self._check_writable()
        source = Library.open(location, self.settings, access="read")
        try:
            yield from copy_library(source.store, self.store, cancel)
        finally:
            source.close()
            self.refresh()

    # ---- watched folders ----------------------------------------------------------------
    def watched_folders(self) -> list[WatchedFolder]:
        """The folders this library keeps in sync with, oldest first."""
        return self.store.folders.all()

    def watch(self, folder: Path | str) -> bool:
        """Keep `folder` in sync from now on (call `reconcile()` to bring it in). Returns False when it
        was watched already. Raises LibraryError for a path that is not a folder, or that is the
        library's own folder or inside it."""
        self._check_writable()
        p = Path(folder).expanduser()
        if not p.is_dir():
            raise LibraryError(f"{p} is not a folder" if p.exists() else f"no folder {p}")
        p = p.resolve()
        if p == self.folder or self.folder in p.parents:
            raise LibraryError(f"{p} is the library's own folder; watch the folder that holds the manuals")
        return self.store.folders.add(p)

    def unwatch(self, folder: Path | str, *, remove_documents: bool = False) -> list[DocumentInfo]:
        """Stop keeping `folder` in sync. Its documents stay unless `remove_documents`; returns the
        documents removed. Raises LibraryError when the folder is not watched."""
        self._check_writable()
        p = self._watched(folder)
        removed = [self.remove(r["id"]) for r in self.store.documents.under(p)] if remove_documents else []
        self.store.folders.remove(p)
        return removed

    def _watched(self, folder: Path | str) -> Path:
        given = Path(folder).expanduser()
        for w in self.store.folders.all():
            wp = Path(w.path)
            if given == wp or (given.exists() and given.resolve() == wp) or given.absolute() == wp:
                return wp
        raise LibraryError(f"{folder} is not a watched folder")

    def reconcile(self, cancel: CancelToken | None = None, *, isolated: bool = False) -> Iterator[Progress]:
        """Bring the library in line with its watched folders (engine/watch.py): moved files are
        re-pointed, files gone from a present folder removed, new and changed files added (events as
        `add`). A missing folder keeps its documents; it is reported with stage "unavailable".
        Ends with Progress("watched", message=the plan's summary, extra={"settling": n})."""
        self._check_writable()
        cancel = cancel or CancelToken()
        folders = self.store.folders.all()
        paths = [Path(f.path) for f in folders]
        missing_before = {Path(f.path) for f in folders if f.missing_since}
        plan = plan_reconcile(paths, self.store.documents, missing_before)
        for folder, n in plan.unavailable:
            self.store.folders.set_missing(folder, True)
            yield Progress("unavailable", message=f"the watched folder {folder} is not available (a removable "
                           f"drive or network share?); its {n} document(s) are kept", extra={"folder": str(folder),
                                                                                              "documents": n})
        for folder in plan.available:
            self.store.folders.set_missing(folder, False)
        for row, path, (size, mtime_ns) in plan.moved:
            cancel.check()
            self.store.documents.repoint(row["id"], path, size, mtime_ns / 1e9)
            yield Progress("moved", doc=path.name, doc_id=row["id"], message=f"moved from {row['path']}",
                           extra={"path": str(path), "old_path": row["path"]})
        for row in plan.removed:
            cancel.check()
            self.remove(row["id"])
            yield Progress("removed", doc=row["name"], doc_id=row["id"],
                           message="its file was deleted from the watched folder", extra={"path": row["path"]})
        if plan.add:
            yield from self.add(plan.add, cancel, isolated=isolated)
        yield Progress("watched", message=plan.summary(), extra={"settling": len(plan.settling)})

    # ---- search -------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, *, docs: list[int | str] | None = None,
               pages: tuple[int, int] | None = None, kinds: list[str] | None = None,
               companions: int = 0) -> list[Hit]:
        """Ranked hits (best first). Raises QueryError for empty/absurd queries, ModelError when
        no text embedder is available. `companions`: see Searcher.search (answers' evidence)."""
        self._catch_up()
        return self._local_files(self.searcher.search(query, k, self._filters(docs, pages, kinds),
                                                      companions=companions))

    def rerank_scores(self, query: str, passages: list[str]) -> np.ndarray | None:
        """Cross-encoder scores of (query, passage) pairs, or None when no reranker is in use
        (then `rerank_notice` says why, when one is configured)."""
        return self.models.rerank_scores(query, passages)

    def search_image(self, image, k: int = 10, *, docs: list[int | str] | None = None) -> list[Hit]:
        """Hits for an image: figures with the same perceptual hash first, then a search with the
        image's OCR text. Raises QueryError when the image has neither a match nor readable text."""
        self._catch_up()
        return self._local_files(self.searcher.search_image(image, k, self._filters(docs, None, None)))

    def source_file(self, doc: int | str) -> Path | None:
        """The file to render a document's pages from on this machine: the document's own file when
        it is here, else (a database library) this machine's copy of the one stored in the
        database, fetched on first use; None when neither is available. Raises LibraryError for
        an unknown document or a damaged stored copy."""
        info = self.document(doc)
        own = Path(info.path)
        if own.is_file() or not info.sha256:
            return own if own.is_file() else None
        try:
            return self.store.files.local_copy(info.sha256, info.name)
        except OSError as e:
            raise LibraryError(f"cannot keep a copy of {info.name} in {self.folder}: {e.strerror or e}") from e

    def texts_before(self, chunk_id: int, n: int) -> list[tuple[str, str]]:
        """(section, text) of the `n` text chunks before `chunk_id` in its document, the nearest first ([] when the
        chunk is gone)."""
        row = self.store.chunks.rows([chunk_id]).get(chunk_id)
        return self.store.chunks.texts_before(row["doc_id"], row["ord"], n) if row else []

    def _local_files(self, hits: list[Hit]) -> list[Hit]:
        """Hits whose document file is not on this machine point at its local copy (a database
        library stores the files); unchanged for a folder library. Remembered per document until
        the library changes."""
        if not self.on_server:
            return hits
        for h in hits:
            if h.doc_id not in self._local_paths:
                here = Path(h.doc_path)
                row = None if here.is_file() else self.store.documents.by_path(here)
                copy = self.store.files.local_copy(row["sha256"], row["name"]) if row and row["sha256"] else None
                self._local_paths[h.doc_id] = str(copy) if copy else h.doc_path
        return [replace(h, doc_path=self._local_paths[h.doc_id]) for h in hits]

    def image_list(self, query, n: int, filters: Filters) -> list[int]:
        """Figure chunk ids ranked by image-model similarity to `query` (text, or a PIL image), or
        [] without image vectors or image model. Raises ModelError when the model fails to load."""
        return self.searcher.image_list(query, n, filters)

    def term_idf(self, terms: list[str]) -> dict[str, float]:
        """Inverse document frequency of each term over the chunks: log((N + 1) / (df + 0.5))."""
        return self.store.chunks.term_idf(terms)

    def term_df(self, terms: list[str], doc_ids: Sequence[int] | None = None) -> dict[str, int]:
        """How many chunks of the library contain each term (a word or a phrase); only the chunks of
        the documents `doc_ids` when given."""
        return self.store.chunks.term_df(terms, doc_ids)

    def doc_kind(self, doc_id: int) -> str:
        """The document's kind (pdf | image | markdown | docling)."""
        return self.store.documents.kind(doc_id)

    def _filters(self, docs, pages, kinds) -> Filters:
        doc_ids = None
        if docs:
            doc_ids = []
            for d in docs:
                doc_ids.extend(m.id for m in self._match_docs(d))
        return Filters(doc_ids=doc_ids, pages=tuple(pages) if pages else None, kinds=list(kinds) if kinds else None)

    def chunk(self, chunk_id: int) -> dict:
        """One chunk with decoded spans/lines/meta. Raises LibraryError when unknown."""
        rows = self.store.chunks.rows([chunk_id])
        if chunk_id not in rows:
            raise LibraryError(f"no chunk {chunk_id}")
        row = dict(rows[chunk_id])
        for key in ("spans", "lines", "meta"):
            row[key] = json.loads(row[key] or "null")
        row["bbox"] = json.loads(row["bbox"]) if row["bbox"] else None
        return row


def _info(r: dict) -> DocumentInfo:
    return DocumentInfo(
        id=r["id"], path=r["path"], name=r["name"], sha256=r["sha256"], kind=r["kind"], title=r["title"],
        pages=r["pages"], status=r["status"], error=r["error"], chunks=r["n_chunks"], added=r["added"],
        enrichment=r.get("enrichment", ""),
    )


def child_main(location: str, settings: dict, conn, cancel_event) -> None:
    """Entry point of the worker child process (ingest/worker_process.py): open the library and
    serve the parent's commands."""
    prepare_child()
    serve(Library.open(location, Settings(**settings), access="child"), conn, cancel_event)


__all__ = ["Library", "DocumentError", "ModelError"]
