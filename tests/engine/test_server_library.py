"""A team library on PostgreSQL through the facade (issue 16): `Library.open("postgresql://...")`
with a real server (pgserver: PostgreSQL 16 + pgvector), the real embedder and real PDFs, never a
mock. The same verbs as a folder library; the source files live in the database; several clients
write at once; a server restart or a killed client loses nothing committed and shows no half
document."""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import sys
import textwrap

import pymupdf
import pytest
from conftest import write_pdf
from pdf_factory import make_plant_manual

from mmrag_desktop.engine.errors import LibraryError
from mmrag_desktop.engine.library import Library
from mmrag_desktop.engine.location import local_folder

PAGES = [[(72, 100 + 18 * i, f"Section {i}: relay K{i} switches heater circuit number {i} at {20 + i} volts.")
          for i in range(10)] for _ in range(3)]
PUMP = [[(72, 100, "The coolant pump delivers 12 litres per minute at 3000 rpm.")]]


def _stages(events) -> list[str]:
    return [e.stage for e in events if e.stage in ("done", "failed", "skipped")]


def _half_documents(lib: Library) -> int:
    """Chunks of documents that are not ready (none may be visible)."""
    return lib.conn.execute("SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                            "WHERE d.status != 'ready'").fetchone()[0]


def test_a_server_library_searches_as_the_folder_library_does(tmp_path, pg_uri, embedder):
    manual = make_plant_manual(tmp_path / "plant.pdf")
    queries = ["coolant pump flow rate", "at what pressure does the relief valve open", "how often is the filter mat replaced"]
    with Library.open(tmp_path / "folder", embedder=embedder) as folder_lib:
        assert _stages(folder_lib.add([manual])) == ["done"]
        want = [[(h.doc, h.page, h.chunk_id is not None) for h in folder_lib.search(q, k=3)] for q in queries]
    with Library.open(pg_uri, embedder=embedder) as lib:
        assert lib.on_server and lib.index_dir is None and "postgresql://" in lib.where
        assert _stages(lib.add([manual])) == ["done"]
        got = [[(h.doc, h.page, h.chunk_id is not None) for h in lib.search(q, k=3)] for q in queries]
        assert got == want
        assert _stages(lib.add([manual])) == ["skipped"]  # same content: not read again
        hit = lib.search("coolant pump flow rate", k=1)[0]
        assert hit.bbox is not None and hit.boxes


def test_the_chunks_before_a_hit_read_as_in_a_folder_library(tmp_path, pg_uri, embedder):
    """Library.texts_before (answers read a change log's release line or an entry's line above a hit) on both stores."""
    manual = make_plant_manual(tmp_path / "plant.pdf")
    got = []
    for where in (tmp_path / "folder", pg_uri):
        with Library.open(where, embedder=embedder) as lib:
            assert _stages(lib.add([manual])) == ["done"]
            (last,) = lib.conn.execute("SELECT MAX(id) FROM chunks WHERE kind = 'text'").fetchone()
            before = lib.texts_before(last, 3)
            assert 0 < len(before) <= 3 and all(text for _, text in before)
            assert lib.texts_before(10**9, 3) == []  # a chunk that is gone
            got.append(before)
    assert got[0] == got[1]


def test_pages_render_from_the_copy_in_the_database(tmp_path, pg_uri, embedder):
    (tmp_path / "shared").mkdir()
    manual = make_plant_manual(tmp_path / "shared" / "plant.pdf")
    sha = hashlib.sha256(manual.read_bytes()).hexdigest()
    with Library.open(pg_uri, embedder=embedder) as lib:
        list(lib.add([manual]))
        assert lib.search("coolant pump", k=1)[0].doc_path == str(manual)  # the file is here: used in place
    shutil.rmtree(tmp_path / "shared")  # another engineer's machine: the file is not on it
    with Library.open(pg_uri, embedder=embedder) as lib:
        hit = lib.search("coolant pump", k=1)[0]
        copy = local_folder(pg_uri) / "files" / sha / "plant.pdf"  # the viewer shows the document's name
        assert hit.doc_path == str(copy)
        assert hashlib.sha256(copy.read_bytes()).hexdigest() == sha
        with pymupdf.open(copy) as doc:  # what the viewer does with it
            assert hit.text.split()[0] in doc[hit.page - 1].get_text()
        assert lib.source_file("plant.pdf") == copy
        lib.remove("plant.pdf")
        assert lib.conn.execute("SELECT COUNT(*) FROM file_parts").fetchone()[0] == 0


def test_two_clients_write_at_once_and_see_each_others_commits(tmp_path, pg_uri, embedder):
    a_pdf = write_pdf(tmp_path / "a.pdf", PAGES)
    b_pdf = write_pdf(tmp_path / "b.pdf", PUMP)
    with Library.open(pg_uri, embedder=embedder) as one, Library.open(pg_uri, embedder=embedder) as two:
        assert not one.read_only and not two.read_only  # a server takes many writers
        assert _stages(one.add([a_pdf])) == ["done"]
        assert _stages(two.add([b_pdf])) == ["done"]
        assert one.search("coolant pump litres", k=1)[0].doc == "b.pdf"
        assert two.search("which relay switches heater circuit 3", k=1)[0].doc == "a.pdf"
        assert {d.name for d in one.documents()} == {"a.pdf", "b.pdf"}


def test_a_read_only_client_searches_and_refuses_changes(tmp_path, pg_uri, embedder):
    with Library.open(pg_uri, embedder=embedder) as lib:
        list(lib.add([write_pdf(tmp_path / "b.pdf", PUMP)]))
    with Library.open(pg_uri, embedder=embedder, access="read") as reader:
        assert reader.search("coolant pump", k=1)[0].doc == "b.pdf"
        with pytest.raises(LibraryError, match="read-only"):
            reader.remove("b.pdf")


def test_a_url_of_another_kind_is_refused_in_one_line(embedder):
    with pytest.raises(LibraryError, match="not a library: give a folder or a PostgreSQL URL"):
        Library.open("https://example.com/library", embedder=embedder)


def test_an_unreachable_server_is_one_line_without_the_password(embedder):
    with pytest.raises(LibraryError) as e:
        Library.open("postgresql://team:s3cret@127.0.0.1:9/manuals", embedder=embedder)
    assert "s3cret" not in str(e.value) and "cannot connect" in str(e.value)


def test_a_server_restart_mid_ingest_loses_nothing_committed(tmp_path, pg_server, pg_uri, embedder):
    from pgserver._commands import pg_ctl

    first = write_pdf(tmp_path / "a.pdf", PAGES)
    second = write_pdf(tmp_path / "b.pdf", PUMP)
    with Library.open(pg_uri, embedder=embedder) as lib:
        assert _stages(lib.add([first])) == ["done"]
        events = lib.add([second])
        with pytest.raises(LibraryError, match="lost the connection to the library database.*committed is kept"):
            for ev in events:
                if ev.stage == "parse" and ev.doc == "b.pdf":  # read, not yet committed
                    pg_ctl(["-w", "restart", "-m", "fast"], pgdata=pg_server.pgdata, user=pg_server.system_user)
        # the client goes on with a new connection: the committed document is whole, the other not there
        assert lib.document("a.pdf").status == "ready"
        assert lib.document("b.pdf").status != "ready"
        assert _half_documents(lib) == 0
        assert lib.search("which relay switches heater circuit 3", k=1)[0].doc == "a.pdf"
        assert _stages(lib.add([second])) == ["done"]  # added again: done
        assert lib.search("coolant pump litres", k=1)[0].doc == "b.pdf"


KILL = textwrap.dedent(
    """
    import os, signal, sys
    from mmrag_desktop.engine.library import Library
    uri, path = sys.argv[1], sys.argv[2]
    with Library.open(uri) as lib:
        insert = type(lib.store.chunks).insert
        def killing(self, rows):
            out = insert(self, rows)
            os.kill(os.getpid(), signal.SIGKILL)  # inside the document's transaction, chunks written
            return out
        type(lib.store.chunks).insert = killing
        list(lib.add([path]))
    """
)


def test_a_client_killed_mid_ingest_leaves_no_half_document(tmp_path, pg_uri, embedder):
    first = write_pdf(tmp_path / "a.pdf", PAGES)
    second = write_pdf(tmp_path / "b.pdf", PUMP)
    with Library.open(pg_uri, embedder=embedder) as watcher:  # another engineer's client, open all along
        list(watcher.add([first]))
        proc = subprocess.run([sys.executable, "-c", KILL, pg_uri, str(second)], capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
        assert _half_documents(watcher) == 0
        assert all(h.doc == "a.pdf" for h in watcher.search("coolant pump litres", k=5))
    with Library.open(pg_uri, embedder=embedder) as lib:  # the next client to open says what happened
        doc = lib.document("b.pdf")
        assert doc.status == "failed" and "stopped the indexer" in doc.error
        assert _stages(lib.add([second])) == ["done"]
        assert lib.search("coolant pump litres", k=1)[0].doc == "b.pdf"


def test_a_living_clients_work_is_not_taken_for_interrupted(tmp_path, pg_uri, embedder):
    with Library.open(pg_uri, embedder=embedder) as busy:
        doc_id = busy.store.documents.register(tmp_path / "long.pdf", "ab" * 32, 1, 0.0, "pending")
        busy.store.documents.start_indexing(doc_id, "ab" * 32)  # as the ingester does before parsing
        with Library.open(pg_uri, embedder=embedder) as other:
            assert other.document("long.pdf").status == "indexing"  # not marked failed: busy is alive
        busy.store.documents.set_failed(doc_id, "stopped for the test")
        assert busy.store.documents.interrupted() == []


def test_figure_work_on_another_machine_crops_from_the_stored_file(tmp_path, pg_uri, embedder):
    from pdf_factory import make_raster_figure_pdf

    (tmp_path / "share").mkdir()
    pdf = make_raster_figure_pdf(tmp_path / "share" / "panel.pdf").path
    with Library.open(pg_uri, embedder=embedder) as lib:
        assert _stages(lib.add([pdf])) == ["done"]  # figure work not run yet (as `add --no-enrich`)
        crops = lib.folder / "cache" / "figures"
        assert any(crops.rglob("*.png"))
    shutil.rmtree(tmp_path / "share")  # a colleague's machine: neither the PDF nor the crops are here
    shutil.rmtree(crops)
    with Library.open(pg_uri, embedder=embedder) as lib:
        events = list(lib.enrich())
        assert not [e for e in events if e.extra.get("errors")], [e.message for e in events]
        assert any(crops.rglob("*.png"))  # cropped again from the database's copy of the file
        assert list((lib.folder / "files").glob("*/panel.pdf"))


def test_two_clients_adding_at_the_same_moment_both_land_whole(tmp_path, pg_uri, embedder):
    import threading

    pdfs = [write_pdf(tmp_path / f"{name}.pdf", [[(72, 100 + 18 * i, f"{name} unit {i}: relay R{i} trips at "
                                                  f"{10 + i} amps on the {name} line.") for i in range(12)]] * 3)
            for name in ("north", "south")]
    clients = [Library.open(pg_uri, embedder=embedder) for _ in pdfs]
    start, results = threading.Barrier(2), {}

    def add(lib, pdf):
        start.wait()
        results[pdf.name] = _stages(lib.add([pdf]))

    threads = [threading.Thread(target=add, args=pair) for pair in zip(clients, pdfs, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    try:
        assert results == {"north.pdf": ["done"], "south.pdf": ["done"]}
        for lib in clients:
            assert {h.doc for h in lib.search("relay trips amps south line", k=3)} == {"south.pdf"}
            assert lib.search("north line relay R4", k=1)[0].doc == "north.pdf"
            n = {d.name: d.chunks for d in lib.documents()}
            ids = lib.conn.execute("SELECT doc_id, COUNT(*) FROM chunks GROUP BY doc_id").fetchall()
            assert sorted(c for _, c in ids) == sorted(n.values())
    finally:
        for lib in clients:
            lib.close()
