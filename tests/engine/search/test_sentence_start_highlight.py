"""A chunk's first sentence, begun in the chunk before (chunks overlap by lines, so a chunk can
open mid-sentence: "name of a subcircuit defined beforehand."), is shown from its start: the
highlight grows back to it, the hit's text opens with it, and an answer quotes it whole (real PDF,
SQLite, MiniLM)."""

from __future__ import annotations

import json

from conftest import write_pdf

FILLER = [
    "Objects created during a session are kept by name in the working memory of the program.",
    "Each object may be a variable, an array of numbers, a character string or a function.",
    "The names of the objects currently stored can be listed with the objects command.",
    "It is good practice to use a separate working directory for each analysis you run.",
    "The collection of objects currently stored is called the workspace of the session.",
    "A workspace can be saved to a file at the end of a session and loaded again later.",
    "Large objects take memory, so the workspace of a long session can grow very large.",
    "The history of commands typed in a session is kept apart from the workspace itself.",
]
# one sentence over three lines; the words asked for are on its last line
SENTENCE = ["When the supervisor notices that the main loop has not answered for a while,",
            "it waits for the configured grace period and then restarts the",
            "controller through the hardware watchdog reset line of the board."]
AFTER = ["Logging continues after the restart without any loss of the stored records."]


def _page_lines(library, sentence: list[str] = SENTENCE) -> list[str]:
    """FILLER lines so that the chunk closes before the sentence's last line and the next chunk
    opens with its second line (the overlap: the last lines within OVERLAP_TOKENS)."""
    from mmrag_desktop.engine.ingest.pipeline import OVERLAP_TOKENS, TARGET_TOKENS

    cost = lambda text: library.embedder.count_tokens(text) + 1  # noqa: E731 - as chunking.py counts
    assert cost(sentence[1]) <= OVERLAP_TOKENS < cost(sentence[0]) + cost(sentence[1])
    budget = TARGET_TOKENS - cost(sentence[0]) - cost(sentence[1])
    lines: list[str] = []
    for text in FILLER * 3:
        if sum(map(cost, lines)) + cost(text) > budget:
            break
        lines.append(text)
    assert sum(map(cost, lines + sentence)) > TARGET_TOKENS
    return lines + sentence + AFTER


