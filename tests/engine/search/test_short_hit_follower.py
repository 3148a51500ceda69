"""An answer's hit of a few words brings the chunk after it (Searcher._followers): a manual page's NAME
line ("hexagui - Vismach Virtual Machine GUI") was the hit for "What machine does the hexagui Vismach
GUI simulate?", and the DESCRIPTION after it, which answers ("... simulating a Horizontal Boring
Machine."), was left out: one hit per page. LinuxCNC's manual pages (Debian's linuxcnc-doc-en), real
PDF, SQLite, MiniLM."""

from __future__ import annotations

import pymupdf


def _manual_page(path, pages):
    doc = pymupdf.open()
    for sections in pages:
        page = doc.new_page(width=595, height=842)
        y = 80
        for heading, lines in sections:
            page.insert_text((72, y), heading, fontsize=14, fontname="hebo")
            y += 22
            for line in lines:
                page.insert_text((90, y), line, fontsize=10)
                y += 15
            y += 12
    doc.save(path)
    doc.close()
    return path


HEXAGUI = [("NAME", ["hexagui - Vismach Virtual Machine GUI"]),
           ("DESCRIPTION", ["It is one of the samples shipped with LinuxCNC, simulating a Horizontal Boring",
                            "Machine. See the main LinuxCNC documentation for more details."]),
           ("BUGS", ["None known at this time."])]
MAHO = [("NAME", ["maho600gui - Vismach Virtual Machine GUI"]),
        ("DESCRIPTION", ["maho600gui is one of the sample Vismach GUIs for LinuxCNC, simulating a Maho 600",
                         "CNC milling machine with a tilting table. See the main documentation for details."])]


def test_a_hit_of_a_few_words_brings_the_chunk_after_it(library, tmp_path, monkeypatch):
    pdf = _manual_page(tmp_path / "man.pdf", [HEXAGUI, MAHO])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    question = "What does the hexagui Vismach Virtual Machine GUI simulate?"
    alone = library.search(question, k=3)
    first = alone[0]
    assert first.page == 1 and len(first.text.split()) < 12, first.text  # the NAME line, alone on its page
    assert not any("Horizontal" in h.text for h in alone)
    along = library.search(question, k=3, companions=2)
    follower = next(h for h in along if "Horizontal" in h.text)
    assert follower.page == 1 and follower.bbox is not None

    from mmrag_desktop.engine.answer import pipeline

    answer = pipeline.ask(library, question, mode="extractive")
    assert "simulating a Horizontal Boring Machine." in answer.text, answer.text
    from mmrag_desktop.engine.search import searcher

    monkeypatch.setattr(searcher, "SHORT_HIT_WORDS", 0)  # without followers the answer misses it
    assert "Horizontal" not in pipeline.ask(library, question, mode="extractive").text


TOF = [("NAME", ["tof - IEC TOF timer - delay falling edge on a signal"]),
       ("SYNOPSIS", ["loadrt tof [count=N|names=name1[,name2...]]"]),
       ("FUNCTIONS", ["tof.N (requires a floating-point thread)", "Update the timer"]),
       ("PINS", ["tof.N.in bit in", "Input signal", "tof.N.q bit out", "Output signal", "tof.N.et float out",
                 "Elapsed time since falling edge in seconds"]),
       ("PARAMETERS", ["tof.N.pt float rw", "Delay time in seconds"]),
       ("LICENSE", ["GPL"])]
TON = [("NAME", ["ton - IEC TON timer - delay rising edge on a signal"]),
       ("DESCRIPTION", ["The ton component delays the rising edge of its input by the time given in its pt "
                        "parameter."])]


def test_the_name_line_of_a_component_asked_about_comes_along(library, tmp_path, monkeypatch):
    """LinuxCNC's tof(9) (groff sets the NAME dash as U+2212; the test PDF's base-14 font has a hyphen):
    "What does the tof component do?" had the page's PINS as its hit and quoted
    other components' DESCRIPTIONs; the NAME line says what it does. It comes along with the hit
    (`_companions`, an entry the question names by its kind; here also as the page's better-scored
    chunk) and is quoted first and whole, without the "... " of a chunk that opens in lower case."""
    from mmrag_desktop.engine.answer import pipeline

    pdf = _manual_page(tmp_path / "man.pdf", [TOF, TON])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    question = "What does the tof component do?"
    along = library.search(question, k=3, companions=2)
    assert any(h.text.startswith("tof - IEC TOF timer") and h.page == 1 for h in along), [h.text for h in along]
    answer = pipeline.ask(library, question, mode="extractive")
    assert answer.text.startswith("tof - IEC TOF timer - delay falling edge on a signal"), answer.text
    import re

    from mmrag_desktop.engine.answer import extractive

    monkeypatch.setattr(extractive, "_NAME_SECTION", re.compile(r"(?!)"))  # read as a chunk cut mid-sentence
    assert not pipeline.ask(library, question, mode="extractive").text.startswith("tof - IEC")
