""""Export for an expert…": an answer, its checked sentences and its cited page crops as one file.

`ExpertExport` serves the link under each answer in the answer pane (`exportRequested`) and
File ▸ Export answer for an expert… (the latest answer). It asks for a file name (HTML, or JSON
for a ticket system; default `expert-<question words>-<date>.html` in the folder used last) and
runs `Library.export_answer` on the engine thread through `MainWindow.submit`, since the library
lives there; the page crops are rendered there too. The status bar shows the path written; a
failure shows in the window's banner like other engine errors.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, Signal
from PySide6.QtWidgets import QFileDialog

from ..engine.settings import config_dir
from .error_report import describe

FOLDER_KEY = "expertExport/folder"
HTML_FILTER = "Web page for an expert (*.html)"
JSON_FILTER = "JSON for a ticket system (*.json)"
DIALOG_TITLE = "Export answer for an expert"


def _qsettings() -> QSettings:
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)


def default_name(question: str, when: datetime | None = None) -> str:
    """`expert-<first words of the question>-<YYYYmmdd-HHMM>.html`, safe on every file system."""
    words = re.findall(r"[A-Za-z0-9]+", question or "")[:6]
    slug = "-".join(w.lower() for w in words)[:48].strip("-") or "answer"
    return f"expert-{slug}-{(when or datetime.now()).strftime('%Y%m%d-%H%M')}.html"


class ExpertExport(QObject):
    """Exports answers of `window` (a MainWindow: its `answer_pane`, `submit`, `set_status`,
    `banner` and `job_failed_handler` are used)."""

    exported = Signal(str)  # the path written
    exportFailed = Signal(str)  # noqa: N815 (Qt naming) the message shown

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        window.answer_pane.exportRequested.connect(self.export_turn)

    def export_latest(self) -> object | None:
        """File ▸ Export answer for an expert…: the latest finished answer (a note when there is none)."""
        turn = self.window.answer_pane.exportable_turn()
        if turn is None:
            self.window.banner.notify("There is no answer to export yet: ask a question first.", level="info",
                                      timeout_ms=6000)
            return None
        return self.export_turn(turn)

    def default_folder(self) -> Path:
        """The folder of the last export, else the user's documents folder, else home."""
        last = _qsettings().value(FOLDER_KEY)
        if last and Path(str(last)).is_dir():
            return Path(str(last))
        docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(docs) if docs and Path(docs).is_dir() else Path.home()

    def choose_path(self, question: str) -> Path | None:
        """Ask where to save (a save dialog with a default name); None when cancelled."""
        dlg = QFileDialog(self.window, DIALOG_TITLE, str(self.default_folder() / default_name(question)))
        dlg.setObjectName("expertExportDialog")
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dlg.setNameFilters([HTML_FILTER, JSON_FILTER])
        dlg.setDefaultSuffix("html")
        dlg.filterSelected.connect(lambda f: dlg.setDefaultSuffix("json" if f == JSON_FILTER else "html"))
        if not dlg.exec() or not dlg.selectedFiles():
            return None
        path = Path(dlg.selectedFiles()[0])
        if dlg.selectedNameFilter() == JSON_FILTER and path.suffix.lower() != ".json":
            path = path.with_name(path.name + ".json")
        return path

    def export_turn(self, turn: int, path: Path | str | None = None) -> object | None:
        """Export the answer of `turn` to `path` (asked for when None) on the engine thread;
        returns the job, or None when there is nothing to export or the user cancelled."""
        turns = self.window.answer_pane.turns
        if not 0 <= turn < len(turns) or not turns[turn].get("result"):
            return None
        t = turns[turn]
        target = Path(path) if path is not None else self.choose_path(t.get("question", ""))
        if target is None:
            return None
        qs = _qsettings()
        qs.setValue(FOLDER_KEY, str(target.parent))
        qs.sync()
        result, question = dict(t["result"]), t.get("question") or None
        job = self.window.submit("export for an expert",
                                 lambda lib, _cancel: str(lib.export_answer(result, target, question=question)),
                                 interactive=True)
        if job is None:
            return None
        self.window.set_status(f"Exporting the answer to {target.name}…")

        def done(written: str) -> None:
            self.window.set_status(f"Exported for an expert: {written}")
            self.exported.emit(written)

        def failed(exc: BaseException) -> None:
            self.window.set_status("Export failed")
            self.window.job_failed_handler(job)(exc)
            self.exportFailed.emit(describe(exc))

        job.finished.connect(done)
        job.failed.connect(failed)
        return job
