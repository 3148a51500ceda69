"""An answer's evidence holds the page's other chunk when the hit alone lacks what the question names
(Searcher.search's `companions`): one hit per page suits the Search list, but "What unlock_joints_mask
value is used for joint 3 in the XYZB example?" found the page's example chunk, and the chunk naming
unlock_joints_mask (before it on the page) was left out, so the question was judged not covered.
Real PDF, SQLite, MiniLM."""

from __future__ import annotations

from conftest import write_pdf

PARAMETER = ["To create the HAL pins for locking joints, specify all joints that are used as locking",
             "indexers with the unlock_joints_mask parameter for the motion module (bit0 is joint0).",
             "The pins are created when the motion module is loaded and stay until it is unloaded.",
             "A locking indexer must be unlocked before its joint moves and locked after the move.",
             "The unlock pin is an output of the motion module and the is-unlocked pin an input."]
EXAMPLE = ["As an example, consider a machine with coordinates XYZB where B is a locking indexer.",
           "For this machine the joint numbers are assigned to the coordinates in their order: X is",
           "joint 0, Y is joint 1, Z is joint 2 and B is joint 3. The mask that selects joint 3 is",
           "000001000 in binary, which is 0x08 in hexadecimal, and the entries are written in the",
           "sections of the configuration file that describe the kinematics and the motion module."]


def test_a_chunk_of_the_hits_page_naming_what_the_hits_lack_comes_along(library, tmp_path):
    lines = PARAMETER + EXAMPLE
    pdf = write_pdf(tmp_path / "locking.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    assert library.store.chunks.count() >= 2
    question = "Which mask value selects joint 3 for the XYZB machine example, the unlock_joints_mask?"
    alone = library.search(question, k=3)
    assert len(alone) == 1 and "0x08" in alone[0].text and "unlock_joints_mask" not in alone[0].text
    both = library.search(question, k=3, companions=2)
    assert [h.page for h in both] == [1, 1] and both[0].chunk_id == alone[0].chunk_id
    assert "unlock_joints_mask" in both[1].text and both[1].bbox is not None

    from mmrag_desktop.engine.answer import pipeline

    answer = pipeline.ask(library, question, mode="extractive")
    assert not answer.insufficient_evidence, answer.text  # the name is in the evidence
    assert len({c.page for c in answer.evidence}) == 1 and len(answer.evidence) == 2


TYPES = [["Type", "Width", "Signed range"],
         ["_Bool", "8 bits, 1 byte", "-"],
         ["char", "8 bits, 1 byte", "-128, +127"],
         ["short", "16 bits, 2 bytes", "-32768, +32767"],
         ["int", "16 bits, 2 bytes", "-32768, +32767"],
         ["long", "32 bits, 4 bytes", "-2147483648, +2147483647"],
         ["wchar", "16 bits, 2 bytes", "-"],
         ["size", "16 bits, 2 bytes", "-"],
         ["ptrdiff", "16 bits, 2 bytes", "-32768, +32767"],
         ["intmax", "32 bits, 4 bytes", "-2147483648, +2147483647"],
         ["long long", "64 bits, 8 bytes", "-"],
         ["long double", "4 bytes like float", "-"],
         ["long long int", "64 bits, 8 bytes", "-"],
         ["unsigned long long", "64 bits, 8 bytes", "-"],
         ["float", "4 bytes, IEEE 754", "-"],
         ["pointer", "1, 2, 3 or 4 bytes", "-"]]


def test_the_other_part_of_a_table_cut_into_chunks_comes_along(library, tmp_path):
    """SDCC's data types (one table, two chunks of rows): "What is the range of a signed long?" found
    the part with "long long" and "float", and the answer quoted those rows; the "long" row was in
    the other part, one hit per page. An answer's table hit brings the best other part of its table
    (which row the answer then quotes is the extractive ranking's business: tests/engine/answer)."""
    from pdf_factory import make_ruled_table_pdf

    from mmrag_desktop.engine.answer import pipeline

    make_ruled_table_pdf(tmp_path / "types.pdf", TYPES)
    assert [e.stage for e in library.add([tmp_path / "types.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    parts = [r[0] for r in library.conn.execute("SELECT text FROM chunks WHERE kind = 'table' ORDER BY ord")]
    assert len(parts) == 2 and "Type: long |" in parts[0] and "Type: long long |" in parts[1], parts  # the case
    question = "What is the signed range of the long type?"
    alone = [h for h in library.search(question, k=3) if h.kind == "table"]
    assert len(alone) == 1  # one hit per page
    both = [h for h in library.search(question, k=3, companions=2) if h.kind == "table"]
    assert sorted(h.text for h in both) == sorted(parts), [h.text[:60] for h in both]
    answer = pipeline.ask(library, question, mode="extractive")  # both parts are the answer's evidence
    parts_ids = {h.chunk_id for h in both}
    assert parts_ids <= {c.chunk_id for c in answer.evidence}, [c.text[:40] for c in answer.evidence]
