"""The answer pane's per-sentence marks: what the engine could not find in the manuals is shown
as such (grey, a "?" badge with a tooltip, missing values in red), real widgets, offscreen."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QEvent, QPoint, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QColor, QHelpEvent, QTextCursor  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolTip  # noqa: E402

from mmrag_desktop.engine import answer as engine_answer  # noqa: E402
from mmrag_desktop.engine.answer.events import (  # noqa: E402
    Answer,
    Citation,
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    NoticeEvent,
    SentenceEvent,
    StatusEvent,
    TokenEvent,
)
from mmrag_desktop.engine.errors import ModelError  # noqa: E402
from mmrag_desktop.engine.jobs import CancelToken  # noqa: E402
from mmrag_desktop.ui import results  # noqa: E402
from mmrag_desktop.ui.answer_pane import (  # noqa: E402
    BADGE_STYLE,
    MISSING_STYLE,
    PENDING_STYLE,
    SHOW_MODEL,
    UNCHECKED_STYLE,
    AnswerPane,
    render_checked_html,
)
from mmrag_desktop.ui.conversation_store import load_conversation, save_conversation  # noqa: E402
from mmrag_desktop.ui.main_window import MainWindow  # noqa: E402
from mmrag_desktop.ui.results import ResultItem  # noqa: E402
from mmrag_desktop.ui.source_event import SourceEvent  # noqa: E402

QUESTION = "What does the programmer need?"
S0 = "The programmer needs 5 V [1]."
S1 = "It draws at most 7.2 A while erasing [2]."
TEXT = f"{S0} {S1}"
REASON = "7.2 does not occur in the cited lines."
MODEL_TEXT = "The programmer runs on 12 V from a wall plug [1]."


def _color(style: str, prop: str = "color") -> QColor:
    return QColor(re.search(rf"(?:^|;){prop}:(#[0-9a-f]{{6}})", style).group(1))


def sentence(text: str, full: str, *, supported: bool, cites: list[int], missing=(), reason="", claim=True):
    start = full.index(text)
    return {"text": text, "citations": cites, "supported": supported, "claim": claim, "quote": False,
            "support": {"id": cites[0], "chunk_id": 10 + cites[0], "text": "5 V supply", "score": 0.8}
            if supported else None,
            "missing": list(missing), "reason": reason, "start": start, "end": start + len(text)}


SENTENCES = [sentence(S0, TEXT, supported=True, cites=[1]),
             sentence(S1, TEXT, supported=False, cites=[2], missing=["7.2"], reason=REASON)]


def item(n: int) -> ResultItem:
    return ResultItem(number=n, doc="programmer.pdf", page=2 + n, bbox=(72.0, 100.0, 300.0, 112.0),
                      boxes=[(2 + n, (72.0, 100.0, 300.0, 112.0))], text="The programmer needs a 5 V supply.")


def final_answer(**over) -> dict:
    ans = {"answer": TEXT, "citations": [{"id": 1}, {"id": 2}], "insufficient_evidence": False,
           "confidence": 0.8, "removed_citations": [], "mode": "generative", "notices": [], "stats": {},
           "sentences": SENTENCES, "checked": {"supported": 1, "claims": 2}}
    ans.update(over)
    return ans


@pytest.fixture
def pane(qtbot):
    p = AnswerPane()
    qtbot.addWidget(p)
    p.resize(720, 520)
    p.splitter.setSizes([460, 60])
    p.show()
    qtbot.waitExposed(p)
    return p


def finished_turn(pane: AnswerPane, answer: dict | None = None) -> None:
    pane.start_turn(QUESTION, "answer")
    pane.add_source(item(1))
    pane.add_source(item(2))
    pane.append_token(TEXT)
    pane.finish(answer if answer is not None else final_answer())


def fragments(pane: AnswerPane):
    """(text, char format, document position) of every text fragment of the answer browser."""
    doc = pane.text.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            f = it.fragment()
            if f.isValid():
                yield f.text(), f.charFormat(), f.position()
            it += 1
        block = block.next()


def fragment_with(pane: AnswerPane, needle: str):
    found = [(t, fmt, pos) for t, fmt, pos in fragments(pane) if needle in t]
    assert found, f"{needle!r} not in {[t for t, _, _ in fragments(pane)]}"
    return found[0]


def anchor(pane: AnswerPane, href: str):
    found = [(t, fmt, pos) for t, fmt, pos in fragments(pane) if fmt.anchorHref() == href]
    assert found, f"no anchor {href}: {[f.anchorHref() for _, f, _ in fragments(pane)]}"
    return found[0]


def point_of(pane: AnswerPane, pos: int) -> QPoint:
    """Viewport point in the middle of the character at document position `pos`."""
    cur = QTextCursor(pane.text.document())
    cur.setPosition(pos)
    a = pane.text.cursorRect(cur)
    cur.setPosition(pos + 1)
    b = pane.text.cursorRect(cur)
    return QPoint((a.center().x() + b.center().x()) // 2, a.center().y())


def test_unsupported_sentence_is_marked_and_explained(pane):
    finished_turn(pane)
    plain = pane.text.toPlainText()
    assert "1 of 2 sentences checked against the manuals" in plain

    # the supported sentence reads as before: default colour, its chip is a citation anchor
    _, fmt0, _ = fragment_with(pane, "The programmer needs 5 V")
    assert fmt0.foreground().color() != _color(UNCHECKED_STYLE)
    assert anchor(pane, "cite:0:1")[0].strip() == "1"

    # the unsupported one is grey and preceded by a "?" badge that is an anchor
    _, fmt1, _ = fragment_with(pane, "It draws at most")
    assert fmt1.foreground().color() == _color(UNCHECKED_STYLE)
    badge_text, badge_fmt, badge_pos = anchor(pane, "unchecked:0:1")
    assert badge_text.strip() == "?" and badge_fmt.background().color() == _color(BADGE_STYLE, "background-color")
    assert plain.index("?") < plain.index("It draws at most")
    assert anchor(pane, "cite:0:2")  # its chip still works

    # the missing number never shows as plain text: only inside its red "?" mark
    assert re.search(r"7\.2(?!\?)", plain) is None and "7.2?" in plain
    miss_text, miss_fmt, miss_pos = anchor(pane, "missing:0:1:0")
    assert miss_text == "7.2?"
    assert miss_fmt.background().color() == _color(MISSING_STYLE, "background-color")
    assert miss_fmt.foreground().color() == _color(MISSING_STYLE)
    assert not any("7.2" in t and not f.anchorHref() for t, f, _ in fragments(pane))

    # tooltips: the badge, the missing value, the sentence itself; nothing on a backed sentence
    assert pane.tooltip_at(point_of(pane, badge_pos + 1)) == f"Not found in the cited pages\n{REASON}"
    assert pane.tooltip_at(point_of(pane, miss_pos + 1)) == "“7.2” appears in none of the evidence"
    _, _, s1_pos = fragment_with(pane, "It draws at most")
    assert pane.tooltip_at(point_of(pane, s1_pos + 3)).startswith("Not found in the cited pages")
    _, _, s0_pos = fragment_with(pane, "The programmer needs 5 V")
    assert pane.tooltip_at(point_of(pane, s0_pos + 3)) == ""


def test_hovering_the_badge_shows_the_tooltip(pane):
    finished_turn(pane)
    _, _, badge_pos = anchor(pane, "unchecked:0:1")
    vp = pane.text.viewport()
    at = point_of(pane, badge_pos + 1)
    QApplication.sendEvent(vp, QHelpEvent(QEvent.Type.ToolTip, at, vp.mapToGlobal(at)))
    assert "Not found in the cited pages" in QToolTip.text() and "does not occur" in QToolTip.text()
    QToolTip.hideText()


def test_model_answer_toggles_below_the_answer(pane):
    finished_turn(pane, final_answer(stats={"model_answer": MODEL_TEXT, "fallback_from": "generative"}))
    assert SHOW_MODEL in pane.text.toPlainText()
    assert "12 V from a wall plug" not in pane.text.toPlainText()

    pane.text.anchorClicked.emit(QUrl("modelanswer:0"))
    plain = pane.text.toPlainText()
    assert "12 V from a wall plug" in plain and "Hide the model's own answer" in plain
    assert plain.index(S0[:20]) < plain.index("12 V from a wall plug")
    _, fmt, _ = fragment_with(pane, "12 V from a wall plug")
    assert fmt.foreground().color().lightness() > 60 and not fmt.anchorHref()  # grey, no chip

    pane.text.anchorClicked.emit(QUrl("modelanswer:0"))
    assert "12 V from a wall plug" not in pane.text.toPlainText()
    assert SHOW_MODEL in pane.text.toPlainText()


def test_streamed_sentence_is_checked_while_the_tail_is_pending(pane, qtbot):
    pane.start_turn(QUESTION, "answer")
    pane.add_source(item(1))
    streamed = f"{S0} It draws at most"
    pane.append_token(streamed)
    qtbot.waitUntil(lambda: "It draws at most" in pane.text.toPlainText(), timeout=2000)
    # nothing checked yet: all of the streamed text is pending
    colours = {f.foreground().color().name() for t, f, _ in fragments(pane) if "needs 5 V" in t or "It draws" in t}
    assert colours == {_color(PENDING_STYLE).name()}

    pane.add_sentence(sentence(S0, streamed, supported=True, cites=[1]))
    qtbot.waitUntil(lambda: fragment_with(pane, "The programmer")[1].foreground().color() != _color(PENDING_STYLE),
                    timeout=2000)

    _, fmt0, _ = fragment_with(pane, "The programmer needs 5 V")
    _, tail, _ = fragment_with(pane, "It draws at most")
    assert tail.foreground().color() == _color(PENDING_STYLE)
    assert fmt0.foreground().color() != _color(PENDING_STYLE)
    assert not [f for _, f, _ in fragments(pane) if f.anchorHref().startswith("unchecked:")]
    assert "Checking against the manuals…" in pane.text.toPlainText()

    # the rest arrives and is checked: the pending style is gone, the marks come in
    pane.append_token(" 7.2 A while erasing [2].")
    pane.add_source(item(2))
    pane.add_sentence(sentence(S1, TEXT, supported=False, cites=[2], missing=["7.2"], reason=REASON))
    pane.render()
    assert anchor(pane, "unchecked:0:1")
    assert not [f for _, f, _ in fragments(pane) if f.foreground().color() == _color(PENDING_STYLE)]
    pane.finish(final_answer())
    assert "Checking against" not in pane.text.toPlainText()
    assert "1 of 2 sentences checked" in pane.text.toPlainText()


def test_stopped_stream_marks_the_unchecked_tail(pane):
    pane.start_turn(QUESTION, "answer")
    pane.add_source(item(1))
    streamed = f"{S0} It draws at most 9 A"
    pane.append_token(streamed)
    pane.add_sentence(sentence(S0, streamed, supported=True, cites=[1]))
    pane.fail("Stopped.")
    text, _, pos = anchor(pane, "unchecked:0:r1")
    assert text.strip() == "?"
    assert pane.tooltip_at(point_of(pane, pos + 1)) == "Not checked against the manuals"
    _, tail, _ = fragment_with(pane, "It draws at most")
    assert tail.foreground().color() == _color(UNCHECKED_STYLE)


def _engine_events(streamed: str) -> list:
    """What the engine's answer_events yields for a streamed answer, as its own event objects."""
    cite = Citation(id=1, chunk_id=11, doc="programmer.pdf", doc_id=1, page=3, bbox=(72.0, 100.0, 300.0, 112.0),
                    boxes=[(3, (72.0, 100.0, 300.0, 112.0))], doc_path="", text="The programmer needs a 5 V supply.")
    done = Answer(question=QUESTION, text=TEXT, mode="generative", citations=[cite])
    return [
        NoticeEvent(message="The answer model is small."),
        TokenEvent(text=streamed),
        CitationEvent(citation=cite),
        SentenceEvent(sentence=sentence(S0, streamed, supported=True, cites=[1])),
        TokenEvent(text="It draws at most"),
        DoneEvent(answer=done),
    ]


