"""Answering questions from the library (pipeline.py): retrieval -> confidence -> generation or
extraction, every sentence checked against what it cites (support.py)."""

from .events import Answer, AnswerEvent, Citation
from .pipeline import (
    AUTO_STYLES,
    MAX_QUESTION_CHARS,
    MODES,
    answer_events,
    ask,
    choose_style,
    close_models,
    resolve_answer_model,
    validate_question,
)

__all__ = [
    "AUTO_STYLES",
    "MAX_QUESTION_CHARS",
    "MODES",
    "Answer",
    "AnswerEvent",
    "Citation",
    "answer_events",
    "ask",
    "choose_style",
    "close_models",
    "resolve_answer_model",
    "validate_question",
]
