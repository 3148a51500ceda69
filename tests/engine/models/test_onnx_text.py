"""The text embedder on ONNX Runtime (models/onnx_text.py): the same vectors as PyTorch from the
real all-MiniLM-L6-v2, an export made once and reused without loading torch weights, and the
PyTorch path kept for layouts it cannot run."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time

import numpy as np
import pytest

from mmrag_desktop.engine.errors import ModelError
from mmrag_desktop.engine.models.onnx_text import exported_path, fuse, onnx_layout, quantize, quantized_path
from mmrag_desktop.engine.models.text_embedder import TextEmbedder
from mmrag_desktop.engine.settings import cache_dir

TEXTS = ["The programmer needs a supply voltage of 5 V (4.5 V to 5.5 V).",
         "OD0 can drive up to 100 mA current. OD1 can only drive up to 5 mA.",
         "x" * 3000]  # longer than the window: truncated alike


def test_onnx_gives_the_vectors_pytorch_gives(embedder):
    embedder = TextEmbedder(embedder.model_dir, threads=2, backend="onnx")  # the float export
    assert embedder.backend == "onnx"
    torch_side = TextEmbedder(embedder.model_dir, threads=2, backend="torch")
    assert torch_side.backend == "torch"
    a, b = embedder.encode(TEXTS), torch_side.encode(TEXTS)
    assert a.shape == b.shape == (3, 384) and np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-5)
    assert float((a * b).sum(axis=1).min()) > 0.9999
    spans = [[(0, 10), (11, 40)], [(0, 34), (35, 66)], [(0, 5)]]
    ea, eb = embedder.encode_with_segments(TEXTS, spans), torch_side.encode_with_segments(TEXTS, spans)
    assert float((ea.vectors * eb.vectors).sum(axis=1).min()) > 0.9999
    for x, y in zip(ea.segments, eb.segments, strict=True):
        assert x.shape == y.shape and float((x * y).sum(axis=1).min()) > 0.9999
    assert embedder.max_tokens == torch_side.max_tokens == 256 and embedder.dim == torch_side.dim == 384


def test_the_export_is_made_once_and_later_loads_skip_torch(embedder, tmp_path):
    folder = tmp_path / "minilm"
    shutil.copytree(embedder.model_dir, folder)
    first = TextEmbedder(folder, threads=1)
    first.encode(["warm up"])
    path = exported_path(folder, cache_dir())
    assert first.backend == "onnx" and path.exists()
    second = TextEmbedder(folder, threads=1)
    v = second.encode(["a supply voltage of 5 V"])
    assert second._model is None  # the PyTorch weights were never loaded
    assert float((v @ first.encode(["a supply voltage of 5 V"]).T)[0, 0]) > 0.9999
    import onnx

    ops = {n.op_type for n in onnx.load(str(path), load_external_data=False).graph.node}
    assert {"Attention", "SkipLayerNormalization"} <= ops  # ONNX Runtime's fusions (fuse)
    path.write_bytes(b"not an onnx file")  # damaged cache: exported again
    third = TextEmbedder(folder, threads=1)
    assert third.backend == "onnx" and path.stat().st_size > 1_000_000


def test_the_export_runs_in_child_processes_so_the_embedding_process_stays_small(embedder, tmp_path):
    """A first `mmrag add` on a new machine (no export in the cache yet) peaked at 1,236 MB against 540 MB
    once the export was made: torch, transformers and ONNX Runtime's optimizer stayed in the process
    that embeds. A fresh process exporting a model now imports none of them and gets the fused export."""
    import subprocess
    import sys

    folder = tmp_path / "minilm"
    shutil.copytree(embedder.model_dir, folder)
    script = (
        "import sys; from pathlib import Path\n"
        "from mmrag_desktop.engine.models.text_embedder import TextEmbedder\n"
        "e = TextEmbedder(Path(sys.argv[1]), threads=1)\n"
        "v = e.encode(['a supply voltage of 5 V'])\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers', 'onnx') if m in sys.modules)\n"
        "print(e.backend, v.shape[1], ','.join(heavy) or '-')\n")
    env = {**os.environ, "MMRAG_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", script, str(folder)], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["onnx", "384", "-"]
    path = exported_path(folder, tmp_path / "cache")
    import onnx

    ops = {n.op_type for n in onnx.load(str(path), load_external_data=False).graph.node}
    assert {"Attention", "SkipLayerNormalization"} <= ops  # fused in the second child
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no staging file left behind


def test_an_export_the_optimizer_cannot_fuse_is_left_as_it_is(embedder, tmp_path, caplog):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx file")
    config = TextEmbedder(embedder.model_dir, threads=1, backend="torch").model[0].auto_model.config
    assert fuse(broken, config) is False and broken.read_bytes() == b"not an onnx file"
    assert "not fused" in caplog.text


def test_a_layout_onnx_cannot_run_stays_on_pytorch(embedder, tmp_path, monkeypatch):
    folder = tmp_path / "dense"
    shutil.copytree(embedder.model_dir, folder)
    assert onnx_layout(folder) is not None
    modules = json.loads((folder / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"})
    (folder / "modules.json").write_text(json.dumps(modules))
    assert onnx_layout(folder) is None
    pooling = folder / "1_Pooling" / "config.json"
    (folder / "modules.json").write_text(json.dumps([m for m in modules if "Dense" not in m["type"]]))
    cfg = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**cfg, "pooling_mode_max_tokens": True}))
    assert onnx_layout(folder) is None  # two pooling modes
    monkeypatch.setenv("MMRAG_TEXT_BACKEND", "torch")
    assert TextEmbedder(embedder.model_dir).backend == "torch"


@pytest.mark.parametrize("broken", ["modules.json", "sentence_bert_config.json"])
def test_a_folder_without_its_configuration_is_not_run_on_onnx(embedder, tmp_path, broken):
    folder = tmp_path / "m"
    shutil.copytree(embedder.model_dir, folder)
    (folder / broken).write_text("{not json")
    assert onnx_layout(folder) is None


def test_an_unwritable_cache_keeps_pytorch(embedder, tmp_path, monkeypatch):
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("MMRAG_CACHE_DIR", str(blocked))
    side = TextEmbedder(embedder.model_dir, threads=1)
    v = side.encode(["a supply voltage of 5 V"])
    assert side.backend == "torch" and v.shape == (1, 384)


def test_the_eight_bit_copy_is_made_once_and_keeps_the_ranking(embedder, tmp_path):
    float_side = TextEmbedder(embedder.model_dir, threads=2, backend="onnx")
    eight = TextEmbedder(embedder.model_dir, threads=2, backend="int8")
    a, b = float_side.encode(TEXTS), eight.encode(TEXTS)
    q = quantized_path(exported_path(embedder.model_dir, cache_dir()))
    assert eight.backend == "onnx" and q.exists()
    assert q.stat().st_size < exported_path(embedder.model_dir, cache_dir()).stat().st_size
    cos = (a * b).sum(axis=1)
    # close to, not the same as, the float vectors (the run of "x" drifts most: 0.97)
    assert float(cos[:2].min()) > 0.99 and float(cos.min()) > 0.95 and float(cos.max()) < 0.99999
    spans = [[(0, 10), (11, 40)], [(0, 34), (35, 66)], [(0, 5)]]
    for x, y in zip(float_side.encode_with_segments(TEXTS, spans).segments,
                    eight.encode_with_segments(TEXTS, spans).segments, strict=True):
        assert x.shape == y.shape and float((x * y).sum(axis=1).min()) > 0.95
    for query, best in (("How much current can OD0 drive?", 1), ("programmer supply voltage", 0)):
        assert int(np.argmax(b @ eight.encode([query])[0])) == int(np.argmax(a @ float_side.encode([query])[0])) == best
    q.write_bytes(b"not an onnx file")  # damaged: made again
    again = TextEmbedder(embedder.model_dir, threads=1, backend="int8")
    # (the same batch: activations are scaled per pass, so a text's vector depends a little on its batch)
    assert float((again.encode(TEXTS) * b).sum(axis=1).min()) > 0.9999 and q.stat().st_size > 1_000_000
    with pytest.raises(ModelError, match="cannot quantize"):
        quantize(tmp_path / "missing.onnx", tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()


def test_counting_tokens_while_another_thread_encodes_is_safe(embedder):
    """Two clients adding at once share one embedder: one thread counts a chunk's tokens (no
    padding) while another encodes a padded batch. The fast tokenizer keeps its padding setting
    between calls, so the batch came back with rows of unequal length ("setting an array element
    with a sequence", seen in CI) and a first use from two threads could fail to load it."""
    fresh = TextEmbedder(embedder.model_dir, threads=1, backend="onnx")
    texts = ["short one", "a much longer text " * 20, "mid length text here " * 5] * 3
    errors: list[str] = []
    stop = time.monotonic() + 4

    def run(work) -> None:
        try:
            while time.monotonic() < stop:
                work()
        except Exception as e:  # noqa: BLE001 - collected for the assertion below
            errors.append(repr(e))

    threads = [threading.Thread(target=run, args=(lambda: fresh.encode_with_segments(texts, [[(0, 5)]] * 9),)),
               threading.Thread(target=run, args=(lambda: (fresh.count_tokens_batch(texts),
                                                           fresh.count_tokens("hello world")),))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert fresh.count_tokens_batch(texts[:2]) == [2, 80]
