"""A table row keyed by an operator in symbols (session 58, dasm's manual): "What values do the && and || operators give
when used in dasm expressions?" put the rows of "&" (Arithmetic AND, "&" is inside "&&") and of "?" (the question's own
question mark) before the rows asked for, as rows whose key the question writes. Real MiniLM embedder."""

from __future__ import annotations

import pytest

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import _value_asked, _written, rank_candidates
from mmrag_desktop.engine.hits import Hit


@pytest.mark.parametrize(("name", "question", "written"), [
    ("&&", "What values do the && and || operators give?", True),
    ("||", "What values do the && and || operators give?", True),
    ("&", "What values do the && and || operators give?", False),
    ("?", "What values do the && and || operators give?", False),
    ("?", "What does the ? operator return?", True),
    ("%", 'What does "%" mean in a format?', True),
    ("KPC3", "Does the KPC3+ work?", False),
])
def test_a_name_written_in_the_question(name, question, written):
    assert _written(name, question) is written


@pytest.mark.parametrize(("key", "asked"), [("&&", True), ("||", True), ("&", False), ("?", False)])
def test_a_row_keyed_by_an_operator_is_asked_for_when_the_question_writes_it(key, asked):
    question = "What values do the && and || operators give when used in dasm expressions?"
    assert _value_asked("Operator", f" {key} ", question) is asked


ROWS = ["Operator | Function | PR", "Operator: & | Function: Arithmetic AND | PR: 14",
        "Operator: && | Function: Logical AND. Evaluates as 0 or 1 | PR: 11",
        "Operator: || | Function: Logical OR. Evaluates as 0 or 1 | PR: 10",
        "Operator: ? | Function: If the left expression is TRUE, result is the right expression, else result is 0. | PR: 9"]


def test_the_rows_of_the_operators_asked_for_come_first(embedder):
    table = Hit(chunk_id=120, doc_id=1, doc="dasm.pdf", page=34, bbox=None, kind="table", score=1.0,
                text="\n".join(ROWS), section="Expressions > 4.2 Operators")
    ranked = rank_candidates("What values do the && and || operators give when used in dasm expressions?",
                             pack_evidence([table], 2000), embedder)
    rows = [c.text for c in ranked if c.text.startswith("Operator: ")]
    assert {r.split(" | ")[0] for r in rows[:2]} == {"Operator: &&", "Operator: ||"}, rows
