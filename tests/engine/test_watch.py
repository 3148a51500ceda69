"""Watched folders (engine/watch.py and Library.watch/reconcile) with real files, a real library and
real PyMuPDF: new, changed, moved, deleted, temporary and half-written files, a folder that goes
missing and comes back, persistence across a reopen, and the poller's debounce."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.errors import LibraryError
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.watch import folder_files, is_temporary, plan_reconcile, poll_changes


def _pdf(path: Path, words: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_pdf(path, [[(72, 100, f"The {words} manual explains the {words} procedure in detail."),
                      (72, 130, f"Set the {words} register before starting the {words} cycle.")]])
    _age(path)
    return path


def _age(path: Path, seconds: float = 60) -> None:
    """Make the file look written a while ago (files written moments ago are left to settle)."""
    t = time.time() - seconds
    os.utime(path, (t, t))


def _stages(events) -> dict[str, list]:
    out: dict[str, list] = {}
    for ev in events:
        out.setdefault(ev.stage, []).append(ev)
    return out


def _names(lib) -> dict[str, str]:
    return {d.name: d.path for d in lib.documents()}


def test_reconcile_adds_then_reads_nothing_unchanged(library, tmp_path):
    shelf = tmp_path / "shelf"
    _pdf(shelf / "pump.pdf", "pump")
    _pdf(shelf / "sub" / "valve.pdf", "valve")
    assert library.watch(shelf) is True
    assert library.watch(shelf) is False  # watched already
    ev = _stages(library.reconcile())
    assert sorted(e.doc for e in ev["done"]) == ["pump.pdf", "valve.pdf"]
    assert set(_names(library)) == {"pump.pdf", "valve.pdf"}
    assert library.search("valve register", k=1)[0].doc == "valve.pdf"
    # a second look parses nothing and does not even hash the files
    plan = plan_reconcile([shelf.resolve()], library.store.documents)
    assert plan.empty and plan.unchanged == 2
    ev = _stages(library.reconcile())
    assert "done" not in ev and "parse" not in ev
    assert "2 unchanged" in ev["watched"][0].message


def test_changed_file_is_reindexed_and_deleted_file_removed(library, tmp_path):
    shelf = tmp_path / "shelf"
    pump = _pdf(shelf / "pump.pdf", "pump")
    valve = _pdf(shelf / "valve.pdf", "valve")
    library.watch(shelf)
    list(library.reconcile())
    old_id = library.document("pump.pdf").id
    _pdf(pump, "compressor")  # same path, new content
    valve.unlink()
    ev = _stages(library.reconcile())
    assert [e.doc for e in ev["done"]] == ["pump.pdf"]
    assert [e.doc for e in ev["removed"]] == ["valve.pdf"]
    assert set(_names(library)) == {"pump.pdf"}
    assert library.document("pump.pdf").id == old_id
    assert library.search("compressor cycle", k=1)[0].doc == "pump.pdf"
    assert not library.search("valve register", k=5) or all(h.doc == "pump.pdf" for h in library.search("valve", k=5))


def test_moved_file_is_repointed_without_parsing(library, tmp_path):
    shelf = tmp_path / "shelf"
    pump = _pdf(shelf / "pump.pdf", "pump")
    library.watch(shelf)
    list(library.reconcile())
    before = library.document("pump.pdf")
    chunks_before = library.conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    target = shelf / "archive" / "pump-2019.pdf"
    target.parent.mkdir()
    shutil.move(pump, target)
    ev = _stages(library.reconcile())
    assert "parse" not in ev and "done" not in ev and "removed" not in ev
    assert [e.doc for e in ev["moved"]] == ["pump-2019.pdf"]
    after = library.document(before.id)
    assert (after.name, after.path, after.sha256) == ("pump-2019.pdf", str(target.resolve()), before.sha256)
    assert library.conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall() == chunks_before
    hit = library.search("pump register", k=1)[0]
    assert hit.doc == "pump-2019.pdf" and hit.doc_id == before.id


def test_file_moved_in_from_outside_is_repointed(library, tmp_path):
    loose = _pdf(tmp_path / "downloads" / "pump.pdf", "pump")
    list(library.add([loose]))
    doc_id = library.document("pump.pdf").id
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    library.watch(shelf)
    shutil.move(loose, shelf / "pump.pdf")
    ev = _stages(library.reconcile())
    assert [e.doc_id for e in ev["moved"]] == [doc_id]
    assert library.document(doc_id).path == str((shelf / "pump.pdf").resolve())


def test_temporary_and_half_written_files_wait(library, tmp_path):
    shelf = tmp_path / "shelf"
    _pdf(shelf / "pump.pdf", "pump")
    for name in ("~$notes.md", ".hidden.pdf", "manual.pdf.part", "draft.pdf.crdownload"):
        (shelf / name).write_bytes(b"%PDF-1.4 partial")
    fresh = _pdf(shelf / "fresh.pdf", "fresh")
    os.utime(fresh, None)  # written just now: may still be being copied
    assert set(folder_files(shelf)) == {shelf / "pump.pdf", shelf / "fresh.pdf"}
    library.watch(shelf)
    ev = _stages(library.reconcile())
    assert [e.doc for e in ev["done"]] == ["pump.pdf"]
    assert ev["watched"][0].extra["settling"] == 1
    assert "still being written" in ev["watched"][0].message
    _age(fresh)
    ev = _stages(library.reconcile())
    assert [e.doc for e in ev["done"]] == ["fresh.pdf"]
    assert set(_names(library)) == {"pump.pdf", "fresh.pdf"}


def test_is_temporary_names():
    assert all(is_temporary(n) for n in ("~$a.md", ".~lock.a.pdf#", "a.pdf.part", "a.PDF.TMP", "a.pdf~", ".a.pdf"))
    assert not any(is_temporary(n) for n in ("a.pdf", "pump~valve.pdf", "part.pdf", "tmp.md"))


def test_missing_folder_keeps_documents_until_told(library, tmp_path):
    drive = tmp_path / "usb"
    _pdf(drive / "pump.pdf", "pump")
    library.watch(drive)
    list(library.reconcile())
    parked = tmp_path / "usb-unplugged"
    drive.rename(parked)  # the drive is unplugged
    ev = _stages(library.reconcile())
    assert "removed" not in ev
    assert ev["unavailable"][0].extra == {"folder": str(drive.resolve()), "documents": 1}
    assert library.watched_folders()[0].missing_since is not None
    assert set(_names(library)) == {"pump.pdf"}
    parked.rename(drive)  # plugged in again
    ev = _stages(library.reconcile())
    assert "unavailable" not in ev and "done" not in ev
    assert library.watched_folders()[0].missing_since is None
    drive.rename(parked)
    removed = library.unwatch(drive, remove_documents=True)  # the user confirmed
    assert [d.name for d in removed] == ["pump.pdf"]
    assert library.documents() == [] and library.watched_folders() == []


def test_watch_refuses_what_is_not_a_folder(library, tmp_path):
    with pytest.raises(LibraryError, match="no folder"):
        library.watch(tmp_path / "nope")
    f = _pdf(tmp_path / "a.pdf", "a")
    with pytest.raises(LibraryError, match="not a folder"):
        library.watch(f)
    with pytest.raises(LibraryError, match="library's own folder"):
        library.watch(library.folder)
    with pytest.raises(LibraryError, match="not a watched folder"):
        library.unwatch(tmp_path)


def test_watched_folders_persist_and_changes_while_closed_are_found(tmp_path, embedder):
    shelf = tmp_path / "shelf"
    _pdf(shelf / "pump.pdf", "pump")
    with Library.open(tmp_path / "lib", embedder=embedder) as lib:
        lib.watch(shelf)
        list(lib.reconcile())
    _pdf(shelf / "valve.pdf", "valve")  # added while the app was closed
    (shelf / "pump.pdf").unlink()
    with Library.open(tmp_path / "lib", embedder=embedder) as lib:
        assert [w.path for w in lib.watched_folders()] == [str(shelf.resolve())]
        ev = _stages(lib.reconcile())
        assert [e.doc for e in ev["done"]] == ["valve.pdf"] and [e.doc for e in ev["removed"]] == ["pump.pdf"]
        assert set(_names(lib)) == {"valve.pdf"}


def test_poller_debounces_a_burst_into_one_change(tmp_path):
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    cancel = CancelToken()
    changes = []

    def watch():
        for snap in poll_changes(lambda: [shelf], cancel, interval=0.05, quiet=0.4):
            changes.append(snap)

    t = threading.Thread(target=watch)
    t.start()
    try:
        time.sleep(0.2)
        for i in range(30):  # a burst of copies, 20 ms apart
            (shelf / f"m{i:02d}.md").write_text(f"# Manual {i}\n\nText {i}.\n")
            time.sleep(0.02)
        deadline = time.monotonic() + 10
        while not changes and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.8)  # nothing else changes: no second report
    finally:
        cancel.cancel()
        t.join(5)
    assert not t.is_alive()
    assert len(changes) == 1
    assert len(changes[0][shelf]) == 30
