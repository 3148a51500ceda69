"""Icons and stylesheets shipped inside the package, loaded through importlib.resources."""

from __future__ import annotations

from importlib import resources

from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette, QPixmap

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def resource_bytes(*parts: str) -> bytes:
    """Return the bytes of `mmrag_desktop/resources/<parts...>`; raises FileNotFoundError."""
    node = resources.files("mmrag_desktop").joinpath("resources", *parts)
    return node.read_bytes()


def app_icon() -> QIcon:
    """The application icon (every PNG size shipped, the SVG as fallback)."""
    icon = QIcon()
    for s in ICON_SIZES:
        try:
            data = resource_bytes("icons", f"mmrag-desktop-{s}.png")
        except FileNotFoundError:
            continue
        pm = QPixmap()
        pm.loadFromData(data, "PNG")
        icon.addPixmap(pm)
    if icon.isNull():
        pm = QPixmap()
        pm.loadFromData(resource_bytes("icons", "mmrag-desktop.svg"), "SVG")
        icon.addPixmap(pm)
    return icon


def system_prefers_dark() -> bool:
    """True when the platform's colour scheme (or palette) is dark."""
    app = QGuiApplication.instance()
    hints = app.styleHints() if app else None
    try:
        from PySide6.QtCore import Qt

        if hints is not None and hints.colorScheme() == Qt.ColorScheme.Dark:
            return True
    except AttributeError:  # Qt < 6.5
        pass
    return bool(app) and app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def resolve_theme(theme: str) -> str:
    """Map "system" to "light"/"dark"; other values pass through."""
    if theme == "system":
        return "dark" if system_prefers_dark() else "light"
    return theme if theme in ("light", "dark") else "light"


def stylesheet(theme: str) -> str:
    """Return the QSS of `theme` ("light" | "dark" | "system")."""
    return resource_bytes("styles", f"{resolve_theme(theme)}.qss").decode("utf-8")


def apply_theme(app, theme: str) -> str:
    """Apply palette + stylesheet of `theme` to `app`; returns the theme actually used."""
    name = resolve_theme(theme)
    app.setStyle("Fusion")
    pal = QPalette()
    if name == "dark":
        for role, col in ((QPalette.ColorRole.Window, "#23262b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                          (QPalette.ColorRole.Base, "#1b1d21"), (QPalette.ColorRole.AlternateBase, "#262a30"),
                          (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#2d3137"),
                          (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#3d7bd9"),
                          (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.ToolTipBase, "#2d3137"),
                          (QPalette.ColorRole.ToolTipText, "#e6e6e6"), (QPalette.ColorRole.PlaceholderText, "#8a8f98"),
                          (QPalette.ColorRole.Link, "#7fb0ff")):
            pal.setColor(role, QColor(col))
    else:
        pal = app.style().standardPalette()
    app.setPalette(pal)
    app.setStyleSheet(stylesheet(name))
    return name
