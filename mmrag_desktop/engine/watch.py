"""Folders kept in sync with the library: what changed on disk since the library last looked.

    plan = plan_reconcile(folders, documents)      # stat only; sha256 only to recognise a move
    for change in poll_changes(folders_fn, cancel): ...   # the CLI's watcher (polling)

A file is identified as the ingester does (path, then sha256). Unchanged files (same path, size
and modification time) are not read at all; new and changed ones go to the ingester; a document
whose file is gone is removed, unless a new file with the same content appeared (then it was
moved and the document is re-pointed without parsing it again). A watched folder that is missing
(a removable drive, a network share) keeps its documents until the user says otherwise.
Temporary and partial files (office locks, downloads in progress, hidden files, files written in
the last `SETTLE_SECONDS`) are left for a later look.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .ingest.pipeline import sha256_file
from .jobs import CancelToken
from .parse import is_supported
from .store import Documents

SETTLE_SECONDS = 2.0  # a file written this recently may still be being copied
TEMPORARY_PREFIXES = ("~$", ".~lock.", ".#", "~")
TEMPORARY_SUFFIXES = (".part", ".partial", ".crdownload", ".download", ".tmp", ".temp", ".swp", "~")

Stat = tuple[int, int]  # size, mtime in ns


def is_temporary(name: str) -> bool:
    """True for names that office programs, browsers and copy tools use while writing a file
    (and hidden files)."""
    low = name.lower()
    return name.startswith(".") or low.startswith(TEMPORARY_PREFIXES) or low.endswith(TEMPORARY_SUFFIXES)


def folder_files(folder: Path) -> dict[Path, Stat]:
    """Supported, non-temporary files below `folder` with (size, mtime_ns); hidden folders and
    mmrag library folders met inside are left out. Unreadable sub-folders are skipped."""
    out: dict[Path, Stat] = {}
    stack = [folder]
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        if any(e.name == "library.sqlite" for e in entries) and d != folder:
            continue  # a library folder: its crops and manifests are not documents
        for e in entries:
            if e.name.startswith("."):
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
                elif e.is_file() and not is_temporary(e.name) and is_supported(Path(e.name)):
                    st = e.stat()
                    out[Path(e.path)] = (st.st_size, st.st_mtime_ns)
            except OSError:
                continue
    return out


def folder_tree(folders: list[Path], limit: int = 2000) -> list[Path]:
    """The watched folders and their sub-folders (hidden ones and library folders left out), at most
    `limit` of them: what a change-notification watcher subscribes to."""
    out: list[Path] = []
    stack = [f for f in reversed(folders) if f.is_dir()]
    while stack and len(out) < limit:
        d = stack.pop()
        out.append(d)
        try:
            subs = sorted(Path(e.path) for e in os.scandir(d) if e.is_dir(follow_symlinks=False)
                          and not e.name.startswith(".") and not (Path(e.path) / "library.sqlite").exists())
        except OSError:
            continue
        stack.extend(reversed(subs))
    return out


def snapshot(folders: list[Path]) -> dict[Path, dict[Path, Stat] | None]:
    """What the watched folders hold now: {folder: {file: (size, mtime_ns)}, or None when missing}."""
    return {f: folder_files(f) if f.is_dir() else None for f in folders}


@dataclass
class ReconcilePlan:
    """What to do to bring the library in line with its watched folders."""

    add: list[Path] = field(default_factory=list)  # new or changed files (the ingester reads them)
    moved: list[tuple[dict, Path, Stat]] = field(default_factory=list)  # (document row, new path, stat)
    removed: list[dict] = field(default_factory=list)  # documents whose file is gone
    unavailable: list[tuple[Path, int]] = field(default_factory=list)  # (folder, documents kept)
    available: list[Path] = field(default_factory=list)  # folders present again after being missing
    settling: list[Path] = field(default_factory=list)  # files written moments ago: next look
    unchanged: int = 0

    @property
    def empty(self) -> bool:
        """True when nothing needs doing (settling files still to come count as something)."""
        return not (self.add or self.moved or self.removed or self.settling)

    def summary(self) -> str:
        """The plan in words, e.g. "2 new or changed, 1 moved, 0 removed, 40 unchanged"."""
        parts = [f"{len(self.add)} new or changed", f"{len(self.moved)} moved", f"{len(self.removed)} removed",
                 f"{self.unchanged} unchanged"]
        if self.settling:
            parts.append(f"{len(self.settling)} still being written")
        if self.unavailable:
            parts.append(f"{len(self.unavailable)} folder(s) not available")
        return ", ".join(parts)


def plan_reconcile(folders: list[Path], documents: Documents, missing_before: set[Path] | None = None,
                   now: float | None = None) -> ReconcilePlan:
    """Compare the watched `folders` with the library's documents (reads stats; hashes only a new
    file whose size equals that of a document whose file is gone, to recognise a move).

    `missing_before`: folders recorded missing at the last look (those present now are listed in
    `available`). Nothing is changed here; the facade carries the plan out.
    """
    now = time.time() if now is None else now
    plan = ReconcilePlan()
    rows = documents.all()
    by_path = {r["path"]: r for r in rows}
    present: dict[Path, Stat] = {}
    for folder in folders:
        if not folder.is_dir():
            plan.unavailable.append((folder, len(documents.under(folder))))
            continue
        if missing_before and folder in missing_before:
            plan.available.append(folder)
        present.update(folder_files(folder))

    new: list[tuple[Path, Stat]] = []
    for path, st in sorted(present.items()):
        if now - st[1] / 1e9 < SETTLE_SECONDS:
            plan.settling.append(path)
            continue
        row = by_path.get(str(path))
        if row is None:
            new.append((path, st))
        elif row["size"] == st[0] and _same_mtime(row["mtime"], st[1]) and row["status"] in ("ready", "failed"):
            plan.unchanged += 1
        else:
            plan.add.append(path)

    watched_present = [f for f in folders if f.is_dir()]
    gone = [r for r in rows if _inside_any(r["path"], watched_present) and not Path(r["path"]).exists()]
    # a document whose file vanished anywhere (even from a folder now missing) may have moved here
    gone_ids = {r["id"] for r in gone}
    vanished = gone + [r for r in rows if r["status"] == "ready" and r["id"] not in gone_ids
                       and not Path(r["path"]).exists()]
    by_size: dict[int, list[dict]] = {}
    for r in vanished:
        if r["status"] == "ready":
            by_size.setdefault(r["size"], []).append(r)
    moved_ids: set[int] = set()
    for path, st in new:
        candidates = [r for r in by_size.get(st[0], []) if r["id"] not in moved_ids]
        sha = _sha_or_none(path) if candidates else None
        match = next((r for r in candidates if r["sha256"] == sha), None)
        if match is not None:
            moved_ids.add(match["id"])
            plan.moved.append((match, path, st))
        else:
            plan.add.append(path)
    plan.removed = [r for r in gone if r["id"] not in moved_ids]
    return plan


def poll_changes(folders: Callable[[], list[Path]], cancel: CancelToken, *, interval: float = 2.0,
                 quiet: float = SETTLE_SECONDS, max_settle: float = 120.0,
                 last: dict | None = None) -> Iterator[dict]:
    """Yield a snapshot each time the watched folders changed and then stayed still for `quiet`
    seconds (so a copy of 300 files is one change, not 300). Polls every `interval` seconds until
    `cancel` is set; a folder that keeps changing for `max_settle` seconds is reported anyway.
    `last`: the state the caller already reconciled (default: the state at the first poll)."""
    last = snapshot(folders()) if last is None else last
    while not cancel.wait(interval):
        now = snapshot(folders())
        if now == last:
            continue
        settle_start = time.monotonic()
        while not cancel.wait(quiet):
            later = snapshot(folders())
            if later == now or time.monotonic() - settle_start > max_settle:
                break
            now = later
        if cancel.cancelled:
            return
        last = now
        yield now


def _same_mtime(stored: float, mtime_ns: int) -> bool:
    return abs(float(stored) - mtime_ns / 1e9) < 1e-3


def _inside_any(path: str, folders: list[Path]) -> bool:
    return any(path.startswith(os.path.join(str(f), "")) for f in folders)


def _sha_or_none(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None


__all__ = ["ReconcilePlan", "folder_files", "folder_tree", "is_temporary", "plan_reconcile", "poll_changes", "snapshot",
           "SETTLE_SECONDS"]
