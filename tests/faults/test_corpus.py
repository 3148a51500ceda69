"""The bad-file corpus (issue 17): one `mmrag add` of a folder holding every kind of unusable or
hostile file next to good ones. Every unusable file fails with a one-line reason, the readable ones
(Latin-1 and UTF-16 Markdown, a Markdown file whose outside image link is refused) are added, the
good files are searchable, the exit code is 3, and the process's memory stays bounded."""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.library import Library

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "formats" / "timer_manual.docling.json"
MAX_RSS_MB = 2500


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def one_bit_png(side: int) -> bytes:
    """A real, complete 1-bit PNG of side x side white pixels (a few hundred KB for 40,000)."""
    comp = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * ((side + 7) // 8)
    idat = b"".join(comp.compress(row) for _ in range(side)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def build_corpus(folder: Path) -> tuple[set[str], set[str]]:
    """(files that must fail, files that must be added)."""
    import pymupdf

    folder.mkdir()
    good = {"good.pdf", "latin1.md", "utf16.md", "outside_link.md", "good.docling.json"}
    write_pdf(folder / "good.pdf", [[(72, 100, "Coolant pump"),
                                     (72, 130, "The coolant pump delivers 12 litres per minute at 2 bar.")]])
    (folder / "latin1.md").write_bytes("# Kühlmittel\n\nDie Pumpe fördert 12 Liter pro Minute.\n".encode("latin-1"))
    (folder / "utf16.md").write_text("# Wartung\n\nDen Filter alle drei Monate reinigen.\n", encoding="utf-16")
    (folder / "outside_link.md").write_text("# Links\n\nThe relay schematic.\n\n![x](../../../../etc/hostname)\n")
    (folder / "good.docling.json").write_text(FIXTURE.read_text())
    bad = {"empty.pdf", "truncated.pdf", "encrypted.pdf", "png_named.pdf", "text_named.png", "bomb.png",
           "deep.docling.json", "caption5.docling.json"}
    good.add("adversarial.md")  # hostile but valid Markdown: read (in linear time) and added
    (folder / "empty.pdf").write_bytes(b"")
    pdf = (folder / "good.pdf").read_bytes()
    (folder / "truncated.pdf").write_bytes(pdf[: len(pdf) // 3])
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), "secret")
    doc.save(str(folder / "encrypted.pdf"), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    doc.close()
    (folder / "png_named.pdf").write_bytes(one_bit_png(16))
    (folder / "text_named.png").write_text("not an image\n" * 20)
    (folder / "bomb.png").write_bytes(one_bit_png(40_000))
    (folder / "adversarial.md").write_text("**a " * 250_000 + "`" * 200_000 + "![a](" * 30_000)
    data = json.loads(FIXTURE.read_text())
    (folder / "deep.docling.json").write_text(json.dumps(data)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    data["tables"][0]["captions"] = 5
    (folder / "caption5.docling.json").write_text(json.dumps(data))
    os.symlink("loop_b", folder / "loop_a.pdf")
    os.symlink("loop_a.pdf", folder / "loop_b")
    (folder / "sub").mkdir()
    os.symlink("..", folder / "sub" / "up")  # a folder loop
    return bad, good


@pytest.mark.timeout(900)
def test_one_add_of_the_whole_corpus(tmp_path, embedder):
    corpus = tmp_path / "corpus"
    bad, good = build_corpus(corpus)
    lib = tmp_path / "lib"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([sys.executable, "-m", "mmrag_desktop.cli", "--library", str(lib), "add", str(corpus)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 3, proc.stderr[-3000:]
    failed = {line.split()[1].rstrip(":"): line for line in proc.stderr.splitlines() if line.startswith("FAILED")}
    assert set(failed) >= bad, (set(failed), proc.stderr[-3000:])
    assert not set(failed) & good, [failed[n] for n in set(failed) & good]
    if before < peak_mb * 1024:  # this child set the children's peak
        assert peak_mb < MAX_RSS_MB, f"peak RSS {peak_mb:.0f} MB"
    with Library.open(lib, embedder=embedder) as library:
        status = {d.name: d.status for d in library.documents()}
        assert all(status[name] == "ready" for name in good), status
        assert library.search("how many litres per minute does the coolant pump deliver", k=1)[0].doc == "good.pdf"
        assert library.search("Kühlmittel Pumpe Liter", k=1)[0].doc == "latin1.md"
