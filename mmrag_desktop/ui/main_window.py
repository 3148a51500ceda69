"""The main window: library list, ask/search box, answer pane and page viewer."""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..engine.errors import LibraryError
from ..engine.location import describe as describe_location
from ..engine.location import is_database_uri, library_location
from ..engine.settings import Settings, config_dir
from . import results
from .answer_pane import AnswerPane
from .conversation_store import load_conversation, save_conversation
from .engine_thread import EngineJob, EngineThread, default_library_factory, freeze_gc
from .error_report import Banner, ErrorDialog, describe
from .expert_export import ExpertExport
from .folder_watch import FolderSync
from .library_model import NAME, PROGRESS, LibraryModel
from .page_render import PageRenderer
from .page_viewer import Highlight, PageViewer
from .progress_delegate import ProgressDelegate
from .query_bar import QueryBar
from .retrieval_recorder import TestRecorder

log = logging.getLogger(__name__)
MAX_SCAN = 5000  # files listed at once when a folder is dropped


def _location(value: Path | str) -> Path | str:
    """A library location given on the command line: a folder or a PostgreSQL URL (anything else
    is kept as it is, and opening it says what is wrong)."""
    try:
        return library_location(value)
    except LibraryError:
        return str(value)


def expand_paths(paths: list[Path]) -> list[Path]:
    """Return the supported files among `paths` (folders walked, at most MAX_SCAN files)."""
    from ..engine.parse import is_supported

    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            for root, _dirs, files in os.walk(p):
                for f in sorted(files):
                    fp = Path(root) / f
                    if is_supported(fp):
                        out.append(fp)
                        if len(out) >= MAX_SCAN:
                            return out
        else:
            out.append(p)
    return out


def sentence_status(ev) -> str:
    """The status-bar line of the sentence pass: table rows (they make table search final), or
    every other sentence encoded ahead (it only makes first searches faster)."""
    if "table" in (ev.extra or {}).get("kinds", ()):
        return f"Tables: {ev.done}/{ev.total} encoded row by row (search works meanwhile)"
    return f"Sentences: {ev.done}/{ev.total} chunks encoded ahead for faster searches (results are final)"


def window_settings() -> QSettings:
    """QSettings in the app's config dir (never the user's global Qt settings in tests)."""
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)


