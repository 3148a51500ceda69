"""The answer pane: streaming answer text with clickable [n] chips, per-sentence check marks
(what the engine could not find in the manuals is marked), and a sources list."""

from __future__ import annotations

import html
import re
from functools import lru_cache

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QPointF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QCursor, QTextCursor
from PySide6.QtWidgets import QLabel, QListView, QSplitter, QTextBrowser, QToolTip, QVBoxLayout, QWidget

from .hits_model import HitsModel, ItemRole
from .results import ResultItem

# what the engine puts after a quoted bracket's "[" so that "[3]" in a manual is no citation chip
# (engine/answer/evidence.py, neutralise): invisible on screen, left out of what is copied
WORD_JOINER = "\u2060"


class _AnswerText(QTextBrowser):
    """The answer's text. A copy leaves out the invisible word joiners of quoted brackets: what is
    pasted is the manual's "[0; 3]"."""

    def createMimeDataFromSelection(self):  # noqa: N802 (Qt naming)
        data = super().createMimeDataFromSelection()
        data.setText(data.text().replace(WORD_JOINER, ""))
        if data.hasHtml():
            data.setHtml(data.html().replace(WORD_JOINER, ""))
        return data


_CITE = re.compile(r"\[(\d{1,3})\]")
CHIP_STYLE = "background-color:#ffe08a;color:#5a3b00;text-decoration:none;font-weight:600"
UNCHECKED_STYLE = "color:#7b7b7b"  # a claim the engine did not find in the manuals
BADGE_STYLE = "background-color:#7b7b7b;color:#ffffff;text-decoration:none;font-weight:700"
MISSING_STYLE = "background-color:#fde0dd;color:#b3261e;text-decoration:none;font-weight:600"
PENDING_STYLE = "color:#a3a3a3"  # streamed, not checked yet
NOTE_STYLE = "color:#777"
LINK_STYLE = "color:#4a78b5"
# grey that reads on both the light and the dark theme
MODEL_BLOCK_STYLE = "background-color:rgba(128,128,128,38);margin-top:2px;margin-bottom:6px"
UNCHECKED_TIP = "Not found in the cited pages"
NOT_CHECKED_TIP = "Not checked against the manuals"
MISSING_TIP = "appears in none of the evidence"
SHOW_MODEL = "Show the model's own answer (not backed by the manuals)"
HIDE_MODEL = "Hide the model's own answer"
EXPORT_LINK = "Export for an expert…"
EXPORT_TIP = "Save this answer with its cited page images as one file an expert can open offline"


def _chip(turn: int, n: int) -> str:
    return f'<a class="chip" href="cite:{turn}:{n}" style="{CHIP_STYLE}">&nbsp;{n}&nbsp;</a>'


def _br(s: str) -> str:
    return s.replace("\n", "<br>")


@lru_cache(maxsize=512)
def _missing_pattern(text: str, missing: tuple[str, ...]) -> re.Pattern | None:
    """One regex for the `missing` strings: whole tokens where they occur as such in `text`
    ("5" not inside "15" or "5.5"), else anywhere, longest first."""
    alts = []
    for m in sorted(set(missing), key=len, reverse=True):
        token = rf"(?<![\w.]){re.escape(m)}(?![\w]|\.\d)"
        alts.append(token if re.search(token, text) else re.escape(m))
    return re.compile("|".join(alts)) if alts else None


def _plain_html(text: str, missing: re.Pattern | None, href_of: dict[str, str]) -> str:
    """Escape `text`; every `missing` match becomes a red "?" anchor (never plain text)."""
    if missing is None:
        return html.escape(text)
    out, pos = [], 0
    for m in missing.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        out.append(f'<a href="{href_of[m.group(0)]}" style="{MISSING_STYLE}">{html.escape(m.group(0))}?</a>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _inline_html(text: str, turn: int, valid: set[int], missing: re.Pattern | None = None,
                 href_of: dict[str, str] | None = None) -> str:
    """Escape `text`, [n] -> chip for ids in `valid`, `missing` strings marked (outside the chips)."""
    out, pos = [], 0
    for m in _CITE.finditer(text):
        out.append(_plain_html(text[pos:m.start()], missing, href_of or {}))
        n = int(m.group(1))
        out.append(_chip(turn, n) if n in valid else html.escape(m.group(0)))
        pos = m.end()
    out.append(_plain_html(text[pos:], missing, href_of or {}))
    return "".join(out)


