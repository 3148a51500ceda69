"""Test isolation: every test gets its own config/data/cache/log folders (never the user's)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("appdirs")
    for name in ("CONFIG", "DATA", "CACHE", "LOG"):
        d = base / name.lower()
        d.mkdir()
        monkeypatch.setenv(f"MMRAG_{name}_DIR", str(d))
    yield base
