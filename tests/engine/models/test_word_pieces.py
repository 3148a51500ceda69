"""The text embedder's tokenizer without transformers (models/word_pieces.py) and its BERT encoder
without transformers (models/torch_bf16.BertEncoder): the same ids, offsets and hidden states as
transformers gives for the real all-MiniLM-L6-v2, and a query or a bulk pass that never imports
transformers (it imports torch: seconds and hundreds of MB before a CLI search's first result)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from mmrag_desktop.engine.models.text_embedder import TextEmbedder
from mmrag_desktop.engine.models.torch_bf16 import BertEncoder, Bf16Forward, _auto_model, transformer_dir
from mmrag_desktop.engine.models.word_pieces import WordPieces

REAL_PDF = Path(__file__).resolve().parents[2] / "data" / "real" / "shared-mime-info-spec.pdf"
ODD = ["", "   ", "Ünïcödé café naïve 東京 ﬁle ﬂow — “quotes” ½ µA Ω", "soft\u00adhyphen", "tab\there\nnew line",
       "x" * 3000, "[CLS] [SEP] [PAD] literal specials", "0x1F, 4.7kΩ, ±5 %, 3.3V/5V"]


@pytest.fixture(scope="module")
def texts():
    """Real manual text: each line of a real PDF and each page's whole text, and odd strings."""
    with pymupdf.open(REAL_PDF) as doc:
        pages = [page.get_text() for page in doc]
    return [line for page in pages for line in page.splitlines()][:600] + pages + ODD


def _auto_tokenizer(folder):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


def test_ids_masks_and_offsets_are_those_of_transformers(embedder, texts):
    ours, theirs = WordPieces.load(embedder.model_dir), _auto_tokenizer(embedder.model_dir)
    assert ours is not None and ours.get_vocab() == theirs.get_vocab()
    for start in range(0, len(texts), 16):
        batch = texts[start:start + 16]
        a = ours(batch, add_special_tokens=False, truncation=False)
        b = theirs(batch, add_special_tokens=False, truncation=False)
        assert a["input_ids"] == b["input_ids"] and a["attention_mask"] == b["attention_mask"]
        kw = {"padding": True, "truncation": True, "max_length": 256, "return_offsets_mapping": True,
              "return_tensors": "np"}
        a, b = ours(batch, **kw), theirs(batch, **kw)
        assert set(a) == set(b)
        for name in a:
            assert np.array_equal(a[name], b[name]), name
    one = "OD0 can drive up to 100 mA current."
    assert ours(one, add_special_tokens=False)["input_ids"] == theirs(one, add_special_tokens=False)["input_ids"]
    # truncation without a length: the folder's own limit (512), as transformers does
    long = ours(["word " * 700], truncation=True)["input_ids"][0]
    assert len(long) == 512 == len(theirs(["word " * 700], truncation=True)["input_ids"][0])


def test_a_folder_whose_settings_it_does_not_reproduce_keeps_transformers(embedder, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(embedder.model_dir, folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["do_lower_case"] = False  # over tokenizer.json's lower-casing normaliser
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    assert WordPieces.load(folder) is None
    emb = TextEmbedder(folder, backend="onnx")
    assert type(emb.tokenizer).__module__.startswith("transformers")
    assert emb.count_tokens("Firmware Update") == len(_auto_tokenizer(folder).tokenize("Firmware Update"))
    (folder / "tokenizer.json").unlink()
    assert WordPieces.load(folder) is None


def test_the_bert_encoder_gives_transformers_hidden_states(embedder, texts):
    import torch

    folder = transformer_dir(embedder.model_dir)
    ours, theirs = BertEncoder.load(folder), _auto_model(folder)
    assert ours is not None
    tokens = WordPieces.load(embedder.model_dir)
    forward = Bf16Forward.__new__(Bf16Forward)  # the pass's own padding and autocast, either model
    for start in range(0, 96, 16):
        enc = tokens(texts[start * 5:start * 5 + 16], padding=True, truncation=True, max_length=256,
                     return_tensors="np")
        forward.model = ours
        a = forward.hidden(enc)
        forward.model = theirs
        b = forward.hidden(enc)
        keep = enc["attention_mask"].astype(bool)
        x, y = a[keep], b[keep]
        cos = (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)
        assert float(cos.min()) > 0.999
    # float32 without autocast: the same numbers up to rounding
    enc = tokens(texts[:8], padding=True, truncation=True, max_length=256, return_tensors="np")
    feed = {k: torch.from_numpy(v) for k, v in enc.items()}
    with torch.inference_mode():
        exact = ours(**feed).last_hidden_state.numpy(), theirs(**feed).last_hidden_state.numpy()
    keep = enc["attention_mask"].astype(bool)
    assert np.abs(exact[0][keep] - exact[1][keep]).max() < 1e-4


def test_another_architecture_loads_with_transformers(embedder, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(transformer_dir(embedder.model_dir), folder)
    config = json.loads((folder / "config.json").read_text())
    config["position_embedding_type"] = "relative_key"  # not what BertEncoder computes
    (folder / "config.json").write_text(json.dumps(config))
    assert BertEncoder.load(folder) is None


_NO_TRANSFORMERS = """
import sys
from mmrag_desktop.engine.models.text_embedder import TextEmbedder
emb = TextEmbedder(backend=sys.argv[1], threads=1)
texts = ["Hold the BOOT button while plugging in the USB cable."] * 20
vec = emb.encode(texts[:1]) if sys.argv[1] == "onnx" else emb.encode_with_segments(texts, [[(0, 4)]] * 20, bulk=True).vectors
print(vec.shape[1], emb.count_tokens("Firmware update"), emb.bulk_backend,
      sorted(m for m in ("transformers", "sentence_transformers", "torch") if m in sys.modules))
"""


@pytest.mark.parametrize("backend", ["onnx", "bf16"])
def test_a_query_or_a_bulk_pass_never_imports_transformers(embedder, backend):
    env = dict(os.environ, MMRAG_CACHE_DIR=os.environ["MMRAG_CACHE_DIR"])
    embedder.encode(["the session's export exists"])  # the ONNX export is made by the session's embedder
    out = subprocess.run([sys.executable, "-c", _NO_TRANSFORMERS, backend], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    dim, tokens, bulk, imported = out.stdout.split(maxsplit=3)
    assert (dim, tokens, bulk) == ("384", str(embedder.count_tokens("Firmware update")), backend)
    # a query: neither torch nor transformers; a bulk pass in bfloat16: torch only
    assert imported.strip() == ("[]" if backend == "onnx" else "['torch']")
