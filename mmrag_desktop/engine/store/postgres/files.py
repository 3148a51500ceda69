"""The source files of a PostgreSQL library, kept once each in the database (by sha256), so every
client renders and highlights pages without a shared drive.

A file is stored as numbered parts of PART_BYTES in `file_parts` (a bytea value is limited to
1 GB and would be read into memory whole; parts stream). It is written inside the document's own
transaction, so a document is never ready without its file. A client keeps the copies it
fetched under its local folder (`files/<sha256>/<file name>`, so the viewer shows the document's
own name), checked against the sha256 once when
fetched; a copy is replaced by nothing newer, since a sha256 names one content for ever.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ...errors import LibraryError
from ..files import copy_path

PART_BYTES = 8 << 20


class PgFiles:
    """The only code that reads or writes `file_parts`."""

    def __init__(self, db, folder: Path):
        self.db = db
        self.folder = Path(folder) / "files"

    def has(self, sha: str) -> bool:
        """True when the database holds the file with this sha256."""
        return self.db.one("SELECT 1 FROM file_parts WHERE sha256 = ? AND part = 0", (sha,)) is not None

    def put(self, sha: str, path: Path) -> None:
        """Store the file at `path` (content `sha`) unless the database has it; in the caller's
        transaction when one is open. Raises OSError when the file cannot be read, LibraryError
        when it no longer has the content `sha` (it changed while it was being indexed)."""
        if self.has(sha):
            return
        digest = hashlib.sha256()
        with self.db.transaction(), open(path, "rb") as f:
            part = 0
            while True:
                data = f.read(PART_BYTES)
                if not data and part:
                    break
                digest.update(data)
                self.db.run("INSERT INTO file_parts (sha256, part, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                            (sha, part, data))
                part += 1
                if len(data) < PART_BYTES:
                    break
            if digest.hexdigest() != sha:
                raise LibraryError(f"{path.name} changed while it was being indexed; add it again")

    def local_copy(self, sha: str, name: str) -> Path | None:
        """This machine's copy of the file `sha` (named `name`), fetched from the database the
        first time; None when the database does not hold it. Raises LibraryError when
        the fetched parts do not give the content `sha`, OSError when the copy cannot be written."""
        target = copy_path(self.folder, sha, name)
        if target.exists():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        digest = hashlib.sha256()
        found = False
        try:
            with open(tmp, "wb") as out:
                part = 0
                while True:
                    row = self.db.one("SELECT data FROM file_parts WHERE sha256 = ? AND part = ?", (sha, part))
                    if row is None:
                        break
                    found = True
                    data = bytes(row[0])
                    digest.update(data)
                    out.write(data)
                    part += 1
            if not found:
                return None
            if digest.hexdigest() != sha:
                raise LibraryError(f"the copy of {name} in the library database is damaged (its sha256 differs)")
            os.replace(tmp, target)
            return target
        finally:
            tmp.unlink(missing_ok=True)

    def forget_unused(self) -> int:
        """Delete the files no document has any more; returns how many."""
        cur = self.db.run("DELETE FROM file_parts f WHERE NOT EXISTS "
                          "(SELECT 1 FROM documents d WHERE d.sha256 = f.sha256) RETURNING part")
        return sum(1 for (part,) in cur.fetchall() if part == 0)
