"""Files a document links to (Markdown and Docling image references) are read only from the
document's own folder and below: a link may not reach the rest of the disk (`../../`, an absolute
path, `file:///etc/...`, or a symlink that points outside)."""

from __future__ import annotations

from pathlib import Path


def inside_folder(folder: Path, link: str) -> Path | None:
    """The file `link` names, relative to `folder` (absolute links taken as they are), resolved
    through symlinks; None when it lies outside `folder`."""
    root = folder.resolve()
    target = (root / link).resolve()
    return target if target == root or root in target.parents else None
