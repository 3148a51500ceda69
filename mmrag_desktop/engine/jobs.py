"""Progress events and cancel tokens shared by every long engine job.

Long jobs are generators that yield `Progress` (and job-specific events) and check a
`CancelToken`; the CLI turns the events into a progress bar, the GUI into signals.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .errors import Cancelled


class CancelToken:
    """Thread-safe flag a front end sets to stop a job at its next check."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking early when cancelled; returns True when cancelled."""
        return self._event.wait(seconds)

    def check(self) -> None:
        """Raise `Cancelled` when cancellation was requested."""
        if self._event.is_set():
            raise Cancelled("cancelled")


@dataclass
class Progress:
    """One progress report.

    stage: "scan" | "parse" | "embed" | "commit" | "done" | "failed" | "skipped" | "enrich"
    doc/doc_id: the current document (file name) and its id when known;
    done/total: units of `unit` ("pages", "chunks", "documents") for the current stage;
    docs_done/docs_total: documents finished so far in this job;
    rate: units per second; eta: seconds remaining for the job (None when unknown);
    message: plain-words detail (an error message for stage "failed").
    """

    stage: str
    doc: str = ""
    doc_id: int | None = None
    done: int = 0
    total: int = 0
    unit: str = "pages"
    docs_done: int = 0
    docs_total: int = 0
    rate: float | None = None
    eta: float | None = None
    message: str = ""
    extra: dict = field(default_factory=dict)


__all__ = ["CancelToken", "Progress", "Cancelled"]
