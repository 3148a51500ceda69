"""Does Qt's xcb platform plugin find its system libraries? If not, which packages to install.

A minimal Linux system (a fresh Debian 12) lacks some shared libraries that Qt's xcb plugin
(`libqxcb.so`) links against (`libxcb-cursor0`, `libxcb-icccm4`, ...). Qt then says only
"could not load the Qt platform plugin xcb". This module runs `ldd` on the plugin, maps every
library that is "not found" to its package on Debian/Ubuntu, Fedora and Arch, and prints the
exact install command. It imports no Qt (it must run when Qt cannot start):

    python -m mmrag_desktop.ui.platform_libs      # exit 0: nothing missing; 1: the message

`scripts/bootstrap.sh app` and the desktop entry point (`__main__.py`) call it before the window
opens; the installed app does too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# soname -> (Debian/Ubuntu, Fedora, Arch) package. Covers what libqxcb.so and the Qt libraries it
# loads link against (PySide6 6.7-6.10); an unknown soname is shown as it is.
PACKAGES: dict[str, tuple[str, str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon", "libxkbcommon"),
    "libxcb.so.1": ("libxcb1", "libxcb", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb", "libx11"),
    "libX11.so.6": ("libx11-6", "libX11", "libx11"),
    "libXau.so.6": ("libxau6", "libXau", "libxau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp", "libxdmcp"),
    "libSM.so.6": ("libsm6", "libSM", "libsm"),
    "libICE.so.6": ("libice6", "libICE", "libice"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl", "libglvnd"),
    "libGL.so.1": ("libgl1", "libglvnd-glx", "libglvnd"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx", "libglvnd"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype", "freetype2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs", "dbus"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2", "glib2"),
}
# the rest of libxcb's extension libraries follow one pattern on all three: (name, soname major)
for _ext, _major in (("randr", 0), ("render", 0), ("shape", 0), ("shm", 0), ("sync", 1), ("xfixes", 0),
                     ("xinerama", 0), ("xinput", 0), ("xkb", 1), ("glx", 0)):
    PACKAGES[f"libxcb-{_ext}.so.{_major}"] = (f"libxcb-{_ext}{_major}", "libxcb", "libxcb")

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


@dataclass(frozen=True)
class PlatformCheck:
    """The result: `missing` sonames (empty when the plugin's libraries are all there);
    `skipped` says why nothing was checked (not Linux, another platform chosen, no ldd)."""

    plugin: Path | None
    missing: tuple[str, ...] = ()
    skipped: str = ""

    @property
    def ok(self) -> bool:
        return not self.missing

    def packages(self, distro: int) -> list[str]:
        """Package names for the missing libraries (0 Debian/Ubuntu, 1 Fedora, 2 Arch), in order,
        each once; an unknown library is named by its soname."""
        out: list[str] = []
        for so in self.missing:
            name = PACKAGES.get(so, (so, so, so))[distro]
            if name not in out:
                out.append(name)
        return out

    def message(self) -> str:
        """What to tell the user: which libraries are missing and the install commands."""
        return "\n".join([
            "The window cannot open: Qt's xcb platform plugin needs system libraries this machine lacks:",
            "  " + " ".join(self.missing),
            "Install them, then start mmrag-desktop again:",
            "  Debian/Ubuntu: sudo apt-get install " + " ".join(self.packages(0)),
            "  Fedora:        sudo dnf install " + " ".join(self.packages(1)),
            "  Arch:          sudo pacman -S " + " ".join(self.packages(2)),
            "(The command line, mmrag, works without them.)",
        ])


def missing_libraries(ldd_output: str) -> tuple[str, ...]:
    """Sonames `ldd` reports as "not found", in its order, each once."""
    return tuple(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def xcb_plugin() -> Path | None:
    """Path of Qt's libqxcb.so in this installation (a venv or a PyInstaller bundle), or None."""
    roots = []
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        roots.append(Path(meipass) / "PySide6")
    import importlib.util

    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        roots.extend(Path(p) for p in spec.submodule_search_locations)
    for root in roots:
        for rel in ("Qt/plugins/platforms/libqxcb.so", "plugins/platforms/libqxcb.so"):
            if (root / rel).is_file():
                return root / rel
    return None


def wants_xcb(env: dict | None = None) -> bool:
    """Will Qt try the xcb plugin? Not when another platform is chosen (offscreen, wayland, ...)
    or in a Wayland session (Qt 6 tries wayland first there)."""
    env = os.environ if env is None else env
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    return not (env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland")


def check(plugin: Path | None = None, *, env: dict | None = None, force: bool = False) -> PlatformCheck:
    """Check the xcb plugin's shared libraries with `ldd` (Linux only; otherwise skipped).

    `force` checks even when Qt would not use xcb now (the installer and bootstrap use it)."""
    if not sys.platform.startswith("linux"):
        return PlatformCheck(None, skipped="not Linux")
    if not force and not wants_xcb(env):
        return PlatformCheck(None, skipped="Qt will not use the xcb plugin")
    plugin = plugin or xcb_plugin()
    if plugin is None:
        return PlatformCheck(None, skipped="PySide6's xcb plugin is not installed")
    ldd = shutil.which("ldd")
    if ldd is None:
        return PlatformCheck(plugin, skipped="ldd is not available")
    try:
        out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return PlatformCheck(plugin, skipped=f"ldd failed: {e}")
    return PlatformCheck(plugin, missing_libraries(out.stdout + out.stderr))


def main(argv: list[str] | None = None) -> int:
    """Print the message and return 1 when libraries are missing; 0 otherwise (also when skipped)."""
    argv = sys.argv[1:] if argv is None else argv
    result = check(force="--force" in argv)
    if not result.ok:
        print(result.message(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
