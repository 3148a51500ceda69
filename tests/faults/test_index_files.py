"""The index files on disk (issue 17, faults 1 and 9): an index and its manifest cannot disagree
after a kill at any moment of a save, a vector rewritten by another process reaches this one's
index, and a stale index is never saved over a newer one."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import numpy as np
from conftest import write_pdf

from mmrag_desktop.engine.library import Library

PUMP = [[(72, 100, "Coolant pump"), (72, 130, "The coolant pump delivers 12 litres per minute at 2 bar.")]]
VALVE = [[(72, 100, "Relief valve"), (72, 130, "The relief valve opens at 8 bar and closes again at 6 bar.")]]


def manifest(folder) -> dict:
    return json.loads((folder / "index" / "text.json").read_text())


def held_vector(lib, chunk_id: int) -> np.ndarray:
    index = lib.text_index()
    return index._index.get_items([chunk_id], return_type="numpy")[0]


def index_ids_match_sqlite(lib) -> bool:
    index = lib.text_index()
    rows = {r[0] for r in lib.conn.execute("SELECT chunk_id FROM vectors WHERE space = 'text' AND model = ?",
                                           (lib.embedder.model_id,))}
    return set(index._live) == rows


def test_a_vector_rewritten_by_another_process_reaches_this_index_and_its_saves(tmp_path, embedder):
    folder = tmp_path / "lib"
    lib = Library.open(folder, embedder=embedder)
    list(lib.add([write_pdf(tmp_path / "pump.pdf", PUMP)]))
    cid = lib.search("coolant pump", k=1)[0].chunk_id
    # the window's child (same lock) rewrites the chunk's vector, as figure enrichment does
    other = Library.open(folder, embedder=embedder, access="child")
    new = np.zeros(lib.embedder.dim, np.float32)
    new[0] = 1.0
    segs = other.store.vectors.segment_vectors([cid], other.embedder.model_id)[cid]
    other.store.vectors.replace_chunk_text(cid, other.embedder.model_id, new, segs)
    other.text_index().add(np.asarray([cid]), new[None, :])
    other.close()
    assert not np.allclose(held_vector(lib, cid), new)  # the parent still holds the old one ...
    lib.search("coolant pump", k=1)  # ... until its next search notices the other commit
    np.testing.assert_array_equal(held_vector(lib, cid), new)
    lib.close()  # saving its index must not bring the old vector back
    with Library.open(folder, embedder=embedder) as again:
        np.testing.assert_array_equal(held_vector(again, cid), new)
        assert again.text_index().rebuilt_reason is None, "loaded, not rebuilt"


def test_a_stale_index_is_not_saved_over_a_newer_one(tmp_path, embedder):
    folder = tmp_path / "lib"
    lib = Library.open(folder, embedder=embedder)
    list(lib.add([write_pdf(tmp_path / "pump.pdf", PUMP)]))
    stale = lib.text_index()
    other = Library.open(folder, embedder=embedder, access="child")
    list(other.add([write_pdf(tmp_path / "valve.pdf", VALVE)]))
    other.close()
    newer = manifest(folder)
    stale.remove([next(iter(stale._live))])  # a change that makes the stale index want to save
    assert stale.save() is False and manifest(folder) == newer
    assert stale.save(lib.conn) is True, "caught up with SQLite first, it may save"
    assert manifest(folder)["high_water"] >= newer["high_water"]
    lib.close()


KILL_BEFORE_MANIFEST = textwrap.dedent(
    """
    import os, signal, sys
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.store import vector_index
    real = vector_index._fsync_file
    def fsync_then_die(path):
        real(path)
        if str(path).endswith(".tmp"):      # the new manifest is written, not yet in place
            os.kill(os.getpid(), signal.SIGKILL)
    vector_index._fsync_file = fsync_then_die
    lib = Library.open(sys.argv[1])
    for ev in lib.add([sys.argv[2]]):
        pass
    """
)


def test_a_kill_during_an_index_save_leaves_a_consistent_library(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([write_pdf(tmp_path / "pump.pdf", PUMP)]))
    before = manifest(folder)
    proc = subprocess.run([sys.executable, "-c", KILL_BEFORE_MANIFEST, str(folder),
                           str(write_pdf(tmp_path / "valve.pdf", VALVE))], capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    assert manifest(folder) == before, "the manifest still names the last complete index"
    leftovers = [f.name for f in (folder / "index").iterdir() if before["generation"] not in f.name
                 and f.name != "text.json"]
    assert leftovers, "the killed save left its files behind"
    with Library.open(folder, embedder=embedder) as lib:
        assert lib.search("at what pressure does the relief valve open", k=1)[0].doc == "valve.pdf"
        assert index_ids_match_sqlite(lib)
        list(lib.add([write_pdf(tmp_path / "more.pdf", [[(72, 100, "Spare parts list for the pump.")]])]))
    names = {f.name for f in (folder / "index").iterdir()}
    assert not names & set(leftovers), "the next save removed them"
    assert {n for n in names if n.endswith(".hnsw")} == {f"text.{manifest(folder)['generation']}.hnsw"}


def test_a_manifest_naming_a_missing_index_means_a_rebuild(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([write_pdf(tmp_path / "pump.pdf", PUMP)]))
    (folder / "index" / f"text.{manifest(folder)['generation']}.hnsw").unlink()
    with Library.open(folder, embedder=embedder) as lib:
        assert lib.search("coolant pump", k=1)[0].doc == "pump.pdf"
        assert lib.text_index().rebuilt_reason == "no index file" and index_ids_match_sqlite(lib)
