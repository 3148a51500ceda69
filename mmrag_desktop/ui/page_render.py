"""Render document pages to QImage with PyMuPDF, cached per (file, page, zoom, dpr).

PyMuPDF is not thread-safe, so every call into it holds one lock; renders of large
pages run on a QThreadPool and report back through a signal. `pymupdf` is imported on
first use (it costs ~0.7 s), never at window start.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtGui import QImage

from .page_geometry import PageGeometry

# Above this many device pixels a page is rendered off the GUI thread.
ASYNC_PIXELS = 1_500_000


class PageRenderError(Exception):
    """A page could not be opened or rendered; the message says why in plain words."""


class _Signals(QObject):
    rendered = Signal(object, object)  # key, QImage
    failed = Signal(object, str)  # key, message


class _RenderJob(QRunnable):
    def __init__(self, renderer: PageRenderer, key: tuple) -> None:
        super().__init__()
        self.renderer, self.key = renderer, key
        self.setAutoDelete(True)

    def run(self) -> None:  # worker thread
        path, page, zoom, dpr = self.key
        try:
            img = self.renderer.render(path, page, zoom, dpr)
        except PageRenderError as e:
            self.renderer.signals.failed.emit(self.key, str(e))
            return
        self.renderer.signals.rendered.emit(self.key, img)


class PageRenderer:
    """Opens documents on demand and renders their pages; thread-safe.

    `render()` is synchronous; `request()` renders small pages at once and large ones
    on a thread pool, emitting `signals.rendered(key, image)` when done.
    """

    MAX_PIXELS = 40_000_000  # one rendered page at most (a poster zoomed in is drawn less sharp, not 4 GB)
    MAX_CACHE_BYTES = 512 * 1024**2

    def __init__(self, max_images: int = 24, max_docs: int = 6) -> None:
        self._lock = threading.RLock()
        self._docs: OrderedDict[str, object] = OrderedDict()
        self._images: OrderedDict[tuple, QImage] = OrderedDict()
        self._geoms: dict[tuple[str, int], PageGeometry] = {}
        self._max_images, self._max_docs = max_images, max_docs
        self.signals = _Signals()
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)
        self._pending: set[tuple] = set()
        self.signals.rendered.connect(lambda k, _i: self._pending.discard(k))
        self.signals.failed.connect(lambda k, _m: self._pending.discard(k))

    def _doc(self, path: str):
        doc = self._docs.get(path)
        if doc is not None:
            self._docs.move_to_end(path)
            return doc
        import pymupdf

        if not Path(path).exists():
            raise PageRenderError(f"{path}: the file is no longer there")
        try:
            doc = pymupdf.open(path)
        except Exception as e:  # pymupdf raises its own FileDataError/RuntimeError types
            raise PageRenderError(f"{Path(path).name}: cannot be opened for viewing ({e})") from e
        if doc.needs_pass:
            raise PageRenderError(f"{Path(path).name}: the PDF needs a password")
        self._docs[path] = doc
        while len(self._docs) > self._max_docs:
            _, old = self._docs.popitem(last=False)
            old.close()
        return doc

    def page_count(self, path: str) -> int:
        """Return the number of pages of `path`; raises PageRenderError."""
        with self._lock:
            return self._doc(path).page_count

    def geometry(self, path: str, page: int) -> PageGeometry:
        """Return the displayed geometry of 1-based `page`; raises PageRenderError."""
        key = (path, page)
        with self._lock:
            g = self._geoms.get(key)
            if g is None:
                doc = self._doc(path)
                if not 1 <= page <= doc.page_count:
                    raise PageRenderError(f"{Path(path).name} has no page {page}")
                g = self._geoms[key] = PageGeometry.from_page(doc[page - 1])
            return g

    def cached(self, path: str, page: int, zoom: float, dpr: float) -> QImage | None:
        """Return the cached image for this key or None."""
        with self._lock:
            return self._images.get((path, page, round(zoom, 4), dpr))

    def render(self, path: str, page: int, zoom: float, dpr: float = 1.0) -> QImage:
        """Render 1-based `page` at `zoom` (1.0 = 72 dpi) × `dpr`; returns a QImage whose
        devicePixelRatio is `dpr`. Raises PageRenderError."""
        import pymupdf

        key = (path, page, round(zoom, 4), dpr)
        with self._lock:
            img = self._images.get(key)
            if img is not None:
                self._images.move_to_end(key)
                return img
            self.geometry(path, page)
            p = self._doc(path)[page - 1]
            scale = min(zoom * dpr, 0.999 * (self.MAX_PIXELS / max(p.rect.width * p.rect.height, 1.0)) ** 0.5)
            try:
                pix = p.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
            except Exception as e:
                raise PageRenderError(f"{Path(path).name} page {page}: cannot be rendered ({e})") from e
            fmt = QImage.Format.Format_RGB888 if pix.n == 3 else QImage.Format.Format_Grayscale8
            img = QImage(pix.samples, pix.width, pix.height, pix.stride, fmt).copy()
            img.setDevicePixelRatio(scale / zoom)  # = dpr unless capped: the page keeps its size on screen
            self._images[key] = img
            while len(self._images) > 1 and (len(self._images) > self._max_images or sum(
                    i.sizeInBytes() for i in self._images.values()) > self.MAX_CACHE_BYTES):
                self._images.popitem(last=False)
            return img

    def request(self, path: str, page: int, zoom: float, dpr: float) -> QImage | None:
        """Return the image now if cached or small; otherwise start a background render
        (result via `signals.rendered`) and return None. Raises PageRenderError."""
        key = (path, page, round(zoom, 4), dpr)
        img = self.cached(path, page, zoom, dpr)
        if img is not None:
            return img
        w, h = self.geometry(path, page).pixel_size(zoom * dpr)
        if w * h <= ASYNC_PIXELS:
            return self.render(path, page, zoom, dpr)
        if key not in self._pending:
            self._pending.add(key)
            self.pool.start(_RenderJob(self, key))
        return None

    def forget(self, path: str) -> None:
        """Drop every cached image and the open handle of `path` (e.g. after removal)."""
        with self._lock:
            for k in [k for k in self._images if k[0] == path]:
                del self._images[k]
            for k in [k for k in self._geoms if k[0] == path]:
                del self._geoms[k]
            doc = self._docs.pop(path, None)
            if doc is not None:
                doc.close()

    def close(self) -> None:
        """Wait for background renders and close every document."""
        self.pool.waitForDone(5000)
        with self._lock:
            for doc in self._docs.values():
                doc.close()
            self._docs.clear()
            self._images.clear()
