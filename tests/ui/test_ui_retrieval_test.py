"""Tools ▸ Test retrieval… in the real window on a real library: run a question file, read the
table, open a miss's expected page and what was found in the viewer; save a search hit as a test."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("PySide6")
pymupdf = pytest.importorskip("pymupdf")

from PySide6.QtCore import Qt  # noqa: E402
from window_helpers import open_window  # noqa: E402

from mmrag_desktop.engine.evaluation import read_questions  # noqa: E402
from mmrag_desktop.ui.retrieval_test_dialog import FOUND, MISS_BG, R1, RANK  # noqa: E402

pytestmark = [pytest.mark.gui, pytest.mark.slow]

def test_run_questions_and_open_a_miss_in_the_viewer(qtbot, plant_library_dir, tmp_path):
    questions = tmp_path / "tests.jsonl"
    questions.write_text("\n".join(json.dumps(x) for x in [
        {"id": "pump", "query": "how many litres per minute does the coolant pump deliver", "doc": "plant.pdf",
         "pages": [1], "bbox": [60, 115, 540, 140]},
        # expected (wrongly) on page 3 in an empty region: search finds page 2 first, a miss, no box
        {"id": "valve", "query": "at what pressure does the relief valve open", "doc": "plant.pdf",
         "pages": [3], "bbox": [60, 400, 540, 440]},
        {"id": "ghost", "query": "coolant pump", "doc": "ghost.pdf", "pages": [1]},
    ]) + "\n")
    w = open_window(qtbot, plant_library_dir)
    dlg = w.open_retrieval_test()
    assert dlg.isVisible() and dlg is w.open_retrieval_test()
    events = []
    with qtbot.waitSignal(dlg.reportReady, timeout=120000):
        job = dlg.run(str(questions))
        job.progress.connect(lambda ev: events.append(ev.done))
        assert dlg.cancel_btn.isEnabled() and dlg.progress.isVisible()
    assert events and events[-1] == 3
    assert not dlg.progress.isVisible() and dlg.run_btn.isEnabled()
    t = dlg.table
    assert t.rowCount() == 3
    cell = {(r, c): t.item(r, c).text() for r in range(3) for c in range(t.columnCount())}
    assert (cell[0, 0], cell[0, R1], cell[0, RANK]) == ("pump", "hit", "1")
    assert cell[1, 0] == "valve" and cell[1, R1] == "miss" and cell[1, FOUND] == "plant.pdf p. 2"
    assert "unknown document 'ghost.pdf'" in cell[2, FOUND]
    assert t.item(1, 0).background().color() == MISS_BG and t.item(0, 0).background().color() != MISS_BG
    assert "R@1 0.50 (1/2)" in dlg.summary.text() and "box 1/2" in dlg.summary.text()
    assert "1 not scored" in dlg.summary.text()
    # the file is remembered (for the next run and for recording)
    assert w.test_recorder.test_file() == questions

    # double-click the miss: the viewer shows the expected page with the expected region
    rect = t.visualItemRect(t.item(1, 0))
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(t.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    v = w.viewer
    assert v.doc_path.endswith("plant.pdf") and v.page == 3
    assert v.boxes_on_page() == [(60.0, 400.0, 540.0, 440.0)] and len(v.canvas.highlight_rects()) == 1
    # "Show what was found": the page search ranked first, its highlight box on it
    assert dlg.found_btn.isEnabled()
    qtbot.mouseClick(dlg.found_btn, Qt.MouseButton.LeftButton)
    assert v.page == 2 and v.boxes_on_page()
    box = v.boxes_on_page()[0]
    assert 110 <= box[1] <= 135  # the relief valve sentence at y = 130
    # the unknown document's row offers no expected page
    t.selectRow(2)
    assert not dlg.expected_btn.isEnabled() and not dlg.show_expected(2)
    w.close()


def test_a_malformed_file_is_reported_in_the_dialog(qtbot, plant_library_dir, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "query": "pump", "doc": "plant.pdf", "pages": [1]}\n{oops\n')
    w = open_window(qtbot, plant_library_dir)
    dlg = w.open_retrieval_test()
    job = dlg.run(str(bad))
    # the job's state changes on the engine thread before its `failed` signal reaches the dialog
    qtbot.waitUntil(lambda: dlg.run_btn.isEnabled(), timeout=60000)
    assert job.state == "failed"
    assert f"{bad}:2: not valid JSON" in dlg.summary.text() and dlg.run_btn.isEnabled()
    w.close()


def test_cancel_stops_a_run(qtbot, plant_library_dir, tmp_path):
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({"id": f"q{i}", "query": f"coolant pump flow {i}", "doc": "plant.pdf",
                                        "pages": [1]}) + "\n" for i in range(200)))
    w = open_window(qtbot, plant_library_dir)
    dlg = w.open_retrieval_test()
    job = dlg.run(str(many))
    with qtbot.waitSignal(job.cancelled, timeout=60000):
        qtbot.mouseClick(dlg.cancel_btn, Qt.MouseButton.LeftButton)
    assert dlg.summary.text() == "Cancelled." and dlg.run_btn.isEnabled() and not dlg.cancel_btn.isEnabled()
    assert dlg.report is None
    w.close()


def test_save_a_search_hit_as_a_retrieval_test(qtbot, plant_library_dir, tmp_path):
    w = open_window(qtbot, plant_library_dir)
    with qtbot.waitSignal(w.answerFinished, timeout=60000):
        w.ask("at what pressure does the relief valve open", "search")
    item = w.answer_pane.sources.items[0]
    assert item.page == 2
    rec = w.test_recorder
    assert w.answer_pane.sources_view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    assert rec.default_file() == plant_library_dir / "retrieval_tests.jsonl"
    path = tmp_path / "mine.jsonl"
    rec.set_test_file(path)  # what the file dialog does the first time
    assert rec.query_of(item) == "at what pressure does the relief valve open"
    assert rec.record(item) == "r1"
    assert "Saved retrieval test r1 in mine.jsonl" in w.statusBar().currentMessage()
    (q,) = read_questions(path)
    assert q.query == "at what pressure does the relief valve open"
    assert q.expected[0].doc == "plant.pdf" and q.expected[0].page == 2
    assert q.expected[0].bbox == pytest.approx(item.bbox, abs=0.1) and q.kind == item.kind
    # the same hit again: nothing written, and the status bar says so
    assert rec.record(item) is None
    assert "Already in mine.jsonl" in w.statusBar().currentMessage()
    assert len(read_questions(path)) == 1
    # the saved test passes when run from the dialog
    dlg = w.open_retrieval_test()
    assert dlg.file_edit.text() == str(path)
    with qtbot.waitSignal(dlg.reportReady, timeout=120000):
        dlg.run()
    assert dlg.report.totals.r1 == 1.0 and dlg.report.results[0].box_hit is True
    w.close()
