"""Test isolation: every test gets its own config/data/cache/log folders (never the user's)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory):
    """One folder for the text embedder's ONNX export (models/onnx_text.py) shared by every test's
    own cache folder: the export is made once per session, not once per test."""
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch, onnx_cache):
    base = tmp_path_factory.mktemp("appdirs")
    for name in ("CONFIG", "DATA", "CACHE", "LOG"):
        d = base / name.lower()
        d.mkdir()
        monkeypatch.setenv(f"MMRAG_{name}_DIR", str(d))
    (base / "cache" / "onnx").symlink_to(onnx_cache, target_is_directory=True)
    yield base


@pytest.fixture(scope="session")
def embedder(onnx_cache):
    """The real all-MiniLM-L6-v2 from its package, loaded once per test session."""
    from mmrag_desktop.engine.models.text_embedder import TextEmbedder

    with pytest.MonkeyPatch.context() as mp:  # session fixtures come before a test's own folders
        mp.setenv("MMRAG_CACHE_DIR", str(onnx_cache.parent / "session-cache"))
        (onnx_cache.parent / "session-cache").mkdir(exist_ok=True)
        (onnx_cache.parent / "session-cache" / "onnx").symlink_to(onnx_cache, target_is_directory=True)
        emb = TextEmbedder(threads=2)
        emb.encode(["warm up"])
    return emb


@pytest.fixture
def library(tmp_path, embedder):
    """A fresh real library (SQLite + hnswlib) in a temp folder, sharing the session's embedder."""
    from mmrag_desktop.engine.library import Library

    lib = Library.open(tmp_path / "lib", embedder=embedder)
    yield lib
    lib.close()


@pytest.fixture
def plant_library_dir(tmp_path, embedder):
    """A library folder holding the small plant manual (pdf_factory.make_plant_manual), closed."""
    from pdf_factory import make_plant_manual

    from mmrag_desktop.engine.library import Library

    folder = tmp_path / "library"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([make_plant_manual(tmp_path / "plant.pdf")]))
    return folder


@pytest.fixture
def shared_embedder(monkeypatch, embedder):
    """Make the CLI's Library reuse the session's loaded embedder (saves a model load per call)."""
    from mmrag_desktop.engine import library as library_mod

    real_open = library_mod.Library.open

    def open_with_embedder(folder=None, settings=None, embedder_=None, **kwargs):
        return real_open(folder, settings, embedder, **kwargs)

    monkeypatch.setattr(library_mod.Library, "open", staticmethod(open_with_embedder))


def write_pdf(path, pages: list[list[tuple[float, float, str]]], *, fontsize: float = 11) -> object:
    """Write a PDF whose page i holds the (x, y, text) lines of pages[i] (y = baseline, top-left origin)."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        for x, y, text in lines:
            page.insert_text((x, y), text, fontsize=fontsize)
    doc.save(str(path))
    doc.close()
    return path


def extractive_answer(library, question: str):
    """The extractive answer (engine Answer) of `question` from `library`, with one thread."""
    from mmrag_desktop.engine.answer import answer_events
    from mmrag_desktop.engine.settings import Settings

    return next(e.answer for e in answer_events(library, question, mode="extractive", settings=Settings(threads=1))
                if e.kind == "done")


PG_MISSING = [name for name in ("psycopg", "pgvector", "pgserver")
              if __import__("importlib.util").util.find_spec(name) is None]


@pytest.fixture(scope="session")
def pg_server():
    """One real PostgreSQL 16 + pgvector server (the pgserver package) for the session; stopped and
    removed at the end. Skips when the server extra or pgserver is not installed.

    Its data folder is not under pytest's temp root: run as root, pgserver runs the server as its own
    user and opens the folders above the data to it, and any other pytest session of the same user
    makes that root private again when it starts (a clean-clone CI run while tests ran in the work tree
    failed: "pg_ctl: could not access directory .../pytest-9/pgdata0: Permission denied")."""
    if PG_MISSING:
        pytest.skip(f"PostgreSQL tests need {', '.join(PG_MISSING)} (pip install -e '.[dev]')")
    import shutil
    import tempfile

    import pgserver

    data = Path(tempfile.mkdtemp(prefix="mmrag-test-pgdata-"))
    server = pgserver.get_server(data, cleanup_mode="stop")
    yield server
    server.cleanup()
    _stop_postmaster(data)
    shutil.rmtree(data)


def _stop_postmaster(data) -> None:
    """Stop the server of `data` if pgserver left it running: its cleanup stops the server only when
    its list of handle-holding processes is exactly this one, and after the store and server-library
    tests that list was empty, so each test run left a postgres behind (seen after a clean-clone CI)."""
    import os
    import signal
    import time

    pid_file = data / "postmaster.pid"
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text().split()[0])
    try:
        os.kill(pid, signal.SIGINT)  # PostgreSQL's fast shutdown
    except ProcessLookupError:
        return
    for _ in range(50):
        if not pid_file.exists():
            return
        time.sleep(0.1)


_pg_databases = iter(range(1_000_000))


@pytest.fixture
def pg_uri(pg_server):
    """The URI of a new, empty database on the session's server."""
    import psycopg

    name = f"lib_{next(_pg_databases)}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg_server.get_uri(name)
