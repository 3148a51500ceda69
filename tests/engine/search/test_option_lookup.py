"""Questions about a command-line option ("what does -e do"): FTS5 drops the dash and the embedder
cannot tell "-e" from "e", so search reads the chunks that print the option and shows its entry
first (real PDF, real SQLite FTS5, real MiniLM)."""

from __future__ import annotations

import json

from conftest import write_pdf

from mmrag_desktop.engine.search.query import heads_section, option_fts, options_in, plan_query, prints_option

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


DOT_COMMANDS = [
    (".SAVE: Name vector(s) to be saved in raw file", ".save vector vector vector ...", ".save i(vin) node1 v(node2)",
     "The vectors listed on the .SAVE line are recorded in the rawfile for use later with the simulator."),
    (".PRINT Lines", ".print prtype ov1 <ov2 ... ov8>", ".print tran v(4) i(vin)",
     "The .print line defines the contents of a tabular listing of one to eight output variables."),
    (".PLOT Lines", ".plot pltype ov1 <(plo1, phi1)> <ov2 ...>", ".plot dc v(4) v(5) v(1)",
     "The .plot line defines the contents of one plot of from one to eight output variables."),
]


def _simulator_manual(path):
    """A simulator manual whose dot-commands each head a numbered section (in the outline too), with
    prose elsewhere that names .save on the way."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 80
    for sentence in ("In batch mode the analyses are run at once and the results written to a rawfile.",
                     "Use save or .save to choose what is kept, and .print or .plot for listings.",
                     "The rawfile may later be read in interactive mode with the load command.",
                     "Batch output commands are described in section 15.6 of this manual."):
        page.insert_text((72, y), sentence, fontsize=11)
        y += 16
    toc = [[1, "15 Batch Output", 1]]
    for n, (title, form, example, text) in enumerate(DOT_COMMANDS, start=1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 80), f"15.6.{n} {title}", fontsize=14)
        for i, line in enumerate(("General form:", form, "Examples:", example, text)):
            page.insert_text((72, 110 + 16 * i), line, fontsize=11)
        toc.append([2, f"15.6.{n} {title}", n + 1])
    doc.set_toc(toc)
    doc.save(str(path))
    doc.close()
    return path


def test_plan_names_dot_commands_and_their_section_is_the_entry():
    assert options_in("what does the ngspice .save command do?") == [".save"]
    assert options_in("see file.pdf, e.g. this... or .5 V") == []
    assert options_in("is .tran. or .OPTIONS needed") == [".tran", ".OPTIONS"]
    assert heads_section("15 Batch Output > 15.6.1 .SAVE: Name vector(s)", ".save")
    assert not heads_section("15.6.1 .SAVE: Name vector(s) > 15.6.2 .PRINT Lines", ".save")
    assert prints_option("text", ".save", "A > 15.6.1 .SAVE: Name") == 3
    assert prints_option("x\n.SAVE all", ".save") == 2 and prints_option("or .Save it", ".save") == 1
    assert prints_option("the saved file", ".save") == 0


def test_a_question_about_a_dot_command_shows_the_section_it_heads_first(library, tmp_path):
    _simulator_manual(tmp_path / "sim.pdf")
    assert [e.stage for e in library.add([tmp_path / "sim.pdf"]) if e.stage in ("done", "failed")] == ["done"]
    for command, page in ((".save", 2), (".print", 3), (".plot", 4)):
        hit = library.search(f"what does the {command} command do", k=3)[0]
        assert hit.page == page and heads_section(hit.section, command), (command, hit.page, hit.section)
        assert "options" in hit.sources
    events = list(library.ask("what does the .save command do", mode="extractive"))
    assert events[-1].kind == "done", events[-1]
    first = events[-1].answer.to_json()["sentences"][0]["text"]
    # the description is quoted first, not an example that starts with the command
    assert "recorded in the rawfile" in first and not first.startswith(".save i(vin)"), first


def test_a_short_query_naming_a_command_puts_the_section_it_heads_first():
    from mmrag_desktop.engine.search.searcher import _heading_entry_first

    rows = {1: {"section": "8 Optimizations > 8.1 Simple Optimizations"},
            2: {"section": "C Command Reference Manual > C.124 opt_clean – remove unused cells and wires"},
            3: {"section": "C Command Reference Manual > C.125 opt_dff – perform DFF optimizations"}}
    scored = {1: 1.4, 2: 1.0, 3: 1.2}
    _heading_entry_first(["opt_clean"], rows, scored)
    assert max(scored, key=scored.get) == 2
    scored = {1: 1.4, 2: 1.0, 3: 1.2}
    _heading_entry_first([], rows, scored)  # no name: nothing moves
    assert max(scored, key=scored.get) == 1
