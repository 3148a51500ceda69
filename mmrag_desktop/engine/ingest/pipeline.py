"""Ingestion: identify -> parse -> chunk -> embed -> commit, one document per transaction.

`Ingester(...).events(paths, cancel)` is a generator of `Progress` events. A document is
committed in one transaction (chunks, vectors, pages, figures, status 'ready'); a crash
mid-way leaves the library as it was before that document and the next `add` redoes it.
Per-file problems become a 'failed' event and a failed status; the other files go on.

Memory stays bounded on huge documents: once a document has FLUSH_CHUNKS chunks in memory,
its transaction opens and they are written and dropped, again every FLUSH_CHUNKS, until the
commit at the end. SQLite spills the open transaction to its write-ahead log, not to memory,
and other processes keep reading the library as it was, so a half-added document is never
searchable. Documents below the threshold (almost all) are parsed with no lock held.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import Cancelled, CorruptDocumentError, DocumentError, EngineError
from ..jobs import CancelToken, Progress
from ..memory import trim_heap
from ..parse import is_supported, open_document
from ..store.files import LocalFiles
from .chunking import ChunkDraft, Chunker, blank_rules

if TYPE_CHECKING:
    from ..models.active import ActiveModels
    from ..store import Chunks, Documents, Figures, Vectors

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 2 * 1024**3
EMBED_BATCH = 64
# batches of EMBED_BATCH chunks between two heap trims: a trim costs the next batch its page faults
# (after every batch, 2-3 s of a 38 s ingest of avr-libc); every 2nd batch kept the peak RSS of a
# 1,158-page ingest at 1,497 MB (bench/README.md, session 16)
TRIM_EVERY = 2
FLUSH_CHUNKS = 2000  # a document's chunks held in memory before they are written (about 500 pages)
TARGET_TOKENS = 128  # chunk size aimed at (word pieces): measured better than 200 on the dev set
OVERLAP_TOKENS = 24


def scan_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Expand folders (recursively, supported types only, sorted); files named explicitly are kept
    whatever their type so they get a clear per-file error. Missing paths are kept too. A library
    folder met inside a scanned folder is left out (its manifests and crops are not documents)."""
    out: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw).expanduser()
        p = p.resolve() if p.exists() else p.absolute()
        found = _supported_files(p) if p.is_dir() else [p]
        for f in found:
            if f not in seen:
                seen.add(f)
                out.append(f)
    return out


def _supported_files(folder: Path) -> list[Path]:
    """Supported files below `folder`, sorted, leaving out any mmrag library folder met inside it
    (its index manifests and figure crops are the library's own data, not documents)."""
    libraries = [db.parent for db in folder.rglob("library.sqlite")]
    return sorted(f for f in folder.rglob("*") if f.is_file() and is_supported(f)
                  and not any(lib in f.parents for lib in libraries))


def sha256_file(path: Path, cancel: CancelToken | None = None) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
            if cancel is not None:
                cancel.check()
    return h.hexdigest()


def embed_text_of(draft: ChunkDraft) -> tuple[str, int]:
    """Text given to the embedder (section tail + chunk text, its rules blanked: chunking.blank_rules) and the
    offset of the chunk text in it."""
    tail = " > ".join(draft.section.split(" > ")[-2:])[:80] if draft.section else ""
    prefix = f"{tail}\n" if tail else ""
    return prefix + blank_rules(draft.text), len(prefix)


class _SaveFailed(Exception):
    """Writing a document's chunks failed in the library, not in reading the file (the cause)."""