def render_answer_html(text: str, turn: int, valid: set[int]) -> str:
    """Escape `text` and turn [n] into `cite:turn:n` anchors for ids in `valid`."""
    return _br(_inline_html(text, turn, valid))


def _placed(text: str, sentences: list[dict]) -> list[tuple[int, int, int, dict]]:
    """(index, start, end, sentence) for each sentence found in `text`, in order, not overlapping.
    The engine's offsets are used when they point at the sentence's text; else it is searched for
    after the previous one; a sentence not found is left out (its text then shows as not checked)."""
    out, pos = [], 0
    for i, s in enumerate(sentences):
        st, a, b = s.get("text") or "", s.get("start"), s.get("end")
        if not (isinstance(a, int) and isinstance(b, int) and pos <= a <= b <= len(text) and text[a:b] == st):
            if not st.strip():
                continue
            a = text.find(st, pos)
            if a < 0:
                continue
            b = a + len(st)
        if b > a:
            out.append((i, a, b, s))
            pos = b
    return out


def unchecked_tooltip(sentence: dict) -> str:
    """The tooltip of a sentence the engine did not find in the manuals: the verdict and its reason."""
    reason = str(sentence.get("reason") or "").strip()
    return f"{UNCHECKED_TIP}\n{reason}" if reason else UNCHECKED_TIP


def missing_tooltip(value: str) -> str:
    """The tooltip of a value (number, identifier) that occurs in no evidence block."""
    return f"“{value}” {MISSING_TIP}"


def _is_claim(s: dict) -> bool:
    return bool(s.get("claim", True) or s.get("quote"))


def checked_counts(turn: dict) -> tuple[int, int]:
    """(supported claims, claims) of a turn: the engine's `checked` when given, else counted."""
    c = turn.get("checked")
    if isinstance(c, dict) and isinstance(c.get("claims"), int):
        return int(c.get("supported") or 0), int(c["claims"])
    claims = [s for s in turn.get("sentences") or [] if _is_claim(s)]
    return sum(bool(s.get("supported")) for s in claims), len(claims)


def checked_summary(turn: dict) -> str:
    """ "n of m sentences checked against the manuals" ("" when the turn has no claims)."""
    n, m = checked_counts(turn)
    return f"{n} of {m} sentence{'s' if m != 1 else ''} checked against the manuals" if m else ""


def render_checked_html(text: str, turn: int, valid: set[int], sentences: list[dict], *,
                        pending: bool = False, tips: dict[str, str] | None = None) -> str:
    """Render an answer sentence by sentence (the engine's per-sentence check).

    Supported sentences and lead-ins render as plain cited text; an unsupported claim is grey,
    preceded by a "?" badge (`unchecked:TURN:INDEX`); every string of a sentence's `missing` list
    is marked red with a "?" (`missing:TURN:INDEX:J`). Text no sentence covers is the streamed,
    not yet checked tail when `pending` (light grey), else it is marked as not checked
    (`unchecked:TURN:rK`). `tips` receives each mark's href -> tooltip text.
    """
    tips = {} if tips is None else tips
    out, pos = [], 0

    def gap(seg: str, k: int) -> None:
        body = seg.lstrip()
        out.append(html.escape(seg[:len(seg) - len(body)]))
        if not body.strip():
            out.append(html.escape(body))
        elif pending:
            out.append(f'<span style="{PENDING_STYLE}">{_inline_html(body, turn, valid)}</span>')
        else:
            href = f"unchecked:{turn}:r{k}"
            tips[href] = NOT_CHECKED_TIP
            out.append(_badge(href) + f'<span title="{html.escape(NOT_CHECKED_TIP)}" style="{UNCHECKED_STYLE}">'
                       f"{_inline_html(body, turn, valid)}</span>")

    placed = _placed(text, sentences)
    for k, (i, a, b, s) in enumerate(placed):
        gap(text[pos:a], k)
        seg = text[a:b]
        body = seg.lstrip()
        out.append(html.escape(seg[:len(seg) - len(body)]))
        missing = tuple(m for m in s.get("missing") or [] if isinstance(m, str) and m.strip() and m in body)
        href_of = {}
        for j, m in enumerate(missing):
            href_of[m] = f"missing:{turn}:{i}:{j}"
            tips[href_of[m]] = missing_tooltip(m)
        inner = _inline_html(body, turn, valid, _missing_pattern(body, missing), href_of)
        if s.get("supported") or not _is_claim(s):
            out.append(inner)
        else:
            href = f"unchecked:{turn}:{i}"
            tips[href] = tip = unchecked_tooltip(s)
            out.append(_badge(href) + f'<span title="{html.escape(tip)}" style="{UNCHECKED_STYLE}">{inner}</span>')
        pos = b
    gap(text[pos:], len(placed))
    return _br("".join(out))


