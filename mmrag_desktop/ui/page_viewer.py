"""The page viewer: a rendered page with highlight overlays, zoom, page and hit navigation."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QKeySequence, QPainter, QPen, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .page_geometry import BBox, PageGeometry
from .page_render import PageRenderer, PageRenderError

ZOOM_STEPS = (0.25, 0.33, 0.5, 0.67, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0)


@dataclass
class Highlight:
    """One place to show: a document, the page to open and every box to highlight.

    boxes: (1-based page, bbox in PDF points, unrotated page space) — a chunk that crosses
    a page break has boxes on two pages, and both pages show theirs.
    context: the passage around the boxes (the hit's whole chunk), shaded lightly so the lines
    next to the highlighted sentence are easy to read in context.
    """

    doc_path: str
    page: int
    boxes: list[tuple[int, BBox]] = field(default_factory=list)
    label: str = ""
    context: list[tuple[int, BBox]] = field(default_factory=list)


class PageCanvas(QWidget):
    """Paints one page image and its highlight rectangles (logical pixels)."""

    painted = Signal(float)  # time.perf_counter() when a page with its highlights was painted

    FILL = QColor(255, 196, 0, 80)
    OUTLINE = QColor(232, 110, 0, 230)
    CONTEXT_FILL = QColor(255, 196, 0, 28)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image: QImage | None = None
        self.geometry_: PageGeometry | None = None
        self.zoom = 1.0
        self.boxes: list[BBox] = []
        self.context: list[BBox] = []
        self.message = ""
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Rendered page")

    def set_page(self, image: QImage | None, geom: PageGeometry | None, zoom: float,
                 boxes: list[BBox], message: str = "", context: list[BBox] | None = None) -> None:
        self.image, self.geometry_, self.zoom, self.boxes, self.message = image, geom, zoom, boxes, message
        self.context = list(context or [])
        if geom is not None:
            w, h = geom.pixel_size(zoom)
            self.setFixedSize(w, h)
        else:
            self.setFixedSize(400, 200)
        self.update()

    def highlight_rects(self) -> list[QRectF]:
        """Return the highlight rectangles in this widget's logical pixel coordinates."""
        return self._rects(self.boxes)

    def context_rects(self) -> list[QRectF]:
        """Return the lightly shaded passage rectangles in logical pixel coordinates."""
        return self._rects(self.context)

    def _rects(self, boxes: list[BBox]) -> list[QRectF]:
        if self.geometry_ is None:
            return []
        out = []
        for b in boxes:
            x0, y0, x1, y1 = self.geometry_.to_pixels(b, self.zoom)
            out.append(QRectF(x0, y0, x1 - x0, y1 - y0))
        return out

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt API)
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("white"))
        if self.image is not None:
            p.drawImage(QRectF(0, 0, self.width(), self.height()), self.image)
        elif self.message:
            p.setPen(QColor("#555"))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message)
        context = self.context_rects()
        if context:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(self.CONTEXT_FILL)
            for r in context:
                p.drawRect(r.adjusted(-4, -3, 4, 3))
        rects = self.highlight_rects()
        if rects:
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setPen(QPen(self.OUTLINE, 2))
            p.setBrush(self.FILL)
            for r in rects:
                p.drawRect(r.adjusted(-2, -2, 2, 2))
        p.end()
        if self.image is not None:
            self.painted.emit(time.perf_counter())


