"""The text embedder's forward pass on ONNX Runtime: the same vectors as PyTorch, about twice as fast
on these CPUs (bench/README.md, "session 13").

A sentence-transformers folder made of a Transformer, a mean or CLS Pooling and optionally a
Normalize module (all-MiniLM-L6-v2, all-mpnet-base-v2, e5, ...) is exported once to ONNX with
torch (`torch.onnx.export`, which needs the `onnx` package) into the user cache, keyed by the
folder and its weight files, in child processes (text_embedder.export_isolated): the process that
embeds loads only the exported file and never imports transformers.
Any other layout (a Dense layer, weighted pooling, a custom module) keeps the PyTorch path.
ONNX Runtime comes with PyMuPDF.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError

log = logging.getLogger(__name__)

EXPORT_VERSION = 2  # bump when the export changes: old files are then ignored (2: attention fused)
# texts per forward pass: ONNX Runtime keeps the largest activations of any pass in its memory arena;
# 3,000 chunks with their segments at 32 per pass peaked at 977 MB, at 8 per pass 514 MB and ran as
# fast (bench/README.md, "session 13")
BATCH = 8
FUSED_TYPES = ("bert",)  # model types whose export gets ONNX Runtime's transformer fusions (`fuse`)
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"


@dataclass(frozen=True)
class Layout:
    """What the folder's modules do after the transformer: `pooling` "mean" or "cls"; the output
    `dim`; the model's window `max_seq_length` (word pieces, specials included)."""

    pooling: str
    dim: int
    max_seq_length: int


