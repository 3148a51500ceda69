"""Builders of tiny, randomly initialised models for tests (no model can be downloaded here).

- `build_tiny_clip(folder)`: a transformers CLIPModel (tiny config) + CLIPTokenizer files built
  offline (byte-level vocabulary, no merges) + preprocessor_config.json — the same files a user's
  CLIP folder holds.
- `build_tiny_vlm(folder)`: a llama-architecture text GGUF (2 blocks, width 64, SPM vocab with byte
  fallback and a chat template) and a LLaVA-style mmproj GGUF (projector_type mlp), written with
  the `gguf` package (ENVIRONMENT.md describes the recipe).
- `build_tiny_cross_encoder(folder)`: a transformers BertForSequenceClassification (1 layer, width
  32, one label) + a WordPiece tokenizer over single characters — what sentence-transformers'
  CrossEncoder loads from a user's reranker folder.
Their outputs are meaningless; tests assert on shapes, plumbing, storage and errors.
The few tests at the bottom check the builders themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

# ---- tiny CLIP ------------------------------------------------------------------------------


def _bytes_to_unicode() -> dict[int, str]:
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs], strict=True))


def build_tiny_clip(folder: Path, *, hidden: int = 32, projection: int = 16, image_size: int = 32,
                    patch: int = 8, seed: int = 0, vision_hidden: int | None = None, layers: int = 2,
                    heads: int = 2) -> Path:
    """Write a random tiny CLIP folder (config.json, model.safetensors, tokenizer, preprocessor)."""
    import torch
    from transformers import CLIPConfig, CLIPModel

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chars = list(_bytes_to_unicode().values())
    vocab = {c: i for i, c in enumerate(chars)}
    for c in chars:
        vocab[c + "</w>"] = len(vocab)
    vocab["<|startoftext|>"] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "CLIPTokenizer", "model_max_length": 32, "unk_token": "<|endoftext|>",
        "bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
        "do_lower_case": True}), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(json.dumps({
        "unk_token": "<|endoftext|>", "bos_token": "<|startoftext|>", "eos_token": "<|endoftext|>",
        "pad_token": "<|endoftext|>"}), encoding="utf-8")
    (folder / "preprocessor_config.json").write_text(json.dumps({
        "image_processor_type": "CLIPImageProcessor", "do_resize": True, "size": {"shortest_edge": image_size},
        "do_center_crop": True, "crop_size": {"height": image_size, "width": image_size}, "do_rescale": True,
        "rescale_factor": 1 / 255, "do_normalize": True, "image_mean": [0.48145466, 0.4578275, 0.40821073],
        "image_std": [0.26862954, 0.26130258, 0.27577711], "resample": 3, "do_convert_rgb": True}),
        encoding="utf-8")
    vh = vision_hidden or hidden
    config = CLIPConfig(
        text_config={"vocab_size": len(vocab), "hidden_size": hidden, "intermediate_size": hidden * 2,
                     "num_hidden_layers": layers, "num_attention_heads": heads, "max_position_embeddings": 32,
                     "bos_token_id": vocab["<|startoftext|>"], "eos_token_id": vocab["<|endoftext|>"],
                     "pad_token_id": vocab["<|endoftext|>"]},
        vision_config={"hidden_size": vh, "intermediate_size": vh * 2 if vh < 512 else vh * 4,
                       "num_hidden_layers": layers, "num_attention_heads": heads, "image_size": image_size,
                       "patch_size": patch},
        projection_dim=projection,
    )
    torch.manual_seed(seed)
    CLIPModel(config).save_pretrained(str(folder))
    return folder


# ---- tiny GGUF VLM pair -----------------------------------------------------------------------

CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}"
    "{% endif %}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def _spm_vocab() -> tuple[list[str], list[float], list[int]]:
    tokens = ["<unk>", "<s>", "</s>"]
    types = [2, 3, 3]  # UNKNOWN, CONTROL, CONTROL
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        types.append(6)  # BYTE
    printable = [chr(c) for c in range(33, 127)] + ["▁"]
    words = ["▁" + w for w in ("the", "a", "figure", "plot", "reset", "button", "of", "and", "is")]
    for t in printable + words + ['{"', '":', '",', '"}', "▁{", "▁}"]:
        tokens.append(t)
        types.append(1)  # NORMAL
    scores = [0.0] * 3 + [0.0] * 256 + [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, types


def build_tiny_llama_gguf(path: Path, *, n_embd: int = 64, n_ff: int = 128, blocks: int = 2, heads: int = 4,
                          chat_template: bool = True, seed: int = 0) -> Path:
    """Write a random tiny llama GGUF text model with an SPM vocabulary and (optionally) a chat template."""
    import gguf

    rng = np.random.default_rng(seed)
    tokens, scores, types = _spm_vocab()
    n_vocab = len(tokens)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny-test-llama")
    w.add_context_length(512)
    w.add_embedding_length(n_embd)
    w.add_block_count(blocks)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(heads)
    w.add_head_count_kv(heads)
    w.add_rope_dimension_count(n_embd // heads)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(0)  # all F32
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    if chat_template:
        w.add_chat_template(CHAT_TEMPLATE)

    def t(name: str, *shape: int, scale: float = 0.05) -> None:
        w.add_tensor(name, (rng.standard_normal(shape) * scale).astype(np.float32))

    def ones(name: str, n: int) -> None:
        w.add_tensor(name, np.ones(n, dtype=np.float32))

    t("token_embd.weight", n_vocab, n_embd, scale=0.5)
    ones("output_norm.weight", n_embd)
    t("output.weight", n_vocab, n_embd, scale=0.5)
    for i in range(blocks):
        ones(f"blk.{i}.attn_norm.weight", n_embd)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            t(f"blk.{i}.{name}.weight", n_embd, n_embd)
        ones(f"blk.{i}.ffn_norm.weight", n_embd)
        t(f"blk.{i}.ffn_gate.weight", n_ff, n_embd)
        t(f"blk.{i}.ffn_up.weight", n_ff, n_embd)
        t(f"blk.{i}.ffn_down.weight", n_embd, n_ff)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return Path(path)


def build_tiny_mmproj(path: Path, *, text_embd: int = 64, width: int = 32, ffn: int = 64, blocks: int = 2,
                      heads: int = 4, image_size: int = 32, patch: int = 8, mm_hidden: int = 48,
                      drop: tuple[str, ...] = (), seed: int = 1) -> Path:
    """Write a random LLaVA-style (projector_type mlp) mmproj GGUF whose output width is `text_embd`.

    `drop` leaves tensors out (for negative tests; some omissions make llama.cpp segfault).
    """
    import gguf

    rng = np.random.default_rng(seed)
    n_patches = (image_size // patch) ** 2
    w = gguf.GGUFWriter(str(path), "clip")
    w.add_name("tiny-test-mmproj")
    w.add_bool("clip.has_vision_encoder", True)
    w.add_bool("clip.has_text_encoder", False)
    w.add_bool("clip.has_llava_projector", True)
    w.add_string("clip.projector_type", "mlp")
    w.add_bool("clip.use_gelu", True)
    w.add_uint32("clip.vision.image_size", image_size)
    w.add_uint32("clip.vision.patch_size", patch)
    w.add_uint32("clip.vision.embedding_length", width)
    w.add_uint32("clip.vision.feed_forward_length", ffn)
    w.add_uint32("clip.vision.block_count", blocks)
    w.add_uint32("clip.vision.attention.head_count", heads)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    w.add_uint32("clip.vision.projection_dim", text_embd)
    w.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    w.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])
    w.add_uint32("general.file_type", 0)

    def add(name: str, arr: np.ndarray) -> None:
        if name not in drop:
            w.add_tensor(name, arr.astype(np.float32))

    def r(*shape: int, scale: float = 0.05) -> np.ndarray:
        return rng.standard_normal(shape) * scale

    add("v.patch_embd.weight", r(width, 3, patch, patch))
    add("v.patch_embd.bias", r(width))
    add("v.class_embd", r(width))
    add("v.position_embd.weight", r(n_patches + 1, width))
    add("v.pre_ln.weight", np.ones(width))
    add("v.pre_ln.bias", np.zeros(width))
    for i in range(blocks):
        p = f"v.blk.{i}"
        add(f"{p}.ln1.weight", np.ones(width))
        add(f"{p}.ln1.bias", np.zeros(width))
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            add(f"{p}.{name}.weight", r(width, width))
            add(f"{p}.{name}.bias", r(width))
        add(f"{p}.ln2.weight", np.ones(width))
        add(f"{p}.ln2.bias", np.zeros(width))
        add(f"{p}.ffn_up.weight", r(ffn, width))
        add(f"{p}.ffn_up.bias", r(ffn))
        add(f"{p}.ffn_down.weight", r(width, ffn))
        add(f"{p}.ffn_down.bias", r(width))
    add("mm.0.weight", r(mm_hidden, width))
    add("mm.0.bias", r(mm_hidden))
    add("mm.2.weight", r(text_embd, mm_hidden))
    add("mm.2.bias", r(text_embd))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return Path(path)


def build_tiny_vlm(folder: Path, **kwargs) -> tuple[Path, Path]:
    """A matching (model, mmproj) pair in `folder`: tiny-llama.gguf and mmproj-tiny.gguf."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = build_tiny_llama_gguf(folder / "tiny-llama.gguf", **kwargs)
    mmproj = build_tiny_mmproj(folder / "mmproj-tiny.gguf")
    return model, mmproj


# ---- tiny cross-encoder ------------------------------------------------------------------------


def build_tiny_cross_encoder(folder: Path, *, seed: int = 0, max_len: int = 128, spread: float = 0.5) -> Path:
    """Write a random tiny cross-encoder folder (config.json with BertForSequenceClassification,
    model.safetensors, vocab.txt + tokenizer files). `spread` is the weight initialisation range:
    larger than BERT's 0.02 so random scores differ clearly between passages."""
    import string

    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chars = string.ascii_lowercase + string.digits
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars, *string.punctuation, *("##" + c for c in chars)]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True,
                      model_max_length=max_len).save_pretrained(str(folder))
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=max_len, num_labels=1,
                        initializer_range=spread)
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(str(folder))
    return folder


# ---- checks of the builders --------------------------------------------------------------------
