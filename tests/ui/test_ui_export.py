""""Export for an expert…" in the real window on a real library: the link under an answer and
File ▸ Export answer for an expert… open the save dialog (driven here as a user would), the export
runs on the engine thread, the status bar names the file; a failure shows in the banner."""

from __future__ import annotations

import base64
import io
import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pymupdf")

from PIL import Image  # noqa: E402
from PySide6.QtCore import QTimer, QUrl  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit  # noqa: E402
from window_helpers import open_window  # noqa: E402

from mmrag_desktop.ui.answer_pane import EXPORT_LINK  # noqa: E402
from mmrag_desktop.ui.expert_export import default_name  # noqa: E402

pytestmark = [pytest.mark.gui, pytest.mark.slow]
QUESTION = "How many litres per minute does the coolant pump deliver?"


def _drive_save_dialog(qtbot, path=None, seen: dict | None = None) -> None:
    """When the save dialog opens: note its default file, then save as `path` (None: cancel)."""

    def act() -> None:
        dlg = next((w for w in QApplication.topLevelWidgets()
                    if isinstance(w, QFileDialog) and w.objectName() == "expertExportDialog" and w.isVisible()), None)
        if dlg is None:
            QTimer.singleShot(50, act)
            return
        if seen is not None:
            seen["selected"] = dlg.selectedFiles()
            seen["filters"] = dlg.nameFilters()
        if path is None:
            dlg.reject()
        else:  # type the name as a user would
            dlg.findChild(QLineEdit, "fileNameEdit").setText(str(path))
            dlg.accept()

    QTimer.singleShot(50, act)


def test_export_the_answer_from_the_pane_and_the_file_menu(qtbot, plant_library_dir, tmp_path):
    w = open_window(qtbot, plant_library_dir)
    exp = w.expert_export
    # nothing to export yet: a note, no dialog
    assert w.export_action.text() == "&Export answer for an expert…"
    assert w.export_action in w.menuBar().actions()[0].menu().actions()  # the File menu
    assert exp.export_latest() is None and "no answer to export yet" in w.banner.label.text()

    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        w.ask(QUESTION, "answer")
    turn = w.answer_pane.exportable_turn()
    assert turn == 0 and w.answer_pane.turns[0]["result"]["citations"]
    assert EXPORT_LINK in w.answer_pane.text.toPlainText()
    assert f"export:{turn}" in w.answer_pane.text.toHtml()

    # click the link under the answer -> save dialog (default name from the question) -> file written
    target = tmp_path / "out" / "coolant.html"
    target.parent.mkdir()
    seen: dict = {}
    _drive_save_dialog(qtbot, target, seen)
    with qtbot.waitSignal(exp.exported, timeout=60000) as sig:
        w.answer_pane.text.anchorClicked.emit(QUrl(f"export:{turn}"))
    assert sig.args == [str(target)]
    assert re.search(r"expert-how-many-litres-per-minute-does-\d{8}-\d{4}\.html$", seen["selected"][0])
    assert any("*.json" in f for f in seen["filters"])
    assert w.status_label.text() == f"Exported for an expert: {target}"
    html = target.read_text(encoding="utf-8")
    assert QUESTION in html and "plant.pdf" in html
    m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert m and Image.open(io.BytesIO(base64.b64decode(m.group(1)))).width > 300

    # File > Export answer for an expert…: the dialog opens in the folder used last; cancel writes nothing
    seen.clear()
    _drive_save_dialog(qtbot, None, seen)
    w.export_action.trigger()
    assert seen["selected"][0].startswith(str(target.parent))
    assert sorted(p.name for p in target.parent.iterdir()) == ["coolant.html"]

    # JSON through the menu
    _drive_save_dialog(qtbot, target.with_suffix(".json"))
    with qtbot.waitSignal(exp.exported, timeout=60000):
        w.export_action.trigger()
    assert target.with_suffix(".json").read_text(encoding="utf-8").startswith("{")

    # a failure (the name is a folder) shows in the banner, in one line
    with qtbot.waitSignal(exp.exportFailed, timeout=60000) as sig:
        exp.export_turn(turn, tmp_path / "out")
    assert "is a folder" in sig.args[0] and "is a folder" in w.banner.label.text()
    assert w.banner.isVisible() and w.status_label.text() == "Export failed"
    w.close()


def test_default_name_is_safe():
    from datetime import datetime

    when = datetime(2025, 3, 4, 5, 6)
    assert default_name("What's the <b>fuse</b> rating of F1/F2?", when) == \
        "expert-what-s-the-b-fuse-b-20250304-0506.html"
    assert default_name("???", when) == "expert-answer-20250304-0506.html"