class _DocJob:
    """What one document's indexing produced and has not written yet, and what it wrote inside
    its still-open transaction (`open` opens it; `commit` or `abandon` ends it)."""

    def __init__(self) -> None:
        self.drafts: list[ChunkDraft] = []
        self.vectors: list[np.ndarray] = []
        self.segments: list[np.ndarray] = []
        self.pages: list[tuple] = []
        self.embedded = 0
        self.batches = 0  # embedding batches run (heap trims, see TRIM_EVERY)
        self.ids: list[int] = []  # chunks written so far, in document order
        self.links = _Links()
        self.chunk_count = 0  # chunks taken out to be written
        self.old_ids: list[int] = []  # the document's chunks before this indexing
        self.has_figures = False  # a figure chunk was written (its enrichment is pending)
        self._tx: ExitStack | None = None

    def open(self, db) -> bool:
        """Open the document's transaction unless it is open; True when this call opened it."""
        if self._tx is not None:
            return False
        tx = ExitStack()
        tx.enter_context(db.transaction())
        self._tx = tx
        return True

    def commit(self) -> None:
        tx, self._tx = self._tx, None
        if tx is not None:
            tx.close()

    def abandon(self) -> None:
        """Roll back whatever was written (the attempt failed or stopped)."""
        tx, self._tx = self._tx, None
        if tx is not None:
            tx.__exit__(Cancelled, Cancelled("abandoned"), None)

    def taken(self) -> tuple[list[ChunkDraft], list[np.ndarray], list[np.ndarray]]:
        """The embedded drafts with their vectors, removed from memory."""
        out = self.drafts, self.vectors, self.segments
        self.drafts, self.vectors, self.segments, self.embedded = [], [], [], 0
        self.chunk_count += len(out[0])
        self.has_figures |= any(d.kind == "figure" for d in out[0])
        return out


class _Links:
    """The (src, dst, relation) links of one document, gathered as its chunks are written: text
    that mentions 'Figure N'/'Table N' refers to the chunk of that figure/table; an orphan caption
    and the figure/table sharing its number belong together."""

    def __init__(self) -> None:
        self.owners: dict[str, list[int]] = {}
        self.mentions: list[tuple[int, str]] = []

    def add(self, ids: list[int], drafts: list[ChunkDraft]) -> None:
        from .chunking import REFERENCE_RE, group_key_for

        for cid, d in zip(ids, drafts, strict=True):
            if d.group_key and d.kind in ("figure", "table", "caption"):
                self.owners.setdefault(d.group_key, []).append(cid)
            elif d.kind == "text":
                self.mentions.extend((cid, group_key_for(m.group(1), m.group(2)))
                                     for m in REFERENCE_RE.finditer(d.text))

    def all(self) -> set[tuple[int, int, str]]:
        links = {(src, dst, "refers_to") for src, key in self.mentions for dst in self.owners.get(key, [])}
        for members in self.owners.values():
            links.update((a, b, "same_group") for a in members for b in members if a != b)
        return links


