"""Source files of a library folder: they stay where the user keeps them, so there is nothing to
store. The PostgreSQL library keeps a copy of each file in the database instead
(store/postgres/files.py, same interface), so every client can render the pages."""

from __future__ import annotations

from pathlib import Path


def copy_path(folder: Path, sha: str, name: str) -> Path:
    """Where a copy of the file `sha` named `name` goes under `folder`: `<sha>/<name>`, so a page
    viewer shows the document's own name."""
    plain = Path(name.replace("\\", "/")).name
    if plain in ("", ".", ".."):
        plain = "document" + Path(name).suffix.lower()
    return Path(folder) / sha / plain


class LocalFiles:
    """The files of a folder library: read in place (`local_copy` gives None: use the path)."""

    def put(self, sha: str, path: Path) -> None:
        """Nothing to do: the library reads the file where it is."""

    def local_copy(self, sha: str, name: str) -> Path | None:
        """None: a folder library has no copies; the document's own path is the file."""
        return None

    def forget_unused(self) -> int:
        """Nothing to do; returns 0."""
        return 0