class PageViewer(QWidget):
    """A document page with highlights; zoom (Ctrl+wheel, +/−, fit width), page and hit navigation.

    `show_highlight(h, siblings)` opens h.doc_path at h.page with its boxes and lets the
    user step through `siblings` (the other hits in the same document).
    """

    pageChanged = Signal(int)  # noqa: N815 (Qt naming)
    zoomChanged = Signal(float)  # noqa: N815
    errorOccurred = Signal(str)  # noqa: N815

    def __init__(self, renderer: PageRenderer | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.renderer = renderer or PageRenderer()
        self.renderer.signals.rendered.connect(self._on_rendered)
        self.renderer.signals.failed.connect(lambda _k, msg: self._show_message(msg))
        self.doc_path: str | None = None
        self.page = 1
        self.page_count = 0
        self.zoom = 1.0
        self.fit_width_mode = False
        self.current: Highlight | None = None
        self.hits: list[Highlight] = []
        self.hit_index = -1
        self._build()

    # ---- layout -------------------------------------------------------------------
    def _button(self, text: str, tip: str, slot, shortcut: str | None = None) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip + (f" ({shortcut})" if shortcut else ""))
        b.setAccessibleName(tip)
        b.clicked.connect(slot)
        return b

    def _build(self) -> None:
        bar = QToolBar(self)  # overflows into an extension menu when the viewer is narrow
        bar.setObjectName("viewerToolbar")
        bar.setAccessibleName("Page viewer tools")
        self.title = QLabel("No document", self)
        self.title.setObjectName("viewerTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prev_page_btn = self._button("◀", "Previous page", self.previous_page, "PgUp")
        self.page_box = QSpinBox(self)
        self.page_box.setAccessibleName("Page number")
        self.page_box.setMinimum(1)
        self.page_box.setKeyboardTracking(False)
        self.page_box.valueChanged.connect(lambda v: self.go_to_page(v) if v != self.page else None)
        self.page_total = QLabel("/ 0", self)
        self.next_page_btn = self._button("▶", "Next page", self.next_page, "PgDown")
        self.zoom_out_btn = self._button("−", "Zoom out", self.zoom_out, "Ctrl+-")
        self.zoom_label = QLabel("100%", self)
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_in_btn = self._button("+", "Zoom in", self.zoom_in, "Ctrl++")
        self.fit_btn = self._button("↔", "Fit width", self.fit_width, "Ctrl+0")
        self.prev_hit_btn = self._button("⤒ Hit", "Previous hit in this document", self.previous_hit, "Shift+F3")
        self.next_hit_btn = self._button("Hit ⤓", "Next hit in this document", self.next_hit, "F3")
        self.hit_label = QLabel("", self)
        for group in ((self.prev_page_btn, self.page_box, self.page_total, self.next_page_btn),
                      (self.zoom_out_btn, self.zoom_label, self.zoom_in_btn, self.fit_btn),
                      (self.prev_hit_btn, self.hit_label, self.next_hit_btn)):
            for w in group:
                bar.addWidget(w)
            bar.addSeparator()
        self.canvas = PageCanvas()
        self.scroll = QScrollArea(self)
        self.scroll.setObjectName("pageScroll")
        self.scroll.setWidget(self.canvas)
        self.scroll.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.scroll.setAccessibleName("Page view")
        self.scroll.viewport().installEventFilter(self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.title)
        lay.addWidget(bar)
        lay.addWidget(self.scroll, 1)
        for seq, slot in (("Ctrl++", self.zoom_in), ("Ctrl+=", self.zoom_in), ("Ctrl+-", self.zoom_out),
                          ("Ctrl+0", self.fit_width), ("PgDown", self.next_page), ("PgUp", self.previous_page),
                          ("F3", self.next_hit), ("Shift+F3", self.previous_hit)):
            sc = QShortcut(QKeySequence(seq), self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        self._update_controls()

    # ---- public API ---------------------------------------------------------------
    def open_document(self, path: str, page: int = 1) -> bool:
        """Show `path` at `page` without highlights; returns False (and reports) on error."""
        self.current, self.hits, self.hit_index = None, [], -1
        return self._open(path, page)

    def show_highlight(self, h: Highlight, siblings: list[Highlight] | None = None) -> bool:
        """Open h's document at h's page with its boxes highlighted and scrolled into view.

        `siblings`: all hits in that document (including h) for next/previous-hit. Returns
        False when the page cannot be shown (the reason goes to `errorOccurred`).
        """
        self.current = h
        self.hits = [s for s in (siblings or [h]) if s.doc_path == h.doc_path]
        if h not in self.hits:
            self.hits.insert(0, h)
        self.hit_index = self.hits.index(h)
        ok = self._open(h.doc_path, h.page)
        if ok:
            self._scroll_to_boxes()
        return ok

    def set_zoom(self, zoom: float, keep_fit: bool = False) -> None:
        """Set the zoom factor (1.0 = 100% = 72 dpi) and re-render."""
        zoom = max(ZOOM_STEPS[0], min(ZOOM_STEPS[-1], zoom))
        if not keep_fit:
            self.fit_width_mode = False
        if abs(zoom - self.zoom) < 1e-4:
            return
        vbar, hbar = self.scroll.verticalScrollBar(), self.scroll.horizontalScrollBar()
        rel_v = vbar.value() / max(1, vbar.maximum()) if vbar.maximum() else 0.0
        rel_h = hbar.value() / max(1, hbar.maximum()) if hbar.maximum() else 0.0
        self.zoom = zoom
        self._refresh()
        vbar.setValue(round(rel_v * vbar.maximum()))
        hbar.setValue(round(rel_h * hbar.maximum()))
        self.zoomChanged.emit(zoom)

    def restore_zoom(self, zoom: float) -> None:
        """Take the zoom a saved session used, without rendering (no document is open yet)."""
        self.zoom = max(ZOOM_STEPS[0], min(ZOOM_STEPS[-1], float(zoom)))
        self._update_controls()

    def zoom_in(self) -> None:
        self.set_zoom(next((z for z in ZOOM_STEPS if z > self.zoom + 1e-3), ZOOM_STEPS[-1]))

    def zoom_out(self) -> None:
        self.set_zoom(next((z for z in reversed(ZOOM_STEPS) if z < self.zoom - 1e-3), ZOOM_STEPS[0]))

    def fit_width(self) -> None:
        """Zoom so the page fills the viewport's width (kept on resize)."""
        self.fit_width_mode = True
        self._apply_fit_width()

    def go_to_page(self, page: int) -> None:
        """Show 1-based `page` of the current document (highlights of the current hit stay)."""
        if self.doc_path is None:
            return
        page = max(1, min(self.page_count, page))
        if page != self.page:
            self.page = page
            self._refresh()
            self.scroll.verticalScrollBar().setValue(0)
            self.pageChanged.emit(page)

    def next_page(self) -> None:
        self.go_to_page(self.page + 1)

    def previous_page(self) -> None:
        self.go_to_page(self.page - 1)

    def next_hit(self) -> None:
        """Jump to the next hit in this document (wraps around)."""
        if self.hits:
            self._go_hit((self.hit_index + 1) % len(self.hits))

    def previous_hit(self) -> None:
        if self.hits:
            self._go_hit((self.hit_index - 1) % len(self.hits))

    def boxes_on_page(self) -> list[BBox]:
        """Return the highlight boxes of the current hit on the shown page."""
        if self.current is None or self.current.doc_path != self.doc_path:
            return []
        return [b for p, b in self.current.boxes if p == self.page]

    def context_on_page(self) -> list[BBox]:
        """Return the current hit's passage boxes on the shown page."""
        if self.current is None or self.current.doc_path != self.doc_path:
            return []
        return [b for p, b in self.current.context if p == self.page]

    def clear(self) -> None:
        """Show nothing (e.g. after the document was removed)."""
        self.doc_path, self.current, self.hits, self.page_count = None, None, [], 0
        self.title.setText("No document")
        self.canvas.set_page(None, None, self.zoom, [], "")
        self._update_controls()

    # ---- internals ----------------------------------------------------------------
    def _go_hit(self, i: int) -> None:
        self.hit_index = i
        self.current = self.hits[i]
        self.go_to_page(self.current.page)
        self._refresh()
        self._scroll_to_boxes()

    def _open(self, path: str, page: int) -> bool:
        try:
            count = self.renderer.page_count(path)
        except PageRenderError as e:
            self._show_message(str(e))
            self.errorOccurred.emit(str(e))
            return False
        self.doc_path, self.page_count = path, count
        self.page = max(1, min(count, page))
        self.title.setText(Path(path).name)
        self.title.setToolTip(path)
        if self.fit_width_mode:
            self._apply_fit_width(refresh=False)
        self._refresh()
        self.pageChanged.emit(self.page)
        return True

    def _dpr(self) -> float:
        return float(self.devicePixelRatioF() or 1.0)

    def _refresh(self) -> None:
        if self.doc_path is None:
            return
        try:
            geom = self.renderer.geometry(self.doc_path, self.page)
            img = self.renderer.request(self.doc_path, self.page, self.zoom, self._dpr())
        except PageRenderError as e:
            self._show_message(str(e))
            self.errorOccurred.emit(str(e))
            return
        self.canvas.set_page(img, geom, self.zoom, self.boxes_on_page(), "" if img else "Rendering…",
                             self.context_on_page())
        self._update_controls()

    def _on_rendered(self, key: tuple, image: QImage) -> None:
        if key == (self.doc_path, self.page, round(self.zoom, 4), self._dpr()):
            self.canvas.set_page(image, self.canvas.geometry_, self.zoom, self.boxes_on_page(), "",
                                 self.context_on_page())

    def _show_message(self, msg: str) -> None:
        self.canvas.set_page(None, None, self.zoom, [], msg)

    def _apply_fit_width(self, refresh: bool = True) -> None:
        if self.doc_path is None:
            return
        try:
            geom = self.renderer.geometry(self.doc_path, self.page)
        except PageRenderError:
            return
        avail = self.scroll.viewport().width() - 4
        zoom = max(ZOOM_STEPS[0], min(ZOOM_STEPS[-1], avail / max(1.0, geom.width)))
        if refresh:
            self.set_zoom(zoom, keep_fit=True)
        else:
            self.zoom = zoom

    def _scroll_to_boxes(self) -> None:
        rects = self.canvas.highlight_rects()
        if not rects:
            return
        r = rects[0]
        for o in rects[1:]:
            r = r.united(o)
        vp = self.scroll.viewport()
        self.scroll.ensureVisible(int(r.center().x()), int(r.center().y()),
                                  max(20, int(vp.width() / 2 - r.width() / 2)),
                                  max(20, int(vp.height() / 2 - r.height() / 2)))

    def _update_controls(self) -> None:
        has = self.doc_path is not None
        self.page_box.blockSignals(True)
        self.page_box.setMaximum(max(1, self.page_count))
        self.page_box.setValue(self.page if has else 1)
        self.page_box.blockSignals(False)
        self.page_total.setText(f"/ {self.page_count}")
        self.zoom_label.setText(f"{round(self.zoom * 100)}%")
        for w in (self.prev_page_btn, self.next_page_btn, self.page_box, self.zoom_in_btn,
                  self.zoom_out_btn, self.fit_btn):
            w.setEnabled(has)
        self.prev_page_btn.setEnabled(has and self.page > 1)
        self.next_page_btn.setEnabled(has and self.page < self.page_count)
        many = len(self.hits) > 1
        self.prev_hit_btn.setEnabled(many)
        self.next_hit_btn.setEnabled(many)
        self.hit_label.setText(f"{self.hit_index + 1}/{len(self.hits)}" if self.hits else "")

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if obj is self.scroll.viewport():
            if event.type() == QEvent.Type.Wheel and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                if event.angleDelta().y() > 0:
                    self.zoom_in()
                elif event.angleDelta().y() < 0:
                    self.zoom_out()
                return True
            if event.type() == QEvent.Type.Resize and self.fit_width_mode:
                self._apply_fit_width()
        return super().eventFilter(obj, event)
