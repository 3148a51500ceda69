"""The xcb platform-plugin check (ui/platform_libs.py): real `ldd` on real shared objects.

A library that is really missing is made here: gcc builds a stub library with a given soname,
links a plugin-like library against it, and the stub is deleted, so `ldd` reports it "not found"
exactly as it does for Qt's libqxcb.so on a minimal system.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from mmrag_desktop import __main__ as desktop_main
from mmrag_desktop.ui import platform_libs

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("gcc")
                                or not shutil.which("ldd"), reason="needs Linux, gcc and ldd")


def _plugin_missing(tmp_path, sonames):
    """A shared object linked against libraries with these sonames, which are then removed."""
    src = tmp_path / "stub.c"
    src.write_text("int stub(void) { return 1; }\n")
    links = []
    for i, so in enumerate(sonames):
        lib = tmp_path / f"libstub{i}.so"
        subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{so}", "-o", str(lib), str(src)], check=True)
        links.append(str(lib))
    plugin = tmp_path / "libqxcb.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,--no-as-needed", "-o", str(plugin), str(src), *links],
                   check=True)
    for lib in links:
        (tmp_path / lib).unlink()
    return plugin


def test_missing_libraries_are_found_by_ldd(tmp_path):
    """Sonames no system has, so that ldd really reports them missing here."""
    plugin = _plugin_missing(tmp_path, ["libmmrag-absent-a.so.0", "libmmrag-absent-b.so.4"])
    result = platform_libs.check(plugin, force=True)
    assert not result.ok
    assert result.missing == ("libmmrag-absent-a.so.0", "libmmrag-absent-b.so.4")
    assert "sudo apt-get install libmmrag-absent-a.so.0 libmmrag-absent-b.so.4" in result.message()


def test_each_missing_library_maps_to_its_package_on_three_distributions():
    result = platform_libs.PlatformCheck(None, ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-xkb.so.1",
                                                "libxcb-randr.so.0", "libmmrag-unknown.so.3"))
    msg = result.message()
    assert "libxcb-cursor.so.0 libxcb-icccm.so.4 libxcb-xkb.so.1" in msg
    assert ("sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-xkb1 libxcb-randr0 libmmrag-unknown.so.3"
            in msg)
    assert "sudo dnf install xcb-util-cursor xcb-util-wm libxcb libmmrag-unknown.so.3" in msg  # libxcb once
    assert "sudo pacman -S xcb-util-cursor xcb-util-wm libxcb libmmrag-unknown.so.3" in msg


def test_nothing_missing_passes(tmp_path):
    plugin = _plugin_missing(tmp_path, [])
    assert platform_libs.check(plugin, force=True).missing == ()
    installed = platform_libs.xcb_plugin()
    assert installed is not None and installed.name == "libqxcb.so"  # PySide6's own plugin is found


def test_ldd_output_parsing_keeps_order_once():
    out = ("\tlinux-vdso.so.1 (0x00007ffd)\n\tlibxcb-cursor.so.0 => not found\n"
           "\tlibQt6Gui.so.6 => /x/libQt6Gui.so.6 (0x7f)\n\tlibxcb-cursor.so.0 => not found\n"
           "\tlibxkbcommon-x11.so.0 => not found\n")
    assert platform_libs.missing_libraries(out) == ("libxcb-cursor.so.0", "libxkbcommon-x11.so.0")


def test_only_checked_when_qt_will_use_xcb(tmp_path):
    plugin = _plugin_missing(tmp_path, ["libmmrag-absent.so.0"])
    assert platform_libs.check(plugin, env={"QT_QPA_PLATFORM": "offscreen"}).skipped
    assert platform_libs.check(plugin, env={"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}).skipped
    assert platform_libs.check(plugin, env={"QT_QPA_PLATFORM": "xcb"}).missing == ("libmmrag-absent.so.0",)
    assert platform_libs.check(plugin, env={"DISPLAY": ":0"}).missing == ("libmmrag-absent.so.0",)
    assert desktop_main.chosen_platform(["-platform", "offscreen"]) == "offscreen"
    assert desktop_main.chosen_platform(["--platform=xcb", "-style", "fusion"]) == "xcb"
    assert desktop_main.chosen_platform([]) == ""


def test_desktop_entry_point_stops_with_the_message(tmp_path, monkeypatch, capsys):
    """`mmrag-desktop` on a system missing the libraries prints the install line and exits 1
    before Qt starts (the window would otherwise print only Qt's own message)."""
    plugin = _plugin_missing(tmp_path, ["libmmrag-absent.so.0"])
    monkeypatch.setattr(platform_libs, "xcb_plugin", lambda: plugin)
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    from mmrag_desktop.ui import app as app_mod

    monkeypatch.setattr(app_mod, "run_gui", lambda **kw: pytest.fail("the window must not start"))
    assert desktop_main.main(["--library", str(tmp_path / "lib")]) == 1
    assert "sudo apt-get install libmmrag-absent.so.0" in capsys.readouterr().err