@dataclass
class Ingester:
    """Adds files to one library: writes documents, chunks, vectors and figures through their
    repositories, embeds with the active text model, saves figure crops under `folder`/cache;
    `files` keeps the source file with the document where the library stores files (a server)."""

    documents: Documents
    chunks: Chunks
    vectors: Vectors
    figures: Figures
    models: ActiveModels
    folder: Path
    files: LocalFiles = field(default_factory=LocalFiles)

    def events(self, paths: Iterable[Path | str], cancel: CancelToken | None = None) -> Iterator[Progress]:
        """Add files/folders to the library; yields progress. Raises Cancelled only via the token
        (after finishing the current transaction cleanly; the cancelled document is left pending)."""
        cancel = cancel or CancelToken()
        paths = list(paths)
        files = scan_paths(paths)
        named = {f for f in scan_paths(p for p in paths if not Path(p).is_dir())}
        # a file that crashed the indexer before goes last, so it cannot stop the others again
        crashed = self.documents.crashed_paths()
        files.sort(key=lambda f: str(f) in crashed)
        total = len(files)
        yield Progress("scan", done=total, total=total, unit="documents", docs_total=total,
                       message=f"{total} file(s) to check")
        started = time.monotonic()
        for n, path in enumerate(files):
            if cancel.cancelled:
                yield Progress("cancelled", docs_done=n, docs_total=total, message="cancelled by user")
                return
            try:
                yield from self._ingest_one(path, n, total, cancel, started, named=path in named)
            except Cancelled:
                yield Progress("cancelled", doc=path.name, docs_done=n, docs_total=total, message="cancelled by user")
                return
        release = getattr(self.models.embedder, "release_bulk", None)
        if release is not None:  # the bfloat16 pass's weights: what follows runs on ONNX Runtime
            release()
        yield Progress("finished", docs_done=total, docs_total=total, unit="documents",
                       rate=None, message=f"{total} file(s) processed in {time.monotonic() - started:.1f} s")

    def recover_interrupted(self, why: str) -> list[Progress]:
        """Documents whose indexing never ended (the process doing it died: `why`) are marked: a
        ready one keeps its indexed version, any other becomes failed; the file is not tried first
        again. Returns a 'failed' Progress per document (empty when none was interrupted)."""
        out = []
        for row in self.documents.interrupted():
            kept = "; the indexed version is kept" if row["status"] == "ready" else ""
            reason = (f"reading this file stopped the indexer ({why}){kept}; "
                      "add the file again on its own to retry")
            self.documents.mark_crashed(row["id"], reason)
            log.warning("%s: %s", row["path"], reason)
            out.append(Progress("failed", doc=row["name"], doc_id=row["id"], message=reason))
        return out

    def _ingest_one(self, path: Path, n: int, total: int, cancel: CancelToken, started: float, *,
                    named: bool = True):
        name = path.name
        base = {"doc": name, "docs_done": n, "docs_total": total}
        # --- identify -------------------------------------------------------------------------
        try:
            if not path.exists():
                raise CorruptDocumentError(str(path), "file not found")
            if path.is_dir():
                raise CorruptDocumentError(str(path), "is a folder with no supported files")
            stat = path.stat()
            if stat.st_size > MAX_FILE_BYTES:
                raise CorruptDocumentError(str(path), f"file too large ({stat.st_size / 1e9:.1f} GB; limit 2 GB)")
            sha = sha256_file(path, cancel)
        except (DocumentError, OSError) as e:
            reason = e.reason if isinstance(e, DocumentError) else f"cannot read the file ({e.strerror or e})"
            known = self.documents.by_path(path)
            if known and known["status"] == "ready":  # indexed before: keep it, say what is wrong now
                reason += "; the indexed version is kept"
                self.documents.set_error(known["id"], reason)
                yield Progress("failed", doc_id=known["id"], message=reason, **base)
                return
            doc_id = self.documents.register(path, "", 0, 0.0, "unknown")
            self.documents.set_failed(doc_id, reason)
            yield Progress("failed", doc_id=doc_id, message=reason, **base)
            return

        existing = self.documents.by_path(path)
        if existing and existing["sha256"] == sha and existing["status"] == "ready":
            yield Progress("skipped", doc_id=existing["id"], message="already indexed, unchanged", **base)
            return
        if existing and existing.get("crashed_sha") == sha and not named:
            yield Progress("skipped", doc_id=existing["id"], message="this file stopped the indexer before; add it on "
                           "its own to retry", **base)
            return
        twin = self.documents.ready_by_sha(sha)
        if twin and (not existing or twin["id"] != existing["id"]):
            yield Progress("skipped", doc_id=twin["id"], message=f"same content as {twin['name']} (already indexed)", **base)
            return
        doc_id = existing["id"] if existing else self.documents.register(path, sha, stat.st_size, stat.st_mtime, "pending")

        # --- parse, chunk, embed (no database lock held) ----------------------------------------
        self.documents.start_indexing(doc_id, sha)
        yield Progress("parse", doc_id=doc_id, message="opening", **base)
        try:
            job, parsed_meta = yield from self._build(path, doc_id, cancel, base, started)
        except Cancelled:
            self.documents.set_status(doc_id, "pending", "cancelled by user")
            raise
        except _SaveFailed as e:
            self._not_saved(doc_id, existing, e.__cause__)
            raise e.__cause__ from None
        except DocumentError as e:
            self._unreadable(doc_id, existing, e.reason)
            yield Progress("failed", doc_id=doc_id, message=e.reason, **base)
            return
        except EngineError as e:
            self.documents.set_failed(doc_id, str(e))
            yield Progress("failed", doc_id=doc_id, message=str(e), **base)
            return
        except (KeyboardInterrupt, SystemExit):  # the user stopped the program: this attempt ends, nothing kept
            self._attempt_ended(doc_id, existing, "interrupted")
            raise
        except Exception as e:  # noqa: BLE001 - a file must never stop the batch: any failure is this file's
            reason = _unexpected(e)
            log.warning("%s: %s", path, reason, exc_info=True)
            self._unreadable(doc_id, existing, reason)
            yield Progress("failed", doc_id=doc_id, message=reason, **base)
            return

        # --- commit ------------------------------------------------------------------------------
        n_chunks = job.chunk_count + len(job.drafts)
        yield Progress("commit", doc_id=doc_id, done=n_chunks, total=n_chunks, unit="chunks", **base)
        try:
            self._commit(doc_id, sha, stat, parsed_meta, job, path)
        except BaseException as e:
            self._not_saved(doc_id, existing, e)
            raise
        warning = f"; warning: {parsed_meta['warning']}" if parsed_meta.get("warning") else ""
        yield Progress("done", doc_id=doc_id, done=parsed_meta["pages"], total=parsed_meta["pages"], unit="pages",
                       docs_done=n + 1, docs_total=total, doc=name,
                       message=f"{parsed_meta['pages']} pages, {n_chunks} chunks{warning}")

    def _unreadable(self, doc_id: int, existing: dict | None, reason: str) -> None:
        """The file could not be read: a document indexed before keeps its indexed version with the
        problem noted; any other is failed."""
        if existing and existing["status"] == "ready":
            self.documents.set_error(doc_id, f"the changed file could not be re-indexed: {reason}")
        else:
            self.documents.set_failed(doc_id, reason)

    def _not_saved(self, doc_id: int, existing: dict | None, e: BaseException) -> None:
        """The library's own failure (disk full, I/O) while saving: the attempt ends, nothing of it
        is kept, and the caller re-raises `e` to stop the batch."""
        try:
            self._attempt_ended(doc_id, existing, f"could not be saved: {type(e).__name__}: {e}")
        except Exception:  # noqa: BLE001 - the database may be what failed; the next open recovers it
            log.exception("could not record the failed save of document %s", doc_id)

    def _attempt_ended(self, doc_id: int, existing: dict | None, why: str) -> None:
        """An attempt stopped by the program, not the file: nothing of it is kept; the document is
        as before it (ready when it was, else pending for the next add)."""
        self.documents.set_status(doc_id, "ready" if existing and existing["status"] == "ready" else "pending", why)

    def _build(self, path: Path, doc_id: int, cancel: CancelToken, base: dict, started: float):
        ocr = self.models.ocr()
        doc = open_document(path, ocr=ocr)
        job = _DocJob()
        try:
            meta = yield from self._read(doc, path, doc_id, job, cancel, base)
        except BaseException:
            job.abandon()  # chunks written inside the open transaction go with it
            raise
        finally:
            doc.close()
        if not job.chunk_count and not job.drafts:
            no_text = sum(1 for p in job.pages if not p[4])
            if meta["pages"] == 0:
                raise CorruptDocumentError(str(path), "the document has no pages")
            if no_text == meta["pages"] and ocr is None:
                raise CorruptDocumentError(
                    str(path), "no text layer (scanned pages) and OCR is not available; install rapidocr-onnxruntime"
                )
            raise CorruptDocumentError(str(path), "no text could be found in the document")
        return job, meta

    def _read(self, doc, path: Path, doc_id: int, job: _DocJob, cancel: CancelToken, base: dict):
        """Pages -> chunks -> vectors into `job`, writing them out every FLUSH_CHUNKS chunks."""
        embedder = self.models.embedder
        pages_total = doc.page_count
        content_budget = embedder.max_tokens - 2 - 16  # specials and the section prefix
        chunker = Chunker(embedder.count_tokens_batch, max_tokens=content_budget,
                          target_tokens=min(TARGET_TOKENS, content_budget), overlap_tokens=OVERLAP_TOKENS,
                          words=known_words(embedder))
        t0 = time.monotonic()
        n_pages = empty_pages = 0
        for page in doc.pages():
            cancel.check()
            n_pages += 1
            empty_pages += not page.blocks
            job.pages.append((page.page, page.width, page.height, page.rotation, int(page.has_text_layer),
                              int(page.ocr_used)))
            job.drafts.extend(chunker.add_page(page))
            if len(job.drafts) - job.embedded >= EMBED_BATCH:
                _embed_pending(embedder, job)
            if len(job.drafts) >= FLUSH_CHUNKS:
                _embed_pending(embedder, job)
                try:
                    self._write(doc_id, job)
                except Exception as e:  # the library could not save (disk full, I/O), not the file's fault
                    raise _SaveFailed from e
            elapsed = time.monotonic() - t0
            rate = n_pages / elapsed if elapsed > 0 else None
            eta = (pages_total - n_pages) / rate if rate else None
            yield Progress("parse", doc_id=doc_id, done=n_pages, total=pages_total, unit="pages", rate=rate,
                           eta=eta, extra={"chunks": job.chunk_count + len(job.drafts)}, **base)
        job.drafts.extend(chunker.finish())
        cancel.check()
        yield Progress("embed", doc_id=doc_id, done=job.chunk_count + job.embedded,
                       total=job.chunk_count + len(job.drafts), unit="chunks", **base)
        _embed_pending(embedder, job)
        meta = {"title": doc.title or path.stem, "pages": n_pages, "kind": doc.kind}
        if getattr(doc, "repaired", False):
            meta["warning"] = (f"the file is damaged (it may be cut short) and was repaired to read it: "
                               f"{empty_pages} of {n_pages} pages came out empty; compare it with the original")
        return meta

    def _write(self, doc_id: int, job: _DocJob) -> None:
        """Write the job's drafts (all embedded) into the document's transaction (opening it and
        deleting the document's previous chunks first) and drop them from memory."""
        if job.open(self.documents.db):
            job.old_ids = self.chunks.ids_of_document(doc_id)
            self.chunks.delete_document(doc_id)
        drafts, vectors, segments = job.taken()
        ids = self.chunks.insert(chunk_rows(doc_id, drafts, first_ord=len(job.ids)))
        self.vectors.put_text(ids, self.models.embedder.model_id, vectors, segments)
        self._write_figures(doc_id, ids, drafts)
        job.links.add(ids, drafts)
        job.ids.extend(ids)

    def _commit(self, doc_id: int, sha: str, stat, meta: dict, job: _DocJob, path: Path) -> None:
        """Write what is left of `job`, the document's pages and links (and its file, where the
        library keeps files), mark it ready and commit (one transaction with any earlier writes
        of it), then update the index."""
        model_id = self.models.embedder.model_id
        index = self.models.text_index()
        first_held, held = len(job.ids), list(job.vectors)
        try:
            self._write(doc_id, job)
            self.documents.replace_pages(doc_id, job.pages)
            self.chunks.add_links(job.links.all())
            self.files.put(sha, path)
            self.documents.mark_ready(
                doc_id, sha=sha, size=stat.st_size, mtime=stat.st_mtime, kind=meta["kind"], title=meta["title"],
                pages=meta["pages"], warning=meta.get("warning"), enrichment="pending" if job.has_figures else "")
            job.commit()
        except BaseException:
            job.abandon()
            raise
        index.remove(job.old_ids)
        for start in range(0, first_held, FLUSH_CHUNKS):  # written earlier and dropped: read back
            ids = job.ids[start:min(start + FLUSH_CHUNKS, first_held)]
            got = self.vectors.chunk_vectors(ids, model_id)
            index.add(np.asarray(ids, dtype=np.int64), np.stack([got[i] for i in ids]))
        if held:
            index.add(np.asarray(job.ids[first_held:], dtype=np.int64), np.stack(held))

    def _write_figures(self, doc_id: int, ids: list[int], drafts: list[ChunkDraft]) -> None:
        """One `figures` row per figure chunk, with its crop saved under cache/ and its hashes."""
        from ..figures.crops import save_crop
        from ..figures.phash import dhash, phash

        for cid, d in zip(ids, drafts, strict=True):
            if d.kind != "figure" or d.figure is None or d.region is None:
                continue
            fig = d.figure
            crop_rel, w, h, ph, dh = None, None, None, None, None
            if fig.image_png:
                from io import BytesIO

                from PIL import Image

                with Image.open(BytesIO(fig.image_png)) as im:
                    im.load()
                    crop_rel, w, h = save_crop(self.folder, doc_id, cid, im)
                    ph, dh = phash(im), dhash(im)
            self.figures.insert(cid, doc_id, d.region[0], d.region[1], fig.source, crop_rel, w, h, ph, dh,
                                bool(fig.ocr_used))


