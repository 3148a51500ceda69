"""Page viewer: highlight geometry on plain, rotated and cropped pages; zoom; navigation.

Real PDFs made with PyMuPDF in the test; real rendering; no engine needed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pymupdf = pytest.importorskip("pymupdf")

from mmrag_desktop.ui.page_geometry import PageGeometry  # noqa: E402
from mmrag_desktop.ui.page_render import PageRenderer  # noqa: E402
from mmrag_desktop.ui.page_viewer import Highlight, PageViewer  # noqa: E402

PAGES = [  # (rotation, cropbox or None)
    (0, None), (90, None), (180, None), (270, None), (0, (50, 100, 500, 700)), (90, (40, 60, 520, 760)),
]


@pytest.fixture
def pdf(tmp_path):
    """A PDF whose pages carry the word HELLO at (100, 200), with rotations and cropboxes."""
    doc = pymupdf.open()
    for rot, crop in PAGES:
        p = doc.new_page(width=595, height=842)
        p.insert_text((100, 200), "HELLO", fontsize=30)
        p.insert_text((100, 760), "FOOTER", fontsize=20)
        if crop:
            p.set_cropbox(pymupdf.Rect(crop))
        p.set_rotation(rot)
    path = tmp_path / "rotated.pdf"
    doc.save(path)
    doc.close()
    return path


def word_box(path, page_no: int, word: str = "HELLO"):
    with pymupdf.open(path) as doc:
        w = [w for w in doc[page_no - 1].get_text("words") if w[4] == word][0]
        return tuple(w[:4])


def dark_fraction(img, rect) -> float:
    """Share of dark pixels of `img` (device pixels) inside `rect` (logical px × dpr)."""
    dpr = img.devicePixelRatio()
    n = d = 0
    for y in range(int(rect.top() * dpr), int(rect.bottom() * dpr)):
        for x in range(int(rect.left() * dpr), int(rect.right() * dpr)):
            if 0 <= x < img.width() and 0 <= y < img.height():
                n += 1
                d += img.pixelColor(x, y).lightness() < 128
    return d / max(1, n)


@pytest.mark.parametrize("page_no", range(1, len(PAGES) + 1))
@pytest.mark.parametrize("zoom", [1.0, 1.5])
def test_highlight_covers_the_word_on_rotated_and_cropped_pages(qtbot, pdf, page_no, zoom):
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.resize(900, 900)
    viewer.set_zoom(zoom)
    box = word_box(pdf, page_no)
    assert viewer.show_highlight(Highlight(str(pdf), page_no, [(page_no, box)]))
    rects = viewer.canvas.highlight_rects()
    assert len(rects) == 1
    geom = viewer.renderer.geometry(str(pdf), page_no)
    x0, y0, x1, y1 = geom.to_pixels(box, zoom)
    r = rects[0]
    assert (r.left(), r.top(), r.right(), r.bottom()) == pytest.approx((x0, y0, x1, y1), abs=1e-6)
    # the mapped rectangle really sits on the rendered word (text is dark), and the page
    # area next to it is blank
    img = viewer.canvas.image
    assert img is not None
    assert img.width() == pytest.approx(geom.width * zoom * img.devicePixelRatio(), abs=1)
    assert dark_fraction(img, r) > 0.08
    assert dark_fraction(img, r.translated(r.width() * 1.5, 0)) < 0.01


def test_rotation_swaps_the_displayed_size(pdf):
    r = PageRenderer()
    g0, g90 = r.geometry(str(pdf), 1), r.geometry(str(pdf), 2)
    assert (g0.width, g0.height) == (595, 842)
    assert (g90.width, g90.height) == (842, 595)
    assert g90.rotation == 90
    # 90°: unrotated (x, y) -> displayed (H - y, x)
    assert g90.to_display((100, 170, 200, 210)) == pytest.approx((842 - 210, 100, 842 - 170, 200))
    r.close()


def test_zoom_scales_the_highlight_and_keeps_it_on_the_word(qtbot, pdf):
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.resize(800, 700)
    viewer.show()
    qtbot.waitExposed(viewer)
    box = word_box(pdf, 1)
    viewer.show_highlight(Highlight(str(pdf), 1, [(1, box)]))
    r1 = viewer.canvas.highlight_rects()[0]
    viewer.zoom_in()
    z = viewer.zoom
    assert z > 1.0
    r2 = viewer.canvas.highlight_rects()[0]
    assert r2.left() == pytest.approx(r1.left() * z)
    assert r2.width() == pytest.approx(r1.width() * z)
    assert viewer.canvas.width() == round(595 * z)
    viewer.zoom_out()
    viewer.zoom_out()
    assert viewer.zoom < 1.0
    assert viewer.zoom_label.text() == f"{round(viewer.zoom * 100)}%"
    viewer.fit_width()
    avail = viewer.scroll.viewport().width() - 4
    assert viewer.canvas.width() == pytest.approx(avail, abs=2)


def test_ctrl_wheel_zooms(qtbot, pdf):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.open_document(str(pdf), 1)
    before = viewer.zoom
    vp = viewer.scroll.viewport()
    ev = QWheelEvent(QPointF(10, 10), QPointF(vp.mapToGlobal(QPoint(10, 10))), QPoint(0, 0), QPoint(0, 120),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier, Qt.ScrollPhase.NoScrollPhase,
                     False)
    QApplication.sendEvent(vp, ev)
    assert viewer.zoom > before


def test_page_navigation_and_two_page_chunk(qtbot, pdf):
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    b1, b2 = word_box(pdf, 1, "FOOTER"), word_box(pdf, 2)
    h = Highlight(str(pdf), 1, [(1, b1), (2, b2)])
    viewer.show_highlight(h)
    assert viewer.page == 1 and viewer.boxes_on_page() == [b1]
    assert len(viewer.canvas.highlight_rects()) == 1
    viewer.next_page()
    assert viewer.page == 2 and viewer.boxes_on_page() == [b2]  # the chunk continues: highlighted too
    assert len(viewer.canvas.highlight_rects()) == 1
    viewer.next_page()
    assert viewer.page == 3 and viewer.canvas.highlight_rects() == []
    viewer.go_to_page(99)
    assert viewer.page == len(PAGES)
    assert not viewer.next_page_btn.isEnabled()
    viewer.page_box.setValue(2)
    assert viewer.page == 2


def test_next_and_previous_hit(qtbot, pdf):
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    hits = [Highlight(str(pdf), p, [(p, word_box(pdf, p))]) for p in (1, 3, 5)]
    viewer.show_highlight(hits[0], hits)
    assert viewer.hit_label.text() == "1/3"
    viewer.next_hit()
    assert viewer.page == 3 and viewer.hit_label.text() == "2/3"
    viewer.previous_hit()
    viewer.previous_hit()
    assert viewer.page == 5 and viewer.hit_label.text() == "3/3"


def test_large_page_renders_off_the_gui_thread(qtbot, tmp_path):
    doc = pymupdf.open()
    p = doc.new_page(width=2000, height=2000)
    p.insert_text((100, 100), "BIG", fontsize=40)
    path = tmp_path / "big.pdf"
    doc.save(path)
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.set_zoom(1.0)
    with qtbot.waitSignal(viewer.renderer.signals.rendered, timeout=10000):
        viewer.open_document(str(path), 1)
        assert viewer.canvas.image is None  # shown as "Rendering…" first
    qtbot.waitUntil(lambda: viewer.canvas.image is not None, timeout=5000)
    assert viewer.canvas.image.width() == 2000
    viewer.renderer.close()


def test_missing_file_is_reported(qtbot, tmp_path):
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    with qtbot.waitSignal(viewer.errorOccurred) as sig:
        assert not viewer.open_document(str(tmp_path / "gone.pdf"))
    assert "no longer there" in sig.args[0]


def test_geometry_from_page_matches_pymupdf(pdf):
    with pymupdf.open(pdf) as doc:
        for page in doc:
            g = PageGeometry.from_page(page)
            r = pymupdf.Rect(100, 170, 200, 210) * page.rotation_matrix
            assert g.to_display((100, 170, 200, 210)) == pytest.approx(tuple(r), abs=1e-4)


def test_a_poster_page_is_drawn_at_bounded_size_and_the_cache_has_a_byte_budget(tmp_path):
    """A 139-inch page at 100% would be a ~200 MP image: it is drawn less sharp at its on-screen
    size, and the cache never holds more than its byte budget (issue 17, fault 4)."""
    import pymupdf

    path = tmp_path / "poster.pdf"
    doc = pymupdf.open()
    for _ in range(3):
        page = doc.new_page(width=10000, height=10000)
        page.insert_text((100, 100), "Poster", fontsize=200)
    doc.save(str(path))
    doc.close()
    r = PageRenderer()
    img = r.render(str(path), 1, 1.0, 1.0)
    assert img.width() * img.height() <= PageRenderer.MAX_PIXELS
    assert abs(img.width() / img.devicePixelRatio() - 10000) < 2, "same size on screen"
    for page in (1, 2, 3):
        r.render(str(path), page, 2.0, 1.0)
    assert sum(i.sizeInBytes() for i in r._images.values()) <= PageRenderer.MAX_CACHE_BYTES  # noqa: SLF001
