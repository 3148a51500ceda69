"""`mmrag eval`: the table, --json, one-line errors for a bad file, and a read-only run (it works
while another process holds the writer lock, and leaves the library's files as they were)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

import pytest
from pdf_factory import make_plant_manual as write_manual

from mmrag_desktop import cli
from mmrag_desktop.engine.library import Library

HOLDER = textwrap.dedent(
    """
    import sys
    from mmrag_desktop.engine.library import Library
    lib = Library.open(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()
    lib.close()
    """
)


@pytest.fixture
def plant(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([write_manual(tmp_path / "plant.pdf")]))
    questions = tmp_path / "tests.jsonl"
    questions.write_text("\n".join([
        "# plant manual",
        json.dumps({"id": "pump", "query": "how many litres per minute does the coolant pump deliver",
                    "doc": "plant.pdf", "pages": [1], "bbox": [60, 115, 540, 140]}),
        json.dumps({"id": "valve", "query": "at what pressure does the relief valve open", "doc": "plant.pdf",
                    "pages": [3]}),  # wrongly expected on page 3: a miss, rank 2 or lower
        json.dumps({"id": "ghost", "query": "coolant pump", "doc": "ghost.pdf", "pages": [1]}),
    ]) + "\n")
    return folder, questions


def run(capsys, *argv):
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_prints_a_table_and_json(plant, capsys, shared_embedder):
    folder, questions = plant
    code, out, err = run(capsys, "--library", str(folder), "eval", str(questions))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("id") and "R@1" in lines[0] and "rank" in lines[0]
    pump = next(x for x in lines if x.startswith("pump"))
    assert pump.split()[1:4] == ["hit", "1", "yes"]
    valve = next(x for x in lines if x.startswith("valve"))
    assert "MISS" in valve and valve.rstrip().endswith("plant.pdf p. 3 -> plant.pdf p. 2")
    ghost = next(x for x in lines if x.startswith("ghost"))
    assert "not scored: unknown document 'ghost.pdf'" in ghost
    assert "2 questions; 1 not scored: R@1 0.50 (1/2)" in out and "box 1/1 (1.00)" in out

    code, out, err = run(capsys, "--library", str(folder), "eval", str(questions), "--json", "-k", "5")
    assert code == 0, err
    data = json.loads(out)
    assert data["k"] == 5 and data["file"] == str(questions)
    rows = {r["id"]: r for r in data["questions"]}
    assert rows["pump"]["rank"] == 1 and rows["pump"]["box_hit"] is True
    assert rows["valve"]["hit@1"] is False and rows["valve"]["found"][0]["page"] == 2
    assert rows["ghost"]["status"] == "unknown_doc"
    assert data["totals"]["n"] == 2 and data["totals"]["R@1"] == 0.5 and data["not_scored"] == 1


def test_a_bad_file_is_one_error_line(plant, tmp_path, capsys, shared_embedder):
    folder, _ = plant
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "query": "pump", "doc": "plant.pdf", "pages": [1]}\n{"id": "b", "query": "x"}\n')
    code, out, err = run(capsys, "--library", str(folder), "eval", str(bad))
    assert code == 1 and out == ""
    assert err.strip() == f'mmrag: error: {bad}:2: "doc" is missing: the file name of the document, as the library lists it'
    code, out, err = run(capsys, "--library", str(folder), "eval", str(tmp_path / "none.jsonl"))
    assert code == 1 and "no such question file" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "--library", str(tmp_path / "nolib"), "eval", str(bad.with_name("x")))
    assert code == 1
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "a", "query": "pump", "doc": "plant.pdf", "pages": [1]}\n')
    code, out, err = run(capsys, "--library", str(tmp_path / "nolib"), "eval", str(good))
    assert code == 1 and "there is no library" in err
    assert not (tmp_path / "nolib").exists(), "eval must not create a library"


def _fingerprint(folder) -> dict:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "writer.lock" and not p.name.endswith("-shm")}  # -shm: readers' marks


def test_eval_is_read_only_and_works_while_another_process_writes(plant):
    """A real `mmrag eval` process while another process holds the library's writer lock."""
    folder, questions = plant
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready", holder.stderr.read()[-2000:]
        before = _fingerprint(folder)
        out = subprocess.run([sys.executable, "-m", "mmrag_desktop.cli", "--library", str(folder), "eval",
                              str(questions), "--json"], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["totals"]["n"] == 2
        assert "Traceback" not in out.stderr
        assert _fingerprint(folder) == before
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(60)
