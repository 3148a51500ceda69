"""Two processes on one library (issue 17, fault 2): one writer at a time, named when it blocks
another; readers search what the writer commits without reopening; a killed writer frees it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.errors import LibraryInUseError
from mmrag_desktop.engine.library import Library

HOLDER = textwrap.dedent(
    """
    import sys
    from mmrag_desktop.engine.library import Library
    lib = Library.open(sys.argv[1])
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "add":
            for ev in lib.add([sys.argv[2]]):
                pass
            print("added", flush=True)
    """
)
PUMP = [[(72, 100, "Coolant pump"), (72, 130, "The coolant pump delivers 12 litres per minute at 2 bar.")]]
VALVE = [[(72, 100, "Relief valve"), (72, 130, "The relief valve opens at 8 bar and closes again at 6 bar.")]]


@pytest.fixture
def holder(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:  # a library with one document
        list(lib.add([write_pdf(tmp_path / "pump.pdf", PUMP)]))
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(write_pdf(tmp_path / "valve.pdf", VALVE))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()[-2000:]
    yield folder, proc
    if proc.poll() is None:
        proc.kill()
    proc.wait(30)


def test_a_second_writer_is_refused_with_the_holder_named(holder, embedder):
    folder, proc = holder
    with pytest.raises(LibraryInUseError, match=rf"in use by .*process {proc.pid}"):
        Library.open(folder, embedder=embedder)


def test_a_reader_searches_and_sees_the_writers_commits_without_reopening(holder, embedder, tmp_path):
    folder, proc = holder
    with Library.open(folder, embedder=embedder, access="auto") as reader:
        assert reader.read_only and str(proc.pid) in reader.read_only_reason
        assert reader.search("coolant pump flow", k=1)[0].doc == "pump.pdf"
        with pytest.raises(LibraryInUseError, match="in use by"):
            list(reader.add([write_pdf(tmp_path / "x.pdf", PUMP)]))
        with pytest.raises(LibraryInUseError):
            reader.remove("pump.pdf")
        proc.stdin.write("add\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "added"
        assert reader.search("at what pressure does the relief valve open", k=1)[0].doc == "valve.pdf"
    assert not list((folder / "index").glob("*.tmp")), "the reader wrote nothing"


def test_a_killed_writer_frees_the_library(holder, embedder):
    folder, proc = holder
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    with Library.open(folder, embedder=embedder) as lib:
        assert not lib.read_only and lib.search("coolant pump flow", k=1)[0].doc == "pump.pdf"


def test_cli_writes_are_refused_and_reads_work_while_the_window_holds_the_library(library, tmp_path, capsys):
    from mmrag_desktop import cli

    list(library.add([write_pdf(tmp_path / "pump.pdf", PUMP)]))
    code = cli.run(["--library", str(library.folder), "add", str(write_pdf(tmp_path / "v.pdf", VALVE))])
    out, err = capsys.readouterr()
    assert code != 0 and "in use by" in err and err.count("\n") == 1 and "Traceback" not in err
    assert cli.run(["--library", str(library.folder), "list"]) == 0
    assert "pump.pdf" in capsys.readouterr().out