def test_a_highlight_that_starts_mid_sentence_grows_back_to_its_start(library, tmp_path):
    lines = _page_lines(library)
    pdf = write_pdf(tmp_path / "supervisor.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    # the case this is about: a chunk opens with the sentence's second line
    assert any(ch[0]["t"] == SENTENCE[1] for ch in stored)

    hit = library.search("which line restarts the controller through the hardware watchdog", k=3)[0]
    assert [ln["t"] for ln in hit.lead] == SENTENCE[:1]  # the line before the chunk where the sentence begins
    assert hit.text.startswith("\n".join(SENTENCE))
    y = {t: 90 + 16 * i for i, t in enumerate(lines)}
    # the box reaches up to the sentence's first line and down to its last
    assert hit.bbox[1] <= y[SENTENCE[0]] + 3 and hit.bbox[3] >= y[SENTENCE[2]], (hit.bbox, y[SENTENCE[0]])
    assert hit.bbox[1] > y[lines[len(lines) - len(SENTENCE) - len(AFTER) - 1]] + 3  # not the filler before it


def test_an_answer_quotes_a_sentence_begun_in_the_chunk_before_whole(library, tmp_path):
    """The PARI/GP tutorial: "... in fact so important that we now introduce a final dedicated
    number theoretical type t_FFELT" was quoted without "This special case of t_POLMODs is", on
    the line before its chunk (a fifth of the bench sets' extractive answers quoted such a piece)."""
    from mmrag_desktop.engine.answer.pipeline import ask

    lines = _page_lines(library)
    pdf = write_pdf(tmp_path / "supervisor.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = ask(library, "What restarts the controller through the hardware watchdog?", mode="extractive")
    whole = " ".join(SENTENCE)
    assert answer.text.startswith(whole + " [1]"), answer.text
    assert "..." not in answer.text.split("[1]")[0]
    cited = next(c for c in answer.citations if c.id == 1)
    top = min(b[1] for _, b in cited.boxes)
    y = {t: 90 + 16 * i for i, t in enumerate(lines)}
    assert top <= y[SENTENCE[0]] + 3 and max(b[3] for _, b in cited.boxes) >= y[SENTENCE[2]], (cited.boxes, y[SENTENCE[0]])


# one sentence whose second line opens with a name, capitalised (microHOPE's "Moving data from R16 to DDRB and" /
# "PORTB is done using both the I/O space address and the memory space address.")
NAMED = ["When the supervisor notices that the main loop has not answered for a while, it waits and",
         "MainController restarts through the hardware watchdog reset line of the board.",
         "The event is logged."]


def test_a_sentence_begun_in_the_chunk_before_goes_on_with_a_name(library, tmp_path):
    """A chunk that opens with a capitalised name may still open mid-sentence: the answer to "What are the
    I/O-space and memory-space addresses of PORTB?" quoted "PORTB is done using both the I/O space address and
    the memory space address." (GetDP's "FunctionSpace of the same Name with additional BasisFunctions, ..."
    likewise). The line before, ending with "and", does not end its sentence: the quote opens with it."""
    _quoted_from_the_line_before(library, tmp_path, NAMED, "MainController restarts through the hardware watchdog reset line",
                                 "How does the MainController restart through the hardware watchdog reset line?")


def _quoted_from_the_line_before(library, tmp_path, sentence: list[str], query: str, question: str) -> None:
    """`sentence`'s lines on a page where a chunk opens with its second line: the hit found by `query` has its first
    line as the lead, and the extractive answer to `question` quotes both lines first."""
    from mmrag_desktop.engine.answer.pipeline import ask

    lines = _page_lines(library, sentence)
    pdf = write_pdf(tmp_path / "supervisor.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert any(ch[0]["t"] == sentence[1] for ch in stored)  # a chunk opens with the second line

    hit = next(h for h in library.search(query, k=3) if h.text.startswith(sentence[0]) or h.text.startswith(sentence[1]))
    assert [ln["t"] for ln in hit.lead] == sentence[:1]
    answer = ask(library, question, mode="extractive")
    assert answer.text.startswith(" ".join(sentence[:2]) + " [1]"), answer.text


def test_the_lead_text_starts_where_the_sentence_does():
    """The first lead line may end another sentence first: Ngspice's "files spinit or .spiceinit. Each
    circuit has to have a ground node (gnd or 0)! Note" / "the difference in ngspice ..."."""
    from mmrag_desktop.engine.search.searcher import _just_above, _lead_text

    lead = [{"t": "files spinit or .spiceinit. Each circuit has a ground node! Note", "p": 40, "b": [70, 89, 524, 100],
             "s": [7, 8, 9]}]
    assert _lead_text(lead) == ["Note"]
    assert _lead_text([{"t": "When the supervisor notices", "p": 1, "b": [0, 0, 1, 1], "s": [4]}]) == [
        "When the supervisor notices"]
    below = {"t": "the difference in ngspice where", "p": 40, "b": [70, 103, 524, 114]}
    assert _just_above(lead[0], below)
    assert not _just_above({**lead[0], "t": "A sentence that ends."}, below)
    assert not _just_above(lead[0], {**below, "b": [70, 300, 524, 311]})  # a gap: not the next line
    assert _just_above({**lead[0], "p": 39, "b": [70, 780, 524, 791]}, below)  # the end of the page before


def test_a_lead_of_a_word_or_two_goes_on_the_line_after_it():
    """GNU Prolog: the sentence begins with "The" at the end of the line before the chunk; on a line
    of its own the splitter took it for a heading and the answer quoted "built-in predicates ..."."""
    from mmrag_desktop.engine.search.searcher import _with_lead

    assert _with_lead(["The"], "built-in predicates allow it.\nMore.") == "The built-in predicates allow it.\nMore."
    assert _with_lead(["When the supervisor notices"], "it waits.") == "When the supervisor notices\nit waits."
    assert _with_lead([], "it waits.") == "it waits."
    # dot's guide: the lead is the end of one line and the next, "For" / "example, the default is BL, ...";
    # "For" on a line of its own had the answer quote "example, the default is BL, ..."
    assert _with_lead(["For", "example, the default is BL, specifying a left-"], "to-right (L) minor order.") == (
        "For example, the default is BL, specifying a left-\nto-right (L) minor order.")


def _filler_closing_with(library, term: str, desc: list[str]) -> list[str]:
    """FILLER lines so that a chunk closes with `term` and `desc[0]` and the next opens with `desc[0]`
    (the overlap), `term` being the last line of the chunk before."""
    from mmrag_desktop.engine.ingest.pipeline import OVERLAP_TOKENS, TARGET_TOKENS

    cost = lambda text: library.embedder.count_tokens(text) + 1  # noqa: E731 - as chunking.py counts
    assert cost(desc[0]) <= OVERLAP_TOKENS < cost(term) + cost(desc[0])
    budget = TARGET_TOKENS - cost(term) - cost(desc[0])
    lines: list[str] = []
    for text in FILLER * 3:
        if sum(map(cost, lines)) + cost(text) > budget:
            break
        lines.append(text)
    assert sum(map(cost, lines + [term, *desc])) > TARGET_TOKENS
    return lines


TERM = "-Werror-<message>"
DESC = ["Promote the specified warning message into an error message for the whole run of the tool.",
        "This is generally to discourage users from violating important site-wide rules."]


def test_a_term_line_before_the_chunk_opens_its_text(library, tmp_path):
    """Verilator's options: "-Werror-<message>" ended one chunk and "Promote the specified warning
    message into an error message." opened the next, so the answer to "How do I turn a specific
    warning into an error?" quoted the description without the option it describes."""
    from mmrag_desktop.engine.answer.pipeline import ask

    lines = _filler_closing_with(library, TERM, DESC) + [TERM, *DESC, *AFTER]
    pdf = write_pdf(tmp_path / "options.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert any(a[-2]["t"] == TERM and b[0]["t"] == DESC[0] for a, b in zip(stored, stored[1:], strict=False))

    hit = next(h for h in library.search("promote a warning message into an error", k=3) if DESC[1] in h.text)
    assert [ln["t"] for ln in hit.lead] == [TERM] and hit.text.startswith(TERM)
    answer = ask(library, "How do I promote a warning message into an error?", mode="extractive")
    assert f"{TERM} {DESC[0]}" in answer.text, answer.text


SETTING = "anti-alias-factor num"
SETTING_DESC = ["Render at a higher resolution using factor num, which must be a positive integer,",
                "and scale down the result to prevent jaggies in the pictures of each page. Default: 1."]


def test_a_setting_named_with_its_value_s_type_before_the_chunk_opens_its_text(library, tmp_path):
    """LilyPond's "-d" options: "anti-alias-factor num" ended one chunk and "Render at a higher resolution ..."
    opened the next; the answer quoted the description without the setting it describes."""
    from mmrag_desktop.engine.answer.pipeline import ask

    lines = _filler_closing_with(library, SETTING, SETTING_DESC) + [SETTING, *SETTING_DESC, *AFTER]
    pdf = write_pdf(tmp_path / "options.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert any(a[-2]["t"] == SETTING and b[0]["t"] == SETTING_DESC[0] for a, b in zip(stored, stored[1:], strict=False))

    hit = next(h for h in library.search("render at a higher resolution to prevent jaggies", k=3)
               if SETTING_DESC[1] in h.text)
    assert [ln["t"] for ln in hit.lead] == [SETTING] and hit.text.startswith(SETTING)
    answer = ask(library, "Which setting renders at a higher resolution and scales down to prevent jaggies?",
                 mode="extractive")
    assert f"{SETTING} {SETTING_DESC[0]}" in answer.text, answer.text


def test_which_first_lines_may_continue_a_sentence():
    """flex's "prefix= option) to rename each yyFlexLexer ..." continues "If you want to create multiple
    (different) lexer classes, you use the '-P' flag (or the"; Octave's "x = csvread (filename, ...)" is
    code under "csvread (filename)", which is no prose to begin it with."""
    from mmrag_desktop.engine.search.highlight import PROSE_WORD
    from mmrag_desktop.engine.search.searcher import _CONTINUES

    assert _CONTINUES.match("prefix= option) to rename each yyFlexLexer to some other xxFlexLexer.")
    assert not _CONTINUES.match("Promote the specified warning message into an error message.")
    assert len(PROSE_WORD.findall("If you want to create multiple (different) lexer classes, you use the")) >= 3
    assert len(PROSE_WORD.findall("csvread (filename)")) < 3


ENTRY = "--with-fftw3=no Do not check for and use the fftw fast fourier transform library."
ENTRY_DESC = ["Use an internal fft algorithm instead, which needs no other library to be installed at build time.",
              "The internal code is slower on long transforms."]


def test_an_entry_whose_description_goes_on_in_the_next_chunk_is_shown_from_its_term(library, tmp_path):
    """ngspice's configure options: "--with-fftw3=no Do not check for and use the fftw ... library." closed
    one chunk and "Use an internal fft algorithm instead." opened the next; the hit for "configure flag to
    build without the FFTW library, using its own FFT code" highlighted the second sentence alone (held-out
    h01's box missed), and the answer quoted neither."""
    from mmrag_desktop.engine.ingest.pipeline import OVERLAP_TOKENS, TARGET_TOKENS

    cost = lambda text: library.embedder.count_tokens(text) + 1  # noqa: E731 - as chunking.py counts
    assert OVERLAP_TOKENS < cost(ENTRY)  # no overlap: the chunk closes with the entry's line, as ngspice's did
    lines: list[str] = []
    for text in FILLER * 3:
        if sum(map(cost, lines)) + cost(text) + cost(ENTRY) > TARGET_TOKENS:
            break
        lines.append(text)
    assert sum(map(cost, lines + [ENTRY, ENTRY_DESC[0]])) > TARGET_TOKENS
    lines += [ENTRY, *ENTRY_DESC, *AFTER]
    pdf = write_pdf(tmp_path / "configure.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert any(a[-1]["t"] == ENTRY and b[0]["t"] == ENTRY_DESC[0] for a, b in zip(stored, stored[1:], strict=False))

    hits = library.search("build using an internal fft algorithm", k=3)
    hit = next(h for h in hits if ENTRY_DESC[1] in h.text)
    assert [ln["t"] for ln in hit.lead] == [ENTRY] and hit.text.startswith(ENTRY)
    assert hit.bbox[1] <= 90 + 16 * lines.index(ENTRY)  # the box reaches up to the option


def test_which_line_above_opens_the_entry_a_chunk_goes_on_with():
    from mmrag_desktop.engine.search.searcher import _entry_above

    def line(text, top, segments=(3,), page=5):
        return {"t": text, "p": page, "b": [71, top, 524, top + 11], "s": list(segments)}

    entry, desc = line(ENTRY, 413), line(ENTRY_DESC[0], 428, (0,))
    assert _entry_above(entry, desc)
    assert not _entry_above(entry, line(ENTRY_DESC[0], 448, (0,)))  # a line's height apart: the next paragraph
    assert not _entry_above(entry, line("--disable-utf8 Switch off UNICODE support.", 428, (0,)))  # an entry of its own
    assert not _entry_above(line("Use the fftw library. It is faster.", 413, (2, 3)), desc)  # no term opens it
    assert not _entry_above(line(ENTRY, 413, (2, 3)), desc)  # two sentences: the term's is not the one continued
    assert not _entry_above(entry, line(ENTRY_DESC[0], 428, (0,), page=6))


def _one_page_chunks(library, path, sentence: list[str]) -> list[dict]:
    """The page-lines PDF around `sentence` (`_page_lines`) written to `path` and added to `library`: its chunks'
    rows in document order."""
    pdf = write_pdf(path, [[(72, 90 + 16 * i, t) for i, t in enumerate(_page_lines(library, sentence))]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    ids = [r[0] for r in library.conn.execute("SELECT id FROM chunks ORDER BY ord")]
    rows = library.searcher.chunks.rows(ids)
    return [rows[i] for i in ids]


def test_a_sentence_the_chunk_cuts_short_ends_with_the_next_chunks_lines(library, tmp_path):
    """gpsim's introduction: "gpsim has been designed to be as fast as possible. Real time simulation
    speeds of" closed a chunk and "20Mhz pics are possible." was the next chunk's; the answer to "How fast
    can gpsim simulate a PIC in real time?" quoted "Real time simulation speeds of ..." without the
    speed (about one in six of the bench sets' extractive answers quoted such a cut sentence)."""
    from mmrag_desktop.engine.answer.pipeline import ask

    rows = _one_page_chunks(library, tmp_path / "supervisor.pdf", SENTENCE)
    cut = next(r for r in rows if json.loads(r["lines"])[-1]["t"] == SENTENCE[1])  # the case
    assert [ln["t"] for ln in library.searcher._sentence_end(cut)] == SENTENCE[2:]
    whole = next(r for r in rows if json.loads(r["lines"])[-1]["t"] != SENTENCE[1])
    assert library.searcher._sentence_end(whole) == []  # it ends with a sentence of its own

    hit = next(h for h in library.search("objects kept by name, supervisor grace period restarts", k=3)
               if h.chunk_id == cut["id"])
    assert [ln["t"] for ln in hit.tail] == SENTENCE[2:] and hit.text.endswith("\n" + SENTENCE[2])
    answer = ask(library, "What happens after the grace period when the main loop has not answered?",
                 mode="extractive")
    assert " ".join(SENTENCE) in answer.text and "restarts the ..." not in answer.text, answer.text


# a sentence whose chunk ends after a semicolon: the clause after it is the next chunk's
CLAUSES = ["Since the adaptive choice of the grace period is still an open topic of research,",
           "its implementation is currently limited to boards with one main loop;",
           "moreover, because it drives the watchdog reset line, it needs board revision two."]


def test_a_sentence_the_chunk_cuts_at_a_semicolon_ends_with_the_next_chunks_lines(library, tmp_path):
    """PETSc's manual: a chunk closed with "... its implementation is currently limited to SPD problems;" and the
    next went on "moreover, because the technique requires ... it needs the external package MUMPS."; the answer
    to "Why is the adaptive selection ... limited to SPD problems and dependent on MUMPS?" quoted the first half
    ending "SPD problems; ..." and, as another quote, the next chunk's "BDDC methods is still ... MUMPS.", which
    opens mid-sentence: a semicolon ends a clause, not the sentence."""
    from mmrag_desktop.engine.answer.pipeline import ask

    rows = _one_page_chunks(library, tmp_path / "grace.pdf", CLAUSES)
    cut = next(r for r in rows if json.loads(r["lines"])[-1]["t"] == CLAUSES[1])
    assert [ln["t"] for ln in library.searcher._sentence_end(cut)] == CLAUSES[2:]
    answer = ask(library, "Why is the adaptive grace period limited to boards with one main loop, and which "
                 "board revision does it need?", mode="extractive")
    assert " ".join(CLAUSES) in answer.text, answer.text
    assert "one main loop; ..." not in answer.text and "\nits implementation" not in answer.text


# a lead-in the chunk cuts short, ending in the next chunk with the line of code it announces
LEAD_IN = ["If you want to build the firmware image under a name other than the base name of its first source,",
           "you simply put the target",
           "file name to the left of the source file name, the way an assignment reads in most languages:",
           "Program('new_hello', 'hello.c')"]


def test_a_lead_in_the_chunk_cuts_short_ends_with_the_code_it_announces(library, tmp_path):
    """SCons' user guide: a chunk closed with "... you simply put the target" and the next went on "file name to the
    left of the source file name:" / "Program('new_hello', 'hello.c')"; the sentence ends with no full stop, so it
    was quoted cut ("you simply put the target ...") and "How do I give Program a different output name?" got no
    answer."""
    rows = _one_page_chunks(library, tmp_path / "firmware.pdf", LEAD_IN)
    cut = next(r for r in rows if json.loads(r["lines"])[-1]["t"] == LEAD_IN[1])
    assert [ln["t"] for ln in library.searcher._sentence_end(cut)] == LEAD_IN[2:]


def test_which_lines_ending_with_a_semicolon_go_on():
    from mmrag_desktop.engine.search.searcher import _clause_goes_on

    assert _clause_goes_on("research, its implementation is currently limited to SPD problems;")
    for code in ("PCShellSetApply(PC pc,PetscErrorCode (*apply)(PC,Vec,Vec));", "x = a + b;",
                 "int count; /* the number of rows */", "limited to SPD;", "It ends here."):
        assert not _clause_goes_on(code), code


def test_the_tail_text_ends_where_the_sentence_does():
    from mmrag_desktop.engine.search.searcher import _tail_text

    tail = [{"t": "will work for such packages. Those with compiled code need the tools", "p": 32,
             "b": [90, 350, 522, 364], "s": [4]}]
    assert _tail_text(tail) == ["will work for such packages."]  # one segment can hold two sentences
    assert _tail_text([{"t": "controller through the reset line.", "p": 1, "b": [0, 0, 1, 1], "s": [3]}]) == [
        "controller through the reset line."]
    assert _tail_text([]) == []


def test_a_chunk_that_ends_on_an_abbreviation_goes_on_in_the_next():
    """Asymptote's manual: a chunk closed with "... you will need a relatively recent version (e.g." and
    the next opened with "3.4.4 or later). ..."; the answer to "Which gcc version do I need?" quoted the
    sentence without the version: its full stop is the abbreviation's, not the sentence's."""
    from mmrag_desktop.engine.search.searcher import _just_above
    from mmrag_desktop.engine.sentence_split import ends_sentence

    def line(text, top):
        return {"t": text, "p": 12, "b": [104, top, 522, top + 11], "s": [2]}

    cut = line("If you are compiling Asymptote with gcc, you will need a relatively recent version (e.g.", 248)
    below = line("3.4.4 or later). For full interactive functionality, you will need version 4.3 or later of the GNU", 262)
    assert not ends_sentence(cut["t"]) and _just_above(cut, below)
    for whole in ("The pins are listed below.", "Set it as follows:", "Is it on?", "It takes 5 min."):
        assert ends_sentence(whole)
    assert ends_sentence("Resistors, capacitors, etc.", "The next") and not ends_sentence("(e.g.", "3.4.4")
    assert not _just_above(line("The pins are listed below.", 248), below)
    # tightly set lines: the box of the line below overlaps this one's by a little (the Maxima book's "... but is
    # not exact, ode2 checks to see if" at 71.4-84.8 / "there is an integrating factor ..." from 83.4)
    assert _just_above(line("... but is not exact, ode2 checks to see if", 248), line("there is a factor.", 257.6))
    assert not _just_above(line("... but is not exact, ode2 checks to see if", 248), line("there is a factor.", 248))


def test_a_sentence_goes_on_after_a_formula_or_a_line_of_code_set_apart():
    """Elk's sbesseli: "... lmax. The recurrence relation" ended a chunk; the next held the formula on a line
    of its own (a segment of its own), then "x" / "is used either downwards for x < 2 lmax or upwards for
    x ≥2 lmax.": the tail stopped at the formula and "When is downward recurrence used?" was never answered.
    At most DISPLAY_LINES such lines, then a line that goes on in lower case."""
    from mmrag_desktop.engine.search.highlight import DISPLAY_LINES, goes_on_after

    def line(text, *segments, left=72):
        return {"t": text, "p": 148, "b": [left, 300, 504, 311], "s": list(segments)}

    bessel = [line("˜jl+1(x) = 2l + 1 ˜jl(x) + ˜jl−1(x)", 2, left=214), line("x", 3, left=274),
              line("is used either downwards for x < 2 lmax or upwards for x ≥2 lmax. The starting values are", 3, 4)]
    assert goes_on_after(bessel, 0) == 2  # the fraction's "x" under the formula is set apart too
    code = [line("pushdef(‘elen_’,dimen_) resistor. . . popdef(‘elen_’)", 1, left=126),
            line("with the result shown in the middle row of the figure.", 2)]
    assert goes_on_after(code, 0) == 1
    # a term at the margin is a definition list's ("\addBodeZPKPlots" / "Generates the appropriate ..."), no
    # formula inside the sentence above it
    assert goes_on_after([line("\\addBodeZPKPlots", 1), line("generates the parametric functions.", 2)], 0) is None
    heading = [line("2.3 Options", 1, left=200), line("The options are listed below.", 2)]
    assert goes_on_after(heading, 0) is None
    assert goes_on_after([line("x = 1;", 1, left=200), line("then y is set.", 2)], 0) is None  # it ends a sentence
    many = [line(f"F{i}(x) = {i}", 1 + i, left=200) for i in range(DISPLAY_LINES + 1)] + [line("is used below.", 9)]
    assert goes_on_after(many, 0) is None  # more lines set apart than a formula takes


def _one_page(library, path, placed, fontsize=11) -> list[dict]:
    """Add a one-page PDF of `placed` lines (x, y, text, font) to `library`; the stored lines of its one chunk."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for x, y, text, font in placed:
        page.insert_text((x, y), text, fontsize=fontsize, fontname=font)
    doc.save(path)
    doc.close()
    assert [e.stage for e in library.add([path]) if e.stage in ("done", "failed")] == ["done"]
    return json.loads(library.conn.execute("SELECT lines FROM chunks").fetchone()[0])


def test_a_highlight_on_the_piece_after_a_line_of_code_shows_the_sentence_from_its_start(library, tmp_path):
    """R's "Full post-installation testing is possible only if the test files have been installed with" /
    "make install-tests" (a line of code set apart) / "which populates a tests directory in the installation.":
    three segments, and the highlight showed the last piece alone (held-out h17's box missed the answer)."""
    prose = FILLER[:3]
    start = "Full testing of the installed controller is possible only if the test files were installed with"
    goes_on = "which populates a tests directory in the installation folder of the controller."
    after = ["If this has been done, two testing routes are available to the operator of the plant.",
             "The first runs every check of the regression suite, the second only the quick ones."]
    y = {text: 90 + 16 * i for i, text in enumerate([*prose, start])}
    y.update({text: y[start] + 36 + 16 * i for i, text in enumerate([goes_on, *after])})
    lines = _one_page(library, tmp_path / "controller.pdf", [(72, y[t], t, "helv") for t in y]
                      + [(100, y[start] + 18, "make install-tests", "cour")])
    seg = {ln["t"]: ln["s"] for ln in lines}
    assert len({*seg[start], *seg["make install-tests"], *seg[goes_on]}) == 3  # the case: three segments

    hit = library.search("which directory is populated with the tests in the installation folder", k=1)[0]
    assert hit.bbox[1] <= y[start] and hit.bbox[3] >= y[goes_on], (hit.bbox, y)  # from the sentence's start
    assert hit.bbox[1] > y[prose[-1]]  # not the sentence before it


def test_a_sentence_goes_on_after_lines_set_apart_only_from_prose():
    """The sentence's start is a prose line that ends no sentence, before at most DISPLAY_LINES lines set
    apart; a listing's labels ("coarse:" / "synth -run coarse" / "map_ram:") are no sentence."""
    from mmrag_desktop.engine.search.highlight import _sentence_start

    def line(text, seg, left=72):
        return {"t": text, "p": 20, "b": [left, 300, 504, 311], "s": [seg]}

    r = [line("Full testing is possible only if the test files were installed with", 0),
         line("make install-tests", 1, left=119), line("which populates a tests directory.", 2)]
    assert _sentence_start(r, 2) == 0 and _sentence_start(r, 0) == 0
    assert _sentence_start([{**r[0], "t": "Install the test files first."}, *r[1:]], 2) == 2  # it ended
    assert _sentence_start([r[0], {**r[1], "b": [72, 300, 504, 311]}, r[2]], 2) == 2  # not set apart
    listing = [line("coarse:", 0, left=103), line("synth -run coarse", 1, left=122), line("map_ram: memory_libmap", 2, left=103)]
    assert _sentence_start(listing, 2) == 2


def test_a_box_never_opens_with_the_last_words_of_a_sentence(library, tmp_path):
    """ngspice's switch: "The instance parameters ON or OFF are required, when the controlling voltage
    starts inside" / "... hysteresis loop ... or current ramp). Then ON or OFF determine the initial state
    of the switch.": the best sentence begins mid-line, and the box opened with "or current ramp)." (the
    tail of the sentence that says when they are required; held-out h02's box missed it). The sentence
    ending on the box's first line is shown whole when it began at most TAIL_LINES lines above."""
    prose = FILLER[:3]
    begun = "The instance parameters ON or OFF are required when the controlling voltage of the relay starts"
    ends = "inside its hysteresis loop. Then ON or OFF determine the initial state of the relay contact."
    after = FILLER[3:5]
    y = {text: 90 + 16 * i for i, text in enumerate([*prose, begun, ends, *after])}
    lines = _one_page(library, tmp_path / "relay.pdf", [(72, y[t], t, "helv") for t in y], fontsize=10)
    seg = {ln["t"]: ln["s"] for ln in lines}
    assert len(seg[ends]) == 2 and seg[begun] == seg[ends][:1]  # the case: the line ends one sentence, opens the next

    hit = library.search("what determines the initial state of the relay contact", k=1)[0]
    assert hit.bbox[1] <= y[begun], (hit.bbox, y)  # the whole sentence whose end opens the box
    assert hit.bbox[1] > y[prose[-1]]  # not the sentence before it


def test_which_sentence_a_box_shows_whole():
    """At most TAIL_LINES lines above, on the box's own page; a box whose first line opens with its own
    sentence takes nothing above it."""
    import numpy as np

    from mmrag_desktop.engine.search.highlight import TAIL_LINES, choose_highlight

    def line(text, segments, top, page=7):
        return {"t": text, "p": page, "b": [72, top, 520, top + 10], "s": list(segments)}

    def box(lines, best):
        vecs = np.zeros((max(s for ln in lines for s in ln["s"]) + 1, 2), dtype=np.float32)
        vecs[:, 1] = 0.1
        vecs[best] = [1.0, 0.0]
        return choose_highlight("text", lines, None, vecs, np.array([1.0, 0.0], dtype=np.float32), [], 7).bbox

    two = [line("A sentence before it ends here.", [0], 100), line("The parameters are required when the", [1], 112),
           line("voltage starts inside the loop. Then they set the state.", [1, 2], 124),
           line("The next sentence follows here.", [3], 136)]
    assert box(two, 2)[1] == 112  # from "The parameters ..."
    own = [line("A sentence before it ends here.", [0], 100), line("Then they set the state of the switch.", [1], 112)]
    assert box(own, 1)[1] == 112  # the box opens with its own sentence
    long = [line("A sentence before it ends here.", [0], 100)] + [
        line(f"a long sentence, line {i},", [1], 112 + 12 * i) for i in range(TAIL_LINES + 1)] + [
        line("the end of it. Then they set the state.", [1, 2], 112 + 12 * (TAIL_LINES + 1))]
    assert box(long, 2)[1] == 112 + 12 * (TAIL_LINES + 1)  # begun too far above: the box stays
    turned = [line("The parameters are required when the", [1], 780, page=6),
              line("voltage starts inside the loop. Then they set the state.", [1, 2], 90)]
    assert box(turned, 2)[1] == 90  # begun on the page before: the box stays on its page


def test_a_line_of_code_at_a_page_s_end_is_not_continued_by_the_next_section(library, tmp_path):
    """LilyPond's Extending manual: page 20 ends with the example "\\displayMusic \\addAccent c4" and page 21 opens
    section 2 with "Advanced tweaks may be performed by using Scheme."; the hit ending with the code line carried
    that sentence as its sentence's end, and "\\displayMusic \\addAccent c4 Advanced tweaks may be performed by
    using Scheme." was the first quote of the answer to how to stop \\displayMusic typesetting its music."""
    import pymupdf

    doc = pymupdf.open()
    first = doc.new_page(width=595, height=842)
    for i, text in enumerate(FILLER):
        first.insert_text((72, 90 + 16 * i), text, fontsize=11)
    first.insert_text((72, 90 + 16 * len(FILLER)), "We then verify that this music function works correctly:", fontsize=11)
    first.insert_text((100, 106 + 16 * len(FILLER)), "\\displayMusic \\addAccent c4", fontsize=11, fontname="cour")
    second = doc.new_page(width=595, height=842)
    second.insert_text((72, 90), "2 Interfaces for programmers", fontsize=20, fontname="hebo")
    for i, text in enumerate(["Advanced tweaks may be performed by using Scheme. If you are not familiar with it,",
                              "you may wish to read the tutorial chapter first.", *FILLER[:3]]):
        second.insert_text((72, 130 + 16 * i), text, fontsize=11)
    path = tmp_path / "extending.pdf"
    doc.save(path)
    doc.close()
    assert [e.stage for e in library.add([path]) if e.stage in ("done", "failed")] == ["done"]
    rows = library.searcher.chunks.rows([r[0] for r in library.conn.execute("SELECT id FROM chunks ORDER BY ord")])
    code = next(r for r in rows.values() if json.loads(r["lines"])[-1]["t"] == "\\displayMusic \\addAccent c4")
    after = library.searcher._next_text(code)
    assert after is not None and after[1][0]["t"].startswith("Advanced tweaks")  # the case: no overlap, next page
    assert library.searcher._sentence_end(code) == []
    # a line of prose cut at the page's end still goes on with the next page's first line
    from mmrag_desktop.engine.search.searcher import _just_above

    assert _just_above({"t": "the result of the", "p": 20, "b": [72, 760, 500, 771], "s": [3]},
                       {"t": "Fourier transform is shown.", "p": 21, "b": [72, 90, 500, 101], "s": [0]})


# SystemTap's guide: "... refer to the /boot/System.map-`uname -r` file." / "This file lists the starting addresses for
# each function, allowing you to map the addresses ... to a specific function name.", a chunk opening with the second
MAP_FILE = ["To make the raw addresses meaningful, refer to the kernel symbol map file.",
         "This file lists the starting address of each kernel function, so that",
         "every raw address in the output can be mapped to the name of its function."]


def test_a_chunk_that_opens_with_what_the_sentence_before_ends_with_is_led_by_that_sentence(library, tmp_path):
    lines = _page_lines(library, MAP_FILE)
    pdf = write_pdf(tmp_path / "dropwatch.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert any(ch[0]["t"] == MAP_FILE[1] for ch in stored)  # a chunk opens with "This file lists ..."
    hit = next(h for h in library.search("how do I map raw addresses in the output to function names", k=5)
               if h.text.find(MAP_FILE[2]) >= 0)
    assert [ln["t"] for ln in hit.lead] == MAP_FILE[:1], hit.lead  # which file: the sentence before says
    assert hit.text.startswith(MAP_FILE[0])


# one sentence whose second line opens inside a cross-reference's parenthesis (Gri's "... Gri draws xy graphs (Chapter 5"
# / "[X-y Plots], page 19), contour plots (Chapter 6 [Contour Plots], page 23), ...")
BRACKETED = ["When the supervisor notices that the main loop has not answered (Chapter 5",
             "[Watchdog Timers], page 19), the controller restarts through the hardware watchdog reset line.",
             "The event is logged."]


def test_a_sentence_begun_in_the_chunk_before_goes_on_inside_a_bracket(library, tmp_path):
    """A chunk that opens with a bracket may open mid-sentence: the line before leaves the parenthesis open, so the
    sentence began there, and the answer quotes it from its start ("Can Gri draw pie charts?" quoted "[X-y Plots],
    page 19), contour plots ..., but it will not draw pie-charts unless you teach it how.")."""
    _quoted_from_the_line_before(library, tmp_path, BRACKETED, "controller restarts through the hardware watchdog reset line",
                                 "How does the controller restart when the main loop has not answered?")


# one sentence whose second line opens with a quoted word in lower case (FFTW's "• FFTW_REDFT10 computes an REDFT10
# transform, i.e. a DCT-II (sometimes called" / "“the” DCT). (Logical N=2*n, inverse is FFTW_REDFT01.)")
QUOTED = ["When the supervisor notices that the main loop has not answered (the timeout sometimes called",
          '"the" dead-man time), the controller restarts through the hardware watchdog reset line.',  # (the test font has no “)
          "The event is logged."]


def test_a_chunk_that_opens_with_a_quoted_word_in_lower_case_goes_on_with_the_sentence_before(library, tmp_path):
    """A chunk whose first line opens with a quotation mark and a word in lower case continues the sentence of the
    line before, as one opening in lower case does: "What is the inverse of FFTW's REDFT10 ...?" quoted "“the” DCT).
    (Logical N=2*n, inverse is FFTW_REDFT01.)", cut from its item."""
    _quoted_from_the_line_before(library, tmp_path, QUOTED, "controller restarts through the hardware watchdog reset line",
                                 "How does the controller restart when the main loop has not answered?")
