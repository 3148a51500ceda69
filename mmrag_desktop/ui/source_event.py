"""The engine's citation event with the row the sources list shows for it.

Imported only where answers run (results.answer_job, on the engine thread): importing the
engine's answer package costs startup time the window does not need to spend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine.answer.events import CitationEvent

if TYPE_CHECKING:
    from .results import ResultItem  # results imports this module where answers run


@dataclass(kw_only=True)
class SourceEvent(CitationEvent):
    """A CitationEvent (kind "citation") whose citation the engine thread resolved to `item`:
    passage boxes from the chunk, a figure's thumbnail."""

    item: ResultItem
