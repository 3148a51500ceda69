"""Tools ▸ Test retrieval…: run a question file against the library and see where search fails.

The run is an engine job (`eval_job`, engine/evaluation.py) on the window's engine thread, with a
progress bar and Cancel. The table lists every question (misses coloured) with its rank and box
result and what search found at rank 1; "Show expected page" and "Show what was found" (also a
double-click, and the row's context menu) open the page viewer there with the box highlighted,
through the window's citation path (`MainWindow.show_citation`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ..engine.evaluation import DEFAULT_K, EvalReport, QuestionResult, evaluate, read_questions
from ..engine.jobs import CancelToken
from .results import ResultItem

MISS_BG, MISS_FG = QColor("#fde0dd"), QColor("#8c1d18")
HIT_FG = QColor("#1e6b34")
GREY = QColor("#7b7b7b")
COLUMNS = ("id", "R@1", "rank", "box", "question", "expected", "found at rank 1")
ID, R1, RANK, BOX, QUERY, EXPECTED, FOUND = range(len(COLUMNS))


def eval_job(path: Path | str, k: int = DEFAULT_K):
    """Return an engine job function: read the question file at `path` and run it through the
    library's search (read only), yielding Progress; returns the EvalReport. A malformed file
    raises QuestionFileError before any search."""

    def run(lib, cancel: CancelToken):
        questions = read_questions(path)
        return (yield from evaluate(questions, lambda q, kk: lib.search(q, k=kk), _viewable(lib, questions), k=k,
                                    cancel=cancel))

    return run


def _viewable(lib, questions) -> list:
    """The library's documents, those the questions expect pointing at a file this machine can
    show (a team library's copy from the database when the file is not here)."""
    named = {e.doc for q in questions for e in q.expected}
    docs = lib.documents()
    if not lib.on_server:
        return docs
    return [replace(d, path=str(lib.source_file(d.id) or d.path)) if d.name in named else d for d in docs]


def found_items(result: QuestionResult) -> list[ResultItem]:
    """The hits search ranked for a question, as the viewer's items ([1] = rank 1)."""
    return [ResultItem.from_hit(i, h) for i, h in enumerate(result.hits, start=1)]


def expected_item(result: QuestionResult) -> ResultItem | None:
    """The first expected page (and region) of a question as a viewer item, or None when its
    document is not in the library."""
    if not result.question.expected:
        return None
    e = result.question.expected[0]
    path = result.doc_paths.get(e.doc, "")
    if not path:
        return None
    return ResultItem(number=0, doc=e.doc, page=e.page, doc_path=path, bbox=e.bbox,
                      boxes=[(e.page, e.bbox)] if e.bbox else [], kind="expected",
                      text=f"Expected for: {result.question.query}")


def summary_text(report: EvalReport) -> str:
    """'R@1 0.62 (5/8) · R@5 0.88 (7/8) · MRR@10 0.71 · box 3/4 · 1 not scored'."""
    t = report.totals
    if not t.n:
        return f"No question could be scored ({len(report.not_scored)} not scored)."
    parts = [f"{t.n} question{'s' if t.n != 1 else ''}",
             f"R@1 {t.r1:.2f} ({round(t.r1 * t.n)}/{t.n})", f"R@5 {t.r5:.2f} ({round(t.r5 * t.n)}/{t.n})",
             f"MRR@{report.k} {t.mrr:.2f}",
             f"box {t.box_hits}/{t.box_n}" if t.box_n else "box – (no region given)"]
    if report.not_scored:
        parts.append(f"{len(report.not_scored)} not scored")
    return " · ".join(parts)


class RetrievalTestDialog(QDialog):
    """The dialog. `submit(name, fn, **kw)` queues an engine job (MainWindow.submit); `show(item,
    siblings)` opens the viewer (MainWindow.show_citation); `recorder` owns the test file."""

    reportReady = Signal(object)  # noqa: N815 (Qt naming) the EvalReport of a finished run

    def __init__(self, submit: Callable, show: Callable, recorder, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Test retrieval")
        self.setObjectName("retrievalTestDialog")
        self._submit, self._show, self.recorder = submit, show, recorder
        self.job = None
        self.report: EvalReport | None = None
        self._build()
        current = recorder.test_file()
        self.file_edit.setText(str(current or recorder.default_file()))
        self.resize(1000, 560)

    def _build(self) -> None:
        intro = QLabel("Each line of the question file names a question and the document and page(s) where its "
                       "answer is (docs/retrieval_testing.md). Save tests from search results with a right-click "
                       "on a hit: “This hit is the right one”.", self)
        intro.setWordWrap(True)
        self.file_edit = QLineEdit(self)
        self.file_edit.setAccessibleName("Question file")
        choose = QPushButton("Choose…", self)
        choose.clicked.connect(self.choose_file)
        self.run_btn = QPushButton("Run", self)
        self.run_btn.setDefault(True)
        self.run_btn.clicked.connect(self.run)
        self.cancel_btn = QPushButton("Cancel", self)
        self.cancel_btn.setEnabled(False)
        self.cancel_btn.clicked.connect(self.cancel)
        top = QHBoxLayout()
        top.addWidget(QLabel("Questions:", self))
        top.addWidget(self.file_edit, 1)
        for b in (choose, self.run_btn, self.cancel_btn):
            top.addWidget(b)
        self.progress = QProgressBar(self)
        self.progress.setVisible(False)
        self.summary = QLabel("Run the questions to see how search does on them.", self)
        self.summary.setObjectName("retrievalSummary")
        font = self.summary.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.summary.setFont(font)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("retrievalTable")
        self.table.setAccessibleName("Retrieval test results")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QUERY, QHeaderView.ResizeMode.Stretch)
        for col, w in ((ID, 70), (R1, 48), (RANK, 48), (BOX, 44), (EXPECTED, 170), (FOUND, 170)):
            self.table.setColumnWidth(col, w)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.cellDoubleClicked.connect(lambda row, _c: self.show_expected(row))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.expected_btn = QPushButton("Show expected page", self)
        self.expected_btn.clicked.connect(lambda: self.show_expected(self._row()))
        self.found_btn = QPushButton("Show what was found", self)
        self.found_btn.clicked.connect(lambda: self.show_found(self._row()))
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        self.hint = QLabel("Double-click a row to open its expected page.", self)
        self.hint.setObjectName("retrievalHint")
        bottom = QHBoxLayout()
        bottom.addWidget(self.expected_btn)
        bottom.addWidget(self.found_btn)
        bottom.addWidget(self.hint, 1)
        bottom.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(top)
        lay.addWidget(self.progress)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        lay.addLayout(bottom)
        self._update_buttons()

    # ---- file and run -------------------------------------------------------------------
    def choose_file(self) -> None:
        """Pick a question file (it becomes the current test file for recording too)."""
        start = self.file_edit.text().strip() or str(self.recorder.default_file())
        name, _ = QFileDialog.getOpenFileName(self, "Question file", start, "Question files (*.jsonl);;All files (*)")
        if name:
            self.file_edit.setText(name)
            self.recorder.set_test_file(name)

    def run(self, path: str | None = None):
        """Run the question file (the one shown, or `path`) on the engine thread; returns the job."""
        if path is not None:
            self.file_edit.setText(str(path))
        text = self.file_edit.text().strip()
        if not text:
            self.summary.setText("Choose a question file first.")
            return None
        self.cancel()
        self.recorder.set_test_file(text)
        job = self._submit("retrieval test", eval_job(text), interactive=True)
        if job is None:
            return None
        self.job = job
        self.run_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.summary.setText("Running…")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._on_finished)
        job.failed.connect(self._on_failed)
        job.cancelled.connect(lambda: self._done("Cancelled."))
        return job

    def cancel(self) -> None:
        """Stop the run in progress, if any."""
        if self.job is not None and self.job.state in ("queued", "running"):
            self.job.cancel()

    def _on_progress(self, ev) -> None:
        if getattr(ev, "stage", "") == "eval" and ev.total:
            self.progress.setRange(0, ev.total)
            self.progress.setValue(ev.done)
            self.progress.setFormat("%v / %m questions")

    def _on_finished(self, report: EvalReport) -> None:
        self._done(summary_text(report))
        self.set_report(report)
        self.reportReady.emit(report)

    def _on_failed(self, exc: BaseException) -> None:
        from .error_report import describe

        self._done(f"The questions could not be run: {describe(exc)}")

    def _done(self, text: str) -> None:
        self.job = None
        self.run_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)
        self.progress.setVisible(False)
        self.summary.setText(text)

    # ---- the table ----------------------------------------------------------------------
    def set_report(self, report: EvalReport) -> None:
        """Fill the table from a finished run (misses coloured, unscored rows grey)."""
        self.report = report
        self.table.setRowCount(len(report.results))
        for row, r in enumerate(report.results):
            q = r.question
            if r.scored:
                cells = [q.id, "hit" if r.hit_at_1 else "miss", str(r.rank) if r.rank else f">{report.k}",
                         "–" if r.box_hit is None else ("yes" if r.box_hit else "no")]
                found = f"{r.found.doc} p. {r.found.page}" if r.found else "nothing"
            else:
                cells = [q.id, "–", "–", "–"]
                found = r.message
            cells += [q.query, q.describe_expected(), found if (r.missed or not r.scored) else "✓ " + found]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(self._tooltip(r))
                if col in (R1, RANK, BOX):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if not r.scored:
                    item.setForeground(QBrush(GREY))
                    font = QFont(item.font())
                    font.setItalic(True)
                    item.setFont(font)
                elif r.missed:
                    item.setBackground(QBrush(MISS_BG))
                    item.setForeground(QBrush(MISS_FG))
                elif col == R1:
                    item.setForeground(QBrush(HIT_FG))
                self.table.setItem(row, col, item)
        self.table.resizeColumnToContents(ID)
        self._update_buttons()

    @staticmethod
    def _tooltip(r: QuestionResult) -> str:
        lines = [r.question.query, f"expected: {r.question.describe_expected()}"]
        if r.message:
            lines.append(r.message)
        for i, h in enumerate(r.hits, start=1):
            lines.append(f"{i}. {h.doc} p. {h.page}: {' '.join(h.text.split())[:90]}")
        return "\n".join(lines)

    def _row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def _result(self, row: int) -> QuestionResult | None:
        if self.report is None or not 0 <= row < len(self.report.results):
            return None
        return self.report.results[row]

    def _update_buttons(self) -> None:
        r = self._result(self._row())
        self.expected_btn.setEnabled(r is not None and expected_item(r) is not None)
        self.found_btn.setEnabled(r is not None and bool(r.hits))

    def show_expected(self, row: int) -> bool:
        """Open the expected page of question `row` (its region highlighted); F3 then steps to
        what search found in the same document. Returns False when it cannot be shown."""
        r = self._result(row)
        item = expected_item(r) if r is not None else None
        if item is None:
            if r is not None:
                self.summary.setText(f"{r.question.id}: {r.message or 'the expected document is not in the library'}")
            return False
        shown = bool(self._show(item, [item, *found_items(r)]))
        if shown:
            self.hint.setText(f"Viewer: the expected page of {r.question.id}"
                              + (" and its region" if item.boxes else "") + "; Hit ↓ (F3) steps to what search found.")
        return shown

    def show_found(self, row: int) -> bool:
        """Open what search ranked first for question `row`, highlighted as in a search result."""
        r = self._result(row)
        items = found_items(r) if r is not None else []
        if not items:
            return False
        shown = bool(self._show(items[0], items))
        if shown:
            self.hint.setText(f"Viewer: what search ranked first for {r.question.id}; Hit ↓ (F3) steps to the next hits.")
        return shown

    def _menu(self, pos: QPoint) -> None:
        row = self.table.rowAt(pos.y())
        r = self._result(row)
        if r is None:
            return
        menu = QMenu(self.table)
        exp = menu.addAction("Show expected page")
        exp.setEnabled(expected_item(r) is not None)
        found = menu.addAction("Show what was found")
        found.setEnabled(bool(r.hits))
        chosen = menu.exec(self.table.viewport().mapToGlobal(pos))
        if chosen is exp:
            self.show_expected(row)
        elif chosen is found:
            self.show_found(row)

    def closeEvent(self, e) -> None:  # noqa: N802 (Qt API)
        self.cancel()
        super().closeEvent(e)
