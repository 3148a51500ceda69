"""The answer pane: streaming answer text with clickable [n] chips, and a sources list."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QModelIndex, Qt, QTimer, QUrl, Signal
from PySide6.QtWidgets import QLabel, QListView, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from .hits_model import HitsModel, ItemRole
from .results import ResultItem

_CITE = re.compile(r"\[(\d{1,3})\]")


def render_answer_html(text: str, turn: int, valid: set[int]) -> str:
    """Escape `text` and turn [n] into `cite:turn:n` anchors for ids in `valid`."""
    out, pos = [], 0
    for m in _CITE.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        n = int(m.group(1))
        if n in valid:
            out.append(f'<a class="chip" href="cite:{turn}:{n}" style="background-color:#ffe08a;'
                       f'color:#5a3b00;text-decoration:none;font-weight:600">&nbsp;{n}&nbsp;</a>')
        else:
            out.append(html.escape(m.group(0)))
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out).replace("\n", "<br>")


class AnswerPane(QWidget):
    """Shows the conversation; `citationActivated(item, siblings)` fires on a chip or source click."""

    citationActivated = Signal(object, object)  # noqa: N815 (Qt naming) ResultItem, list[ResultItem]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turns: list[dict] = []  # {question, answer, mode, sources: [ResultItem], status}
        self.text = QTextBrowser(self)
        self.text.setObjectName("answerText")
        self.text.setOpenLinks(False)
        self.text.setAccessibleName("Answer")
        self.text.anchorClicked.connect(self._on_anchor)
        self.text.setPlaceholderText("Answers and search results appear here. Drop manuals on the window to start.")
        self.sources_label = QLabel("Sources", self)
        self.sources_label.setObjectName("sourcesLabel")
        self.sources = HitsModel(self)
        self.sources_view = QListView(self)
        self.sources_view.setObjectName("sourcesList")
        self.sources_view.setAccessibleName("Sources")
        self.sources_view.setModel(self.sources)
        self.sources_view.setWordWrap(True)
        self.sources_view.setUniformItemSizes(False)
        self.sources_view.setIconSize(HitsModel.THUMB)
        self.sources_view.setAlternatingRowColors(True)
        self.sources_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.sources_view.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.sources_view.activated.connect(self._on_source)
        self.sources_view.clicked.connect(self._on_source)
        lower = QWidget(self)
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.sources_label)
        ll.addWidget(self.sources_view)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("answerSplitter")
        self.splitter.addWidget(self.text)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([300, 220])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.splitter)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(40)
        self._render_timer.timeout.connect(self.render)

    # ---- conversation -------------------------------------------------------------
    def start_turn(self, question: str, mode: str) -> None:
        """Begin a new turn (answer or search) and clear the sources list."""
        self.turns.append({"question": question, "answer": "", "mode": mode, "sources": [],
                           "status": "Searching…" if mode == "search" else "Thinking…"})
        self.sources.set_items([])
        self.sources_label.setText("Results" if mode == "search" else "Sources")
        self.render()

    def append_token(self, text: str) -> None:
        """Append streamed answer text (rendering is batched every ~40 ms)."""
        t = self.turns[-1]
        t["answer"] += text
        t["status"] = ""
        if not self._render_timer.isActive():
            self._render_timer.start()

    def add_source(self, item: ResultItem) -> None:
        """Add a cited source to the current turn and the list."""
        t = self.turns[-1]
        t["sources"] = [s for s in t["sources"] if s.number != item.number] + [item]
        self.sources.append(item)
        if not self._render_timer.isActive():
            self._render_timer.start()

    def set_results(self, items: list[ResultItem], query: str) -> None:
        """Show ranked search hits for the current (search) turn."""
        t = self.turns[-1]
        t["sources"] = list(items)
        t["answer"] = (f"{len(items)} result{'s' if len(items) != 1 else ''} for “{query}”. "
                       "Click one to see it on its page." if items else f"No results for “{query}”.")
        t["status"] = ""
        self.sources.set_items(items)
        self.render()

    def set_status(self, text: str) -> None:
        if self.turns:
            self.turns[-1]["status"] = text
            self.render()

    def finish(self, answer: dict | None) -> None:
        """Close the current turn with the engine's final answer dict (text replaced when given)."""
        if not self.turns:
            return
        t = self.turns[-1]
        if answer:
            if answer.get("answer"):
                t["answer"] = answer["answer"]
            t["insufficient_evidence"] = bool(answer.get("insufficient_evidence"))
            t["confidence"] = answer.get("confidence")
            t["removed_citations"] = answer.get("removed_citations") or []
            t["extractive"] = bool(answer.get("extractive")) or answer.get("mode") == "extractive"
            t["notices"] = list(dict.fromkeys(t.get("notices", []) + list(answer.get("notices") or [])))
        t["status"] = ""
        self._render_timer.stop()
        self.render()

    def add_notice(self, text: str) -> None:
        """Show a note under the current turn (e.g. why the answer is extractive)."""
        if self.turns and text and text not in self.turns[-1].setdefault("notices", []):
            self.turns[-1]["notices"].append(text)
            self.render()

    def fail(self, message: str) -> None:
        if self.turns:
            self.turns[-1]["status"] = ""
            self.turns[-1]["error"] = message
            self.render()

    def clear(self) -> None:
        self.turns = []
        self.sources.set_items([])
        self.render()

    def load_turns(self, turns: list[dict]) -> None:
        """Show a saved conversation (the last turn's sources go to the list)."""
        self.turns = list(turns)
        self.sources.set_items(self.turns[-1]["sources"] if self.turns else [])
        self.render()

    # ---- rendering ----------------------------------------------------------------
    def render(self) -> None:
        parts = []
        for i, t in enumerate(self.turns):
            q = html.escape(t["question"])
            label = "Search" if t.get("mode") == "search" else "Q"
            parts.append(f'<p style="margin-top:10px"><a name="turn{i}"></a><b>{label}:</b> {q}</p>')
            valid = {s.number for s in t.get("sources", [])}
            body = render_answer_html(t.get("answer", ""), i, valid) if t.get("mode") != "search" else \
                html.escape(t.get("answer", ""))
            if t.get("extractive") and t.get("answer"):
                parts.append('<p style="color:#777"><i>Extractive answer: the best matching '
                             "sentences from your manuals, cited.</i></p>")
            for note in t.get("notices", []):
                parts.append(f'<p style="color:#777"><i>{html.escape(note)}</i></p>')
            if t.get("insufficient_evidence"):
                parts.append('<p style="color:#a15c00"><b>The manuals may not cover this.</b></p>')
            parts.append(f"<p>{body}</p>")
            if t.get("removed_citations"):
                parts.append(f'<p style="color:#777">Removed invalid citations: '
                             f'{html.escape(str(t["removed_citations"]))}</p>')
            if t.get("status"):
                parts.append(f'<p style="color:#777"><i>{html.escape(t["status"])}</i></p>')
            if t.get("error"):
                parts.append(f'<p style="color:#c62828">{html.escape(t["error"])}</p>')
        self.text.setHtml("".join(parts))
        busy = bool(self.turns and self.turns[-1].get("status"))
        if self.turns and not busy:  # a finished turn: show it from its question on
            self.text.scrollToAnchor(f"turn{len(self.turns) - 1}")
        else:  # streaming: follow the text
            sb = self.text.verticalScrollBar()
            sb.setValue(sb.maximum())

    # ---- clicks -------------------------------------------------------------------
    def _on_anchor(self, url: QUrl) -> None:
        s = url.toString()
        if not s.startswith("cite:"):
            return
        _, turn, num = s.split(":")
        self.activate_citation(int(turn), int(num))

    def activate_citation(self, turn: int, number: int) -> bool:
        """Emit citationActivated for source `number` of `turn`; returns False if it has none."""
        if not 0 <= turn < len(self.turns):
            return False
        sources = self.turns[turn].get("sources", [])
        item = next((s for s in sources if s.number == number), None)
        if item is None:
            return False
        if turn != len(self.turns) - 1 or self.sources.items != sources:
            self.sources.set_items(sources)
        self.citationActivated.emit(item, sources)
        return True

    def _on_source(self, index: QModelIndex) -> None:
        item = index.data(ItemRole)
        if item is not None:
            self.citationActivated.emit(item, list(self.sources.items))
