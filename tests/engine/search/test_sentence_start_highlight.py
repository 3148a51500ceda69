"""A highlight that starts with its chunk's first sentence, begun in the chunk before (chunks
overlap by lines, so a chunk can open mid-sentence: "name of a subcircuit defined beforehand."),
shows the sentence from its start (real PDF, SQLite, MiniLM)."""

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


def _page_lines(library) -> list[str]:
    """FILLER lines so that the chunk closes before the sentence's last line and the next chunk
    opens with its second line (the overlap: the last lines within OVERLAP_TOKENS)."""
    from mmrag_desktop.engine.ingest.pipeline import OVERLAP_TOKENS, TARGET_TOKENS

    cost = lambda text: library.embedder.count_tokens(text) + 1  # noqa: E731 - as chunking.py counts
    assert cost(SENTENCE[1]) <= OVERLAP_TOKENS < cost(SENTENCE[0]) + cost(SENTENCE[1])
    budget = TARGET_TOKENS - cost(SENTENCE[0]) - cost(SENTENCE[1])
    lines: list[str] = []
    for text in FILLER * 3:
        if sum(map(cost, lines)) + cost(text) > budget:
            break
        lines.append(text)
    assert sum(map(cost, lines + SENTENCE)) > TARGET_TOKENS
    return lines + SENTENCE + AFTER


def test_a_highlight_that_starts_mid_sentence_grows_back_to_its_start(library, tmp_path):
    lines = _page_lines(library)
    pdf = write_pdf(tmp_path / "supervisor.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    stored = [json.loads(r[0]) for r in library.conn.execute("SELECT lines FROM chunks ORDER BY id")]
    # the case this is about: a chunk opens with the sentence's second line
    assert any(ch[0]["t"] == SENTENCE[1] for ch in stored)

    hit = library.search("which line restarts the controller through the hardware watchdog", k=3)[0]
    assert hit.text.startswith(SENTENCE[1])
    y = {t: 90 + 16 * i for i, t in enumerate(lines)}
    # the box reaches up to the sentence's first line and down to its last
    assert hit.bbox[1] <= y[SENTENCE[0]] + 3 and hit.bbox[3] >= y[SENTENCE[2]], (hit.bbox, y[SENTENCE[0]])
    assert hit.bbox[1] > y[lines[len(lines) - len(SENTENCE) - len(AFTER) - 1]] + 3  # not the filler before it
