"""Export an answer for an expert: one self-contained file (docs/export.md).

    path = export_answer(answer, "question.html", documents=lib.documents(), chunk=lookup)

HTML (any browser, no network, prints well) unless the file name ends in `.json`, which writes
the same bundle as JSON for a ticket system (images as base64). `Library.export_answer` wires the
collaborators; this package never sees the Library. The file is written atomically: a temporary
file in the same folder, renamed over the target only when complete.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..errors import ExportError
from ..hits import DocumentInfo
from .bundle import ChunkLookup, build_bundle
from .page import render_html

FORMATS = ("html", "json")

__all__ = ["FORMATS", "build_bundle", "export_answer", "export_format", "render_html", "write_atomically"]


def export_format(path: Path | str, fmt: str | None = None) -> str:
    """"json" when `fmt` says so or the file name ends in .json, else "html". Raises ExportError
    for an unknown `fmt`."""
    if fmt is None:
        return "json" if Path(path).suffix.lower() == ".json" else "html"
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (use html or json)")
    return fmt


def check_target(path: Path | str) -> Path:
    """The absolute target path, checked before any work: its folder exists and it is not a
    folder itself. Raises ExportError."""
    p = Path(path).expanduser()
    if str(path).strip() == "":
        raise ExportError("no file name given for the export")
    p = p.absolute()
    if p.is_dir():
        raise ExportError(f"cannot export to {p}: it is a folder; give a file name")
    if not p.parent.is_dir():
        raise ExportError(f"cannot export to {p}: the folder {p.parent} does not exist")
    return p


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename: readers
    see the old file or the complete new one, never a partial one. Raises ExportError."""
    try:
        mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644  # mkstemp's 0600 would hide it
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as e:
        raise ExportError(f"cannot write {path}: {e.strerror or e}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise ExportError(f"cannot write {path}: {e.strerror or e}") from e
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def export_answer(answer, path: Path | str, *, documents: Sequence[DocumentInfo], chunk: ChunkLookup | None = None,
                  question: str | None = None, versions: dict | None = None, fmt: str | None = None,
                  created: datetime | None = None) -> Path:
    """Write `answer` (an `Answer` or its `to_json()` dict) to `path` for an expert and return the
    path written. HTML, or JSON when `fmt` is "json" or the name ends in .json (see
    `build_bundle` for the collaborators). A missing or unreadable source file becomes a note in
    the file, not an error. Raises ExportError when the answer is unusable or the file cannot be
    written (the target is then left as it was)."""
    target = check_target(path)
    kind = export_format(target, fmt)
    if not isinstance(answer, dict) and not hasattr(answer, "to_json"):
        raise ExportError("nothing to export: not an answer")
    if isinstance(answer, dict) and not isinstance(answer.get("answer"), str):
        raise ExportError("nothing to export: the answer has no text")
    bundle = build_bundle(answer, documents=documents, chunk=chunk, question=question, versions=versions,
                          created=created)
    if kind == "json":
        data = json.dumps(bundle, ensure_ascii=False, indent=1).encode("utf-8")
    else:
        data = render_html(bundle).encode("utf-8")
    write_atomically(target, data)
    return target
