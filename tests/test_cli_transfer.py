"""`mmrag export --to/--from` (issue 16): a library moves between a folder (SQLite + hnswlib) and a
real PostgreSQL server (pgserver) without parsing again: the same hits, boxes and vectors on both
sides, the source files carried, and a destination that is not empty refused in one line."""

from __future__ import annotations

import json
import shutil

import numpy as np
from pdf_factory import make_plant_manual

from mmrag_desktop import cli
from mmrag_desktop.engine.library import Library

QUERIES = ["coolant pump flow rate", "at what pressure does the relief valve open", "fan filter mat hours"]


def run(capsys, *argv):
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def hits(capsys, library: str) -> list[list[tuple]]:
    out = []
    for q in QUERIES:
        code, text, err = run(capsys, "--library", library, "search", q, "--json", "-k", "3")
        assert code == 0, err
        out.append([(h["doc"], h["page"], h["bbox"], h["kind"], round(h["score"], 4))
                    for h in json.loads(text)["hits"]])
    return out


def vectors(library) -> dict[int, np.ndarray]:
    with Library.open(library, access="read") as lib:  # the session embedder (shared_embedder)
        ids = [r[0] for r in lib.conn.execute("SELECT id FROM chunks ORDER BY id").fetchall()]
        return lib.store.vectors.chunk_vectors(ids, lib.embedder.model_id)


def test_export_to_a_server_and_back_keeps_hits_vectors_and_files(tmp_path, capsys, pg_uri, shared_embedder):
    folder = str(tmp_path / "lib")
    (tmp_path / "manuals").mkdir()
    code, _, err = run(capsys, "--library", folder, "add",
                       str(make_plant_manual(tmp_path / "manuals" / "plant.pdf")))
    assert code == 0, err
    before = hits(capsys, folder)

    code, out, err = run(capsys, "--library", folder, "export", "--to", pg_uri)
    assert code == 0, err
    assert "copied 1 document(s) to postgresql://" in out
    assert hits(capsys, pg_uri) == before
    want = vectors(tmp_path / "lib")
    got = vectors(pg_uri)
    assert set(got) == set(want) and all(np.array_equal(got[i], want[i]) for i in want)

    shutil.rmtree(tmp_path / "manuals")  # the file now lives only in the server's database
    back = str(tmp_path / "back")
    code, out, err = run(capsys, "--library", back, "export", "--from", pg_uri)
    assert code == 0, err
    assert hits(capsys, back) == before
    with Library.open(back) as lib:
        doc = lib.documents()[0]
        assert doc.path.startswith(str(tmp_path / "back" / "files"))  # a copy taken from the database
        assert lib.source_file(doc.id).read_bytes()[:5] == b"%PDF-"

    code, out, err = run(capsys, "--library", folder, "export", "--to", pg_uri)
    assert code == 1
    assert err.strip() == ("mmrag: error: the destination already holds 1 document(s); export into a new, "
                           "empty library")


def test_export_names_a_bad_destination_in_one_line(tmp_path, capsys, shared_embedder):
    folder = str(tmp_path / "lib")
    run(capsys, "--library", folder, "list")
    code, out, err = run(capsys, "--library", folder, "export", "--to", "ftp://example.com/lib")
    assert code == 1
    assert err.startswith("mmrag: error: ftp://example.com/lib is not a library") and "\n" not in err.strip()
