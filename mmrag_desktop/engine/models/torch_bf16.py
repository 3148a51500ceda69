"""The text embedder's transformer on PyTorch with bfloat16 matrix products, for bulk passes on a
processor with bfloat16 units (cpu_features.py): token ids in, float32 hidden states out, like
onnx_text.OnnxForward, so pooling and segment vectors are the same code for both.

It loads only the transformer of the sentence-transformers folder (transformers' AutoModel): the
pooling is ours (onnx_text.pool), and importing sentence-transformers would cost about 2 s more
per process (bench/README.md, session 16).
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
    """A transformer run in bfloat16 by PyTorch. Raises ModelError when torch or transformers is
    missing or the weights cannot be read."""

    batch = BATCH

    def __init__(self, model_dir: Path, threads: int | None = None) -> None:
        from .offline_hf import offline_and_quiet

        offline_and_quiet()
        try:
            import torch
            from transformers import AutoModel
        except ImportError as e:
            raise ModelError("text_embedder", f"torch/transformers is not installed ({e})") from e
        if threads:
            torch.set_num_threads(threads)
        try:
            self.model = AutoModel.from_pretrained(str(transformer_dir(model_dir))).eval()
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
