"""mmrag-desktop: offline search and answers over technical manuals."""


def __getattr__(name: str):
    """`__version__`, read on first use from the installed distribution's metadata: the version is
    written in one place, pyproject.toml's [project] version (`pip install -e .` refreshes it).
    Lazy, because reading package metadata costs ~40 ms that the window's start-up need not pay."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("mmrag-desktop")
    except PackageNotFoundError:  # a source tree that was never installed (or a build without metadata)
        value = "0+unknown"
    globals()["__version__"] = value
    return value
