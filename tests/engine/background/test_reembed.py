"""Changing the text embedder re-embeds in the background; search keeps working meanwhile."""

from __future__ import annotations

import shutil

from conftest import write_pdf

from mmrag_desktop.engine.errors import Cancelled
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.settings import Settings
from mmrag_desktop.engine.store.migrations import MIGRATIONS


def test_switch_text_model_keeps_search_working_and_resumes(tmp_path, embedder):
    # A second real model: a copy of MiniLM under another name (the only text model installable
    # offline); its vectors are tagged with a different model id, which is what the plumbing keys on.
    copy = tmp_path / "minilm-copy"
    shutil.copytree(embedder.model_dir, copy)
    pages = [[(72, 100 + 20 * i, f"Section {i}: the relay K{i} switches the heater circuit number {i}.")
              for i in range(8)] for _ in range(6)]
    pdf = write_pdf(tmp_path / "relays.pdf", pages)
    folder = tmp_path / "lib"
    with Library.open(folder) as lib:
        assert [e.stage for e in lib.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
        old_model = lib.embedder.model_id
        n_chunks = lib.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    settings = Settings(models={"text_embedder": str(copy)})
    with Library.open(folder, settings) as lib:
        assert lib.reembed_pending and lib.embedder.model_id == old_model
        before = lib.search("which relay switches heater circuit 3", k=3)[0].chunk_id
        token = CancelToken()
        seen = 0
        try:
            for ev in lib.reembed(token):
                if ev.stage == "reembed" and ev.done > 0:
                    seen += 1
                    token.cancel()
                    # search still answers with the old model while new vectors are half written
                    assert lib.search("which relay switches heater circuit 3", k=3)[0].chunk_id == before
        except Cancelled:
            pass
        assert seen == 1
        assert lib.embedder.model_id == old_model and lib.reembed_pending

    with Library.open(folder, settings) as lib:
        assert lib.reembed_pending
        events = list(lib.reembed())
        assert events[-1].stage == "finished"
        assert lib.embedder.model_id == "minilm-copy" and not lib.reembed_pending
        models = {r[0] for r in lib.conn.execute("SELECT DISTINCT model FROM vectors WHERE space = 'text'")}
        assert models == {"minilm-copy"}
        assert lib.conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == n_chunks
        assert lib.search("which relay switches heater circuit 3", k=3)[0].chunk_id == before

    with Library.open(folder, settings) as lib:  # the switch is remembered
        assert not lib.reembed_pending and lib.embedder.model_id == "minilm-copy"
        assert len(lib.text_index()) == n_chunks


def test_migration_2_keeps_vectors(tmp_path):
    """A library created with schema 1 is upgraded in place without losing vectors."""
    import sqlite3

    from mmrag_desktop.engine.store.migrations import _statements, migrate

    db = sqlite3.connect(tmp_path / "old.sqlite", isolation_level=None)
    for st in _statements(MIGRATIONS[0]):
        db.execute(st)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO documents (path, name, sha256) VALUES ('/x.pdf', 'x.pdf', 'ab')")
    db.execute("INSERT INTO chunks (doc_id, ord, kind, text, page, page_end) VALUES (1, 0, 'text', 'hello', 1, 1)")
    db.execute("INSERT INTO vectors VALUES (1, 'text', 'm', 2, x'0000803f0000803f')")
    assert migrate(db) == len(MIGRATIONS)
    assert db.execute("SELECT chunk_id, model, dim FROM vectors").fetchall() == [(1, "m", 2)]
    db.execute("INSERT INTO vectors VALUES (1, 'text', 'other', 2, x'0000803f0000803f')")  # two models now fit
    assert db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 2
