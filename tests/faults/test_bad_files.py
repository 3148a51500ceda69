"""Hostile and malformed files fail one by one, with a one-line reason; the batch goes on and every
good file is searchable (issue 17, fault 3). Crafted Docling JSON is derived from the real fixture."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import write_pdf

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "formats" / "timer_manual.docling.json"
GOOD = [[(72, 100, "Coolant pump"), (72, 130, "The coolant pump delivers 12 litres per minute at 2 bar.")]]


def _variant(base: dict, change) -> dict:
    doc = copy.deepcopy(base)
    change(doc)
    return doc


def crafted_docling(folder: Path) -> dict[str, str]:
    """{file name: what is wrong with it}, written into `folder`."""
    base = json.loads(FIXTURE.read_text())
    variants = {
        "string_num_rows.json": (lambda d: d["tables"][0]["data"].__setitem__("num_rows", "many"), "string num_rows"),
        "captions_number.json": (lambda d: d["tables"][0].__setitem__("captions", 5), '"captions": 5'),
        "text_charspan.json": (lambda d: d["texts"][1]["prov"][0].__setitem__("charspan", ["a", "b"]),
                               "non-numeric charspan"),
        "bbox_string.json": (lambda d: d["texts"][1]["prov"][0]["bbox"].__setitem__("l", "left"), "a string coordinate"),
        "pages_list.json": (lambda d: d.__setitem__("pages", [1, 2, 3]), "pages as a list"),
        "billion_rows.json": (lambda d: d["tables"][0]["data"].__setitem__("num_rows", 10**9),
                              "num_rows: 1,000,000,000 (the cells span 3 rows)"),
        "billion_row_cell.json": (lambda d: d["tables"][0]["data"]["table_cells"][0].__setitem__(
            "start_row_offset_idx", 10**9), "a cell in row 1,000,000,000"),
    }
    out = {}
    for name, (change, what) in variants.items():
        (folder / name).write_text(json.dumps(_variant(base, change)))
        out[name] = what
    huge = json.dumps(base).replace('"l": 72.0', '"l": ' + "9" * 5000, 1)
    (folder / "huge_integer.json").write_text(huge)
    out["huge_integer.json"] = "a 5,000-digit integer"
    nested = json.dumps(base)[:-1] + ', "deep": ' + "[" * 200_000 + "]" * 200_000 + "}"
    (folder / "deep_nesting.json").write_text(nested)
    out["deep_nesting.json"] = "200,000 nested lists"
    return out


def test_crafted_docling_files_fail_one_by_one_and_the_batch_goes_on(tmp_path, library):
    folder = tmp_path / "in"
    folder.mkdir()
    write_pdf(folder / "a_good.pdf", GOOD)
    bad = crafted_docling(folder)
    (folder / "z_good.docling.json").write_text(FIXTURE.read_text())
    results = {}
    for ev in library.add([folder]):
        if ev.stage in ("done", "failed", "skipped"):
            results[ev.doc] = (ev.stage, ev.message)
    assert results["a_good.pdf"][0] == "done" and results["z_good.docling.json"][0] == "done"
    for name, what in bad.items():
        stage, message = results[name]
        if stage == "done":  # read anyway: the parser tolerated it; it must then be searchable
            continue
        assert stage == "failed", (name, what)
        assert message and "\n" not in message and len(message) < 400, (name, message)
        assert "Traceback" not in message
    assert sum(s == "failed" for s, _ in results.values()) >= 3, results
    assert results["billion_rows.json"][0] == "done"  # the grid is what the cells span
    assert results["billion_row_cell.json"][0] == "failed" and "limit" in results["billion_row_cell.json"][1]
    assert library.search("coolant pump litres per minute", k=1)[0].doc == "a_good.pdf"
    assert {d.name: d.status for d in library.documents()}["z_good.docling.json"] == "ready"


@pytest.mark.parametrize("name,data", [
    ("empty.pdf", b""),
    ("truncated.pdf", b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog"),
    ("png_named.pdf", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64),
    ("text_named.png", b"this is not an image at all\n" * 10),
])
def test_wrong_or_broken_files_fail_with_one_line(tmp_path, library, name, data):
    (tmp_path / name).write_bytes(data)
    write_pdf(tmp_path / "good.pdf", GOOD)
    results = {ev.doc: (ev.stage, ev.message) for ev in library.add([tmp_path / name, tmp_path / "good.pdf"])
               if ev.stage in ("done", "failed")}
    assert results["good.pdf"][0] == "done"
    stage, message = results[name]
    assert stage == "failed" and "\n" not in message and "Traceback" not in message


def test_non_ascii_keywords_are_searched_whole(tmp_path, library):
    """'Überlastschutz' is one keyword (not 'berlastschutz'), and a Chinese query is searched, not
    refused (issue 17, fault 8)."""
    import pymupdf

    from mmrag_desktop.engine.search.query import plan_query
    from mmrag_desktop.engine.store import Filters

    assert plan_query("Überlastschutz des Motors").terms[0] == "überlastschutz"
    assert plan_query("压力传感器 的 量程").terms == ["压力传感器", "量程"]  # one-character words left out
    path = tmp_path / "de.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Motorschutz", fontsize=14)
    page.insert_text((72, 130), "Der Überlastschutz schaltet den Motor bei 12 A ab.", fontsize=11)
    page.insert_text((72, 160), "压力传感器 量程 0 到 10 bar", fontname="china-s", fontsize=11)
    page = doc.new_page()
    page.insert_text((72, 100), "Wartung: Filter alle drei Monate reinigen.", fontsize=11)
    doc.save(str(path))
    doc.close()
    list(library.add([path]))
    assert library.store.chunks.keyword_ids(plan_query("Überlastschutz").fts, 5, Filters()), "found by keyword"
    assert library.search("Überlastschutz", k=1)[0].page == 1
    assert library.search("压力传感器", k=1)[0].page == 1


def test_a_missing_file_added_again_keeps_its_indexed_version(tmp_path, library):
    path = write_pdf(tmp_path / "pump.pdf", GOOD)
    list(library.add([path]))
    path.unlink()
    events = [ev for ev in library.add([path]) if ev.stage == "failed"]
    assert len(events) == 1 and "file not found" in events[0].message and "indexed version is kept" in events[0].message
    doc = library.document("pump.pdf")
    assert doc.status == "ready" and "indexed version is kept" in doc.error
    assert library.search("coolant pump litres per minute", k=1)[0].doc == "pump.pdf"


def test_image_links_are_read_only_inside_the_documents_folder(tmp_path):
    """Markdown and Docling image links may not reach the rest of the disk (issue 17, fault 7)."""
    from PIL import Image

    from mmrag_desktop.engine.parse.docling import open_docling
    from mmrag_desktop.engine.parse.markdown import open_markdown

    secret = tmp_path / "secret.png"
    Image.new("RGB", (40, 30), (200, 0, 0)).save(secret)
    docs = tmp_path / "docs"
    docs.mkdir()
    Image.new("RGB", (40, 30), (0, 0, 200)).save(docs / "inside.png")
    (docs / "link.png").symlink_to(secret)
    md = docs / "manual.md"
    md.write_text("# Manual\n\n![inside](inside.png)\n\n![up](../secret.png)\n\n"
                  f"![absolute]({secret})\n\n![url](file://{secret})\n\n![symlink](link.png)\n")
    doc = open_markdown(md)
    page = next(doc.pages())
    loaded = [b.figure.image_png is not None for b in page.blocks if b.kind == "figure"]
    assert loaded == [True, False, False, False, False]
    assert sum("outside the document's folder" in w for w in doc.warnings) == 4
    data = json.loads(FIXTURE.read_text())
    data["pictures"][0]["image"] = {"uri": f"file://{secret}"}
    (docs / "d.docling.json").write_text(json.dumps(data))
    dl = open_docling(docs / "d.docling.json")
    figures = [b for p in dl.pages() for b in p.blocks if b.kind == "figure"]
    assert figures and all(b.figure.image_png is None for b in figures)
    assert any("outside the document's folder" in w for w in dl.warnings)


def test_memory_bombs_are_capped(tmp_path):
    """A poster-sized scanned page is read for OCR at a bounded size, and a table claiming a
    billion rows builds none of them (issue 17, fault 4)."""
    import pymupdf

    from mmrag_desktop.engine.parse import open_document
    from mmrag_desktop.engine.parse.pdf import OCR_MAX_PIXELS

    class SizeSpy:
        """Stands in for the OCR engine (a real one would spend minutes on 25 MP): records the
        image it is given and finds nothing."""
        sizes: list = []

        def read(self, image):
            self.sizes.append(image.size)
            return []

    path = tmp_path / "poster.pdf"
    doc = pymupdf.open()
    page = doc.new_page(width=10000, height=10000)  # 139 inches square: 200 dpi would be 772 MP
    page.insert_image(page.rect, stream=_png(300, 300))
    doc.save(str(path))
    doc.close()
    spy = SizeSpy()
    parsed = open_document(path, ocr=spy)
    try:
        list(parsed.pages())
    finally:
        parsed.close()
    assert spy.sizes and all(w * h <= OCR_MAX_PIXELS * 1.01 for w, h in spy.sizes), spy.sizes


def _png(w: int, h: int) -> bytes:
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("RGB", (w, h), (240, 240, 240)).save(buf, format="PNG")
    return buf.getvalue()


def test_compact_reclaims_deleted_entries_and_unused_files(tmp_path, library):
    from mmrag_desktop import cli

    docs = [write_pdf(tmp_path / f"d{i}.pdf", [[(72, 100 + 20 * j, f"Part {i}.{j}: valve V{i}{j} opens at {j} bar.")
                                               for j in range(12)]] * 3) for i in range(4)]
    list(library.add(docs))
    for d in docs[:3]:
        library.remove(d.name)
    stray = library.cache_dir / "figures" / "999" / "1.png"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"\x89PNG leftover of a removed document")
    (library.folder / "index" / "text.0123456789ab.hnsw").write_bytes(b"an unfinished save")
    assert library.text_index().dead > 0
    done = library.compact()
    assert any("rebuilt" in d for d in done) and any("crop" in d for d in done)
    assert library.text_index().dead == 0 and not stray.exists() and not stray.parent.exists()
    assert not (library.folder / "index" / "text.0123456789ab.hnsw").exists()
    assert library.search("at what pressure does valve V35 open", k=1)[0].doc == "d3.pdf"
    assert library.compact() == []  # nothing left to do
    library.close()
    assert cli.run(["--library", str(library.folder), "compact"]) == 0
