"""Questions about a command-line option ("what does -e do"): FTS5 drops the dash and the embedder
cannot tell "-e" from "e", so search reads the chunks that print the option and shows its entry
first (real PDF, real SQLite FTS5, real MiniLM)."""

from __future__ import annotations

import json

from conftest import write_pdf

from mmrag_desktop.engine.search.query import option_fts, options_in, plan_query, prints_option

ENTRIES = [
    ("-c programmer-id", "Specify the programmer to be used. The programmer must be listed in the configuration."),
    ("-D", "Disable auto erase for flash memory when writing a new image to the device."),
    ("-e", "Causes a chip erase to be executed. This resets the flash ROM and EEPROM contents."),
    ("-F", "Override the device signature check. Use it only when the signature was erased."),
    ("-V", "Disable the automatic verify check when uploading data to the device."),
]
PROSE = ("The flasher talks to a programmer over USB or a serial port. It reads the configuration "
         "file at start-up, then runs the operations given on its command line in order. An erase "
         "of the chip happens automatically before flash memory is written unless disabled.")


def _manual(path):
    pages, y, lines = [], 80, []
    for sentence in PROSE.split(". ") * 3:
        lines.append((72, y, sentence.rstrip(".") + "."))
        y += 16
    pages.append(lines)
    y, lines = 80, [(72, 60, "2.1 Option Descriptions")]
    for term, text in ENTRIES:
        lines.append((72, y, f"{term} {text}"))
        y += 30
    pages.append(lines)
    pages.append([(72, 80, "Examples: run the flasher with -e before writing when the chip was locked."),
                  (72, 96, "Each example below erases the chip first and then writes the new image.")])
    return write_pdf(path, pages)


def test_plan_names_the_options_as_written():
    plan = plan_query("What does the avrdude -F option do?")
    assert plan.options == ["-F"] and options_in("use --prefix and -DFOO") == ["--prefix", "-DFOO"]
    assert options_in("built-in x-y") == []
    assert option_fts(plan, "-F") == '"f" AND "avrdude" OR "f" AND "option"'
    assert prints_option("x\n-F Override the check", "-F") == 2
    assert prints_option("run it with -F.", "-F") == 1
    assert prints_option("-f lower case", "-F") == 0 and prints_option("--force", "-F") == 0


def test_a_question_about_an_option_shows_its_entry_first(library, tmp_path):
    _manual(tmp_path / "flasher.pdf")
    assert [e.stage for e in library.add([tmp_path / "flasher.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    for option, words in (("-e", "chip erase"), ("-F", "signature check"), ("-V", "verify check")):
        hit = library.search(f"what does {option} do in the flasher", k=3)[0]
        row = library.store.chunks.rows([hit.chunk_id])[hit.chunk_id]
        shown = [ln["t"] for ln in json.loads(row["lines"]) if ln.get("b") and ln["p"] == hit.page
                 and hit.bbox[1] - 0.5 <= ln["b"][1] and ln["b"][3] <= hit.bbox[3] + 0.5]
        assert shown and shown[0].startswith(f"{option} ") and words in " ".join(shown), (option, shown)
        assert "options" in hit.sources
    # a query that names an option on the way to something else is searched as before (on the
    # benchmark's avrdude manual, "part id to pass to avrdude -p for an ATmega88PB" wants a table)
    hits = library.search("the chip erase that the flasher runs with -e before writing a locked device", k=5)
    assert hits and not any("options" in h.sources for h in hits)
