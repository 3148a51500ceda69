"""Model resolution on this machine: installed packages, user folder, user choice, bundled
manifest, and plain messages for missing or wrong files. Real files only (no model is loaded)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mmrag_desktop.engine.errors import ModelError
from mmrag_desktop.engine.models import files, manifest
from mmrag_desktop.engine.models.registry import ROLES, inspect_path, require, resolve, resolve_all
from mmrag_desktop.engine.settings import Settings, user_models_dir


def test_roles_and_packages_resolve_without_loading():
    rs = {r.role: r for r in resolve_all(Settings())}
    assert tuple(rs) == ROLES
    te = rs["text_embedder"]
    assert te.status == "ok" and te.source == "package" and te.model_id == "all-MiniLM-L6-v2"
    assert (te.path / "config.json").is_file() and te.size > 50_000_000
    llm = rs["answer_llm"]
    assert llm.status == "ok" and llm.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert files.gguf_architecture(llm.path) == "llama"
    assert rs["ocr"].status == "ok" and rs["ocr"].source == "package"
    for role in ("vlm", "image_embedder", "reranker"):
        assert rs[role].status == "missing" and rs[role].source == "none" and rs[role].message
    assert "torch" not in __import__("sys").modules or True  # resolution imports nothing heavy (checked below)


def test_resolve_imports_no_heavy_library():
    import subprocess
    import sys

    code = ("import sys; from mmrag_desktop.engine.models import resolve_all; resolve_all();"
            "bad=[m for m in ('torch','transformers','llama_cpp','sentence_transformers','onnxruntime','PySide6') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_require_raises_plain_model_error_for_missing_role():
    with pytest.raises(ModelError) as e:
        require("vlm", Settings())
    assert e.value.role == "vlm" and "no model installed" in str(e.value)
    with pytest.raises(ModelError, match="unknown model role"):
        resolve("nonsense", Settings())


def test_user_choice_wins_and_broken_choice_falls_back_with_a_note(tmp_path):
    pkg = resolve("answer_llm", Settings())
    copy = tmp_path / "my-model.gguf"
    copy.write_bytes(pkg.path.read_bytes())
    s = Settings(models={"answer_llm": str(copy)})
    r = resolve("answer_llm", s)
    assert (r.source, r.path, r.model_id, r.status) == ("user-choice", copy, "my-model", "ok")
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_text("hello")
    r = resolve("answer_llm", Settings(models={"answer_llm": str(not_gguf)}))
    assert r.status == "ok" and r.source == "package"
    assert "not a GGUF file" in r.message and "instead" in r.message
    r = resolve("answer_llm", Settings(models={"answer_llm": str(tmp_path / "gone.gguf")}))
    assert r.source == "package" and "does not exist" in r.message


def test_broken_choice_without_fallback_is_failed(tmp_path):
    bad = tmp_path / "clip"
    bad.mkdir()
    (bad / "config.json").write_text(json.dumps({"model_type": "bert"}))
    r = resolve("image_embedder", Settings(models={"image_embedder": str(bad)}))
    assert r.status == "failed" and r.source == "user-choice" and "not a CLIP folder" in r.message
    with pytest.raises(ModelError, match="not a CLIP folder"):
        require("image_embedder", Settings(models={"image_embedder": str(bad)}))


def test_user_models_folder_is_searched(tmp_path):
    pkg = resolve("answer_llm", Settings())
    folder = user_models_dir() / "answer_llm"
    folder.mkdir(parents=True)
    (folder / "tiny.gguf").write_bytes(pkg.path.read_bytes())
    r = resolve("answer_llm", Settings())
    assert r.source == "user-folder" and r.path == folder / "tiny.gguf"


def test_wrong_file_types_give_plain_messages(tmp_path):
    from model_builders import build_tiny_llama_gguf, build_tiny_mmproj

    model = build_tiny_llama_gguf(tmp_path / "m.gguf")
    proj = build_tiny_mmproj(tmp_path / "mmproj-m.gguf")
    assert "vision projector" in inspect_path("answer_llm", proj).message
    r = inspect_path("vlm", model)  # projector found next to the model
    assert r.ok and r.extra["mmproj"] == proj and r.size == model.stat().st_size + proj.stat().st_size
    assert "not a vision projector" in inspect_path("vlm", model, mmproj=model).message
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (lonely / "m.gguf").write_bytes(model.read_bytes())
    assert "no mmproj" in inspect_path("vlm", lonely).message
    assert "not a folder" in inspect_path("text_embedder", model).message
    assert "cross-encoder" in inspect_path("reranker", tmp_path).message


def test_vlm_choice_with_projector_key(tmp_path):
    from model_builders import build_tiny_vlm

    model, proj = build_tiny_vlm(tmp_path / "pair")
    other = tmp_path / "elsewhere.gguf"
    other.write_bytes(proj.read_bytes())
    r = resolve("vlm", Settings(models={"vlm": str(model), "vlm_mmproj": str(other)}))
    assert r.ok and r.source == "user-choice" and r.extra["mmproj"] == other


def test_bundled_manifest_folder(tmp_path, monkeypatch):
    bundle = tmp_path / "bundle"
    (bundle / "answer_llm").mkdir(parents=True)
    pkg = resolve("answer_llm", Settings())
    target = bundle / "answer_llm" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    target.write_bytes(pkg.path.read_bytes())
    real = json.loads((Path(manifest.__file__).parents[3] / "models" / "manifest.json").read_text())
    (bundle / "manifest.json").write_text(json.dumps(real))
    monkeypatch.setenv("MMRAG_BUNDLED_MODELS_DIR", str(bundle))
    assert manifest.bundled_models_dir() == bundle
    r = resolve("answer_llm", Settings())
    assert r.source == "bundled" and r.path == target and r.model_id == "SmolLM2-135M-Instruct.Q4_1"


def test_manifest_lists_every_role_with_checksums_of_installed_packages():
    data = manifest.load_manifest()
    assert set(data["roles"]) == set(ROLES)
    for role in ROLES:
        for e in manifest.entries(role):
            assert e.license and (e.source or e.package)
    llm = manifest.entries("answer_llm")[0]
    pkg = resolve("answer_llm", Settings())
    digest = hashlib.sha256(pkg.path.read_bytes()).hexdigest()
    assert llm.files[0]["sha256"] == digest and llm.files[0]["size"] == pkg.path.stat().st_size
    assert manifest.known_file(digest).name == llm.name
    te = {f["name"]: f for f in manifest.entries("text_embedder")[0].files}
    weights = resolve("text_embedder", Settings()).path / "model.safetensors"
    if weights.is_file():
        assert te["model.safetensors"]["size"] == weights.stat().st_size


def test_models_cli_json_and_verify_errors(capsys):
    from mmrag_desktop.cli import run

    assert run(["models", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["role"] for m in out["models"]] == list(ROLES)
    assert {m["status"] for m in out["models"]} <= {"ok", "missing", "failed"}
    errors = []
    assert run(["models", "verify", "/nonexistent/x.gguf", "--role", "answer_llm"], error=errors.append) == 1
    assert "does not exist" in errors[0]
    assert run(["models"]) == 0
    text = capsys.readouterr().out
    assert "text_embedder" in text and "missing" in text
