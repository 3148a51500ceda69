"""A quote is lit by all its lines, its bracketed words too (session 57: Valgrind's option list). The answer quoted
"--xtree-memory-file=<filename> [default: xtmemory.kcg.%p] Specifies that Valgrind should produce the xtree memory
report in the specified file." but its citation lit only the description's line: the sentence check reads a quote
without its bracketed words, and without "[default: xtmemory.kcg.%p]" the option's line was no longer found in order.
Real PDF, real SQLite, real MiniLM, the extractive answer of the real pipeline."""

from __future__ import annotations

import re

from conftest import extractive_answer, write_pdf

OPTION = "--xtree-memory-file=<filename> [default: xtmemory.kcg.%p]"
DESCRIPTION = "Specifies that Valgrind should produce the xtree memory report in the specified file."


def test_a_quoted_option_line_with_brackets_is_inside_its_citation_box(library, tmp_path):
    page = [(72, 80, "2.6.4. Execution Trees options"),
            (72, 110, "--xtree-leak=<no|yes> [no]"),
            (90, 124, "If set to yes, the results for the leak search done at exit will be output in an xtree file."),
            (72, 150, OPTION),
            (90, 164, DESCRIPTION),
            (90, 178, "Any %p or %q sequences appearing in the filename are expanded as for --log-file.")]
    other = [(72, 80 + 14 * i, f"Memcheck reports errors in memory use of the client program (note {i}).")
             for i in range(40)]
    pdf = write_pdf(tmp_path / "valgrind.pdf", [other, page, other])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    ans = extractive_answer(library, "Which option names the file Valgrind writes the xtree memory report to?")
    quote = next(s for s in ans.sentences if OPTION in s.text)
    assert DESCRIPTION in quote.text and quote.supported
    (cited,) = [c for c in ans.citations if c.id in quote.citations]
    lines = library.chunk(cited.chunk_id)["lines"]
    option_line = next(ln for ln in lines if ln["t"].startswith("--xtree-memory-file"))
    description_line = next(ln for ln in lines if ln["t"].startswith("Specifies that Valgrind"))
    for ln in (option_line, description_line):
        assert any(p == ln["p"] and b[1] - 1 <= ln["b"][1] and ln["b"][3] <= b[3] + 1 for p, b in cited.boxes), (
            ln["t"], cited.boxes)
    # and every line lit is one the answer quotes (a run of four of its words is in the answer)
    words = set(re.findall(r"[0-9a-z]+", ans.text.lower()))
    for ln in lines:
        if any(p == ln["p"] and b[1] - 1 <= ln["b"][1] and ln["b"][3] <= b[3] + 1 for p, b in cited.boxes):
            toks = re.findall(r"[0-9a-z]+", ln["t"].lower())
            assert sum(t in words for t in toks) >= min(4, len(toks)), (ln["t"], ans.text)
