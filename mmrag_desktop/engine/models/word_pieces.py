"""A text embedder's tokenizer run by the `tokenizers` library directly, without transformers.

transformers' AutoTokenizer reads the same `tokenizer.json` with the same library, but importing
transformers imports torch: about 4 s and 250 MB before a process's first query or first chunk
(bench/README.md, session 30). `WordPieces` gives what the embedder asks of a tokenizer (ids,
attention mask, token types, character offsets, padded numpy batches, the vocabulary) for a folder
whose tokenizer is a BERT WordPiece one with its settings all in `tokenizer.json`; `load` returns
None for any other folder, which keeps AutoTokenizer. tests/engine/models/test_word_pieces.py
checks the outputs against AutoTokenizer's on real chunk texts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

# tokenizer_config.json settings a BERT tokenizer applies over tokenizer.json's normalizer, with the
# normalizer's name for each; a folder where they disagree is left to AutoTokenizer
_BERT_CLASSES = ("BertTokenizer", "BertTokenizerFast")
_NORMALIZER_KEYS = {"do_lower_case": "lowercase", "strip_accents": "strip_accents",
                    "tokenize_chinese_chars": "handle_chinese_chars"}


class WordPieces:
    """Callable like a transformers fast tokenizer for the arguments the embedder uses."""

    def __init__(self, tokenizer: Any, pad_token: str, model_max_length: int | None = None) -> None:
        self._tok = tokenizer
        self._max_length = model_max_length
        self._tok.no_padding()
        self._tok.no_truncation()
        self._pad_id = tokenizer.token_to_id(pad_token)
        self._pad_token = pad_token

    @classmethod
    def load(cls, folder: Path) -> WordPieces | None:
        """The folder's tokenizer, or None when it is not one this class reproduces exactly (then
        transformers' AutoTokenizer reads it)."""
        try:
            config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
            spec = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(config, dict) or config.get("tokenizer_class") not in _BERT_CLASSES:
            return None
        normalizer = spec.get("normalizer") or {}
        if normalizer.get("type") != "BertNormalizer" or (spec.get("model") or {}).get("type") != "WordPiece":
            return None
        for key, name in _NORMALIZER_KEYS.items():
            if key in config and config[key] != normalizer.get(name):
                return None
        pad = config.get("pad_token", "[PAD]")
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception:  # noqa: BLE001 - any file the library cannot read is AutoTokenizer's to judge
            return None
        if not isinstance(pad, str) or tokenizer.token_to_id(pad) is None:
            return None
        limit = config.get("model_max_length")
        return cls(tokenizer, pad, limit if isinstance(limit, int) and 0 < limit < 1_000_000 else None)

    def get_vocab(self) -> dict[str, int]:
        return self._tok.get_vocab()

    def __call__(self, texts: str | list[str], *, add_special_tokens: bool = True, padding: bool = False,
                 truncation: bool = False, max_length: int | None = None, return_offsets_mapping: bool = False,
                 return_tensors: str | None = None) -> dict[str, Any]:
        """As a fast tokenizer's call: lists per text (flat lists for one string), or arrays padded
        to the longest text with `return_tensors="np"`."""
        if return_tensors not in (None, "np"):
            raise ValueError(f"return_tensors={return_tensors!r} is not supported here")
        single = isinstance(texts, str)
        if truncation and (max_length or self._max_length):
            self._tok.enable_truncation(max_length or self._max_length)
        if padding:
            self._tok.enable_padding(pad_id=self._pad_id, pad_token=self._pad_token)
        try:
            encodings = self._tok.encode_batch([texts] if single else list(texts),
                                               add_special_tokens=add_special_tokens)
        finally:
            self._tok.no_padding()
            self._tok.no_truncation()
        out: dict[str, Any] = {"input_ids": [e.ids for e in encodings],
                               "token_type_ids": [e.type_ids for e in encodings],
                               "attention_mask": [e.attention_mask for e in encodings]}
        if return_offsets_mapping:
            out["offset_mapping"] = [e.offsets for e in encodings]
        if return_tensors == "np":
            return {k: np.asarray(v, dtype=np.int64) for k, v in out.items()}
        if single:
            return {k: v[0] for k, v in out.items()}
        return out
