"""The text embedder's transformer on PyTorch with bfloat16 matrix products, for bulk passes on a
processor with bfloat16 units (cpu_features.py): token ids in, float32 hidden states out, like
onnx_text.OnnxForward, so pooling and segment vectors are the same code for both.

It loads only the transformer of the sentence-transformers folder: the pooling is ours
(onnx_text.pool), and importing sentence-transformers would cost about 2 s more per process
(bench/README.md, session 16). A BERT encoder (all-MiniLM-L6-v2 and most small sentence models)
runs as `BertEncoder`, a few lines of torch over the folder's safetensors weights, because
importing transformers costs another 2.8 s of every ingest (session 30); any other architecture,
or a folder without safetensors weights, loads with transformers' AutoModel.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import ModelError

# Texts per forward pass, and sequence lengths padded up to a multiple of PAD_TO: oneDNN keeps
# kernels (with their own copies of the weights) per matrix shape, so unpadded batches of every
# length grew the process by ~500 MB over a library; 16 texts padded to 32 tokens peaked 340 MB
# lower than 32 unpadded texts and ran 10-14% faster (bench/README.md, session 18). Padding to 16
# tokens: 5% fewer token positions on avr-libc's chunks (340 K for 293 K tokens, 359 K at 32), the
# pass 34.7 s against 38.4 s (medians of four), 20-50 MB more (session 29).
BATCH = 16
PAD_TO = 16
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def transformer_dir(model_dir: Path) -> Path:
    """The folder of the sentence-transformers folder's Transformer module (usually the folder)."""
    try:
        modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
        return model_dir / (modules[0].get("path") or "")
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return model_dir


class Bf16Forward:
    """A transformer run in bfloat16 by PyTorch. Raises ModelError when torch (or, for a model
    that is not a BERT encoder, transformers) is missing or the weights cannot be read."""

    batch = BATCH

    def __init__(self, model_dir: Path, threads: int | None = None) -> None:
        try:
            import torch
        except ImportError as e:
            raise ModelError("text_embedder", f"torch is not installed ({e})") from e
        if threads:
            torch.set_num_threads(threads)
        folder = transformer_dir(model_dir)
        try:
            self.model = BertEncoder.load(folder) or _auto_model(folder)
        except ModelError:
            raise
        except Exception as e:  # noqa: BLE001 - any load failure: the pass stays on ONNX Runtime
            raise ModelError("text_embedder", f"cannot load {model_dir.name} on PyTorch ({e})") from e

    def hidden(self, encoded) -> np.ndarray:
        """Hidden states [batch, tokens, dim] (float32) for a tokenizer's numpy output."""
        import torch

        feed = {n: torch.from_numpy(np.asarray(encoded[n], dtype=np.int64)) for n in _INPUTS if n in encoded}
        length = feed["input_ids"].shape[1]
        extra = -length % PAD_TO  # padding: masked out, it changes no real token's state
        if extra:
            feed = {n: torch.nn.functional.pad(t, (0, extra)) for n, t in feed.items()}
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
            out = self.model(**feed).last_hidden_state[:, :length]
        return out.float().numpy()


def _auto_model(folder: Path):
    from .offline_hf import offline_and_quiet

    offline_and_quiet()
    try:
        from transformers import AutoModel
    except ImportError as e:
        raise ModelError("text_embedder", f"transformers is not installed ({e})") from e
    return AutoModel.from_pretrained(str(folder)).eval()


class _Output:
    def __init__(self, last_hidden_state) -> None:
        self.last_hidden_state = last_hidden_state


class BertEncoder:
    """BERT's encoder as transformers' BertModel computes it (absolute positions, post-norm
    layers, GELU), from the weights alone: called like that model, it returns the last hidden
    states. Under `torch.autocast` its matrix products run in bfloat16 as the model's would."""

    def __init__(self, weights: dict, config: dict) -> None:
        import torch  # loaded: the weights are its tensors

        self.f = torch.nn.functional
        self.w = weights
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

    @classmethod
    def load(cls, folder: Path) -> BertEncoder | None:
        """The encoder of a BERT folder with safetensors weights; None for any other model."""
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        weights = folder / "model.safetensors"
        if not (isinstance(config, dict) and config.get("model_type") == "bert" and weights.is_file()
                and config.get("hidden_act", "gelu") == "gelu"
                and config.get("position_embedding_type", "absolute") == "absolute"
                and not config.get("is_decoder")):
            return None
        from safetensors.torch import load_file

        tensors = load_file(str(weights))
        return cls({k: t.float() if t.is_floating_point() else t for k, t in tensors.items()}, config)

    def _p(self, name: str):
        return self.w[self.prefix + name]

    def _linear(self, x, name: str):
        return self.f.linear(x, self._p(name + ".weight"), self._p(name + ".bias"))

    def _norm(self, x, name: str):
        return self.f.layer_norm(x, x.shape[-1:], self._p(name + ".weight"), self._p(name + ".bias"), self.eps)

    def __call__(self, input_ids, attention_mask, token_type_ids=None) -> _Output:
        import torch

        f = self.f
        batch, length = input_ids.shape
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        positions = torch.arange(length).unsqueeze(0)
        x = (f.embedding(input_ids, self._p("embeddings.word_embeddings.weight"))
             + f.embedding(positions, self._p("embeddings.position_embeddings.weight"))
             + f.embedding(token_type_ids, self._p("embeddings.token_type_embeddings.weight")))
        x = self._norm(x, "embeddings.LayerNorm")
        # padded keys take no attention: a boolean mask [batch, 1, 1, keys]
        keep = attention_mask.bool()[:, None, None, :]
        dim = x.shape[-1]

        def split(t):
            return t.view(batch, length, self.heads, dim // self.heads).transpose(1, 2)

        for i in range(self.layers):
            at = f"encoder.layer.{i}.attention."
            q = split(self._linear(x, at + "self.query"))
            k = split(self._linear(x, at + "self.key"))
            v = split(self._linear(x, at + "self.value"))
            ctx = f.scaled_dot_product_attention(q, k, v, attn_mask=keep)
            ctx = ctx.transpose(1, 2).reshape(batch, length, dim)
            x = self._norm(self._linear(ctx, at + "output.dense") + x, at + "output.LayerNorm")
            inner = f.gelu(self._linear(x, f"encoder.layer.{i}.intermediate.dense"))
            x = self._norm(self._linear(inner, f"encoder.layer.{i}.output.dense") + x,
                           f"encoder.layer.{i}.output.LayerNorm")
        return _Output(x)