def _unexpected(e: BaseException) -> str:
    """One line for a failure no parser names (a malformed file met code that expected something
    else): what kind of failure, and the first line of its message."""
    if isinstance(e, RecursionError):
        kind = "nested too deeply"
    elif isinstance(e, MemoryError):
        kind = "too large to read"
    elif isinstance(e, UnicodeError):
        kind = "text encoding not understood"
    else:
        kind = "unexpected content"
    detail = (str(e).splitlines() or [""])[0][:200]
    return f"could not be read: {kind} ({type(e).__name__}{': ' + detail if detail else ''})"


def known_words(embedder) -> frozenset[str]:
    """The embedder's dictionary of whole words (TextEmbedder.known_words), or an empty set for an
    embedder without one: words hyphenated at line ends are then judged by the document alone."""
    words = getattr(embedder, "known_words", None)
    return words() if callable(words) else frozenset()


def _embed_pending(embedder, job: _DocJob) -> None:
    pending = job.drafts[job.embedded :]
    if not pending:
        return
    texts, spans = [], []
    for d in pending:
        text, offset = embed_text_of(d)
        texts.append(text)
        spans.append([(a + offset, b + offset) for a, b in d.segments])
    enc = embedder.encode_with_segments(texts, spans, bulk=True)
    job.vectors.extend(enc.vectors)
    job.segments.extend(enc.segments)
    job.embedded = len(job.drafts)
    job.batches += 1
    if job.batches % TRIM_EVERY == 0:  # the batches' tensors are freed: give the pages back (engine/memory.py)
        trim_heap()


