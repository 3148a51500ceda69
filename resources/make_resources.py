"""Regenerate the packaged resources that are derived files.

    .venv/bin/python resources/make_resources.py

Writes, under mmrag_desktop/resources/ (the files the installed package loads through
importlib.resources):
  icons/mmrag-desktop-<N>.png   from icons/mmrag-desktop.svg (QtSvg), N in 16..256
  samples/self-test.pdf         the tiny manual `mmrag-desktop --self-test` ingests
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PKG_RES = Path(__file__).resolve().parent.parent / "mmrag_desktop" / "resources"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def make_icons() -> list[Path]:
    """Render the SVG icon to PNGs; returns the files written."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = QSvgRenderer(str(PKG_RES / "icons" / "mmrag-desktop.svg"))
    out = []
    for s in SIZES:
        img = QImage(s, s, QImage.Format.Format_ARGB32)
        img.fill(Qt.GlobalColor.transparent)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        svg.render(p)
        p.end()
        path = PKG_RES / "icons" / f"mmrag-desktop-{s}.png"
        img.save(str(path), "PNG")
        out.append(path)
    return out


def make_sample_pdf() -> Path:
    """Write a 2-page manual with a heading, paragraphs, a ruled table and a vector figure."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "PX-200 Pressure Transmitter - Service Manual", fontsize=16)
    page.insert_text((72, 120), "1 Calibration", fontsize=13)
    body = ("To calibrate the pressure sensor, vent both ports to atmosphere, hold the ZERO key for "
            "three seconds and wait until the display shows 0.000 bar. Then apply the reference "
            "pressure of 10 bar and press SPAN.")
    page.insert_textbox(pymupdf.Rect(72, 132, 523, 220), body, fontsize=10.5)
    page.insert_text((72, 250), "Table 1: Output ranges", fontsize=10)
    rows = [("Model", "Range", "Output"), ("PX-200A", "0-10 bar", "4-20 mA"), ("PX-200B", "0-40 bar", "0-10 V")]
    x0, y0, cw, rh = 72, 262, 150, 20
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(x0 + c * cw, y0 + r * rh, x0 + (c + 1) * cw, y0 + (r + 1) * rh)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            page.insert_text((rect.x0 + 5, rect.y1 - 6), cell, fontsize=10)
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "2 Wiring", fontsize=13)
    page.insert_textbox(pymupdf.Rect(72, 92, 523, 150),
                        "Connect the loop supply (12-30 V DC) to terminals 1 (+) and 2 (-). "
                        "Figure 1 shows the terminal block.", fontsize=10.5)
    fig = pymupdf.Rect(150, 170, 445, 330)
    page.draw_rect(fig, color=(0.1, 0.2, 0.5), width=1.5)
    for i in range(4):
        t = pymupdf.Rect(175 + i * 65, 220, 225 + i * 65, 280)
        page.draw_rect(t, color=(0, 0, 0), fill=(0.85, 0.88, 0.95), width=1)
        page.insert_text((t.x0 + 20, t.y1 - 25), str(i + 1), fontsize=12)
    page.insert_text((150, 350), "Figure 1: Terminal block of the PX-200", fontsize=10)
    path = PKG_RES / "samples" / "self-test.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path), garbage=4, deflate=True)
    doc.close()
    return path


if __name__ == "__main__":
    for p in [*make_icons(), make_sample_pdf()]:
        print(p.relative_to(PKG_RES.parent.parent), p.stat().st_size)
