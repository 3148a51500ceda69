"""Multi-turn: rewrite a follow-up ("and for the 8-pin version?") into a standalone question."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .confidence import content_terms

_LEADS = re.compile(
    r"^\s*(?:(?:and|also|but|so|ok|okay|then)\b[\s,]*)?(?:(?:what|how)\s+about|what\s+if|same\s+for|and)?\s*",
    re.IGNORECASE,
)
_FOLLOW_START = re.compile(
    r"^\s*(and|also|what about|how about|what if|same for|and what|and how|but|or|then)\b", re.IGNORECASE
)
_PRONOUN = re.compile(r"\b(it|its|it's|they|them|their|this|that|these|those|one|ones|there|same)\b", re.IGNORECASE)
_PREPOSITION = re.compile(r"^(for|in|on|with|without|at|of|under|over|when|if|on|during|from|to|by)\b", re.IGNORECASE)


def previous_question(turn: Any) -> str:
    """The question of a history turn: an `Answer`, a dict ({"question", "search_query"}) or a
    (question, answer) pair. The already-rewritten query is preferred, so chains of follow-ups
    keep their context."""
    if isinstance(turn, (tuple, list)):
        return str(turn[0]) if turn else ""
    if isinstance(turn, dict):
        return str(turn.get("search_query") or turn.get("question") or "")
    return str(getattr(turn, "search_query", "") or getattr(turn, "question", "") or "")


def is_followup(question: str) -> bool:
    """True for a short question that leans on the previous turn (leading "and", "what
    about", pronouns, or very few content words)."""
    words = question.split()
    if len(words) > 12:
        return False
    if _FOLLOW_START.match(question):
        return True
    return bool(_PRONOUN.search(question)) and len(content_terms(question)) <= 3 or len(content_terms(question)) <= 1


def rewrite_followup(question: str, history: Sequence[Any] | None) -> str:
    """A standalone version of `question` given earlier turns (oldest first); unchanged when
    there is no history or it is not a follow-up. Never raises."""
    question = " ".join(question.split())
    if not history or not is_followup(question):
        return question
    prev = " ".join(previous_question(history[-1]).split()).rstrip(" ?.!")
    if not prev:
        return question
    rest = _LEADS.sub("", question, count=1).strip().rstrip(" ?.!")
    if not rest:
        return prev + "?"
    if _PREPOSITION.match(rest):
        return f"{prev} {rest}?"
    return f"{prev}: {rest}?"
