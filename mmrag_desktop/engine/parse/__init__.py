"""Turn a file into a `ParsedDocument`, choosing the parser by content, not by name.

`open_document(path)` raises `DocumentError` subclasses with plain-words reasons.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..elements import ParsedDocument
from ..errors import CorruptDocumentError, UnsupportedFileError

PDF_SUFFIXES = {".pdf"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"}
MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown"}
JSON_SUFFIXES = {".json"}
SUPPORTED_SUFFIXES = PDF_SUFFIXES | IMAGE_SUFFIXES | MARKDOWN_SUFFIXES | JSON_SUFFIXES

_IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*", b"RIFF")


def is_supported(path: Path) -> bool:
    """True when the file name has a suffix we try to ingest (folders are scanned by this)."""
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def detect_kind(path: Path) -> str:
    """Return "pdf" | "image" | "markdown" | "docling" from the file's content and name.

    Raises CorruptDocumentError for empty/unreadable files and UnsupportedFileError for
    types we do not read (including a non-PDF file named .pdf).
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(2048)
    except OSError as e:
        raise CorruptDocumentError(str(path), f"cannot read the file ({e.strerror or e})") from e
    if size == 0:
        raise CorruptDocumentError(str(path), "the file is empty (0 bytes)")
    suffix = path.suffix.lower()
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if suffix in PDF_SUFFIXES:
        raise CorruptDocumentError(str(path), "the file is named .pdf but is not a PDF (no %PDF header)")
    if head.startswith(_IMAGE_MAGIC):
        return "image"
    if suffix in IMAGE_SUFFIXES:
        raise CorruptDocumentError(str(path), "the file is named like an image but is not a readable image")
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in JSON_SUFFIXES:
        return "docling" if _looks_like_docling(path) else _unsupported_json(path)
    raise UnsupportedFileError(
        str(path), f"unsupported file type '{suffix or '(none)'}' (PDF, images, Markdown, Docling JSON)"
    )


def _looks_like_docling(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CorruptDocumentError(str(path), f"not valid JSON ({e})") from e
    return isinstance(data, dict) and (
        data.get("schema_name") == "DoclingDocument" or ("texts" in data and "body" in data)
    )


def _unsupported_json(path: Path) -> str:
    raise UnsupportedFileError(str(path), "this JSON file is not a Docling document")


def open_document(path: Path, *, ocr=None) -> ParsedDocument:
    """Open `path` with the parser for its kind. `ocr` is an `Ocr` engine or None (no OCR)."""
    kind = detect_kind(path)
    if kind == "pdf":
        from .pdf import open_pdf

        return open_pdf(path, ocr=ocr)
    if kind == "image":
        from .image import open_image

        return open_image(path, ocr=ocr)
    if kind == "markdown":
        from .markdown import open_markdown

        return open_markdown(path, ocr=ocr)
    from .docling import open_docling

    return open_docling(path)