class FakeLibrary:
    """What answer_job reads from the library besides the answer events: documents and chunks."""

    def documents(self):
        return [SimpleNamespace(name="programmer.pdf", path="/manuals/programmer.pdf")]

    def chunk(self, chunk_id: int) -> dict:
        return {"text": "The programmer needs a 5 V supply.",
                "spans": [{"page": 3, "bbox": [72.0, 90.0, 520.0, 160.0]}]}


def run_job(job) -> tuple[list, dict]:
    """Run a job function as the engine thread does: its events, then its return value."""
    gen = job(FakeLibrary(), CancelToken())
    events = []
    while True:
        try:
            events.append(next(gen))
        except StopIteration as stop:
            return events, stop.value


def test_sentence_events_reach_the_pane_through_the_job(pane, monkeypatch):
    """answer_job forwards the engine's events (a citation resolved to the row the sources list
    shows); the window hands them to the pane."""
    streamed = f"{S0} "
    seen = {}

    def fake_answer_events(lib, question, **kw):
        seen.update(kw, question=question)
        return iter(_engine_events(streamed))

    monkeypatch.setattr(engine_answer, "answer_events", fake_answer_events)
    events, final = run_job(results.answer_job(QUESTION, mode="generative"))
    assert seen["question"] == QUESTION and seen["mode"] == "generative"
    sent = [e for e in events if isinstance(e, SentenceEvent)]
    assert len(sent) == 1 and sent[0].sentence["supported"] is True and sent[0].sentence["end"] == len(S0)
    sources = [e for e in events if isinstance(e, CitationEvent)]
    assert len(sources) == 1 and isinstance(sources[0], SourceEvent) and sources[0].kind == "citation"
    assert sources[0].citation.chunk_id == 11
    src = sources[0].item
    assert (src.number, src.doc, src.page, src.doc_path) == (1, "programmer.pdf", 3, "/manuals/programmer.pdf")
    assert src.boxes == [(3, (72.0, 100.0, 300.0, 112.0))] and src.context == [(3, (72.0, 90.0, 520.0, 160.0))]
    assert final["answer"] == TEXT and final["citations"][0]["id"] == 1

    pane.start_turn(QUESTION, "answer")
    window = SimpleNamespace(answer_pane=pane)
    for ev in events:
        MainWindow._on_answer_event(window, ev)
    pane.render()
    assert pane.turns[-1]["sentences"][0]["text"] == S0
    assert [s.number for s in pane.turns[-1]["sources"]] == [1]
    assert "The answer model is small." in pane.text.toPlainText()
    _, fmt0, _ = fragment_with(pane, "The programmer needs 5 V")
    _, tail, _ = fragment_with(pane, "It draws at most")
    assert tail.foreground().color() == _color(PENDING_STYLE) != fmt0.foreground().color()


