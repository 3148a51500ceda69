"""Watched folders in the window: Library ▸ Watch folder… / Watched folders…

`FolderSync` keeps the library in line with its watched folders (engine: Library.watch /
reconcile, engine/watch.py). It reconciles when the library opens (files changed while the app
was closed), when Qt's QFileSystemWatcher reports a change in a watched folder or a sub-folder
(debounced: a burst of copies is one pass once the folders have been still for two seconds), and
every few minutes (QFileSystemWatcher says nothing when a file's content is rewritten in place, and
nothing at all on some network shares). The reconcile runs on the engine thread; new and changed
files are read in the engine's child process like any other add. A folder that disappears
(a removable drive) keeps its documents; the user is asked once per session what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ..engine.jobs import CancelToken
from .engine_thread import EngineJob

DEBOUNCE_MS = 2000  # folders still this long after a change: reconcile
SETTLE_RETRY_MS = 2500  # files still being written: look again after this
POLL_MS = 5 * 60 * 1000  # a look even without notifications (in-place rewrites, network shares)


def reconcile_job(lib, cancel: CancelToken):
    """Engine job: bring the library in line with its watched folders (new and changed files read
    in the engine's child process); returns the folders and sub-folders to subscribe to. A library
    opened read-only (another program writes to it) is left alone."""
    from ..engine.watch import folder_tree

    folders = [Path(w.path) for w in lib.watched_folders()]
    if not folders or lib.read_only:
        return folders
    yield from lib.reconcile(cancel, isolated=True)
    return folder_tree([Path(w.path) for w in lib.watched_folders()])


def folder_rows(lib, _cancel=None) -> list[tuple[str, int, str | None]]:
    """Engine job: (folder, documents from it, missing since) for every watched folder."""
    docs = lib.documents()
    rows = []
    for w in lib.watched_folders():
        prefix = os.path.join(w.path, "")
        rows.append((w.path, sum(1 for d in docs if d.path.startswith(prefix)), w.missing_since))
    return rows


class FolderSync(QObject):
    """Owns the window's folder watching: the Qt watcher, the debounce and poll timers, the
    reconcile job and the missing-folder question. `window` is the MainWindow."""

    synced = Signal(str)  # a reconcile ended; its summary in words
    missingFolder = Signal(str, int)  # noqa: N815 (Qt naming) a watched folder is not available

    def __init__(self, window, debounce_ms: int = DEBOUNCE_MS, poll_ms: int = POLL_MS) -> None:
        super().__init__(window)
        self.window = window
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._on_change)
        self.debounce = QTimer(self, singleShot=True, interval=debounce_ms, timeout=self.sync)
        self.poll = QTimer(self, interval=poll_ms, timeout=self.sync)
        self.job: EngineJob | None = None
        self.again = False  # a change arrived while a reconcile was running
        self.asked: set[str] = set()  # missing folders the user was asked about this session
        self.auto_ask = True  # tests answer the question themselves

    def _on_change(self, _path: str) -> None:
        self.debounce.start()  # restarted by every event of a burst

    def sync(self) -> EngineJob | None:
        """Reconcile now (or right after the running reconcile). Returns the job, or None."""
        if self.job is not None and self.job.state in ("queued", "running"):
            self.again = True
            return self.job
        if self.window.engine is None:  # no library open (or the window is closing)
            return None
        job = self.window.submit("watched folders", reconcile_job)
        if job is None:
            return None
        self.job, self.again = job, False
        state = {"added": False, "changed": False, "settling": 0, "summary": ""}

        def on_progress(ev) -> bool:
            if ev.stage in ("moved", "removed"):
                state["changed"] = True
                self.window.set_status(f"{ev.doc}: {ev.message}")
                return False
            if ev.stage == "unavailable":
                self._missing(ev.extra["folder"], ev.extra["documents"])
                return False
            if ev.stage == "watched":
                state["settling"], state["summary"] = ev.extra.get("settling", 0), ev.message
                return False
            state["added"] |= ev.stage == "done"
            return True

        self.window.track_ingest_job(job, on_progress, enrich=lambda: state["added"])
        job.finished.connect(lambda dirs: self._ended(dirs, state))
        job.cancelled.connect(lambda: self._ended(None, state))
        job.failed.connect(lambda _e: self._ended(None, state))
        if not self.poll.isActive():
            self.poll.start()
        return job

    def _ended(self, dirs: list[Path] | None, state: dict) -> None:
        self.job = None
        if dirs is not None:
            self.subscribe([str(d) for d in dirs])
        if state["changed"]:
            self.window.refresh_documents()
        if state["summary"]:
            self.synced.emit(state["summary"])
        if self.again:
            self.sync()
        elif state["settling"]:
            self.debounce.start(SETTLE_RETRY_MS)

    def subscribe(self, dirs: list[str]) -> None:
        """Watch exactly these directories for changes."""
        current = set(self.watcher.directories())
        wanted = {d for d in dirs if Path(d).is_dir()}
        if current - wanted:
            self.watcher.removePaths(sorted(current - wanted))
        if wanted - current:
            self.watcher.addPaths(sorted(wanted - current))

    # ---- the user's choices ------------------------------------------------------------
    def watch_dialog(self) -> None:
        """Library ▸ Watch folder…: choose a folder, watch it and bring it in."""
        d = QFileDialog.getExistingDirectory(self.window, "Watch a folder of manuals")
        if d:
            self.watch(Path(d))

    def watch(self, folder: Path) -> EngineJob | None:
        """Watch `folder` (remembered by the library) and reconcile. Returns the job."""
        job = self.window.submit("watch folder", lambda lib, _t: lib.watch(folder), interactive=True)
        if job is None:
            return None
        job.finished.connect(lambda _new: (self.window.set_status(f"Watching {folder}"), self.sync()))
        job.failed.connect(self.window.job_failed_handler(job))
        return job

    def unwatch(self, folder: str, remove_documents: bool) -> EngineJob | None:
        """Stop watching `folder`; its documents go too when `remove_documents`."""
        job = self.window.submit("stop watching", lambda lib, _t: lib.unwatch(folder, remove_documents=remove_documents),
                                 interactive=True)
        if job is None:
            return None

        def done(removed) -> None:
            self.asked.discard(folder)
            self.window.set_status(f"Stopped watching {folder}" + (f"; {len(removed)} document(s) removed"
                                                                   if removed else ""))
            self.window.refresh_documents()
            self.sync()

        job.finished.connect(done)
        job.failed.connect(self.window.job_failed_handler(job))
        return job

    def _missing(self, folder: str, n: int) -> None:
        self.window.set_status(f"Watched folder {folder} is not available; its {n} document(s) are kept")
        if folder in self.asked:
            return
        self.asked.add(folder)
        self.missingFolder.emit(folder, n)
        if self.auto_ask:
            self.ask_missing(folder, n)

    def ask_missing(self, folder: str, n: int) -> QMessageBox:
        """Ask (without blocking the window) what to do with a folder that disappeared."""
        box = QMessageBox(QMessageBox.Icon.Question, "Watched folder not available",
                          f"The watched folder\n{folder}\nis not available (a removable drive or network "
                          f"share that is not connected?).\n\nIts {n} document(s) stay searchable. When the "
                          "folder is back, nothing is read again.", parent=self.window)
        keep = box.addButton("Keep its documents", QMessageBox.ButtonRole.AcceptRole)
        remove = box.addButton("Remove its documents", QMessageBox.ButtonRole.DestructiveRole)
        stop = box.addButton("Stop watching, keep documents", QMessageBox.ButtonRole.ActionRole)
        box.setDefaultButton(keep)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def chosen(button) -> None:
            if button is remove:
                self.unwatch(folder, remove_documents=True)
            elif button is stop:
                self.unwatch(folder, remove_documents=False)

        box.buttonClicked.connect(chosen)
        box.open()
        return box

    def folders_dialog(self) -> WatchedFoldersDialog:
        """Library ▸ Watched folders…"""
        dlg = WatchedFoldersDialog(self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        return dlg


class WatchedFoldersDialog(QDialog):
    """The watched folders with their documents and state; add, stop watching, sync now."""

    def __init__(self, sync: FolderSync) -> None:
        super().__init__(sync.window)
        self.sync_ = sync
        self.setWindowTitle("Watched folders")
        self.resize(720, 320)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("New, changed, moved and deleted files in these folders are taken into the library "
                             "automatically, including changes made while the app was closed."))
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(["Folder", "Documents", "State"])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        lay.addWidget(self.table)
        row = QHBoxLayout()
        self.add_button = QPushButton("Watch folder…", clicked=sync.watch_dialog)
        self.stop_button = QPushButton("Stop watching", clicked=lambda: self._stop(False))
        self.remove_button = QPushButton("Stop watching and remove its documents", clicked=lambda: self._stop(True))
        self.sync_button = QPushButton("Sync now", clicked=sync.sync)
        for b in (self.add_button, self.stop_button, self.remove_button, self.sync_button):
            row.addWidget(b)
        row.addStretch(1)
        lay.addLayout(row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, rejected=self.reject)
        lay.addWidget(buttons)
        sync.synced.connect(self.reload)
        self.window_ = sync.window
        self.window_.documentsRefreshed.connect(self.reload)
        self.reload()

    def reload(self, *_args) -> EngineJob | None:
        """Read the folders again from the library."""
        job = self.window_.submit("watched folders list", folder_rows, interactive=True)
        if job is not None:
            job.finished.connect(self._show)
        return job

    def _show(self, rows) -> None:
        self.table.setRowCount(len(rows))
        for i, (path, n, missing) in enumerate(rows):
            state = f"not available since {missing.replace('T', ' ').rstrip('Z')} UTC" if missing else "watching"
            for j, text in enumerate((path, str(n), state)):
                item = QTableWidgetItem(text)
                if missing:
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(i, j, item)
        self.stop_button.setEnabled(bool(rows))
        self.remove_button.setEnabled(bool(rows))

    def selected_folder(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return self.table.item(rows[0].row(), 0).text() if rows else None

    def _stop(self, remove_documents: bool) -> None:
        folder = self.selected_folder()
        if folder is None:
            return
        if remove_documents:
            answer = QMessageBox.question(self, "Remove documents",
                                          f"Stop watching {folder} and remove its documents from the library?\n"
                                          "The files themselves are not touched.")
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.sync_.unwatch(folder, remove_documents)
