"""The window on a team library (issue 16): Settings ▸ Library location takes a PostgreSQL URL, the
window indexes into the real server (pgserver) through its indexing child, and a citation opens the
page from the copy stored in the database once the file is gone from this machine."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QUrl  # noqa: E402
from window_helpers import open_window  # noqa: E402

from mmrag_desktop.engine.location import local_folder  # noqa: E402

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def _ready(w, name: str) -> bool:
    return any(r.name == name and r.status == "ready" for r in w.library_model.rows)


def test_settings_take_a_server_and_citations_render_from_its_copy(qtbot, tmp_path, pg_uri):
    from pdf_factory import make_plant_manual

    from mmrag_desktop.ui.settings_dialog import SettingsDialog

    w = open_window(qtbot, tmp_path / "folder-library")
    dlg = SettingsDialog(w.settings, w)
    qtbot.addWidget(dlg)
    dlg.library.setText("ftp://files.example.com/manuals")
    dlg._accept()  # noqa: SLF001 - what the OK button runs
    assert dlg.result() == 0 and not dlg.library_error.isHidden()
    assert "not a library: give a folder or a PostgreSQL URL" in dlg.library_error.text()
    dlg.library.setText(pg_uri)
    dlg._accept()  # noqa: SLF001
    assert dlg.result() == 1
    with qtbot.waitSignal(w.libraryReady, timeout=60000):
        w.apply_settings(dlg.result_settings())
    assert w.library_dir == pg_uri
    assert w.windowTitle().startswith("mmrag-desktop — team library postgresql://")

    (tmp_path / "share").mkdir()
    manual = make_plant_manual(tmp_path / "share" / "plant.pdf")
    w.add_paths([manual])
    qtbot.waitUntil(lambda: _ready(w, "plant.pdf"), timeout=180000)
    manual.unlink()  # now only the database has it, as on a colleague's machine

    with qtbot.waitSignal(w.answerFinished, timeout=60000):
        w.ask("When does the relief valve open?", "answer")
    src = w.answer_pane.sources.items[0]
    assert src.doc == "plant.pdf" and src.page == 2
    assert src.doc_path.startswith(str(local_folder(pg_uri) / "files"))
    w.answer_pane.text.anchorClicked.emit(QUrl(f"cite:{len(w.answer_pane.turns) - 1}:1"))
    assert w.viewer.doc_path == src.doc_path and w.viewer.page == 2
    assert w.viewer.canvas.highlight_rects()
    w.close()


def test_retrieval_tests_show_expected_pages_from_the_database_copy(tmp_path, pg_uri, embedder):
    import json

    from pdf_factory import make_plant_manual

    from mmrag_desktop.engine.jobs import CancelToken
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.ui.retrieval_test_dialog import eval_job, expected_item

    (tmp_path / "share").mkdir()
    manual = make_plant_manual(tmp_path / "share" / "plant.pdf")
    questions = tmp_path / "tests.jsonl"
    questions.write_text(json.dumps({"id": "valve", "query": "when does the relief valve open",
                                     "doc": "plant.pdf", "page": 2}) + "\n")
    with Library.open(pg_uri, embedder=embedder) as lib:
        list(lib.add([manual]))
        manual.unlink()  # the tests are run on a machine that never had the file
        job = eval_job(questions)(lib, CancelToken())
        while True:
            try:
                next(job)
            except StopIteration as stop:
                report = stop.value
                break
    item = expected_item(report.results[0])
    assert report.results[0].rank == 1
    assert item is not None and item.doc_path.startswith(str(local_folder(pg_uri) / "files"))
