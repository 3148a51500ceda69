"""Isolated ingest: a child process writes, the parent searches the result without reopening."""

from __future__ import annotations

import os
import signal

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.errors import EngineError
from mmrag_desktop.engine.jobs import CancelToken

PAGES = [[(72, 100, "Cooling"), (72, 130, "The fan curve starts at 40 degrees and reaches full speed at 70.")],
         [(72, 100, "Filters"), (72, 130, "Clean the dust filter of the enclosure every three months.")]]


def test_isolated_add_refreshes_parent_index(tmp_path, library):
    a = write_pdf(tmp_path / "a.pdf", PAGES)
    events = list(library.add([a], isolated=True))
    assert [e.stage for e in events if e.stage in ("done", "failed")] == ["done"]
    pid = library._worker.pid
    assert pid and pid != os.getpid()
    hit = library.search("when does the fan run at full speed", k=1)[0]
    assert hit.doc == "a.pdf" and hit.page == 1
    # a second job reuses the same child, and the parent's open index picks up the new document
    b = write_pdf(tmp_path / "b.pdf", [[(72, 100, "Relay K7 drives the pump motor contactor.")]])
    list(library.add([b], isolated=True))
    assert library._worker.pid == pid
    assert library.search("what drives the pump contactor", k=1)[0].doc == "b.pdf"
    # corrupt files fail per file in the child too, with the reason carried over
    (tmp_path / "bad.pdf").write_text("nope")
    res = {e.doc: e for e in library.add([tmp_path / "bad.pdf"], isolated=True) if e.stage == "failed"}
    assert "not a pdf" in res["bad.pdf"].message.lower()


def test_release_child_ends_the_child_and_a_later_job_starts_another(tmp_path, library):
    """`mmrag add` ingests in a child and ends it before figure work, so the memory of the models
    only ingest needs goes back (bench/rss_add.py)."""
    import psutil

    list(library.add([write_pdf(tmp_path / "a.pdf", PAGES)], isolated=True))
    child = psutil.Process(library._worker.pid)
    library.release_child()
    assert child.wait(10) is not None or not child.is_running()
    library.release_child()  # nothing to end: no error
    b = write_pdf(tmp_path / "b.pdf", [[(72, 100, "Relay K7 drives the pump motor contactor.")]])
    assert [e.stage for e in library.add([b], isolated=True) if e.stage in ("done", "failed")] == ["done"]
    assert library._worker.pid != child.pid
    assert library.search("what drives the pump contactor", k=1)[0].doc == "b.pdf"


def test_isolated_cancel(tmp_path, library):
    files = [write_pdf(tmp_path / f"d{i}.pdf", PAGES) for i in range(1)]
    files += [write_pdf(tmp_path / f"e{i}.pdf", [[(72, 100, f"Unique page {i} about valve {i}.")]]) for i in range(8)]
    token = CancelToken()
    stages = []
    for ev in library.add(files, cancel=token, isolated=True):
        stages.append(ev.stage)
        if ev.stage == "done":
            token.cancel()
    assert stages[-1] == "cancelled"
    # The child works ahead of the events the parent reads: a tiny file it finished before the
    # cancel reached it stays committed (nothing lost, nothing half-written), but the job stops
    # short of the last files.
    ready = [d for d in library.documents() if d.status == "ready"]
    assert 1 <= stages.count("done") <= len(ready) < len(files)
    assert all(library.conn.execute("SELECT count(*) FROM chunks WHERE doc_id = ?", (d.id,)).fetchone()[0]
               for d in ready)


def test_a_killed_child_fails_only_the_file_it_was_reading(tmp_path, library):
    """The child dies while reading a file (a parser crash looks the same): that file is failed with
    the reason, a new child goes on with the others, and nothing committed is lost."""
    a = write_pdf(tmp_path / "a.pdf", PAGES)
    list(library.add([a], isolated=True))
    files = [write_pdf(tmp_path / f"big{i}.pdf", PAGES * 20) for i in range(3)]
    events, killed = [], []
    for ev in library.add(files, isolated=True):
        events.append(ev)
        if ev.stage == "parse" and ev.done >= 2 and not killed:
            killed.append((ev.doc, library._worker.pid))
            os.kill(library._worker.pid, signal.SIGKILL)
    victim = killed[0][0]
    failed = [e for e in events if e.stage == "failed"]
    assert [e.doc for e in failed] == [victim] and "SIGKILL" in failed[0].message
    status = {d.name: d.status for d in library.documents()}
    assert status == {"a.pdf": "ready", victim: "failed", **{f.name: "ready" for f in files if f.name != victim}}
    assert library._worker.pid != killed[0][1], "a new child took over"
    hits = library.search("dust filter cleaning interval", k=10)
    assert hits and victim not in {h.doc for h in hits}, "nothing of the failed file is searchable"
    # named again, the file is retried and indexed
    list(library.add([tmp_path / victim], isolated=True))
    assert {d.status for d in library.documents()} == {"ready"}


def test_a_child_that_keeps_dying_ends_the_job_with_a_clear_error(tmp_path, library):
    files = [write_pdf(tmp_path / f"big{i}.pdf", PAGES * 20) for i in range(3)]
    with pytest.raises(EngineError, match="stopped unexpectedly"):
        for ev in library.add(files, isolated=True):
            if ev.stage == "parse" and ev.done >= 2:
                os.kill(library._worker.pid, signal.SIGKILL)
    assert sum(d.status == "failed" for d in library.documents()) >= 1
    assert library.conn.execute("SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                                "WHERE d.status != 'ready'").fetchone()[0] == 0
