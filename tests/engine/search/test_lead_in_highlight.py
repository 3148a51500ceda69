"""A highlight that ends on a lead-in ("... the function zap is available:") shows what it
announces, even when a chunk boundary falls right after it (real PDF, SQLite, MiniLM)."""

from __future__ import annotations

import json
import re

from conftest import write_pdf

FILLER = [
    "Objects created during a session are kept by name in the working memory of the program.",
    "Each object may be a variable, an array of numbers, a character string or a function.",
    "The names of the objects currently stored can be listed with the objects command.",
    "Objects with short names such as x and y are common in an exploratory analysis.",
    "Names like these mean something in one analysis but are hard to tell apart later.",
    "It is good practice to use a separate working directory for each analysis you run.",
    "The collection of objects currently stored is called the workspace of the session.",
    "A workspace can be saved to a file at the end of a session and loaded again later.",
    "Large objects take memory, so the workspace of a long session can grow very large.",
    "The history of commands typed in a session is kept apart from the workspace itself.",
]
SHORT = ["Names are case sensitive in every session.", "Names are case sensitive.", "See the notes.", "Yes."]
LEAD_IN = "To remove objects from the workspace the function zap is available:"
CODE = "> zap(alpha, beta, gamma, delta)"
AFTER = ["All remaining objects can be stored permanently in a file for use in future sessions.",
         "At the end of each session you are asked whether to save the current workspace.",
         "If you do, the objects are written to a file called .Workspace in the current directory."]


def _page_lines(library, before_code: list[str] = (LEAD_IN,), code: str = CODE) -> list[str]:
    """FILLER lines (as many as fit) so that the last of `before_code` (the lead-in) is the last
    line of the first chunk: the chunker closes a chunk before the line (`code`) that would take it
    past TARGET_TOKENS."""
    from mmrag_desktop.engine.ingest.pipeline import TARGET_TOKENS

    cost = lambda text: library.embedder.count_tokens(text) + 1  # noqa: E731 - as chunking.py counts
    budget = TARGET_TOKENS - sum(map(cost, before_code))
    lines: list[str] = []
    for text in FILLER * 3 + SHORT:  # the short ones close the gap so that the code line no longer fits
        if sum(map(cost, lines)) + cost(text) > budget:
            if text in FILLER:
                continue
            break
        if text in SHORT and budget - sum(map(cost, lines)) < cost(code):
            break
        lines.append(text)
    assert sum(map(cost, lines + [*before_code, code])) > TARGET_TOKENS
    return lines + [*before_code, code] + AFTER


