"""A log record as a user reads it on a console: one line, "mmrag: warning: ...", never a
traceback. The command line prints its own process's warnings so, and the child process of
isolated jobs its own (the parent reports a file's failure itself)."""

from __future__ import annotations

import logging


class OneLineFormatter(logging.Formatter):
    """"mmrag: <level>: <message>", the message only."""

    def format(self, record: logging.LogRecord) -> str:
        return f"mmrag: {record.levelname.lower()}: {record.getMessage()}"
