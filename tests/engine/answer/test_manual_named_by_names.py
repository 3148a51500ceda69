"""A question names a manual by a name only that manual holds (session 61, s61-eyes17 Q8)."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import _manual_of_names, part_names, rank_candidates
from mmrag_desktop.engine.hits import Hit


def _hit(doc_id: int, doc: str, chunk_id: int, page: int, section: str, text: str, score: float) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=doc_id, doc=doc, page=page, bbox=None, kind="text", score=score,
               section=section, text=text)


EYES = _hit(1, "eyes17.pdf", 340, 97, "I2C MODULES > 8.3 MPU6050",
            "I2C module with Accelerometer, Gyroscope and Temperature sensor\nMPU6050:\n"
            "• Connect the module to the I2C port. Pins used are VCC, GND, SCL and SDA only\n"
            "• Select the desired parameters to be measured.\n"
            "• Data is saved as text, in a two column (time, value) format, each set separated by an empty line.",
            0.9)
MPFR = _hit(2, "mpfr.pdf", 993, 57, "6 API Compatibility > 6.2 Added Functions",
            "• mpfr_log_ui in MPFR 4.0.\n• mpfr_min_prec in MPFR 3.0.\n• mpfr_modf in MPFR 2.4.", 0.7)


def test_a_name_only_one_manual_holds_names_that_manual(embedder):
    """"In what format does the MPU6050 logger save its measurements?" of a library of expEYES-17's manual and
    MPFR's: MiniLM finds "• mpfr_log_ui in MPFR 4.0." close to "MPU6050 logger" (0.55; the answer 0.26), and it was
    quoted. Only expEYES-17's blocks hold MPU6050: the question names that manual, and the others' sentences lose
    OTHER_DOC_PENALTY, as for a manual named by its title."""
    blocks = pack_evidence([EYES, MPFR], 1000)
    ranked = rank_candidates("In what format does the MPU6050 logger save its measurements?", blocks, embedder)
    place = {c.text: i for i, c in enumerate(ranked)}
    mpfr = next(i for t, i in place.items() if "mpfr_log_ui" in t)
    saved = next(i for t, i in place.items() if t.startswith("• Data is saved as text"))
    assert saved < mpfr and all(c.block_id == 1 for c in ranked[:3])


def test_a_name_both_manuals_hold_or_one_manual_alone_names_none():
    other = _hit(2, "mpfr.pdf", 994, 58, "6 API Compatibility", "MPU6050 support was never part of MPFR 4.0.", 0.7)
    assert _manual_of_names(pack_evidence([EYES, MPFR], 1000), ["MPU6050"]) == {1}
    assert _manual_of_names(pack_evidence([EYES, other], 1000), ["MPU6050"]) == set()  # both hold it
    assert _manual_of_names(pack_evidence([EYES], 1000), ["MPU6050"]) == set()  # one manual: nothing to tell apart
    assert _manual_of_names(pack_evidence([EYES, MPFR], 1000), ["PT100"]) == set()  # none holds it


def test_part_names_are_one_token_with_a_digit_or_an_underscore():
    # ("UTF-8" of "How do I tell gpasm that my source files are UTF-8 encoded?" is SCons' word, s31-gputils Q21)
    assert part_names(["UTF-8", "MPU6050", "mpfr_init_set_d", "A1", "gpasm", "RS-232", "PT100"]) == [
        "MPU6050", "mpfr_init_set_d", "PT100"]