def chunk_rows(doc_id: int, drafts: list[ChunkDraft], first_ord: int = 0) -> list[dict]:
    """Rows for the chunks table, in document order from `first_ord`."""
    rows = []
    for ord_, d in enumerate(drafts, first_ord):
        pages = d.pages or [1]
        spans = d.spans()
        first = spans[0] if spans else None
        line_segs: dict[int, list[int]] = {}
        for s, idxs in enumerate(d.segment_lines()):
            for i in idxs:
                line_segs.setdefault(i, []).append(s)
        lines = [
            {"p": ln.page, "b": [round(v, 2) for v in ln.bbox], "t": ln.text, "s": line_segs.get(i, [])}
            for i, ln in enumerate(d.lines)
        ]
        meta = dict(d.meta)
        meta["segments"] = [list(x) for x in d.segments]  # char spans, to re-embed with another model
        if d.region:
            meta["region"] = {"page": d.region[0], "bbox": [round(v, 2) for v in d.region[1]]}
        rows.append({
            "doc_id": doc_id, "ord": ord_, "kind": d.kind, "text": d.text, "section": d.section,
            "page": pages[0], "page_end": pages[-1],
            "bbox": json.dumps(first["bbox"]) if first else None,
            "spans": json.dumps(spans), "lines": json.dumps(lines), "group_key": d.group_key,
            "meta": json.dumps(meta),
        })
    return rows


__all__ = ["Ingester", "chunk_rows", "embed_text_of", "scan_paths", "sha256_file"]
