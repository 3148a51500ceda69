"""The real main window against a real library (real SQLite, real PyMuPDF, the real MiniLM
embedder): drop → ingest → search → answer → citation → highlighted page; cancel, remove,
corrupt file, persistence across a restart, responsiveness, clean thread shutdown."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("PySide6")
pymupdf = pytest.importorskip("pymupdf")

from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from window_helpers import open_window  # noqa: E402

from mmrag_desktop.engine.settings import Settings  # noqa: E402

pytestmark = [pytest.mark.gui, pytest.mark.slow]

QUESTION = "How do I calibrate the pressure sensor?"


CALIBRATION = ("To calibrate the pressure sensor, vent both ports to atmosphere, hold the ZERO key "
               "for three seconds and wait until the display shows 0.000 bar. Then apply the "
               "reference pressure of 10 bar and press SPAN.")
STROKE = ("To adjust the actuator stroke, loosen the two limit screws, move the spindle by hand to the "
          "closed end stop and tighten the lower screw while the LED blinks green.")


def make_manual(path, pages: int = 3, title: str = "PX-200 Pressure Transmitter", intro: str = CALIBRATION) -> None:
    """A small real manual: headings, paragraphs, a ruled table, a vector figure with caption."""
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        p = doc.new_page(width=595, height=842)
        p.insert_text((72, 72), f"{title} - chapter {n}", fontsize=15)
        if n == 1:
            p.insert_textbox(pymupdf.Rect(72, 100, 523, 200), intro, fontsize=11)
        elif n == 2:
            p.insert_text((72, 110), "Table 1: Output ranges of the transmitter models", fontsize=10)
            rows = [("Model", "Range", "Output"), ("PX-200A", "0-10 bar", "4-20 mA"),
                    ("PX-200B", "0-40 bar", "0-10 V")]
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    rect = pymupdf.Rect(72 + c * 150, 122 + r * 20, 222 + c * 150, 142 + r * 20)
                    p.draw_rect(rect, color=(0, 0, 0), width=0.8)
                    p.insert_text((rect.x0 + 5, rect.y1 - 6), cell, fontsize=10)
        else:
            p.insert_textbox(pymupdf.Rect(72, 100, 523, 160),
                             f"Wiring on page {n}: connect the loop supply of 12 to 30 V DC to terminals 1 and 2. "
                             "Figure 1 shows the terminal block.", fontsize=11)
            fig = pymupdf.Rect(150, 180, 445, 330)
            p.draw_rect(fig, color=(0.1, 0.2, 0.5), width=1.5)
            for i in range(4):
                t = pymupdf.Rect(175 + i * 65, 220, 225 + i * 65, 280)
                p.draw_rect(t, color=(0, 0, 0), fill=(0.85, 0.88, 0.95), width=1)
            p.insert_text((150, 350), "Figure 1: Terminal block of the transmitter", fontsize=10)
    doc.save(path)
    doc.close()


@pytest.fixture
def manuals(tmp_path):
    d = tmp_path / "manuals"
    d.mkdir()
    make_manual(d / "px200.pdf")
    make_manual(d / "valve.pdf", pages=3, title="VX-10 Valve Actuator", intro=STROKE)
    (tmp_path / "broken.pdf").write_bytes(b"this is not a pdf at all\n" * 20)
    return d


@pytest.fixture
def lib_dir(tmp_path):
    return tmp_path / "library"


def drop_files(target, paths) -> None:
    """Simulate a drag-and-drop of local files onto `target`."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(target.rect().center())
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)


