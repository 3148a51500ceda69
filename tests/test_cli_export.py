"""`mmrag ask ... --export FILE`: the answer for an expert, through the real CLI on a real library."""

from __future__ import annotations

import json

from conftest import write_pdf

from mmrag_desktop import cli

PAGES = [
    [(72, 100, "Wiring"), (72, 130, "Connect the shield of cable W3 to terminal PE on the left rail.")],
    [(72, 100, "Fuses"), (72, 130, "The control circuit is protected by a 2 A slow-blow fuse F1.")],
]


def run(capsys, *argv):
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_export_writes_html_and_json_and_says_where(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    write_pdf(tmp_path / "cabinet.pdf", PAGES)
    assert run(capsys, "--library", lib, "add", "--no-enrich", str(tmp_path / "cabinet.pdf"))[0] == 0
    html, js = tmp_path / "out" / "shield.html", tmp_path / "out" / "shield.json"
    html.parent.mkdir()
    code, out, err = run(capsys, "--library", lib, "ask", "Where does the cable shield go?", "--extractive",
                         "--export", str(html), "--export", str(js))
    assert code == 0, err
    assert "terminal PE" in out  # the answer is printed as usual
    assert f"note: exported for an expert: {html}" in err.splitlines()
    assert f"note: exported for an expert: {js}" in err.splitlines()
    page = html.read_text(encoding="utf-8")
    assert "Where does the cable shield go?" in page and "terminal PE" in page
    assert 'src="data:image/' in page and "cabinet.pdf" in page
    bundle = json.loads(js.read_text(encoding="utf-8"))
    assert bundle["question"] == "Where does the cable shield go?"
    assert bundle["citations"][0]["doc"] == "cabinet.pdf" and bundle["citations"][0]["images"]
    assert sorted(p.name for p in html.parent.iterdir()) == ["shield.html", "shield.json"]  # no temporary files left

    # -q: no note; the file is still written
    code, out, err = run(capsys, "--library", lib, "-q", "ask", "What fuse protects the control circuit?",
                         "--extractive", "--export", str(html))
    assert code == 0 and err == "" and "slow-blow" in html.read_text(encoding="utf-8")


def test_ask_export_to_a_bad_place_is_one_line_before_answering(tmp_path, capsys, shared_embedder):
    lib = str(tmp_path / "lib")
    write_pdf(tmp_path / "cabinet.pdf", PAGES)
    run(capsys, "--library", lib, "add", "--no-enrich", str(tmp_path / "cabinet.pdf"))
    code, out, err = run(capsys, "--library", lib, "ask", "Where does the shield go?", "--extractive",
                         "--export", str(tmp_path / "missing" / "x.html"))
    assert code == 1 and out == ""
    assert err.splitlines() == [f"mmrag: error: cannot export to {tmp_path / 'missing' / 'x.html'}: "
                                f"the folder {tmp_path / 'missing'} does not exist"]