def test_the_engines_status_shows_until_the_first_words(pane):
    """A StatusEvent (the model choosing among the matches, seconds on 2 cores) replaces "Searching…"
    under the question; the answer's first words take its place."""
    window = SimpleNamespace(answer_pane=pane)
    pane.start_turn(QUESTION, "answer")
    pane.set_status("Searching…")
    MainWindow._on_answer_event(window, StatusEvent(message="Qwen is choosing the answering sentence…"))
    shown = pane.text.toPlainText()
    assert "Qwen is choosing the answering sentence…" in shown and "Searching…" not in shown
    MainWindow._on_answer_event(window, TokenEvent(text=S0))
    pane.render()
    shown = pane.text.toPlainText()
    assert S0 in shown and "choosing" not in shown


def test_an_engine_error_event_fails_the_job(monkeypatch):
    """An ErrorEvent ends the stream with its engine error raised (the window shows it as a failure)."""
    err = ModelError("answer_llm", "the model file is damaged")
    monkeypatch.setattr(engine_answer, "answer_events",
                        lambda *a, **k: iter([TokenEvent(text="The"), ErrorEvent(message=str(err), error=err)]))
    gen = results.answer_job(QUESTION)(FakeLibrary(), CancelToken())
    assert isinstance(next(gen), TokenEvent)
    with pytest.raises(ModelError, match="damaged"):
        next(gen)