def onnx_layout(model_dir: Path) -> Layout | None:
    """The folder's layout when ONNX Runtime can run it (see module docstring), else None."""
    try:
        modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
        types = [m["type"] for m in modules]
        if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
            return None
        pool_dir = model_dir / modules[1]["path"]
        pool = json.loads((pool_dir / "config.json").read_text(encoding="utf-8"))
        modes = [k for k, v in pool.items() if k.startswith("pooling_mode_") and v is True]
        pooling = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}.get(modes[0]) if len(modes) == 1 else None
        if pooling is None or pool.get("include_prompt") is False:
            return None
        bert = json.loads((model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
        if bert.get("do_lower_case"):  # the text would be changed before tokenizing: offsets would not match
            return None
        return Layout(pooling, int(pool["word_embedding_dimension"]), int(bert.get("max_seq_length") or 256))
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def exported_path(model_dir: Path, cache: Path) -> Path:
    """Where the folder's export lives: named after the folder, keyed by its weight files."""
    h = hashlib.sha256(f"{EXPORT_VERSION}|{model_dir.resolve()}".encode())
    for f in sorted(model_dir.iterdir()):
        if f.is_file() and f.suffix in (".safetensors", ".bin", ".json", ".txt"):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{int(st.st_mtime)}".encode())
    name = model_dir.parent.name if model_dir.name == "model" else model_dir.name
    return cache / "onnx" / f"{name}-{h.hexdigest()[:16]}.onnx"


def export(st_model, tokenizer, path: Path) -> bool:
    """Write the transformer of a loaded SentenceTransformer as ONNX at `path` (atomically); returns
    whether ONNX Runtime's fusions (`fuse`) apply to it (a BERT-family model, exported with its plain
    attention graph). Raises ModelError when torch cannot export it (no `onnx` package, an unsupported
    operator)."""
    import torch

    names = [n for n in tokenizer.model_input_names if n in ("input_ids", "attention_mask", "token_type_ids")]
    auto_model = st_model[0].auto_model
    attention = getattr(auto_model.config, "_attn_implementation", None)

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = auto_model

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    sample = tokenizer(["an example sentence", "two"], padding=True, return_tensors="pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=path.parent)
    os.close(fd)
    fusable = getattr(auto_model.config, "model_type", "") in FUSED_TYPES
    switched = False
    if fusable and attention != "eager":
        try:  # the plain attention graph, the one ONNX Runtime's optimizer recognises
            auto_model.set_attn_implementation("eager")
            switched = True
        except Exception as e:  # noqa: BLE001 - an older transformers: exported as it is, unfused
            log.warning("the text model's ONNX export is not fused (%s: %s)", type(e).__name__, e)
            fusable = False
    try:
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on control flow: not for a user's console
            torch.onnx.export(Hidden().eval(), tuple(sample[n] for n in names), tmp, input_names=names,
                              output_names=["hidden"], opset_version=17, dynamo=False,
                              dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "hidden"]})
        os.replace(tmp, path)
    except Exception as e:  # noqa: BLE001 - any exporter failure means: stay on PyTorch
        Path(tmp).unlink(missing_ok=True)
        raise ModelError("text_embedder", f"cannot export to ONNX ({type(e).__name__}: {e})") from e
    finally:
        if switched and attention:
            auto_model.set_attn_implementation(attention)
    return fusable


def fuse(path: Path, config) -> bool:
    """Rewrite the BERT-family export at `path` with ONNX Runtime's transformer fusions (attention,
    embedding and skip layer norms, bias + GELU): the same vectors (cosine 0.9999999), 10-15%
    less time per batch (bench/README.md, session 18). True when rewritten; False, the export left
    as it is, when the optimizer cannot (a model it does not know, an old ONNX Runtime)."""
    try:
        from onnxruntime.transformers.optimizer import optimize_model

        with _quiet():  # the optimizer reports every fusion on the root logger
            model = optimize_model(str(path), model_type="bert", num_heads=int(config.num_attention_heads),
                                   hidden_size=int(config.hidden_size), opt_level=0)
            model.save_model_to_file(str(path))
        return True
    except Exception as e:  # noqa: BLE001 - the unfused export runs as well, only slower
        log.warning("the text model's ONNX export is not fused (%s: %s)", type(e).__name__, e)
        return False


@contextmanager
def _quiet():
    """The root logger and warnings silenced while ONNX Runtime's tools run: they report on the root
    logger, which is not for a user's console."""
    root = logging.getLogger()
    was = root.disabled
    root.disabled = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.disabled = was


def quantized_path(path: Path) -> Path:
    """Where the 8-bit copy of an export lives (next to it)."""
    return path.with_name(f"{path.stem}-int8.onnx")


def quantize(src: Path, dst: Path) -> None:
    """Write an 8-bit copy of the export `src` at `dst` (atomically): the weights of every matrix
    product as signed 8-bit integers with one scale per output column, activations quantized on the
    fly (ONNX Runtime's dynamic quantization). Embeddings, layer norms and softmax stay float.
    Raises ModelError when ONNX Runtime cannot quantize it."""
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=dst.parent)
    os.close(fd)
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with _quiet():  # the quantizer logs advice on pre-processing to the root logger
            # a fused export's outputs have no inferred type (ONNX Runtime's own operators): float
            quantize_dynamic(str(src), tmp, op_types_to_quantize=["MatMul", "Attention"], per_channel=True,
                             weight_type=QuantType.QInt8, extra_options={"DefaultTensorType": 1})
        os.replace(tmp, dst)
    except Exception as e:  # noqa: BLE001 - any quantizer failure means: stay on the float export
        Path(tmp).unlink(missing_ok=True)
        raise ModelError("text_embedder", f"cannot quantize the ONNX export ({type(e).__name__}: {e})") from e


class OnnxForward:
    """An ONNX Runtime session over an exported transformer: token ids in, hidden states out."""

    batch = BATCH  # texts per forward pass (see BATCH)

    def __init__(self, path: Path, threads: int | None = None) -> None:
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise ModelError("text_embedder", "onnxruntime is not installed") from e
        so = ort.SessionOptions()
        so.intra_op_num_threads = max(1, int(threads or os.cpu_count() or 1))
        so.inter_op_num_threads = 1
        so.enable_mem_pattern = False  # inputs change shape with every batch: no plan to reuse
        # idle threads sleep instead of spinning: on a busy 2-core machine spinning threads starve the rest
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - a damaged cache file: the caller exports again
            raise ModelError("text_embedder", f"cannot load {path.name} ({e})") from e
        self.inputs = [i.name for i in self.session.get_inputs()]

    def hidden(self, encoded) -> np.ndarray:
        """Hidden states [batch, tokens, dim] (float32) for a tokenizer's numpy output."""
        feed = {n: np.asarray(encoded[n], dtype=np.int64) for n in self.inputs}
        return self.session.run(None, feed)[0]


def pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """Sentence vectors from hidden states as sentence-transformers' Pooling does, L2-normalised."""
    if pooling == "cls":
        v = hidden[:, 0]
    else:
        m = mask[..., None].astype(np.float32)
        v = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return (v / np.where(n == 0, 1.0, n)).astype(np.float32)
