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


def test_isolated_cancel(tmp_path, library):
    files = [write_pdf(tmp_path / f"d{i}.pdf", PAGES) for i in range(1)]
    files += [write_pdf(tmp_path / f"e{i}.pdf", [[(72, 100, f"Unique page {i} about valve {i}.")]]) for i in range(3)]
    token = CancelToken()
    stages = []
    for ev in library.add(files, cancel=token, isolated=True):
        stages.append(ev.stage)
        if ev.stage == "done":
            token.cancel()
    assert stages[-1] == "cancelled"
    assert sum(d.status == "ready" for d in library.documents()) == 1


def test_killed_child_is_a_clear_error_and_nothing_is_lost(tmp_path, library):
    a = write_pdf(tmp_path / "a.pdf", PAGES)
    list(library.add([a], isolated=True))
    files = [write_pdf(tmp_path / f"big{i}.pdf", PAGES * 20) for i in range(3)]
    with pytest.raises(EngineError, match="stopped unexpectedly"):
        for ev in library.add(files, isolated=True):
            if ev.stage == "parse" and ev.done >= 2:
                os.kill(library._worker.pid, signal.SIGKILL)
    status = {d.name: d.status for d in library.documents()}
    assert status["a.pdf"] == "ready"
    assert library.search("dust filter cleaning interval", k=1)[0].doc == "a.pdf"
    # the next run starts a new child and finishes the rest
    list(library.add(files, isolated=True))
    assert {d.status for d in library.documents()} == {"ready"}