def test_a_lead_in_at_a_chunk_boundary_highlights_the_command_it_introduces(library, tmp_path):
    lines = _page_lines(library)
    pdf = write_pdf(tmp_path / "session.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    # the case this is about: one chunk ends with the lead-in, the next starts with it (overlap)
    assert any(a[-1]["t"] == LEAD_IN and b[0]["t"] == LEAD_IN for a, b in zip(stored, stored[1:], strict=False))

    hit = library.search("how do I delete objects from the workspace", k=3)[0]
    code_y = 90 + 16 * lines.index(CODE)
    assert hit.bbox[1] <= code_y <= hit.bbox[3] + 3, (hit.bbox, code_y)
    assert CODE in hit.text and LEAD_IN in hit.text


def test_a_sentence_two_before_a_lead_in_keeps_its_own_chunk(library, tmp_path):
    """The PARI/GP tutorial: "floor is the mathematician's integer part, not to be confused with
    truncate ... −3." then "You get a more cryptic error message, which ... the preceding section."
    wrapped onto the chunk's last line, which ends "Since you were told not to read them, here's
    the explanation:". The highlight (the sentence and the next) took in that line, so the hit became
    the next chunk, without the sentence that answers; the question was judged not covered."""
    answer = "The function zap removes named objects, not to be confused with wipe, which clears all of them."
    tail = ["You get a warning for an object that is missing, which you would understand if you had read the",
            "notes of the preceding section. Since you skipped them, here is the command:"]
    lines = _page_lines(library, [answer, *tail])
    pdf = write_pdf(tmp_path / "session.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert stored[0][-1]["t"] == tail[-1] and stored[1][0]["t"] == tail[-1]  # the chunk ends with the lead-in

    hit = library.search("what is the difference between zap and wipe", k=3)[0]
    assert answer in hit.text
    answer_y = 90 + 16 * lines.index(answer)
    assert hit.bbox[1] <= answer_y + 3 <= hit.bbox[3], (hit.bbox, answer_y)


def test_a_sentence_just_before_a_lead_in_it_outmatches_keeps_its_own_chunk(library, tmp_path):
    """OpenOCD's RTOS support: "Zephyr must be compiled with the DEBUG_THREAD_INFO option." matched,
    and the chunk's last line, the next sentence, is a lead-in about something else ("FreeRTOS and
    uC/OS-III RTOSes may require additional OpenOCD-specific file to be linked along with the
    project:"); the hit became the next chunk, the file names, and the answer was lost. A lead-in
    right after the matched sentence is continued only when it matches nearly as well (LEAD_IN_MATCH)."""
    answer = "The zap command must be compiled with the DEBUG_ZAP_INFO option to list the session threads."
    lead = "The wipe and purge helpers may require an additional vendor file linked along with the project:"
    lines = _page_lines(library, [answer, lead])
    pdf = write_pdf(tmp_path / "session.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert stored[0][-1]["t"] == lead and stored[1][0]["t"] == lead  # the chunk ends with the lead-in

    hit = library.search("Which option must zap be compiled with to list its threads?", k=3)[0]
    assert answer in hit.text, hit.text


def test_a_lead_in_repeated_in_the_next_chunk_after_another_line_is_continued(library, tmp_path):
    """SDCC's licences: "... proprietary (closed source) applications." / "– sdcpp preprocessor:"
    ended a chunk, and the next began with both short lines (the overlap is up to 24 tokens), then
    "derived from GCC cpp preprocessor ...; GPLv3 license". The lead-in was looked for in the next
    chunk's first line only, so "What license is the sdcpp preprocessor under?" was answered without
    the licence."""
    before = ["Removing objects is easy.", "To remove objects from the workspace use zap:"]
    lines = _page_lines(library, before)
    pdf = write_pdf(tmp_path / "session.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    # the case this is about: the lead-in is the next chunk's second line
    assert stored[0][-1]["t"] == before[-1] and [ln["t"] for ln in stored[1][:2]] == before

    hit = library.search("how do I remove objects from the workspace", k=3)[0]
    assert CODE in hit.text and before[-1] in hit.text, hit.text
    code_y = 90 + 16 * lines.index(CODE)
    assert hit.bbox[1] <= code_y <= hit.bbox[3] + 3, (hit.bbox, code_y)


def test_a_conclusion_opening_the_next_chunk_follows_the_sentence_it_concludes(library, tmp_path, monkeypatch):
    """AVRDUDE's SerialUPDI notes: "One of the core AVRDUDE features is verification of the connection
    by reading device / signature prior to any operation, but this operation is not possible on UPDI
    locked devices." ended a chunk; "Therefore, to be able to connect to such a device, you have to
    provide -F to override this check." opened the next. "Why do I need -F to connect to a locked UPDI
    device?" found the first chunk, no hit named "-F" (the next chunk's highlight is on the next page,
    so it was no companion of the hit's page), and the question was answered as not covered.
    An answer's hit whose matched sentence ends its chunk brings the next chunk when that goes on with
    a conclusion ("Therefore", "Thus", "In that case", ...: searcher._CONCLUSION)."""
    from mmrag_desktop.engine.answer import pipeline
    from mmrag_desktop.engine.search import searcher

    sentence = ["One of the core zap features is a check of each object by reading its stored",
                "signature before any removal, but this check is not possible on locked objects."]
    conclusion = "Therefore, to remove such an object you have to give -F to skip this check."
    lines = _page_lines(library, sentence, conclusion)
    cut = lines.index(conclusion)  # the conclusion opens the next page: no companion of the hit's page
    pdf = write_pdf(tmp_path / "session.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines[:cut])],
                                               [(72, 90 + 16 * i, t) for i, t in enumerate(lines[cut:])]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert stored[0][-1]["t"] == sentence[-1] and stored[1][1]["t"] == conclusion  # the case this is about

    question = "Why do I need -F to remove a locked object with zap?"
    assert not any(conclusion in h.text for h in library.search(question, k=1))  # the hit ends before it
    along = library.search(question, k=1, companions=2)
    assert any(conclusion in h.text for h in along if not h.reserve), [h.text for h in along]
    answer = pipeline.ask(library, question, mode="extractive")
    assert not answer.insufficient_evidence and conclusion in answer.text, answer.text

    monkeypatch.setattr(searcher, "_CONCLUSION", re.compile(r"(?!)"))
    assert not any(conclusion in h.text for h in library.search(question, k=1, companions=2) if not h.reserve)


def test_a_chunk_ending_with_an_option_brings_the_chunk_that_says_what_it_does(library, tmp_path, monkeypatch):
    """Ghostscript's color management notes: "... For this reason, Ghostscript provides the capability
    to specify the desired default blending color space through the command line option" /
    "-sBlendColorProfile = my_blend_profile.icc" ended a chunk; "When this option is used, if a source
    file has transparency blending the blending result should not depend upon the output device color
    model." opened the next, on the same page but no hit (one hit a page). "How can I keep the blending
    result from depending on the output device?" was answered with the problem, not the option. A hit
    whose chunk ends with a command-line option brings the next chunk when that says what the option
    does ("When this option is used", "This option ...": searcher._EXPLAINS)."""
    from mmrag_desktop.engine.answer import pipeline
    from mmrag_desktop.engine.search import searcher

    sentence = ["Blending of transparent objects can depend upon the color space in which the blending",
                "takes place. For this reason zap can set the default blending space with the option"]
    option = "-sBlendSpace = my_blend_profile.icc"
    explanation = "When this option is used, the blending result does not depend upon the output device."
    lines = _page_lines(library, [*sentence, option], explanation)
    cut = lines.index(explanation)  # on the next page: no page-mate of the hit
    pdf = write_pdf(tmp_path / "blend.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines[:cut])],
                                             [(72, 90 + 16 * i, t) for i, t in enumerate(lines[cut:])]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    assert stored[0][-1]["t"] == option and explanation in [ln["t"] for ln in stored[1]]  # the case this is about

    question = "Transparent objects blend in which color space, and how can zap make the blending result the same on every device?"
    assert not any(explanation in h.text for h in library.search(question, k=1))  # the hit ends with the option
    along = library.search(question, k=1, companions=2)
    assert any(explanation in h.text for h in along if not h.reserve), [h.text for h in along]
    answer = pipeline.ask(library, question, mode="extractive")
    assert explanation in answer.text and option in answer.text, answer.text

    monkeypatch.setattr(searcher, "_EXPLAINS", re.compile(r"(?!)"))
    assert not any(explanation in h.text for h in library.search(question, k=1, companions=2) if not h.reserve)


def test_which_openings_draw_a_conclusion():
    from mmrag_desktop.engine.search.searcher import _CONCLUSION

    assert all(_CONCLUSION.match(t) for t in ("Therefore, you have to provide -F.", "So the check is skipped.",
                                              "In that case the part is erased.", "Thus, no reset is needed."))
    assert not any(_CONCLUSION.match(t) for t in ("So-called fuses hold the clock settings.", "Sometimes it fails.",
                                                  "Thereafter the part is reset."))
    # and the remedy for what the sentence before says ("... users will not be able to double-click on the file name
    # in compilation error messages ..." / "This can be remedied by adding the Visual C/C++ /FC compiler option ...",
    # SCons' user guide, the remedy on the next chunk)
    assert all(_CONCLUSION.match(t) for t in ("This can be remedied by adding the /FC option.",
                                              "To avoid this, set the variable.", "It can easily be fixed by a reset."))
    assert not any(_CONCLUSION.match(t) for t in ("This can be set in the file.", "To fix the part, use clips."))


# a problem that ends a page (its sentence whole, or cut short) and the remedy that opens the next
PROBLEM = ["Because zap always runs its build commands from the top directory, users will not be able",
           "to double-click on the file name in the error messages shown in the console window."]
REMEDY = "This can be remedied by adding the -FC compiler option so that full path names are printed."
ASKED_FIX = "Double-clicking a file name in the error messages of the zap console window does nothing. How do I fix that?"


def _problem_then_remedy(library, tmp_path, sentence: list[str], rest: str) -> list[list[dict]]:
    """The page-lines PDF with `rest` opening the second page, added to `library`: its chunks' stored lines."""
    lines = _page_lines(library, sentence, rest)
    cut = lines.index(rest)
    pdf = write_pdf(tmp_path / "remedy.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines[:cut])],
                                              [(72, 90 + 16 * i, t) for i, t in enumerate(lines[cut:])]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    return [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]


def test_a_remedy_opening_the_next_chunk_follows_the_problem(library, tmp_path):
    """SCons' user guide: "Note that because SCons always executes its build commands from the directory ... users
    will not be able to double-click on the file name in compilation error messages displayed in the Visual Studio
    console output window." ended a chunk; "This can be remedied by adding the Visual C/C++ /FC compiler option
    ..." opened the next, and "... How do I fix that?" was answered with the problem alone."""
    from mmrag_desktop.engine.answer import pipeline

    stored = _problem_then_remedy(library, tmp_path, PROBLEM, REMEDY)
    assert stored[0][-1]["t"] == PROBLEM[-1] and stored[1][1]["t"] == REMEDY  # the case this is about
    along = library.search(ASKED_FIX, k=1, companions=2)
    assert any(REMEDY in h.text for h in along if not h.reserve), [h.text for h in along]
    answer = pipeline.ask(library, ASKED_FIX, mode="extractive")
    assert REMEDY in answer.text, answer.text


def test_a_remedy_after_the_end_of_a_sentence_the_chunk_cuts_follows_the_problem(library, tmp_path):
    """The same, as SCons' user guide sets it: the chunk cuts the problem's sentence ("... users will not be able to
    double-click on the file name in compilation error messages displayed in the Visual Studio console output"), and
    the next chunk goes on "window. This can be remedied by adding ...": the remedy opens after the sentence's end."""
    cut_short = [PROBLEM[0], PROBLEM[1].removesuffix(" window.")]
    rest = f"window. {REMEDY}"
    stored = _problem_then_remedy(library, tmp_path, cut_short, rest)
    assert stored[0][-1]["t"] == cut_short[-1] and rest in [ln["t"] for ln in stored[1]]  # the case this is about
    along = library.search(ASKED_FIX, k=1, companions=2)
    assert any(REMEDY in h.text for h in along if not h.reserve), [h.text for h in along]


def test_which_openings_say_what_an_option_does():
    from mmrag_desktop.engine.search.searcher import _EXPLAINS, _OPTION_LINE

    assert all(_EXPLAINS.match(t) for t in ("When this option is used, the result is kept.", "This option sets the page.",
                                            "With this switch the device is reset.", "If this flag is given, no output."))
    assert not any(_EXPLAINS.match(t) for t in ("The options are listed below.", "This is the default.",
                                                "When the device is reset, the options are lost."))
    assert _OPTION_LINE.match("-sBlendColorProfile = my_blend_profile.icc") and _OPTION_LINE.match("--with-fftw3=no")
    assert not _OPTION_LINE.match("- a bullet item") and not _OPTION_LINE.match("-1.5 V")
