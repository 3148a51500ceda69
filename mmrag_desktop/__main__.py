"""Entry point of the desktop app: `mmrag-desktop` and `python -m mmrag_desktop`.

    mmrag-desktop [--library DIR|URL] [FILE_OR_FOLDER...]    # the files are added to the library
    mmrag-desktop --self-test
    mmrag-desktop --check-libraries      # Linux: the system libraries Qt's window needs
    mmrag-desktop --version

FILE_OR_FOLDER is what a file manager's "Open with" passes (the .desktop file's `%F`); file://
URLs are taken too. One that does not exist gives one line on stderr (and in the window) and is
skipped. Qt's own options (-style fusion, -platform offscreen, ...) are passed to QApplication.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# Qt's command-line options that take a value (QGuiApplication/QApplication docs); the rest of
# Qt's options are single words starting with "-", which argparse leaves alone as unknown.
QT_OPTIONS_WITH_VALUE = frozenset({
    "-style", "-stylesheet", "-platform", "-platformpluginpath", "-platformtheme", "-plugin",
    "-qmljsdebugger", "-qwindowgeometry", "-qwindowicon", "-qwindowtitle", "-session", "-display",
    "-geometry", "-name", "-title", "-visual", "-widgetcount",
})


def _version() -> str:
    from . import __version__

    return __version__


def split_qt_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """(our arguments, Qt's options that take a value, with it); Qt also takes "--style"."""
    ours, qt = [], []
    it = iter(argv)
    for a in it:
        name = a.split("=", 1)[0]
        if name.startswith("--"):
            name = name[1:]
        if name in QT_OPTIONS_WITH_VALUE:
            qt.append(a)
            if "=" not in a:
                qt.append(next(it, ""))
        else:
            ours.append(a)
    return ours, qt


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line; `qt_args` holds Qt's own options for QApplication."""
    argv = sys.argv[1:] if argv is None else list(argv)
    ours, qt = split_qt_args(argv)
    p = argparse.ArgumentParser(prog="mmrag-desktop", description="Search and ask your technical manuals offline.")
    p.add_argument("paths", nargs="*", metavar="FILE_OR_FOLDER",
                   help="files or folders to add to the library when the window opens")
    p.add_argument("--library", default=None, metavar="DIR|URL", type=_location,
                   help="library folder, or a team library's postgresql://user@host/db (default: from settings)")
    p.add_argument("--self-test", action="store_true",
                   help="load the models, ingest a bundled sample PDF, search it, exit 0 on success")
    p.add_argument("--check-libraries", action="store_true",
                   help="check the system libraries Qt's window needs (Linux); print what to install")
    p.add_argument("--version", action="version", version=f"mmrag-desktop {_version()}")
    args, unknown = p.parse_known_args(ours)
    args.qt_args = qt + [a for a in unknown if a.startswith("-")]
    args.paths += [a for a in unknown if not a.startswith("-")]
    return args


def _location(arg: str) -> Path | str:
    """--library's value: a folder as a Path, a PostgreSQL URL as given (argparse reports any
    other URL in one line)."""
    from .engine.errors import LibraryError
    from .engine.location import library_location

    try:
        return library_location(arg)
    except LibraryError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def as_path(arg: str) -> Path:
    """A command-line path, or a file:// URL as some launchers pass, as an absolute Path."""
    if arg.startswith("file://"):
        from urllib.parse import unquote, urlparse
        from urllib.request import url2pathname

        arg = url2pathname(unquote(urlparse(arg).path))
    return Path(arg).expanduser().absolute()


def existing_paths(args: list[str]) -> tuple[list[Path], list[str]]:
    """(paths that exist, one message per argument that does not)."""
    found, missing = [], []
    for a in args:
        p = as_path(a)
        if p.exists():
            found.append(p)
        else:
            missing.append(f"no such file or folder: {a}")
    return found, missing


def chosen_platform(qt_args: list[str]) -> str:
    """The platform named by Qt's -platform option in `qt_args` ("" when none)."""
    for i, a in enumerate(qt_args):
        name, _, value = a.lstrip("-").partition("=")
        if name == "platform":
            return value or (qt_args[i + 1] if i + 1 < len(qt_args) else "")
    return ""


def platform_check(qt_args: list[str]):
    """Check the xcb plugin's system libraries when Qt is about to use it (ui/platform_libs.py)."""
    from .ui.platform_libs import check

    chosen = chosen_platform(qt_args)
    return check(env={**os.environ, "QT_QPA_PLATFORM": chosen} if chosen else None)


def main(argv: list[str] | None = None) -> int:
    """Run the GUI (or the self-test); returns the exit code."""
    import multiprocessing

    multiprocessing.freeze_support()  # the ingest worker is a spawned child, also in a frozen build
    args = parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # llama.cpp thread trap
    # nothing is ever downloaded: Hugging Face libraries read these once, when first imported
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if args.check_libraries:
        from .ui.platform_libs import main as check_libraries

        return check_libraries(["--force"])
    if args.self_test:
        from .ui.self_test import run_self_test

        return run_self_test()
    libs = platform_check(args.qt_args)
    if not libs.ok:  # instead of Qt's "could not load the Qt platform plugin xcb"
        print(libs.message(), file=sys.stderr)
        return 1
    paths, missing = existing_paths(args.paths)
    for m in missing:
        print(f"mmrag-desktop: {m}", file=sys.stderr)
    from .ui.app import run_gui

    try:
        return run_gui(library_dir=args.library, argv=[sys.argv[0] if sys.argv else "mmrag-desktop", *args.qt_args],
                       paths=paths, notices=missing)
    except KeyboardInterrupt:  # Ctrl+C in the terminal that started it
        print("mmrag-desktop: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
