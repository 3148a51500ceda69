"""Hugging Face libraries, offline and quiet: set before any transformers / sentence-transformers
model loads, so nothing ever reaches for the hub and no progress bars reach the GUI's console."""

from __future__ import annotations

import os

OFFLINE_ENV = (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
               ("HF_HUB_DISABLE_PROGRESS_BARS", "1"), ("TRANSFORMERS_VERBOSITY", "error"))


def offline_and_quiet() -> None:
    """Set the offline/quiet environment (user-set values win) and silence transformers' logging
    when transformers is installed. Safe to call many times."""
    for key, value in OFFLINE_ENV:
        os.environ.setdefault(key, value)
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
