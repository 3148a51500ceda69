"""The model manager dialog (offscreen Qt): rows per role, verification before saving, errors."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")

from model_builders import build_tiny_clip  # noqa: E402

from mmrag_desktop.engine.models.registry import ROLES  # noqa: E402
from mmrag_desktop.engine.settings import Settings, config_dir  # noqa: E402
from mmrag_desktop.ui.model_manager import ModelManagerDialog  # noqa: E402

pytestmark = pytest.mark.gui


def test_rows_show_every_role_with_status(qtbot):
    dlg = ModelManagerDialog(None, Settings())
    qtbot.addWidget(dlg)
    assert dlg.table.rowCount() == len(ROLES)
    assert dlg.status_of("text_embedder") == "ok"
    assert dlg.status_of("vlm") == "missing"


def test_add_verifies_then_saves_and_reset_clears(qtbot, tmp_path):
    folder = build_tiny_clip(tmp_path / "tiny-clip")
    settings = Settings()
    dlg = ModelManagerDialog(None, settings)
    qtbot.addWidget(dlg)
    with qtbot.waitSignal(dlg.modelsChanged, timeout=120_000) as sig:
        dlg.verify_and_save("image_embedder", folder)
        assert dlg.status_of("image_embedder") == "verifying"
    assert sig.args == ["image_embedder"]
    assert dlg.status_of("image_embedder") == "ok" and dlg.last_error == ""
    saved = Settings.load(config_dir() / "settings.json")
    assert saved.models["image_embedder"] == str(folder)
    with qtbot.waitSignal(dlg.modelsChanged, timeout=5_000):
        dlg.clear_model("image_embedder")
    assert "image_embedder" not in Settings.load().models
    assert dlg.status_of("image_embedder") == "missing"


def test_bad_file_is_not_saved_and_error_is_shown(qtbot, tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"this is not a model")
    settings = Settings()
    dlg = ModelManagerDialog(None, settings)
    qtbot.addWidget(dlg)
    dlg.verify_and_save("answer_llm", bad)
    dlg.wait_for_verification()
    qtbot.waitUntil(lambda: dlg.last_error != "", timeout=10_000)
    assert "not a GGUF file" in dlg.last_error and "not a GGUF file" in dlg.detail.text()
    assert "answer_llm" not in settings.models
    assert not (config_dir() / "settings.json").exists()
    assert dlg.status_of("answer_llm") == "ok"  # still the installed package model
