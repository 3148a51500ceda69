"""One writer per library folder: an advisory lock (`<library>/writer.lock`, fcntl.flock).

The process that opens a library for writing holds the lock until `release()`; the file names
who holds it (pid, program, since) so another process can say "in use by ...". The lock goes
with its holder: a process killed with -9 releases it (the kernel drops flock locks), so a
stale file never blocks anyone. The window's indexing child works under its parent's lock.
On systems without fcntl (Windows) the lock is a no-op: one process per library is then the
user's responsibility.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..errors import LibraryInUseError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

NAME = "writer.lock"


class WriterLock:
    """The writer lock of one library folder."""

    def __init__(self, folder: Path):
        self.path = folder / NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock without waiting. Raises LibraryInUseError naming the holder when another
        process has it."""
        if self._fd is not None or fcntl is None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = self.holder()
            os.close(fd)
            raise LibraryInUseError(f"the library {self.path.parent} is in use by {holder}") from None
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "program": Path(sys.argv[0]).name or "python",
                                 "since": time.strftime("%Y-%m-%d %H:%M:%S")}).encode())
        self._fd = fd

    def holder(self) -> str:
        """Who holds the lock, in words ('another process' when the file says nothing)."""
        try:
            info = json.loads(self.path.read_text() or "{}")
            return f"{info.get('program', 'a program')} (process {info['pid']}, since {info.get('since', '?')})"
        except (OSError, ValueError, KeyError):
            return "another process"

    def release(self) -> None:
        """Give the lock up (safe to call twice)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
        finally:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
