"""`mmrag-desktop --self-test` in a real process on this installation: every part is checked by
name with the real models (embedder, SmolLM2 through llama.cpp, RapidOCR), and a part that fails is
named in the output and the exit code (here Qt, asked for X11 with no display). The passing run,
Qt included, is checked on the installed bundle (tests/bundle/: offscreen and under Xvfb)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
PARTS = ("qt", "pymupdf", "models", "ingest", "search", "answer")


def _self_test(tmp_path, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    base.update(MMRAG_CONFIG_DIR=str(tmp_path / "config"), MMRAG_DATA_DIR=str(tmp_path / "data"),
                MMRAG_CACHE_DIR=str(tmp_path / "cache"), MMRAG_LOG_DIR=str(tmp_path / "log"), **env)
    return subprocess.run([str(BIN / "mmrag-desktop"), "--self-test"], env=base, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.llm
def test_self_test_checks_every_part_and_names_the_one_that_failed(tmp_path):
    pytest.importorskip("llama_cpp")
    out = _self_test(tmp_path, QT_QPA_PLATFORM="xcb")
    assert out.returncode == 1, out.stderr
    lines = out.stderr.splitlines()
    # no X display; or, on a machine without Qt's xcb libraries, the packages to install
    from mmrag_desktop.ui.platform_libs import check

    reason = "no X display" if check(force=True).ok else "The window cannot open: Qt's xcb platform plugin needs"
    assert any(line.startswith(f"qt: FAILED: {reason}") for line in lines), out.stderr
    for part in PARTS[1:]:
        assert any(line.startswith(f"{part}: ok (") for line in lines), (part, out.stderr)
    assert "model answer_llm: loaded SmolLM2-135M-Instruct.Q4_1.gguf" in out.stderr
    assert "model ocr: loaded" in out.stderr and "model text_embedder: loaded" in out.stderr
    assert any(line.startswith("answer: ok (quote answer by SmolLM2") for line in lines), out.stderr
    assert lines[-1].startswith("self-test FAILED") and lines[-1].endswith(": qt")
    assert "Traceback" not in out.stderr
