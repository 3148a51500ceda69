"""Bulk passes in bfloat16 (models/cpu_features.py, models/text_embedder.py): where the processor
has bfloat16 matrix units, ingest runs the real all-MiniLM-L6-v2 on PyTorch in bfloat16; queries
and a search's own passages stay on ONNX Runtime. On a processor without those units (CI's, maybe)
"bf16" is emulated: slower, the same vectors, so these tests run everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from mmrag_desktop.engine.models import text_embedder as te
from mmrag_desktop.engine.models.cpu_features import native_bf16
from mmrag_desktop.engine.models.text_embedder import TextEmbedder

TEXTS = [f"Pin {i} of the connector drives up to {i * 5} mA; the supply is 5 V (4.5 V to 5.5 V)." for i in range(12)]
TEXTS += ["OD0 can drive up to 100 mA current. OD1 can only drive up to 5 mA.", "x" * 3000]


def _cpuinfo(tmp_path, flags: str):
    path = tmp_path / "cpuinfo"
    path.write_text(f"processor\t: 0\nmodel name\t: A CPU\nflags\t\t: fpu sse2 avx2 {flags}\n\n")
    return path


def test_bfloat16_units_are_read_from_the_processor_flags(tmp_path):
    assert native_bf16.__wrapped__(_cpuinfo(tmp_path, "avx512f amx_tile amx_bf16")) is True
    assert native_bf16.__wrapped__(_cpuinfo(tmp_path, "avx512f avx512_bf16")) is True
    assert native_bf16.__wrapped__(_cpuinfo(tmp_path, "avx512f avx512_vnni")) is False
    assert native_bf16.__wrapped__(tmp_path / "missing") is False


def test_a_bulk_pass_in_bfloat16_gives_the_float_vectors(embedder):
    onnx = TextEmbedder(embedder.model_dir, threads=2, backend="onnx")
    bf16 = TextEmbedder(embedder.model_dir, threads=2, backend="bf16")
    assert onnx.bulk_backend == "onnx" and bf16.bulk_backend == "bf16"
    spans = [[(0, 9), (10, 40)] for _ in TEXTS[:-2]] + [[(0, 34), (35, 66)], [(0, 5)]]
    a = onnx.encode_with_segments(TEXTS, spans, bulk=True)
    b = bf16.encode_with_segments(TEXTS, spans, bulk=True)
    assert bf16._bf16 is not None and bf16._model is None  # the bulk pass ran on PyTorch, without sentence-transformers
    assert b.vectors.dtype == np.float32 and np.allclose(np.linalg.norm(b.vectors, axis=1), 1, atol=1e-4)
    assert float((a.vectors * b.vectors).sum(axis=1).min()) > 0.999
    for x, y in zip(a.segments, b.segments, strict=True):
        assert x.shape == y.shape and float((x * y).sum(axis=1).min()) > 0.999
    plain = bf16.encode(TEXTS, bulk=True)
    assert plain.shape == (len(TEXTS), 384) and float((plain * a.vectors).sum(axis=1).min()) > 0.999
    # a query is not a bulk pass: ONNX Runtime, the float vector
    q = bf16.encode(["what current can OD0 drive"])
    assert float(q[0] @ onnx.encode(["what current can OD0 drive"])[0]) > 0.99999


def test_auto_uses_bfloat16_only_where_the_processor_has_it(embedder, monkeypatch):
    monkeypatch.setattr(te, "native_bf16", lambda: False)
    assert TextEmbedder(embedder.model_dir, backend="auto").bulk_backend == "onnx"
    monkeypatch.setattr(te, "native_bf16", lambda: True)
    assert TextEmbedder(embedder.model_dir, backend="auto").bulk_backend == "bf16"
    assert TextEmbedder(embedder.model_dir, backend="onnx").bulk_backend == "onnx"


@pytest.mark.parametrize("backend", ["auto", "bf16"])
def test_a_model_that_cannot_load_on_pytorch_leaves_the_pass_to_onnx(embedder, monkeypatch, backend):
    monkeypatch.setattr(te, "native_bf16", lambda: True)
    emb = TextEmbedder(embedder.model_dir, backend=backend)

    def broken(*_args):
        raise te.ModelError("text_embedder", "torch/transformers is not installed")

    monkeypatch.setattr(te, "Bf16Forward", broken)
    vecs = emb.encode(TEXTS[:3], bulk=True)
    assert vecs.shape == (3, 384) and emb.bulk_backend == "onnx"


def test_the_bulk_weights_are_released_when_ingest_ends(embedder):
    emb = TextEmbedder(embedder.model_dir, threads=2, backend="bf16")
    first = emb.encode(TEXTS, bulk=True)
    assert emb._bf16 is not None
    emb.release_bulk()
    assert emb._bf16 is None  # ONNX Runtime serves what follows
    assert emb.encode(["a query"]).shape == (1, 384)
    again = emb.encode(TEXTS, bulk=True)  # a later bulk pass loads them again
    assert emb._bf16 is not None and float((first * again).sum(axis=1).min()) > 0.9999
    onnx = TextEmbedder(embedder.model_dir, backend="onnx")
    onnx.encode(["x"])
    onnx.release_bulk()  # nothing to release
    assert onnx.backend == "onnx"
