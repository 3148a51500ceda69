"""mmrag-desktop: offline search and answers over technical manuals."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

# The version is written in one place, pyproject.toml's [project] version; this reads the
# installed distribution's metadata (`pip install -e .` refreshes it).
try:
    __version__ = _distribution_version("mmrag-desktop")
except PackageNotFoundError:  # a source tree that was never installed (or a build without metadata)
    __version__ = "0+unknown"
