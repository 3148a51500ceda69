"""A question about a code ("What does error 131 mean?") is answered by the entry that opens with it.
Search shows one hit per page; when the page's best chunk never names the code and another chunk of
the page opens a line with it, the hit becomes that chunk, highlighting the entry (gpasm's error list:
the page's first chunk, errors 101 to 116, matched "What does gpasm error 118 mean?" better). Real PDF,
SQLite FTS5 and MiniLM."""

from __future__ import annotations

import re

from conftest import write_pdf

from mmrag_desktop.engine.search import query as query_module
from mmrag_desktop.engine.search.query import entry_names, plan_query

INTRO = ["This chapter lists the error messages that the assembler produces when it reads a source file.",
         "Each error message means the assembly stopped; the number tells which error the assembler met."]
ERRORS = [(101, "ERROR directive.", "A user-generated error from the source."),
          (108, "Illegal character.", "The assembler met a character it cannot read."),
          (113, "Symbol not previously defined.", "The assembler met an unknown symbol."),
          (114, "Divide by zero.", "An expression divides by zero."),
          (115, "Duplicate label.", "A label is defined twice in one file."),
          (116, "Address label duplicated.", "A label moved between the two passes."),
          (117, "Address wrapped around 0.", "The location counter passed the end of memory."),
          (118, "Overwriting previous address contents.", "Two different values were written to one address."),
          (120, "Call or jump not allowed here.", "The target must be in the low half of the page."),
          (121, "Illegal label.", "The label has characters a label cannot have."),
          (123, "Illegal directive.", "The directive is not valid for this processor."),
          (124, "Illegal argument.", "An expression has an argument it cannot take."),
          (125, "Illegal condition.", "A conditional block misses its closing directive."),
          (126, "Argument out of range.", "An argument lies outside the range it may take."),
          (127, "Too many arguments.", "A directive was given more arguments than it takes."),
          (128, "Missing argument.", "A directive was given fewer arguments than it needs."),
          (129, "Expected a value.", "A value was expected where the source has none."),
          (130, "Processor type is undefined.", "No processor was selected before the code."),
          (131, "Processor type redefined.", "A second processor directive names another device.")]


def _manual(path):
    lines = [(72, 70 + 14 * i, t) for i, t in enumerate(INTRO)]
    y = 70 + 14 * len(INTRO) + 10
    for code, message, description in ERRORS:
        lines += [(72, y, f"{code} {message}"), (90, y + 13, description)]
        y += 32
    return write_pdf(path, [lines])


def test_entry_names_are_codes_and_register_like_names():
    assert entry_names(plan_query("What does gpasm error 118 mean?")) == ["118"]
    assert entry_names(plan_query("How do I clear TMR0 and EG_PHY_BRAM?")) == ["TMR0", "EG_PHY_BRAM"]
    assert entry_names(plan_query("What is the TWI status after 1200 Hz and 500 ms?")) == []  # acronym, quantities
    assert entry_names(plan_query("which identifiers are reserved in .param lines")) == []


def test_a_code_asked_about_shows_its_entry_on_the_page(library, tmp_path, monkeypatch):
    from mmrag_desktop.engine.search import searcher

    assert [e.stage for e in library.add([_manual(tmp_path / "errors.pdf")]) if e.stage in ("done", "failed")] == ["done"]
    pages = {r[0] for r in library.conn.execute("SELECT page FROM chunks WHERE kind = 'text'")}
    assert pages == {1} and library.store.chunks.count() >= 3  # one page, several chunks
    question = "What does assembler error 131 mean?"
    monkeypatch.setattr(searcher, "entry_names", lambda plan: [])
    assert "131 Processor" not in library.search(question, k=3)[0].text  # the page's best chunk, without the rule
    monkeypatch.undo()
    hit = library.search(question, k=3)[0]
    assert "131 Processor type redefined." in hit.text
    y = 70 + 14 * len(INTRO) + 10 + 32 * [code for code, _m, _d in ERRORS].index(131)
    assert hit.bbox[1] <= y <= hit.bbox[3] + 2 and hit.bbox[3] <= y + 13 + 4  # the entry and its description