def test_search_notices_are_engine_notice_events(pane):
    """A search that ran without a configured model says so through the engine's NoticeEvent."""
    lib = FakeLibrary()
    lib.search = lambda q, k, docs=None, kinds=None: []
    lib.model_notices = ["the reranker could not be loaded; results are not reranked"]
    gen = results.search_job("supply")(lib, CancelToken())
    events = []
    with pytest.raises(StopIteration) as stop:
        while True:
            events.append(next(gen))
    assert stop.value.value == []
    assert [type(e) for e in events] == [NoticeEvent]
    pane.start_turn("supply", "search")
    MainWindow._on_answer_event(SimpleNamespace(answer_pane=pane), events[0])
    assert "results are not reranked" in pane.text.toPlainText()


def test_streamed_sentences_are_found_by_their_text_when_offsets_do_not_fit(pane):
    """Quoted sentences streamed with offsets into their own piece (start 0) still render checked."""
    pane.start_turn(QUESTION, "answer")
    pane.add_source(item(1))
    pane.add_source(item(2))
    q1, q2 = "The programmer needs a 5 V supply [1].", "Erasing takes 2 s [2]."
    pane.append_token(f"{q1}\n\n{q2}")
    for q in (q1, q2):
        pane.add_sentence({**sentence(q, q, supported=True, cites=[1]), "quote": True})
    pane.render()
    assert [s["text"] for s in pane.turns[-1]["sentences"]] == [q1, q2]
    colours = {f.foreground().color().name() for t, f, _ in fragments(pane) if "programmer needs" in t or "Erasing" in t}
    assert colours and _color(PENDING_STYLE).name() not in colours


