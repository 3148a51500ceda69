"""Recording retrieval tests from search results: "This hit is the right one — save as retrieval test".

`TestRecorder` adds that action to the context menu of the window's results/sources list. It
appends `{"id", "query", "doc", "pages", "bbox"}` (engine/evaluation.py `append_question`) to the
current test file, which it owns: chosen by the user the first time (default
`retrieval_tests.jsonl` in the library folder), remembered in window.ini, and shared with
Tools ▸ Test retrieval… (ui/retrieval_test_dialog.py). The status bar confirms each save.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, QPoint, QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from ..engine.errors import EngineError
from ..engine.evaluation import append_question
from ..engine.location import local_folder
from ..engine.settings import config_dir
from .hits_model import ItemRole
from .results import ResultItem

log = logging.getLogger(__name__)
SETTINGS_KEY = "retrievalTests/file"
DEFAULT_NAME = "retrieval_tests.jsonl"
RECORD_TEXT = "This hit is the right one — save as retrieval test"


def _qsettings() -> QSettings:
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)


class TestRecorder(QObject):
    """Owns the current test file and the context-menu action on the results list of `window`
    (a MainWindow: its `answer_pane`, `library_dir`, `statusBar()` and `banner` are used)."""

    __test__ = False  # not a pytest test class

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        view = window.answer_pane.sources_view
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._menu)

    # ---- the current test file ----------------------------------------------------------
    def test_file(self) -> Path | None:
        """The file tests are saved to and run from, or None before the user chose one."""
        value = _qsettings().value(SETTINGS_KEY)
        return Path(str(value)) if value else None

    def set_test_file(self, path: Path | str) -> None:
        """Make `path` the current test file (remembered across restarts)."""
        qs = _qsettings()
        qs.setValue(SETTINGS_KEY, str(path))
        qs.sync()

    def default_file(self) -> Path:
        """`retrieval_tests.jsonl` in the library folder (for a server library: this machine's
        folder for it)."""
        return local_folder(self.window.library_dir) / DEFAULT_NAME

    def choose_file(self, parent: QWidget | None = None) -> Path | None:
        """Ask where tests are saved (an existing file is appended to); None when cancelled."""
        start = self.test_file() or self.default_file()
        name, _ = QFileDialog.getSaveFileName(
            parent or self.window, "Save retrieval tests to", str(start), "Question files (*.jsonl);;All files (*)",
            options=QFileDialog.Option.DontConfirmOverwrite)
        if not name:
            return None
        self.set_test_file(name)
        return Path(name)

    # ---- recording ----------------------------------------------------------------------
    def query_of(self, item: ResultItem) -> str | None:
        """The question or search text of the turn that listed `item`; None for an image search."""
        for turn in reversed(self.window.answer_pane.turns):
            if any(s is item for s in turn.get("sources", [])):
                q = str(turn.get("question") or "").strip()
                if not q or q.startswith("image: ") or "(image: " in q:
                    return None
                return q
        return None

    def record(self, item: ResultItem, query: str | None = None) -> str | None:
        """Append `item` as the right hit for `query` (default: its turn's question) to the test
        file (asked for the first time); returns the saved id, or None when nothing was written
        (already saved, no file chosen, or no text query). The status bar says which."""
        query = query if query is not None else self.query_of(item)
        if not query:
            self._say("Only a typed question or search can be saved as a retrieval test.")
            return None
        path = self.test_file() or self.choose_file()
        if path is None:
            return None
        bbox = next((b for p, b in item.boxes if p == item.page), item.bbox)
        try:
            qid = append_question(path, query, item.doc, [item.page], tuple(bbox) if bbox else None,
                                  kind=item.kind if item.kind in ("text", "table", "figure") else "")
        except EngineError as e:
            self.window.banner.notify(f"The retrieval test could not be saved: {e}", level="error")
            return None
        if qid is None:
            self._say(f"Already in {path.name}: “{query}” → {item.doc} p. {item.page}")
        else:
            self._say(f"Saved retrieval test {qid} in {path.name}: “{query}” → {item.doc} p. {item.page}")
        return qid

    def _say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)

    def _menu(self, pos: QPoint) -> None:
        view = self.window.answer_pane.sources_view
        index = view.indexAt(pos)
        item = index.data(ItemRole) if index.isValid() else None
        if item is None:
            return
        menu = QMenu(view)
        act = menu.addAction(RECORD_TEXT)
        act.setEnabled(self.query_of(item) is not None)
        chosen = menu.exec(view.viewport().mapToGlobal(pos))
        if chosen is act:
            self.record(item)