def test_a_wrapped_line_opening_with_the_name_is_no_entry():
    """LinuxCNC's "... specify all joints that are used as locking indexers with the" / "unlock_joints_mask
    parameter for the motmod module.": the second line opens with the name but goes on with the sentence
    above it; the page's example chunk, which answers, stays the hit."""
    import json

    from mmrag_desktop.engine.search.searcher import _entry_of

    def row(*lines):
        return {"text": "\n".join(t for t, _ in lines),
                "lines": json.dumps([{"t": t, "p": 1, "b": [72, 90 + 14 * i, 500, 100 + 14 * i], "s": s}
                                     for i, (t, s) in enumerate(lines)])}

    shown = row(("As an example, consider a machine with coordinates XYZB.", [0]))
    wrapped = row(("To create the pins, specify the joints used as locking indexers with the", [0]),
                  ("unlock_joints_mask parameter for the motmod module.", [0]))
    assert _entry_of(wrapped, shown, ["unlock_joints_mask"]) is None
    entry = row(("Other parameters follow.", [0]), ("unlock_joints_mask Selects the joints to unlock.", [1]))
    assert _entry_of(entry, shown, ["unlock_joints_mask"]) is not None


DISTRACTORS = [
    "The Verilated model is a C++ class; its functions evaluate the SystemVerilog design each time step.",
    "SystemVerilog functions become C++ functions of the Verilated model, and their output arguments become",
    "references. A model that must match the output of another simulator is run with the same inputs and its",
    "output compared; the model's functions may not match SystemVerilog functions one to one.",
    "The Verilated model's output ports are members of the model class; the SystemVerilog functions of the",
    "design are methods of the model, called from eval().",
]
TASKS = [
    ("$display", "Prints its arguments with a newline, as in any SystemVerilog simulator."),
    ("$finish", "Ends the simulation; the model's final blocks run first."),
    ("$stacktrace", "Called as a task, print a stack trace. This relies on the C++ system trace; the functions and"),
    ("", "tasks involved may be renamed or inlined before becoming the C++ functions seen in the trace."),
    ("$random", "Returns a 32-bit random number; the seed comes from the command line."),
    ("$time", "Returns the current simulation time as a 64-bit number."),
]


def test_a_name_written_with_its_sigil_is_matched_exactly(library, tmp_path, monkeypatch):
    """Verilator's "What does $stacktrace do in a Verilated model, and why might its output not match my
    SystemVerilog functions?": the tokenizer drops the "$", "stacktrace" was one keyword among seven, and
    the pages that say "Verilated model", "output" and "SystemVerilog functions" again and again came first.
    Written with its sigil, the name is an identifier the hit must carry. Real PDF, FTS5 and MiniLM."""
    from mmrag_desktop.engine.search import searcher

    question = "What does $stacktrace do in a Verilated model, and why might its output not match my SystemVerilog functions?"
    assert "stacktrace" in plan_query(question).identifiers
    assert plan_query("Does it cost $100 or $5?").identifiers == []  # an amount is no name
    page1 = [(72, 70 + 14 * i, t) for i, t in enumerate(DISTRACTORS)]
    page2 = [(72, 70, "Language extensions: the system tasks the Verilated model adds.")]
    for i, (name, text) in enumerate(TASKS):
        page2 += ([(72, 100 + 40 * i, name)] if name else []) + [(90, 114 + 40 * i, text)]
    pdf = write_pdf(tmp_path / "sim.pdf", [page1, page2])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    # a name in more than 2% of the chunks is no rare name (searcher.EXACT_MAX_SHARE): of a manual of
    # two chunks, one is half
    monkeypatch.setattr(searcher, "EXACT_MAX_SHARE", 0.5)
    sigil_name = query_module._SIGIL_NAME
    monkeypatch.setattr(query_module, "_SIGIL_NAME", re.compile(r"(?!)"))
    assert "$stacktrace" not in library.search(question, k=3)[0].text  # without the rule
    monkeypatch.setattr(query_module, "_SIGIL_NAME", sigil_name)
    hit = library.search(question, k=3)[0]
    assert hit.page == 2 and "$stacktrace" in hit.text
