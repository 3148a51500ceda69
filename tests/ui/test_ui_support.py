"""Small GUI pieces: excepthook → rotating log, conversation persistence, answer chips,
library model progress, resources through importlib.resources, engine-thread job order."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("PySide6")

from mmrag_desktop.engine.hits import DocumentInfo  # noqa: E402
from mmrag_desktop.engine.jobs import Progress  # noqa: E402
from mmrag_desktop.engine.settings import log_dir  # noqa: E402
from mmrag_desktop.ui.answer_pane import render_answer_html  # noqa: E402
from mmrag_desktop.ui.conversation_store import load_conversation, save_conversation  # noqa: E402
from mmrag_desktop.ui.library_model import LibraryModel  # noqa: E402
from mmrag_desktop.ui.results import ResultItem  # noqa: E402


def test_excepthook_logs_to_rotating_file():
    from mmrag_desktop.ui.error_report import install_excepthook, setup_logging

    path = setup_logging()
    seen = []
    old = sys.excepthook
    try:
        install_excepthook(lambda summary, details: seen.append((summary, details)))
        try:
            raise RuntimeError("boom in a slot")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = old
    assert str(log_dir()) in path
    text = open(path, encoding="utf-8").read()
    assert "boom in a slot" in text and "Traceback" in text
    assert seen and seen[0][0] == "RuntimeError: boom in a slot"


def test_conversation_round_trip():
    item = ResultItem(number=1, doc="a.pdf", page=3, doc_path="/x/a.pdf", bbox=(1.0, 2.0, 3.0, 4.0),
                      boxes=[(3, (1.0, 2.0, 3.0, 4.0)), (4, (5.0, 6.0, 7.0, 8.0))], kind="table", text="t",
                      thumbnail_png=b"\x89PNG...")
    save_conversation([{"question": "q?", "answer": "yes [1]", "mode": "answer", "sources": [item]}])
    turns = load_conversation()
    got = turns[0]["sources"][0]
    assert got.boxes == [(3, (1.0, 2.0, 3.0, 4.0)), (4, (5.0, 6.0, 7.0, 8.0))]
    assert got.bbox == (1.0, 2.0, 3.0, 4.0) and got.thumbnail_png is None
    assert turns[0]["answer"] == "yes [1]"


def test_only_valid_citations_become_chips():
    html = render_answer_html("Use <b> [1] and [7]; see [2].", turn=3, valid={1, 2})
    assert 'href="cite:3:1"' in html and 'href="cite:3:2"' in html
    assert "cite:3:7" not in html and "[7]" in html
    assert "&lt;b&gt;" in html


def test_library_model_progress_and_states(qtbot, tmp_path):
    m = LibraryModel()
    m.add_pending([tmp_path / "a.pdf", tmp_path / "b.pdf"])
    assert [r.status for r in m.rows] == ["queued", "queued"]
    m.apply_progress(Progress("parse", doc="a.pdf", doc_id=1, done=5, total=10, unit="pages"))
    r = m.rows[0]
    assert r.status == "reading 5/10 pages" and r.pages == 10 and r.progress == pytest.approx(0.375)
    m.apply_progress(Progress("done", doc="a.pdf", doc_id=1, done=10, total=10, unit="pages"))
    assert r.status == "ready" and r.progress is None
    m.apply_progress(Progress("failed", doc="b.pdf", doc_id=2, message="the PDF needs a password"))
    assert m.rows[1].status == "failed" and m.rows[1].error == "the PDF needs a password"
    m.set_documents([DocumentInfo(1, str(tmp_path / "a.pdf"), "a.pdf", "x", "pdf", "A", 10, "ready", None, 7, "")])
    assert [x.name for x in m.rows] == ["a.pdf"]
    # a searchable document with a note (a damaged file read in part): the note shows, in amber, not red
    from PySide6.QtCore import Qt

    from mmrag_desktop.ui.library_model import ERROR, STATUS

    m.set_documents([DocumentInfo(1, str(tmp_path / "a.pdf"), "a.pdf", "x", "pdf", "A", 3, "ready",
                                  "the file is damaged ...", 2, "")])
    note, status = m.index(0, ERROR), m.index(0, STATUS)
    assert m.data(note) == "the file is damaged ..." and m.headerData(ERROR, Qt.Orientation.Horizontal) == "Problem"
    assert m.data(note, Qt.ItemDataRole.ForegroundRole).name() == "#b26a00"
    assert m.data(status, Qt.ItemDataRole.ForegroundRole) is None


def test_resources_load_through_importlib(qtbot):
    from mmrag_desktop.ui.app_resources import app_icon, resource_bytes, stylesheet

    assert not app_icon().isNull()
    assert "QLineEdit#queryEdit" in stylesheet("light") and "#23262b" in stylesheet("dark")
    assert resource_bytes("samples", "self-test.pdf").startswith(b"%PDF-")


def test_engine_thread_runs_interactive_jobs_between_background_steps(qtbot):
    """A plain object stands in for the Library: this tests the scheduler, not the engine."""
    from mmrag_desktop.ui.engine_thread import EngineThread

    order = []
    th = EngineThread("/unused", factory=lambda _f: type("L", (), {"close": lambda self: None})())
    th.start()

    def long_job(_lib, token):
        for i in range(5):
            token.check()
            order.append(f"bg{i}")
            if i == 1:
                th.submit("quick", lambda _l, _t: order.append("quick"), interactive=True)
            yield Progress("parse", done=i, total=5)
        return "bg-done"

    job = th.submit("long", long_job)  # may finish before a signal wait could start: poll its state
    qtbot.waitUntil(lambda: job.state == "done", timeout=30000)
    assert order[-1] == "bg4"
    assert order.index("quick") < order.index("bg4")  # ran in between, not after
    cancelled = th.submit("never", long_job)
    cancelled.cancel()
    qtbot.waitUntil(lambda: cancelled.state == "cancelled", timeout=30000)
    assert th.stop(5000) and th.isFinished()