class MainWindow(QMainWindow):
    """The app window. Engine work runs on `self.engine` (one thread owning the Library)."""

    libraryReady = Signal()  # noqa: N815 (Qt naming) the library is open and listed
    documentsRefreshed = Signal()  # noqa: N815
    answerFinished = Signal()  # noqa: N815
    statusChanged = Signal(str)  # noqa: N815

    def __init__(self, settings: Settings | None = None, library_dir: Path | str | None = None,
                 library_factory=default_library_factory, confirm_close: bool = True) -> None:
        super().__init__()
        self.settings = settings or Settings.load()
        # a folder (Path) or a PostgreSQL URL (str); a location that cannot be opened is said when opening
        self.library_dir = _location(library_dir) if library_dir else self.settings.library_path
        self._factory = library_factory
        self.confirm_close = confirm_close
        self.engine: EngineThread | None = None
        self.answer_job: EngineJob | None = None
        self.ingest_jobs: list[EngineJob] = []
        self.enrich_job: EngineJob | None = None
        self.figures_paused = False  # the user paused figure work (Tools menu) until resumed
        self.models_loaded = False
        self.renderer = PageRenderer()
        self.setWindowTitle("mmrag-desktop")
        self.setAcceptDrops(True)
        self._build()
        self._restore_state()
        QTimer.singleShot(0, self.start_engine)

    # ---- construction -------------------------------------------------------------
    def _build(self) -> None:
        self.banner = Banner(self)
        self.banner.detailsRequested.connect(self.show_error_dialog)
        self.folder_sync = FolderSync(self)
        self.folder_sync.synced.connect(self._on_synced)
        # library panel
        self.library_model = LibraryModel(self)
        self.library_view = QTableView(self)
        self.library_view.setObjectName("libraryTable")
        self.library_view.setAccessibleName("Library documents")
        self.library_view.setModel(self.library_model)
        self.library_view.setItemDelegateForColumn(PROGRESS, ProgressDelegate(self.library_view))
        self.library_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.library_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.library_view.verticalHeader().hide()
        self.library_view.setShowGrid(False)
        self.library_view.setWordWrap(False)
        hh = self.library_view.horizontalHeader()
        hh.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        hh.setStretchLastSection(False)
        for col, w in ((1, 130), (2, 50), (3, 90), (4, 160)):
            self.library_view.setColumnWidth(col, w)
        self.library_view.doubleClicked.connect(self._open_row)
        self.drop_hint = QLabel("Drop PDFs, images, Markdown files or folders here — or use File ▸ Add…", self)
        self.drop_hint.setObjectName("dropHint")
        self.drop_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_hint.setWordWrap(True)
        lib_label = QLabel("Library", self)
        lib_label.setObjectName("libraryLabel")
        add_btn = QPushButton("Add…", self)
        add_btn.clicked.connect(self.add_files_dialog)
        self.remove_btn = QPushButton("Remove", self)
        self.remove_btn.setAccessibleName("Remove selected documents")
        self.remove_btn.clicked.connect(self.remove_selected)
        self.cancel_btn = QPushButton("Cancel", self)
        self.cancel_btn.setAccessibleName("Cancel ingesting the selected documents")
        self.cancel_btn.clicked.connect(self.cancel_selected)
        head = QHBoxLayout()
        head.addWidget(lib_label)
        head.addStretch(1)
        for b in (add_btn, self.remove_btn, self.cancel_btn):
            head.addWidget(b)
        lib_panel = QWidget(self)
        ll = QVBoxLayout(lib_panel)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addLayout(head)
        ll.addWidget(self.library_view, 1)
        ll.addWidget(self.drop_hint)
        # ask panel
        self.query_bar = QueryBar(self)
        self.query_bar.submitted.connect(self.ask)
        self.query_bar.imageDropped.connect(self.search_image)
        self.query_bar.cancelRequested.connect(self.cancel_answer)
        self.answer_pane = AnswerPane(self)
        self.answer_pane.citationActivated.connect(self.show_citation)
        self.test_recorder = TestRecorder(self)  # results' "save as retrieval test" (right-click)
        self.expert_export = ExpertExport(self)  # "Export for an expert…" (answer pane link, File menu)
        ask_panel = QWidget(self)
        al = QVBoxLayout(ask_panel)
        al.setContentsMargins(0, 0, 0, 0)
        al.addWidget(self.query_bar)
        al.addWidget(self.answer_pane, 1)
        self.left_splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.left_splitter.setObjectName("leftSplitter")
        self.left_splitter.addWidget(lib_panel)
        self.left_splitter.addWidget(ask_panel)
        self.left_splitter.setSizes([220, 480])
        self.viewer = PageViewer(self.renderer, self)
        self.viewer.errorOccurred.connect(lambda m: self.banner.notify(m, level="error"))
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.left_splitter)
        self.main_splitter.addWidget(self.viewer)
        self.main_splitter.setSizes([560, 640])
        central = QWidget(self)
        cl = QVBoxLayout(central)
        cl.setContentsMargins(6, 6, 6, 6)
        cl.addWidget(self.banner)
        cl.addWidget(self.main_splitter, 1)
        self.setCentralWidget(central)
        self.status_label = QLabel("Opening library…", self)
        self.statusBar().addWidget(self.status_label, 1)
        self._build_menus()
        self.resize(1280, 800)

    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self.add_action = QAction("&Add files…", self, shortcut=QKeySequence.StandardKey.Open,
                                  triggered=self.add_files_dialog)
        m.addAction(self.add_action)
        m.addAction(QAction("Add &folder…", self, triggered=self.add_folder_dialog))
        m.addAction(QAction("&Remove selected", self, shortcut=QKeySequence.StandardKey.Delete,
                            triggered=self.remove_selected))
        m.addAction(QAction("&Cancel selected", self, triggered=self.cancel_selected))
        m.addAction(QAction("Cancel &all ingesting", self, triggered=self.cancel_all_ingest))
        m.addSeparator()
        self.export_action = QAction("&Export answer for an expert…", self, shortcut=QKeySequence("Ctrl+E"),
                                     triggered=self.expert_export.export_latest,
                                     statusTip="Save the latest answer with its cited page images as one "
                                               "file an expert can open in any browser, offline")
        m.addAction(self.export_action)
        m.addSeparator()
        m.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        lm = self.menuBar().addMenu("&Library")
        lm.addAction(QAction("&Watch folder…", self, triggered=self.folder_sync.watch_dialog,
                             statusTip="Keep a folder in sync: new, changed, moved and deleted files"))
        lm.addAction(QAction("Watched &folders…", self, triggered=self.folder_sync.folders_dialog))
        lm.addAction(QAction("&Sync watched folders now", self, triggered=self.folder_sync.sync))
        t = self.menuBar().addMenu("&Tools")
        t.addAction(QAction("&Settings…", self, shortcut=QKeySequence("Ctrl+,"), triggered=self.open_settings))
        self.model_manager_action = QAction("&Model manager…", self, triggered=self.open_model_manager)
        self.model_manager_action.setEnabled(importlib.util.find_spec("mmrag_desktop.ui.model_manager") is not None)
        t.addAction(self.model_manager_action)
        self.pause_figures_action = QAction("&Pause background work", self, checkable=True,
                                            toggled=self.set_figures_paused)
        self.pause_figures_action.setStatusTip("Stop table rows, figure work (OCR, image vectors, captions) "
                                               "and sentence vectors for now; search keeps working; resume "
                                               "picks up where it stopped")
        t.addAction(self.pause_figures_action)
        t.addAction(QAction("Clear &conversation", self, triggered=self.clear_conversation))
        t.addAction(QAction("Com&pact library", self, triggered=self.compact_library))
        t.addAction(QAction("&Test retrieval…", self, triggered=self.open_retrieval_test,
                            statusTip="Run your own questions with known pages: R@1, R@5, MRR, box hits"))
        h = self.menuBar().addMenu("&Help")
        h.addAction(QAction("&About", self, triggered=self._about))

    # ---- engine lifecycle ---------------------------------------------------------
    def start_engine(self) -> None:
        """Start the engine thread on `self.library_dir` (called once the window is up)."""
        if self.engine is not None:
            return
        self.set_status("Opening library…")
        where = describe_location(self.library_dir)
        self.setWindowTitle(f"mmrag-desktop — team library {where}" if is_database_uri(self.library_dir)
                            else f"mmrag-desktop — {where}")
        factory = self._factory
        if factory is default_library_factory:  # the engine sees the window's settings (models, threads)
            factory = functools.partial(default_library_factory, settings=self.settings)
        self.engine = EngineThread(self.library_dir, factory)
        self.engine.opened.connect(self._on_opened)
        self.engine.openFailed.connect(self._on_open_failed)
        self.engine.start()

    def stop_engine(self) -> None:
        """Cancel every job and wait for the engine thread to end."""
        if self.engine is None:
            return
        self.set_status("Stopping…")
        QApplication.processEvents()
        if not self.engine.stop(60000):
            log.error("engine thread did not stop within 60 s")
        self.engine = None
        self.ingest_jobs, self.answer_job, self.enrich_job = [], None, None

    def compact_library(self) -> EngineJob | None:
        """Reclaim space in the background (Library.compact); the banner says what was done."""
        job = self.submit("compact", lambda lib, _t: lib.compact())
        if job is None:
            return None
        self.set_status("Compacting the library…")

        def done(what) -> None:
            self.set_status("Ready")
            self.banner.notify("Compacted: " + "; ".join(what) if what else "The library had nothing to compact.",
                               level="info", timeout_ms=8000)

        job.finished.connect(done)
        job.failed.connect(lambda e: (self.set_status("Ready"), self._job_failed(job)(e)))
        return job

    def _on_opened(self, lib) -> None:
        reason = getattr(lib, "read_only_reason", None)
        if reason:
            self.banner.notify(f"Read-only: {reason}. Adding or removing documents works again once the "
                               "other program closes the library (reopen it then).", level="info")
        self.set_status("Loading models…")
        self.refresh_documents(ready=True)
        self.folder_sync.sync()  # files changed in watched folders while the app was closed
        job = self.engine.submit("warm-up", _warm_up)
        job.finished.connect(lambda _r: self._models_ready())
        job.failed.connect(lambda e: (self._models_ready(), self.banner.notify(
            f"Models could not be loaded: {describe(e)}", job.details, level="error")))

    def _models_ready(self) -> None:
        freeze_gc()
        self.models_loaded = True
        self.set_status("Ready")

    def _on_open_failed(self, exc: BaseException) -> None:
        self.set_status("No library")
        self.banner.notify(f"The library at {describe_location(self.library_dir)} cannot be opened: {describe(exc)}",
                           "Choose another location in Tools ▸ Settings.", level="error")
        self.engine.wait(2000)
        self.engine = None

    def _on_synced(self, summary: str) -> None:
        if not summary.startswith("0 new or changed, 0 moved, 0 removed"):
            self.set_status(f"Watched folders: {summary}")

    def set_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.statusChanged.emit(text)

    def submit(self, name: str, fn, **kw) -> EngineJob | None:
        """Submit an engine job, or tell the user there is no library (returns None)."""
        if self.engine is None:
            self.banner.notify("No library is open.", level="error")
            return None
        return self.engine.submit(name, fn, **kw)

    def refresh_documents(self, ready: bool = False) -> None:
        """Reload the document list from the library."""
        job = self.submit("documents", lambda lib, _t: lib.documents(), interactive=True)
        if job is None:
            return

        def done(docs) -> None:
            self.library_model.set_documents(docs)
            self.query_bar.set_documents([(d.id, d.name) for d in docs if d.status == "ready"])
            # (not while files are being added: a list read before the first of them is stored is empty)
            self.drop_hint.setVisible(not docs and not any(r.busy for r in self.library_model.rows))
            self.documentsRefreshed.emit()
            if ready:
                self.libraryReady.emit()

        job.finished.connect(done)
        job.failed.connect(self._job_failed(job))

    def job_failed_handler(self, job: EngineJob):
        """A slot for `job.failed` that shows the error in the notification strip."""
        return self._job_failed(job)

    def _job_failed(self, job: EngineJob):
        def failed(exc: BaseException) -> None:
            self.banner.notify(describe(exc), job.details, level="error")
        return failed

    # ---- ingest -------------------------------------------------------------------
    def add_paths(self, paths: list[Path]) -> list[EngineJob]:
        """Ingest files/folders; rows appear at once. Each file is its own cancellable job, so
        cancelling one file of a dropped folder leaves the others queued. A folder with no supported
        file, or more than MAX_SCAN of them, is one job (the engine walks it and reports)."""
        units: list[tuple[Path, list[Path]]] = []
        for p in map(Path, paths):
            files = expand_paths([p])
            if p.is_dir() and (not files or len(files) >= MAX_SCAN):
                units.append((p, files))
            else:
                units.extend((f, [f]) for f in files)
        jobs = []
        for p, files in units:
            job = self.submit(f"add {p.name}", results.ingest_job([str(p)]))
            if job is None:
                break
            self.library_model.add_pending(files, job)
            self.drop_hint.setVisible(False)
            self.track_ingest_job(job)
            jobs.append(job)
        self._update_ingest_status()
        return jobs

    def track_ingest_job(self, job: EngineJob, on_progress=None, enrich=lambda: True) -> None:
        """Show an ingest job's documents in the library list as it runs (rows appear as the engine
        reports them), count it as ingest work (Cancel all, closing the window) and, when it ends,
        refresh the list and start the background work (when `enrich()` says so).
        `on_progress(ev)` sees every event first; returning False keeps it out of the list."""
        def progress(ev) -> None:
            if on_progress is None or on_progress(ev) is not False:
                self._on_ingest_progress(ev, job)

        job.progress.connect(progress)
        job.finished.connect(lambda _r: self._ingest_ended(job, "ready", enrich()))
        job.cancelled.connect(lambda: self._ingest_ended(job, "cancelled", enrich()))
        job.failed.connect(lambda e: (self._job_failed(job)(e), self._ingest_ended(job, "failed", enrich())))
        self.ingest_jobs.append(job)

    def _on_ingest_progress(self, ev, job: EngineJob) -> None:
        self.library_model.apply_progress(ev, job)
        if getattr(ev, "stage", "") == "failed":
            self.banner.notify(f"{ev.doc}: {ev.message}", level="error")
        self._update_ingest_status()

    def _ingest_ended(self, job: EngineJob, status: str, enrich: bool = True) -> None:
        # rows the engine never reported on (e.g. unchanged files) are not in progress any more
        if status == "ready":
            status = "cancelled" if job.token.cancelled else "skipped"
        self.library_model.mark_job_ended(job, status)
        if job in self.ingest_jobs:
            self.ingest_jobs.remove(job)
        self._update_ingest_status()
        self.refresh_documents()
        if enrich and status in ("ready", "skipped") and not any(j.state in ("queued", "running")
                                                                 for j in self.ingest_jobs):
            self.start_enrichment()

    def set_figures_paused(self, paused: bool) -> None:
        """Pause figure work (the running job is cancelled; what it finished is kept) or resume it."""
        self.figures_paused = bool(paused)
        if self.pause_figures_action.isChecked() != self.figures_paused:
            self.pause_figures_action.setChecked(self.figures_paused)
        if self.figures_paused:
            if self.enrich_job is not None and self.enrich_job.state in ("queued", "running"):
                self.enrich_job.cancel()
            self.set_status("Background work paused (Tools > Pause background work to resume); "
                            "search works meanwhile")
        else:
            self.start_enrichment()

    def start_enrichment(self) -> EngineJob | None:
        """Background work after ingest (table rows encoded row by row, OCR of raster figures, image
        vectors, captions, then every sentence encoded ahead); documents are searchable meanwhile. Progress shows in the status bar. Returns None while the
        user has paused it (see set_figures_paused)."""
        if self.figures_paused:
            return None
        if self.enrich_job is not None and self.enrich_job.state in ("queued", "running"):
            return self.enrich_job
        job = self.submit("figures", results.enrich_job())
        if job is None:
            return None
        self.enrich_job = job

        def progress(ev) -> None:
            if self.figures_paused:
                return
            if ev.stage == "sentences" and ev.total:
                self.set_status(sentence_status(ev))
            elif ev.stage == "enrich" and ev.total:
                self.set_status(f"Figures: {ev.done}/{ev.total} enriched (search works meanwhile)")
            elif ev.stage == "finished":  # after an image-model change: which model image search uses
                note = next((p for p in (ev.message or "").split("; ") if p.startswith("image search")), "")
                if note:
                    self.set_status(note[0].upper() + note[1:])

        def ended(*_args) -> None:
            if self.enrich_job is job:
                self.enrich_job = None
            if self.status_label.text().startswith(("Figures", "Sentences", "Tables")):
                self.set_status("Ready")

        job.progress.connect(progress)
        job.finished.connect(ended)
        job.cancelled.connect(ended)
        job.failed.connect(lambda e: (self._job_failed(job)(e), ended()))
        return job

    def _update_ingest_status(self) -> None:
        busy = [r for r in self.library_model.rows if r.busy]
        if busy:
            self.set_status(f"Ingesting: {len(busy)} document{'s' if len(busy) != 1 else ''} to go")
        elif self.engine is not None and self.status_label.text().startswith("Ingesting"):
            self.set_status("Ready" if self.models_loaded else "Loading models…")

    def add_files_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add manuals", "", "Manuals (*.pdf *.png *.jpg *.jpeg *.tif *.tiff *.bmp *.md *.markdown "
            "*.json);;All files (*)")
        if files:
            self.add_paths([Path(f) for f in files])

    def add_folder_dialog(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Add a folder of manuals")
        if d:
            self.add_paths([Path(d)])

    def _selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.library_view.selectionModel().selectedRows()})

    def cancel_selected(self) -> None:
        """Cancel the ingest jobs of the selected rows."""
        for i in self._selected_rows():
            job = self.library_model.rows[i].job
            if job is not None and job.state in ("queued", "running"):
                job.cancel()

    def cancel_all_ingest(self) -> None:
        for j in list(self.ingest_jobs):
            j.cancel()

    def remove_selected(self) -> None:
        """Remove the selected documents from the library (queued ones are cancelled)."""
        for i in reversed(self._selected_rows()):
            self.remove_row(i)

    def remove_row(self, i: int) -> EngineJob | None:
        """Remove row `i`: cancel its job if still queued; delete it from the library if indexed."""
        r = self.library_model.rows[i]
        if r.job is not None and r.job.state in ("queued", "running"):
            r.job.cancel()
        if r.doc_id is None:
            self.library_model.remove_row(i)
            return None
        doc_id, path = r.doc_id, r.path
        job = self.submit(f"remove {r.name}", lambda lib, _t: lib.remove(doc_id), interactive=True)
        if job is None:
            return None

        def removed(_info) -> None:
            self.renderer.forget(path)
            if self.viewer.doc_path == path:
                self.viewer.clear()
            self.refresh_documents()

        job.finished.connect(removed)
        job.failed.connect(self._job_failed(job))
        return job

    def _open_row(self, index) -> None:
        r = self.library_model.rows[index.row()]
        if r.path and r.status == "ready":
            self.viewer.open_document(r.path, 1)

    # ---- drag and drop ------------------------------------------------------------
    def dragEnterEvent(self, e: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if e.mimeData().hasUrls() and any(u.isLocalFile() for u in e.mimeData().urls()):
            e.acceptProposedAction()

    def dragMoveEvent(self, e) -> None:  # noqa: N802
        if e.mimeData().hasUrls():
            e.acceptProposedAction()

    def dropEvent(self, e: QDropEvent) -> None:  # noqa: N802
        paths = [Path(u.toLocalFile()) for u in e.mimeData().urls() if u.isLocalFile()]
        if paths:
            e.acceptProposedAction()
            self.add_paths(paths)

    # ---- asking -------------------------------------------------------------------
    def ask(self, text: str, mode: str = "answer", image: str | None = None) -> EngineJob | None:
        """Answer (streaming, cited) or search `text`; the previous answer is cancelled. With `image`
        (answer mode) the question is about that image: "what is this?"."""
        self.cancel_answer()
        docs, kinds = self.query_bar.filters()
        self.answer_pane.start_turn(f"{text or 'What is this?'} (image: {Path(image).name})" if image else text, mode)
        if mode == "search":
            job = self.submit("search", results.search_job(text, k=10, docs=docs, kinds=kinds), interactive=True)
            if job is None:
                return None
            job.progress.connect(self._on_answer_event)  # notices (a reranker that could not be used)
            job.finished.connect(lambda items: (self.answer_pane.set_results(items, text), self._turn_done()))
        else:
            history = [{"question": t["question"], "answer": t.get("answer", "")}
                       for t in self.answer_pane.turns[:-1] if t.get("mode") != "search"][-4:]
            fn = results.answer_job(text, history=history, mode=self.settings.answer_mode, image=image)
            job = self.submit("answer", fn, interactive=True, coalesce=False)
            if job is None:
                return None
            self.answer_pane.set_status("Searching…")  # the engine's StatusEvents say what follows
            job.progress.connect(self._on_answer_event)
            job.finished.connect(lambda ans: (self.answer_pane.finish(ans), self._turn_done()))
        job.failed.connect(lambda e, j=job: (self.answer_pane.fail(describe(e)), self._turn_done(),
                                             j.details and self.banner.notify(describe(e), j.details)))
        job.cancelled.connect(lambda: (self.answer_pane.fail("Stopped."), self._turn_done()))
        self.answer_job = job
        self.query_bar.set_busy(True)
        return job

    def search_image(self, path: str) -> EngineJob | None:
        """An image file dropped on the question box: in Answer mode, ask about it ("what is this?",
        with the box's text as the question when there is one); in Search mode, search by it."""
        if self.query_bar.current_mode() == "answer":
            return self.ask(self.query_bar.edit.text().strip(), "answer", image=path)
        self.cancel_answer()
        self.answer_pane.start_turn(f"image: {Path(path).name}", "search")
        job = self.submit("image search", results.search_job("", k=10, image=path), interactive=True)
        if job is None:
            return None
        job.progress.connect(self._on_answer_event)
        job.finished.connect(lambda items: (self.answer_pane.set_results(items, Path(path).name), self._turn_done()))
        job.failed.connect(lambda e: (self.answer_pane.fail(describe(e)), self._turn_done()))
        self.answer_job = job
        self.query_bar.set_busy(True)
        return job

    def _on_answer_event(self, ev) -> None:
        """Show what an answer or search job streams: the engine's events (engine/answer/events.py,
        dispatched on their `kind`); a citation carries the `ResultItem` the job resolved it to
        (ui/source_event.py)."""
        if ev.kind == "token":
            self.answer_pane.append_token(ev.text)
        elif ev.kind == "citation":
            self.answer_pane.add_source(ev.item)
        elif ev.kind == "sentence" and ev.sentence:
            self.answer_pane.add_sentence(ev.sentence)
        elif ev.kind == "notice":
            self.answer_pane.add_notice(ev.message)
        elif ev.kind == "status":
            self.answer_pane.set_status(ev.message)

    def _turn_done(self) -> None:
        self.answer_job = None
        self.query_bar.set_busy(False)
        self.save_conversation()
        self.answerFinished.emit()

    def cancel_answer(self) -> None:
        """Stop the answer or search in progress, if any."""
        if self.answer_job is not None and self.answer_job.state in ("queued", "running"):
            self.answer_job.cancel()

    def clear_conversation(self) -> None:
        self.answer_pane.clear()
        self.save_conversation()

    def save_conversation(self) -> None:
        try:
            save_conversation(self.answer_pane.turns)
        except OSError as e:
            log.warning("could not save the conversation: %s", e)

    # ---- viewer -------------------------------------------------------------------
    def show_citation(self, item: results.ResultItem, siblings: list[results.ResultItem]) -> bool:
        """Open the cited page with its boxes highlighted; returns False when it cannot be shown."""
        if not item.doc_path:
            self.banner.notify(f"{item.doc} has no page view (its source file is unknown).", level="info",
                               timeout_ms=6000)
            return False

        def hl(it: results.ResultItem) -> Highlight:
            return Highlight(it.doc_path, it.page, list(it.boxes), f"[{it.number}]", list(it.context))

        h = hl(item)
        sib = [hl(s) if s is not item else h for s in siblings if s.doc_path == item.doc_path]
        return self.viewer.show_highlight(h, sib)

    def open_retrieval_test(self) -> QWidget:
        """Tools ▸ Test retrieval…: the (non-modal) dialog that runs a question file; returns it."""
        from .retrieval_test_dialog import RetrievalTestDialog

        dlg = getattr(self, "retrieval_dialog", None)
        if dlg is None:
            dlg = self.retrieval_dialog = RetrievalTestDialog(self.submit, self.show_citation, self.test_recorder, self)
        dlg.show()
        dlg.raise_()
        dlg.activateWindow()
        return dlg

    # ---- settings, model manager --------------------------------------------------
    def open_settings(self) -> None:
        from .settings_dialog import SettingsDialog

        dlg = SettingsDialog(self.settings, self)
        if dlg.exec():
            self.apply_settings(dlg.result_settings())

    def apply_settings(self, new: Settings) -> None:
        """Save `new`, re-theme, and reopen the library when its folder changed."""
        old_lib = self.library_dir
        self.settings = new
        try:
            new.save()
        except OSError as e:
            self.banner.notify(f"Settings could not be saved: {e}", level="error")
        from .app_resources import apply_theme

        app = QApplication.instance()
        if app is not None:
            apply_theme(app, new.theme)
        if new.library_path != old_lib:
            self.stop_engine()
            self.library_dir = new.library_path
            self.library_model.set_documents([])
            self.viewer.clear()
            self.start_engine()

    def open_model_manager(self) -> None:
        try:
            from .model_manager import ModelManagerDialog
        except ImportError as e:
            self.banner.notify(f"The model manager is not available: {e}", level="info", timeout_ms=6000)
            return
        dialog = ModelManagerDialog(self, self.settings)
        dialog.modelsChanged.connect(self.on_model_changed)
        dialog.exec()

    def on_model_changed(self, role: str) -> EngineJob | None:
        """A model choice was saved: the engine drops its loaded models; a new text embedder
        re-embeds the library in the background (search keeps using the old one until done), a
        new image embedder or vision-language model re-runs the figure work."""
        if self.engine is None:
            return None
        if role == "text_embedder":
            job = self.submit("re-embed", results.reembed_job())
            if job is not None:
                job.progress.connect(lambda ev: ev.stage == "reembed" and ev.total and self.set_status(
                    f"Re-embedding with the new text model: {ev.done}/{ev.total} chunks (search works meanwhile)"))
                job.finished.connect(lambda _r: self.set_status("Ready: searching with the new text model"))
                job.failed.connect(self._job_failed(job))
            return job
        if role in ("image_embedder", "vlm", "ocr"):
            job = self.submit("models changed", results.models_changed_job())
            if job is not None:
                job.finished.connect(lambda _r: self.start_enrichment())
            return job
        return None

    def show_error_dialog(self, summary: str, details: str) -> None:
        ErrorDialog(summary, details, self).exec()

    def _about(self) -> None:
        QMessageBox.about(self, "About mmrag-desktop",
                          "mmrag-desktop: offline search and answers over your technical manuals, "
                          "with page-accurate citations.\nLicence: AGPL-3.0-or-later.")

    # ---- persistence --------------------------------------------------------------
    def _restore_state(self) -> None:
        qs = window_settings()
        geo = qs.value("geometry")
        if isinstance(geo, QByteArray | bytes):
            self.restoreGeometry(QByteArray(geo))
        for name, sp in (("mainSplitter", self.main_splitter), ("leftSplitter", self.left_splitter),
                         ("answerSplitter", self.answer_pane.splitter)):
            v = qs.value(name)
            if isinstance(v, QByteArray | bytes):
                sp.restoreState(QByteArray(v))
        mode = qs.value("mode")
        if mode in ("answer", "search"):
            self.query_bar.set_mode(mode)
        zoom = qs.value("zoom")
        try:
            if zoom is not None:
                self.viewer.restore_zoom(float(zoom))
        except (TypeError, ValueError):
            pass
        if str(qs.value("figuresPaused", "false")).lower() in ("true", "1"):
            self.pause_figures_action.setChecked(True)  # -> set_figures_paused(True)
        turns = load_conversation()
        if turns:
            self.answer_pane.load_turns(turns)

    def save_state(self) -> None:
        """Persist geometry, splitters, mode, zoom, paused figure work and the conversation."""
        qs = window_settings()
        qs.setValue("geometry", self.saveGeometry())
        qs.setValue("mainSplitter", self.main_splitter.saveState())
        qs.setValue("leftSplitter", self.left_splitter.saveState())
        qs.setValue("answerSplitter", self.answer_pane.splitter.saveState())
        qs.setValue("mode", self.query_bar.current_mode())
        qs.setValue("zoom", self.viewer.zoom)
        qs.setValue("figuresPaused", self.figures_paused)
        qs.sync()
        self.save_conversation()

    def closeEvent(self, e: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        busy = [j for j in self.ingest_jobs if j.state in ("queued", "running")]
        if busy and self.confirm_close:
            ans = QMessageBox.question(
                self, "Quit while ingesting?",
                f"{len(busy)} ingest job(s) are still running. Stop them and quit? "
                "Documents already saved stay in the library; the rest can be added again.")
            if ans != QMessageBox.StandardButton.Yes:
                e.ignore()
                return
        self.save_state()
        self.stop_engine()
        self.renderer.close()
        e.accept()


def _warm_up(lib, _cancel) -> bool:
    """Load the text embedder so the first search is fast (runs on the engine thread)."""
    emb = getattr(lib, "embedder", None)
    if emb is not None:
        emb.encode(["warm up"])
    return True