def test_the_final_answer_replaces_the_streamed_sentences(pane):
    """A fallback replaces the model's text at `done`: its text and sentences are the truth."""
    pane.start_turn(QUESTION, "answer")
    pane.add_source(item(1))
    pane.append_token("It needs 12 V. ")
    pane.add_sentence(sentence("It needs 12 V.", "It needs 12 V. ", supported=False, cites=[],
                               missing=["12"], reason="No citation."))
    lead = "Best matching sentences from the manuals:"
    quote = "The programmer needs a 5 V supply [1]."
    text = f"{lead}\n\n{quote}"
    pane.finish(final_answer(
        answer=text, checked={"supported": 1, "claims": 1},
        sentences=[sentence(lead, text, supported=False, cites=[], claim=False),
                   {**sentence(quote, text, supported=True, cites=[1]), "quote": True}],
        stats={"model_answer": "It needs 12 V.", "fallback_from": "generative"}))
    plain = pane.text.toPlainText()
    assert "It needs 12 V" not in plain and lead in plain and "1 of 1 sentence checked against the manuals" in plain
    assert not [f for _, f, _ in fragments(pane) if f.anchorHref().startswith(("unchecked:", "missing:"))]
    _, lead_fmt, _ = fragment_with(pane, "Best matching")
    assert lead_fmt.foreground().color() != _color(UNCHECKED_STYLE)


def test_clicking_a_supported_chip_emits_citation_activated(pane, qtbot):
    finished_turn(pane)
    _, _, pos = anchor(pane, "cite:0:1")
    with qtbot.waitSignal(pane.citationActivated, timeout=2000) as sig:
        qtbot.mouseClick(pane.text.viewport(), Qt.MouseButton.LeftButton, pos=point_of(pane, pos + 1))
    got, siblings = sig.args
    assert got.number == 1 and got.page == 3 and [s.number for s in siblings] == [1, 2]
    # the chip of the unsupported sentence opens its page too
    _, _, pos2 = anchor(pane, "cite:0:2")
    with qtbot.waitSignal(pane.citationActivated, timeout=2000) as sig2:
        qtbot.mouseClick(pane.text.viewport(), Qt.MouseButton.LeftButton, pos=point_of(pane, pos2 + 1))
    assert sig2.args[0].number == 2


