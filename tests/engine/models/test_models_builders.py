"""The tiny random models the tests build (model_builders.py) pass the same checks a user's files do."""

from __future__ import annotations

from model_builders import CHAT_TEMPLATE, build_tiny_clip, build_tiny_cross_encoder, build_tiny_vlm


def test_tiny_gguf_pair_is_recognised_by_the_file_checks(tmp_path):
    from mmrag_desktop.engine.models import files

    model, mmproj = build_tiny_vlm(tmp_path)
    assert files.is_gguf(model) and files.is_gguf(mmproj)
    assert files.gguf_architecture(model) == "llama"
    assert files.is_mmproj(mmproj) and not files.is_mmproj(model)
    assert files.gguf_metadata(model, ("tokenizer.chat_template",), max_kv=4096)["tokenizer.chat_template"] == CHAT_TEMPLATE
    assert model.stat().st_size < 2_000_000 and mmproj.stat().st_size < 500_000


def test_tiny_clip_folder_is_recognised(tmp_path):
    from mmrag_desktop.engine.models import files

    folder = build_tiny_clip(tmp_path / "tiny-clip")
    assert files.is_clip_dir(folder)
    assert not files.is_sentence_transformer_dir(tmp_path / "missing")


def test_tiny_cross_encoder_passes_the_reranker_checks(tmp_path):
    from mmrag_desktop.engine.models import files
    from mmrag_desktop.engine.models.verify import verify_model

    folder = build_tiny_cross_encoder(tmp_path / "tiny-ce")
    assert files.is_cross_encoder_dir(folder)
    v = verify_model("reranker", folder, compute_sha=False)
    assert v.details["score_dims"] == 1 and v.details["max_tokens"] == 128