class Heartbeat:
    """A 10 ms GUI-thread timer recording the longest gap between ticks."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.last = None
        self.max_gap = 0.0
        self.ticks = 0

    def _tick(self) -> None:
        now = time.perf_counter()
        if self.last is not None:
            self.max_gap = max(self.max_gap, now - self.last)
        self.last = now
        self.ticks += 1

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()


def ingest_done(w) -> bool:
    return bool(w.library_model.rows) and not any(r.busy for r in w.library_model.rows) and not w.ingest_jobs


def test_drop_ingest_search_answer_cite_highlight(qtbot, manuals, lib_dir, tmp_path):
    w = open_window(qtbot, lib_dir)
    assert w.drop_hint.isVisible()
    engine = w.engine
    beat = Heartbeat()
    beat.start()
    drop_files(w, [manuals, tmp_path / "broken.pdf"])
    # every file is listed at once, before any work is done
    names = {r.name for r in w.library_model.rows}
    assert names == {"px200.pdf", "valve.pdf", "broken.pdf"}
    # the drop hint stays hidden while they are added, though the library may list none of them yet (it showed again
    # when the list was read before the first was stored: session 60's 02-ingest screenshot)
    with qtbot.waitSignal(w.documentsRefreshed, timeout=60000):
        w.refresh_documents()
    assert not w.drop_hint.isVisible()
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    beat.stop()
    rows = {r.name: r for r in w.library_model.rows}
    assert rows["px200.pdf"].status == "ready" and rows["px200.pdf"].pages == 3
    assert rows["valve.pdf"].status == "ready" and rows["valve.pdf"].pages == 3
    assert rows["broken.pdf"].status == "failed"
    assert "not a PDF" in rows["broken.pdf"].error
    assert w.banner.isVisible() and "broken.pdf" in w.banner.label.text()
    # the GUI thread kept ticking while the engine thread ingested
    assert beat.ticks > 10
    assert beat.max_gap < 0.25, f"GUI stalled {beat.max_gap * 1000:.0f} ms during ingest"

    # search mode: ranked hits, no model
    with qtbot.waitSignal(w.answerFinished, timeout=60000):
        w.ask(QUESTION, "search")
    items = w.answer_pane.sources.items
    assert items and items[0].doc == "px200.pdf" and items[0].page == 1

    # answer mode (extractive: no answer model in this test): text streams with citations
    events = []
    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        job = w.ask(QUESTION, "answer")
        job.progress.connect(lambda ev: events.append(ev.kind))
    turn = w.answer_pane.turns[-1]
    assert "token" in events and "citation" in events
    assert "[1]" in turn["answer"]
    assert 'href="cite:1:1"' in w.answer_pane.text.toHtml() or "cite:1:1" in w.answer_pane.text.toHtml()
    src = w.answer_pane.sources.items[0]
    assert src.doc == "px200.pdf" and src.page == 1 and src.boxes

    # click the chip [1]: the viewer opens the cited page with the box highlighted
    w.answer_pane.text.anchorClicked.emit(QUrl("cite:1:1"))
    v = w.viewer
    assert v.doc_path == src.doc_path and v.page == src.page
    rects = v.canvas.highlight_rects()
    on_page = [b for p, b in src.boxes if p == src.page]
    assert len(rects) == len(on_page) >= 1
    geom = v.renderer.geometry(src.doc_path, src.page)
    for r, b in zip(rects, on_page, strict=True):
        x0, y0, x1, y1 = geom.to_pixels(b, v.zoom)
        assert (r.left(), r.top(), r.right(), r.bottom()) == pytest.approx((x0, y0, x1, y1), abs=1e-6)
    # the box sits on the calibration paragraph (y of the text we drew at 100..200 pt)
    b0 = on_page[0]
    assert 90 <= b0[1] <= 210 and b0[3] <= 215
    # the cited chunk's whole passage is shaded lightly around the highlighted sentence
    context = v.canvas.context_rects()
    assert src.context and context
    assert all(any(c.adjusted(-1, -1, 1, 1).contains(r) for c in context) for r in rects)
    # zoom in: the same box, scaled
    v.zoom_in()
    r2 = v.canvas.highlight_rects()[0]
    assert r2.top() == pytest.approx(b0[1] * v.zoom, rel=1e-6)
    assert v.canvas.image.width() == pytest.approx(595 * v.zoom * v.canvas.image.devicePixelRatio(), abs=1)

    # a question the manuals do not cover: says so and why, and lists the nearest pages to open
    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        w.ask("How do I pair the gauge with a smartphone over Bluetooth?", "answer")
    turn = w.answer_pane.turns[-1]
    assert turn["insufficient_evidence"] and "do not cover" in turn["answer"]
    assert any("never use" in n and "bluetooth" in n for n in turn["notices"]), turn["notices"]
    near = w.answer_pane.sources.items
    assert near and {i.doc for i in near} <= {"px200.pdf", "valve.pdf"} and all(i.boxes for i in near)
    w.answer_pane.sources_view.setCurrentIndex(w.answer_pane.sources.index(0))
    assert w.show_citation(near[0], near) and w.viewer.page == near[0].page

    # filters: restrict to valve.pdf
    w.query_bar.doc_filter.setCurrentIndex(w.query_bar.doc_filter.findText("valve.pdf"))
    with qtbot.waitSignal(w.answerFinished, timeout=60000):
        w.ask("terminals loop supply", "search")
    assert w.answer_pane.sources.items and {i.doc for i in w.answer_pane.sources.items} == {"valve.pdf"}

    # remove a document
    i = w.library_model.row_for(name="valve.pdf")
    with qtbot.waitSignal(w.documentsRefreshed, timeout=30000):
        w.remove_row(i)
    assert "valve.pdf" not in {r.name for r in w.library_model.rows}

    w.close()
    assert engine.isFinished() and w.engine is None


def test_cancel_queued_ingest(qtbot, manuals, lib_dir, tmp_path):
    w = open_window(qtbot, lib_dir)
    big = tmp_path / "big.pdf"
    make_manual(big, pages=40)
    jobs = w.add_paths([big])
    jobs[0].cancel()
    qtbot.waitUntil(lambda: ingest_done(w), timeout=60000)
    row = w.library_model.rows[w.library_model.row_for(name="big.pdf")]
    assert row.status in ("cancelled", "pending") and row.status != "ready"
    w.close()


def test_cancel_one_file_of_a_dropped_folder(qtbot, lib_dir, tmp_path):
    folder = tmp_path / "manuals"
    folder.mkdir()
    for name, title in (("a.pdf", "Alpha Valve"), ("b.pdf", "Beta Pump"), ("c.pdf", "Gamma Relay")):
        make_manual(folder / name, pages=2, title=title)
    w = open_window(qtbot, lib_dir)
    jobs = w.add_paths([folder])
    assert len(jobs) == 3  # one job per file: each row can be cancelled on its own
    i = w.library_model.row_for(name="b.pdf")
    w.library_view.selectRow(i)
    w.cancel_selected()
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    status = {r.name: r.status for r in w.library_model.rows}
    assert status["a.pdf"] == "ready" and status["c.pdf"] == "ready"
    assert status.get("b.pdf") != "ready"
    w.close()


def test_quit_while_ingesting_asks_first(qtbot, lib_dir, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    small, big = tmp_path / "small.pdf", tmp_path / "big.pdf"
    make_manual(small, pages=2)
    make_manual(big, pages=60)
    w = open_window(qtbot, lib_dir)
    w.confirm_close = True
    w.add_paths([small])
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    w.add_paths([big])
    asked = []
    # the user's answer to the real dialog is the one thing a test cannot click: it is supplied here
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: (asked.append(a[1]), QMessageBox.StandardButton.No)[1])
    assert not w.close()  # "No": the window stays and the job goes on
    assert asked == ["Quit while ingesting?"] and w.isVisible() and w.ingest_jobs and w.engine is not None
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert w.close()
    assert w.engine is None
    from mmrag_desktop.engine.library import Library

    with Library.open(lib_dir) as lib:  # the document saved before quitting is still there
        assert [d.name for d in lib.documents() if d.status == "ready"] == ["small.pdf"]


def test_figure_work_can_be_paused_and_resumed(qtbot, lib_dir, tmp_path):
    import sqlite3

    def enrichment() -> str:
        with sqlite3.connect(lib_dir / "library.sqlite") as conn:
            return conn.execute("SELECT enrichment FROM documents WHERE name = 'fig.pdf'").fetchone()[0]

    from pdf_factory import make_raster_figure_pdf

    pdf = make_raster_figure_pdf(tmp_path / "fig.pdf").path  # a raster figure: its OCR is figure work
    w = open_window(qtbot, lib_dir)
    w.pause_figures_action.trigger()
    assert w.figures_paused and w.pause_figures_action.isChecked() and "paused" in w.status_label.text()
    w.add_paths([pdf])
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    qtbot.wait(500)
    assert w.enrich_job is None and enrichment() == "pending"  # searchable, figure work held back
    w.pause_figures_action.trigger()  # resume
    assert not w.figures_paused and w.enrich_job is not None
    qtbot.waitUntil(lambda: w.enrich_job is None, timeout=180000)
    assert enrichment() == "done"
    w.pause_figures_action.trigger()  # paused again: that choice outlives a restart
    w.close()
    w2 = open_window(qtbot, lib_dir)
    assert w2.figures_paused and w2.pause_figures_action.isChecked() and w2.start_enrichment() is None
    w2.close()


def test_status_bar_says_what_the_sentence_pass_is_for():
    """Table rows make table search final; the other sentences only make first searches faster."""
    from mmrag_desktop.engine.jobs import Progress
    from mmrag_desktop.ui.main_window import sentence_status

    tables = sentence_status(Progress("sentences", done=3, total=9, unit="chunks", extra={"kinds": ["table"]}))
    rest = sentence_status(Progress("sentences", done=40, total=900, unit="chunks", extra={"kinds": []}))
    assert tables.startswith("Tables: 3/9 encoded row by row")
    assert rest.startswith("Sentences: 40/900 chunks encoded ahead") and "results are final" in rest


def test_state_persists_across_a_restart(qtbot, manuals, lib_dir):
    w = open_window(qtbot, lib_dir)
    drop_files(w, [manuals / "px200.pdf"])
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        w.ask(QUESTION, "answer")
    w.resize(760, 590)  # within the offscreen screen (800x800): restoreGeometry clamps to the screen
    w.main_splitter.setSizes([300, 440])
    w.query_bar.set_mode("search")  # the panel's minimum width does not change with the mode
    qtbot.wait(50)  # layouts settle
    sizes = w.main_splitter.sizes()
    w.close()

    w2 = open_window(qtbot, lib_dir)
    assert (w2.width(), w2.height()) == (760, 590)
    assert w2.main_splitter.sizes() == sizes
    assert w2.query_bar.current_mode() == "search"
    assert [r.name for r in w2.library_model.rows] == ["px200.pdf"]
    assert w2.answer_pane.turns and w2.answer_pane.turns[-1]["question"] == QUESTION
    assert w2.answer_pane.activate_citation(0, 1)  # the restored citation still opens its page
    assert w2.viewer.page == 1 and w2.viewer.canvas.highlight_rects()
    w2.close()


def test_settings_dialog_round_trip(qtbot, lib_dir, tmp_path):
    from mmrag_desktop.ui.settings_dialog import SettingsDialog

    w = open_window(qtbot, lib_dir)
    dlg = SettingsDialog(w.settings, w)
    qtbot.addWidget(dlg)
    dlg.threads.setValue(3)
    dlg.n_ctx.setValue(2048)
    dlg.mode.setCurrentIndex(dlg.mode.findData("extractive"))
    dlg.theme.setCurrentIndex(dlg.theme.findData("dark"))
    new_lib = tmp_path / "other-library"
    dlg.library.setText(str(new_lib))
    old_engine = w.engine
    with qtbot.waitSignal(w.libraryReady, timeout=60000):
        w.apply_settings(dlg.result_settings())
    assert old_engine.isFinished()
    assert w.library_dir == new_lib and (new_lib / "library.sqlite").exists()
    s = Settings.load()
    assert (s.threads, s.n_ctx, s.answer_mode, s.theme, s.library_dir) == (3, 2048, "extractive", "dark", str(new_lib))
    assert "#23262b" in QApplication.instance().styleSheet()
    w.close()


def test_image_dropped_on_the_question_box_finds_the_figure(qtbot, lib_dir, tmp_path):
    """Drop a picture on the question box: the manual's figure that shows it comes back
    (perceptual hash; no CLIP model here), with a thumbnail, and a click shows its region."""
    from pdf_factory import make_raster_figure_pdf, sample_image_png

    sample = make_raster_figure_pdf(tmp_path / "panel.pdf")
    w = open_window(qtbot, lib_dir)
    drop_files(w, [sample.path])
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    photo = tmp_path / "photo-of-panel.png"
    photo.write_bytes(sample_image_png())
    w.query_bar.set_mode("search")
    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        drop_files(w.query_bar.edit, [photo])
    items = w.answer_pane.sources.items
    figures = [i for i in items if i.kind == "figure"]
    assert figures, [(i.kind, i.doc, i.page) for i in items]
    top = figures[0]
    assert top.doc == "panel.pdf" and top.page == 1 and top.thumbnail_png
    x0, y0, x1, y1 = sample.info["image_box"]
    bx = top.bbox
    assert bx[0] <= x0 + 5 and bx[1] <= y0 + 5 and bx[2] >= x1 - 5 and bx[3] >= y1 - 5, (bx, sample.info["image_box"])

    # Answer mode: "what is this?" about the image, answered from the matching figure, cited
    w.query_bar.set_mode("answer")
    with qtbot.waitSignal(w.answerFinished, timeout=120000):
        drop_files(w.query_bar.edit, [photo])
    cited = [i for i in w.answer_pane.sources.items if i.kind == "figure"]
    assert cited and cited[0].doc == "panel.pdf" and cited[0].page == 1
    turn = w.answer_pane.turns[-1]
    assert "What is this?" in turn["question"] and "panel.pdf, page 1" in turn["answer"], turn["answer"]
    w.close()


def test_model_change_reembeds_in_the_background(qtbot, manuals, lib_dir, tmp_path):
    """The engine uses the window's settings; choosing another text model re-embeds the library
    (a copy of MiniLM under another name: the only text model installable offline)."""
    import shutil

    w = open_window(qtbot, lib_dir)
    drop_files(w, [manuals / "px200.pdf"])
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    lib = w.engine.library
    assert lib.settings is w.settings
    old = lib.embedder.model_id
    copy = tmp_path / "minilm-copy"
    shutil.copytree(lib.embedder.model_dir, copy)
    w.settings.models["text_embedder"] = str(copy)
    job = w.on_model_changed("text_embedder")
    qtbot.waitUntil(lambda: job.state in ("done", "failed", "cancelled"), timeout=180000)
    assert job.state == "done"
    assert old != "minilm-copy" and lib.embedder.model_id == "minilm-copy"
    assert {r[0] for r in lib.conn.execute("SELECT DISTINCT model FROM vectors WHERE space = 'text'")} == {"minilm-copy"}
    assert "new text model" in w.status_label.text()
    w.close()


def test_image_model_change_switches_image_search_after_figure_work(qtbot, manuals, lib_dir, tmp_path):
    """Choosing another CLIP model: the figure work runs in the (already started) child process with
    the new choice, image search keeps the old model until then, and the status bar says so."""
    from model_builders import build_tiny_clip

    clip_a = build_tiny_clip(tmp_path / "clip-a", seed=0)
    clip_b = build_tiny_clip(tmp_path / "clip-b", seed=1, projection=24)
    w = open_window(qtbot, lib_dir, models={"image_embedder": str(clip_a)}, ocr_enabled=False)
    drop_files(w, [manuals / "px200.pdf"])  # ingest starts the child process, then figure work with clip-a
    qtbot.waitUntil(lambda: ingest_done(w) and w.enrich_job is None, timeout=180000)
    lib = w.engine.library
    rows = lambda: {r[0] for r in lib.conn.execute("SELECT DISTINCT model FROM vectors WHERE space = 'image'")}  # noqa: E731
    qtbot.waitUntil(lambda: rows() == {"clip-a"}, timeout=60000)
    started = []  # the figure job the model change starts (it may finish before a poll sees it)
    start = w.start_enrichment
    w.start_enrichment = lambda: started.append(start()) or started[-1]
    w.settings.models["image_embedder"] = str(clip_b)
    job = w.on_model_changed("image_embedder")
    qtbot.waitUntil(lambda: bool(job.state == "done" and started and started[-1] is not None), timeout=60000)
    qtbot.waitUntil(lambda: started[-1].state in ("done", "failed", "cancelled") and w.enrich_job is None,
                    timeout=180000)
    assert started[-1].state == "done"
    assert rows() == {"clip-b"} and lib.store.state.get("image_model") == "clip-b"
    assert "Image search now uses clip-b instead of clip-a" in w.status_label.text()
    w.close()


def test_a_library_another_program_writes_to_opens_read_only(qtbot, manuals, lib_dir, embedder):
    """The CLI (here: a Library in this process) holds the library: the window opens it read-only,
    says so, lists and searches it, and refuses to add with the holder named."""
    from mmrag_desktop.engine.library import Library

    holder = Library.open(lib_dir, embedder=embedder)
    try:
        list(holder.add([manuals / "px200.pdf"]))
        w = open_window(qtbot, lib_dir)
        assert w.banner.isVisible() and "Read-only" in w.banner.label.text()
        assert "in use by" in w.banner.label.text()
        assert [r.name for r in w.library_model.rows] == ["px200.pdf"]
        with qtbot.waitSignal(w.answerFinished, timeout=120000):
            w.ask(QUESTION, "answer")
        assert w.answer_pane.turns[-1]["question"] == QUESTION
        w.add_paths([manuals / "px200.pdf"])
        with qtbot.waitSignal(w.documentsRefreshed, timeout=60000):
            qtbot.waitUntil(lambda: not w.ingest_jobs, timeout=60000)
        assert "in use by" in w.banner.label.text() and "can be searched here but not changed" in w.banner.label.text()
        assert [(r.name, r.status) for r in w.library_model.rows] == [("px200.pdf", "ready")], "nothing changed"
        w.close()
    finally:
        holder.close()


def test_tools_compact_library_reports_in_the_banner(qtbot, manuals, lib_dir):
    w = open_window(qtbot, lib_dir)
    drop_files(w, [manuals / "px200.pdf"])
    qtbot.waitUntil(lambda: ingest_done(w), timeout=180000)
    job = w.compact_library()
    qtbot.waitUntil(lambda: job.state == "done", timeout=60000)
    qtbot.waitUntil(lambda: "compact" in w.banner.label.text().lower(), timeout=10000)
    assert w.status_label.text() == "Ready"
    w.close()
