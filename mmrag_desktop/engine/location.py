"""Where a library lives: a folder on this machine, or a PostgreSQL database named by a URL
(`postgresql://user@host/db`, a team library; store/postgres/).

A library location is kept as a `Path` for a folder and as the URL string for a database (a
`Path` would fold the URL's `//`). A database library still has a folder on each machine that
uses it, `local_folder(...)`, for what each client keeps for itself: figure crops and the
copies of the source files it fetched from the database to render pages.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .errors import LibraryError

URI_SCHEMES = ("postgresql://", "postgres://")


def is_database_uri(location) -> bool:
    """True when a library location names a PostgreSQL database rather than a folder."""
    return isinstance(location, str) and location.strip().startswith(URI_SCHEMES)


def library_location(value: str | Path) -> str | Path:
    """A location as the user gave it (command line, settings): the URL unchanged, or the
    folder as a Path with `~` expanded. Raises LibraryError for a URL of another kind."""
    if isinstance(value, str) and "://" in value:
        if is_database_uri(value):
            return value.strip()
        raise LibraryError(f"{redact(value.strip())} is not a library: give a folder or a PostgreSQL URL "
                           "(postgresql://user@host/database)")
    return Path(value).expanduser()


def redact(uri: str) -> str:
    """The URI with any password replaced by ***, for messages and logs."""
    head, sep, tail = uri.partition("@")
    if not sep or "://" not in head:
        return uri
    scheme, _, userinfo = head.partition("://")
    user, colon, password = userinfo.partition(":")
    return f"{scheme}://{user}{':***' if colon and password else ''}@{tail}"


def describe(location: str | Path) -> str:
    """A location for people: the folder, or the URL without its password."""
    return redact(location) if is_database_uri(location) else str(location)


def local_folder(location: str | Path) -> Path:
    """The folder this machine keeps a library's own files in: the library folder itself, or,
    for a database, one folder per database (by its URL without password) under the app's cache."""
    if not is_database_uri(location):
        return Path(location).expanduser()
    from .settings import cache_dir

    key = hashlib.sha256(redact(str(location)).encode()).hexdigest()[:16]
    return cache_dir() / "server-libraries" / key


__all__ = ["URI_SCHEMES", "describe", "is_database_uri", "library_location", "local_folder", "redact"]