def _badge(href: str) -> str:
    return f'<a href="{href}" style="{BADGE_STYLE}">&nbsp;?&nbsp;</a>&nbsp;'


class AnswerPane(QWidget):
    """Shows the conversation; `citationActivated(item, siblings)` fires on a chip or source click.

    A turn is a dict: question, answer, mode, sources ([ResultItem]), status, and for checked
    answers `checking` (its text is subject to the engine's sentence check), `streaming`,
    `sentences` (the engine's per-sentence verdicts), `checked`, `model_answer`.
    """

    citationActivated = Signal(object, object)  # noqa: N815 (Qt naming) ResultItem, list[ResultItem]
    exportRequested = Signal(int)  # noqa: N815 (Qt naming) the turn whose answer to export (ui/expert_export.py)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turns: list[dict] = []
        self._tips: dict[str, str] = {}  # href of a mark -> its tooltip, rebuilt by render()
        self.text = _AnswerText(self)
        self.text.setObjectName("answerText")
        self.text.setOpenLinks(False)
        self.text.setAccessibleName("Answer")
        self.text.anchorClicked.connect(self._on_anchor)
        self.text.viewport().installEventFilter(self)
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
        answering = mode != "search"
        self.turns.append({"question": question, "answer": "", "mode": mode, "sources": [],
                           "status": "Thinking…" if answering else "Searching…",
                           "checking": answering, "streaming": answering})
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

    def add_sentence(self, sentence: dict) -> None:
        """Mark a streamed sentence as checked (the engine's verdict; offsets into the text so far)."""
        if not self.turns or not isinstance(sentence, dict):
            return
        t = self.turns[-1]
        key = (sentence.get("start"), sentence.get("end"), sentence.get("text"))
        # kept in arrival (answer) order; a sentence sent again replaces its first verdict
        sents = [s for s in t.get("sentences") or [] if (s.get("start"), s.get("end"), s.get("text")) != key]
        t["sentences"], t["checking"] = sents + [dict(sentence)], True
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
            self._take_checks(t, answer)
            if t.get("mode") != "search" and isinstance(answer.get("answer"), str):
                t["result"] = dict(answer)  # the engine's answer object, kept for "Export for an expert…"
        t["status"], t["streaming"] = "", False
        self._render_timer.stop()
        self.render()

    @staticmethod
    def _take_checks(t: dict, answer: dict) -> None:
        """Adopt the final answer's sentence verdicts (they replace the streamed ones: a fallback
        may have replaced the text); an answer without them renders as before the check existed."""
        sents = answer.get("sentences")
        for key in ("sentences", "checked", "model_answer"):
            t.pop(key, None)
        t["checking"] = bool(isinstance(sents, list) and sents)
        if t["checking"]:
            t["sentences"] = [dict(s) for s in sents if isinstance(s, dict)]
            if isinstance(answer.get("checked"), dict):
                t["checked"] = dict(answer["checked"])
        model_answer = (answer.get("stats") or {}).get("model_answer")
        if isinstance(model_answer, str) and model_answer.strip():
            t["model_answer"] = model_answer

    def exportable_turn(self) -> int | None:
        """The latest turn that holds a finished answer to export, or None."""
        return next((i for i in range(len(self.turns) - 1, -1, -1) if self.turns[i].get("result")), None)

    def toggle_model_answer(self, turn: int) -> None:
        """Show or hide the model's own (replaced, unbacked) answer under `turn`'s answer."""
        if 0 <= turn < len(self.turns) and self.turns[turn].get("model_answer"):
            t = self.turns[turn]
            t["show_model_answer"] = not t.get("show_model_answer")
            self.render(keep_scroll=True)

    def add_notice(self, text: str) -> None:
        """Show a note under the current turn (e.g. why the answer is extractive)."""
        if self.turns and text and text not in self.turns[-1].setdefault("notices", []):
            self.turns[-1]["notices"].append(text)
            self.render()

    def fail(self, message: str) -> None:
        if self.turns:
            self.turns[-1]["status"], self.turns[-1]["streaming"] = "", False
            self.turns[-1]["error"] = message
            self.render()

    def clear(self) -> None:
        self.turns = []
        self.sources.set_items([])
        self.render()

    def load_turns(self, turns: list[dict]) -> None:
        """Show a saved conversation (the last turn's sources go to the list)."""
        self.turns = [{**t, "streaming": False} for t in turns]
        self.sources.set_items(self.turns[-1]["sources"] if self.turns else [])
        self.render()

    # ---- rendering ----------------------------------------------------------------
    def render(self, keep_scroll: bool = False) -> None:
        """Rebuild the conversation's HTML (called at most every ~40 ms while streaming)."""
        parts: list[str] = []
        self._tips = tips = {}
        for i, t in enumerate(self.turns):
            q = html.escape(t["question"])
            label = "Search" if t.get("mode") == "search" else "Q"
            parts.append(f'<p style="margin-top:10px"><a name="turn{i}"></a><b>{label}:</b> {q}</p>')
            valid = {s.number for s in t.get("sources", [])}
            answer = t.get("answer", "")
            if t.get("mode") == "search":
                body = html.escape(answer)
            elif t.get("checking"):
                body = render_checked_html(answer, i, valid, t.get("sentences") or [],
                                           pending=bool(t.get("streaming")), tips=tips)
            else:
                body = render_answer_html(answer, i, valid)
            if t.get("extractive") and answer:
                parts.append(f'<p style="{NOTE_STYLE}"><i>Extractive answer: the best matching '
                             "sentences from your manuals, cited.</i></p>")
            for note in t.get("notices", []):
                parts.append(f'<p style="{NOTE_STYLE}"><i>{html.escape(note)}</i></p>')
            if t.get("insufficient_evidence"):
                parts.append('<p style="color:#a15c00"><b>The manuals may not cover this.</b></p>')
            parts.append(f"<p>{body}</p>")
            parts.extend(self._check_lines(i, t))
            if t.get("removed_citations"):
                parts.append(f'<p style="{NOTE_STYLE}">Removed invalid citations: '
                             f'{html.escape(str(t["removed_citations"]))}</p>')
            if t.get("status"):
                parts.append(f'<p style="{NOTE_STYLE}"><i>{html.escape(t["status"])}</i></p>')
            if t.get("error"):
                parts.append(f'<p style="color:#c62828">{html.escape(t["error"])}</p>')
        sb = self.text.verticalScrollBar()
        before = sb.value()
        self.text.setHtml("".join(parts))
        busy = bool(self.turns and self.turns[-1].get("status"))
        if keep_scroll:
            sb.setValue(before)
        elif self.turns and not busy:  # a finished turn: show it from its question on
            self.text.scrollToAnchor(f"turn{len(self.turns) - 1}")
        else:  # streaming: follow the text
            sb.setValue(sb.maximum())

    @staticmethod
    def _check_lines(i: int, t: dict) -> list[str]:
        """The lines under a checked answer: progress or summary, and the model's own answer."""
        out = []
        if t.get("streaming") and t.get("checking") and t.get("answer") and not t.get("status"):
            out.append(f'<p style="{NOTE_STYLE}"><i>Checking against the manuals…</i></p>')
        elif t.get("checking") and (summary := checked_summary(t)):
            out.append(f'<p style="{NOTE_STYLE};font-size:small">{summary}</p>')
        if t.get("model_answer"):
            shown = bool(t.get("show_model_answer"))
            out.append(f'<p style="font-size:small"><a href="modelanswer:{i}" style="{LINK_STYLE}">'
                       f"{HIDE_MODEL if shown else SHOW_MODEL}</a></p>")
            if shown:
                out.append('<table width="100%" cellpadding="8" cellspacing="0" '
                           f'style="{MODEL_BLOCK_STYLE}"><tr>'
                           '<td style="color:#7f7f7f"><i>The model\'s own answer, not backed by the manuals:</i>'
                           f'<br>{_br(html.escape(t["model_answer"]))}</td></tr></table>')
        if t.get("result") and not t.get("streaming"):
            out.append(f'<p style="font-size:small"><a href="export:{i}" title="{html.escape(EXPORT_TIP)}" '
                       f'style="{LINK_STYLE}">{EXPORT_LINK}</a></p>')
        return out

    # ---- tooltips -----------------------------------------------------------------
    def tooltip_for_anchor(self, href: str) -> str:
        """The tooltip text of a mark (unchecked sentence, missing value) or a chip; "" for none."""
        if href in self._tips:
            return self._tips[href]
        if href.startswith("cite:"):
            try:
                _, turn, num = href.split(":")
                t = self.turns[int(turn)]
            except (ValueError, IndexError):
                return ""
            item = next((s for s in t.get("sources", []) if s.number == int(num)), None)
            return f"[{item.number}] {item.doc}, page {item.page}" if item else ""
        return ""

    def tooltip_at(self, pos: QPoint) -> str:
        """The tooltip for viewport position `pos`: a mark or chip under it, else the unchecked
        sentence under it (its span's title), else ""."""
        href = self.text.anchorAt(pos)
        if href and (tip := self.tooltip_for_anchor(href)):
            return tip
        doc = self.text.document()
        offset = QPointF(self.text.horizontalScrollBar().value(), self.text.verticalScrollBar().value())
        hit = doc.documentLayout().hitTest(QPointF(pos) + offset, Qt.HitTestAccuracy.ExactHit)
        if hit < 0:
            return ""
        cur = QTextCursor(doc)
        cur.setPosition(hit)
        cur.movePosition(QTextCursor.MoveOperation.NextCharacter)  # charFormat() is the char before
        return cur.charFormat().toolTip()

    def _show_tip(self, global_pos: QPoint, tip: str) -> None:
        head, _, rest = tip.partition("\n")
        rich = f"<nobr><b>{html.escape(head)}</b></nobr>" + (f"<br>{html.escape(rest)}" if rest else "")
        QToolTip.showText(global_pos, rich, self.text.viewport())

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if obj is self.text.viewport() and ev.type() == QEvent.Type.ToolTip:
            tip = self.tooltip_at(ev.pos())
            if tip:
                self._show_tip(ev.globalPos(), tip)
            else:
                QToolTip.hideText()
                ev.ignore()
            return True
        return super().eventFilter(obj, ev)

    # ---- clicks -------------------------------------------------------------------
    def _on_anchor(self, url: QUrl) -> None:
        s = url.toString()
        if s.startswith("modelanswer:"):
            self.toggle_model_answer(int(s.split(":")[1]))
        elif s.startswith("export:"):
            self.exportRequested.emit(int(s.split(":")[1]))
        elif s.startswith("cite:"):
            _, turn, num = s.split(":")
            self.activate_citation(int(turn), int(num))
        elif s in self._tips:  # a mark: clicking shows what hovering shows
            self._show_tip(QCursor.pos(), self._tips[s])

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