def test_answer_without_sentences_renders_as_before(pane):
    old = final_answer()
    del old["sentences"], old["checked"]
    finished_turn(pane, old)
    hrefs = [f.anchorHref() for _, f, _ in fragments(pane) if f.anchorHref()]
    assert sorted(hrefs) == ["cite:0:1", "cite:0:2", "export:0"]  # and "Export for an expert…" under it
    plain = pane.text.toPlainText()
    assert "checked against the manuals" not in plain and "7.2 A" in plain
    colours = {f.foreground().color().name() for t, f, _ in fragments(pane) if "It draws" in t}
    assert colours and _color(UNCHECKED_STYLE).name() not in colours and _color(PENDING_STYLE).name() not in colours

    # an old saved conversation (no check fields) loads and renders the same way
    pane.load_turns([{"question": QUESTION, "answer": TEXT, "mode": "answer", "sources": [item(1), item(2)]}])
    assert sorted(f.anchorHref() for _, f, _ in fragments(pane) if f.anchorHref()) == ["cite:0:1", "cite:0:2"]
    assert "checked against the manuals" not in pane.text.toPlainText()


def test_saved_conversation_keeps_the_marks(pane, qtbot):
    finished_turn(pane, final_answer(stats={"model_answer": MODEL_TEXT}))
    save_conversation(pane.turns)
    again = AnswerPane()
    qtbot.addWidget(again)
    again.load_turns(load_conversation())
    plain = again.text.toPlainText()
    assert "1 of 2 sentences checked against the manuals" in plain and SHOW_MODEL in plain
    assert anchor(again, "unchecked:0:1") and anchor(again, "missing:0:1:0")
    assert again.tooltip_for_anchor("unchecked:0:1") == f"Not found in the cited pages\n{REASON}"


def test_missing_values_are_matched_as_whole_values_and_escaped():
    text = "Set <R7> to 15 V, not 5 V, see [5]."
    s = {"text": text, "citations": [5], "supported": False, "claim": True, "quote": False, "support": None,
         "missing": ["5", "<R7>"], "reason": "", "start": 0, "end": len(text)}
    tips: dict[str, str] = {}
    out = render_checked_html(text, 0, {5}, [s], tips=tips)
    assert "<R7>" not in out and "&lt;R7&gt;?</a>" in out
    assert "15 V" in out  # the "5" inside "15" is not the missing value
    assert re.search(r'href="missing:0:0:0"[^>]*>5\?</a> V, see', out)
    assert 'href="cite:0:5"' in out  # the [5] marker stays a chip
    assert tips["missing:0:0:1"] == "“<R7>” appears in none of the evidence"


def test_a_quoted_bracket_is_the_manuals_and_no_chip(pane):
    """A quote of "the range [0; 3]" (answer/evidence.py: an invisible word joiner after the "[") looks
    as the manual prints it and makes no chip for "blocks" 0 and 3; fullwidth brackets, the first
    version, drew boxes on a desktop without a CJK font."""
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QLabel

    from mmrag_desktop.engine.answer.evidence import neutralise

    quote = neutralise("The parameter has to be within the range [0; 3].")
    text = f"{quote} [1]"
    answer = final_answer(answer=text, citations=[{"id": 1}], mode="extractive",
                          sentences=[sentence(text, text, supported=True, cites=[1])],
                          checked={"supported": 1, "claims": 1})
    pane.start_turn(QUESTION, "answer")
    pane.add_source(item(1))
    pane.append_token(text)
    pane.finish(answer)
    chips = {fmt.anchorHref() for _, fmt, _ in fragments(pane) if fmt.anchorHref().startswith("cite:")}
    assert chips == {"cite:0:1"}, chips
    assert "range [\u20600; 3]" in pane.text.toPlainText()

    def drawn(s: str) -> QImage:
        label = QLabel(s)
        label.resize(400, 30)
        img = QImage(400, 30, QImage.Format.Format_ARGB32)
        img.fill(0xFFFFFFFF)
        label.render(img)
        return img

    # what is copied is the manual's text
    pane.text.selectAll()
    assert "range [0; 3]." in pane.text.createMimeDataFromSelection().text()
    assert "\u2060" not in pane.text.createMimeDataFromSelection().text()
    assert drawn("the range [0; 3].") == drawn(neutralise("the range [0; 3]."))
    assert drawn("the range [0; 3].") != drawn("the range (0; 3).")
