"""Citations for sentences the model left uncited, added only where the evidence clearly says it.

Small models often state a fact from the evidence without citing it. A sentence without a valid
citation gets one when an evidence sentence is close in meaning (MiniLM cosine >= `MIN_COSINE`)
and every number in the model's sentence also appears in that block (so "7.0 V" copied from
nowhere is not credited to a block that says "5 V"). These citations are reported separately
(`Answer.stats["attributed"]`); the model's own citation accuracy is measured before this step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .citations import find_marks, split_sentences
from .evidence import EvidenceBlock
from .extractive import candidate_sentences

MIN_COSINE = 0.6
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _numbers(text: str) -> set[str]:
    return {n.replace(",", ".") for n in _NUMBER.findall(text)}


def attribute_uncited(
    text: str, blocks: Sequence[EvidenceBlock], embedder, *, min_cosine: float = MIN_COSINE
) -> tuple[str, list[tuple[str, int]]]:
    """Return (text with added markers, [(sentence, block id), ...]).

    Only sentences of at least three words without any valid marker are considered; the marker
    goes before the sentence's final punctuation. Without an embedder or blocks nothing changes.
    """
    if embedder is None or not blocks or not text.strip():
        return text, []
    valid = {b.id for b in blocks}
    todo = []
    for s in split_sentences(text):
        if len(_WORD.findall(s)) < 3 or "`" in s:
            continue
        if any(i in valid for m in find_marks(s) if not m.malformed for i in m.ids):
            continue
        todo.append(s)
    cands = candidate_sentences(blocks, min_words=3)
    if not todo or not cands:
        return text, []
    vecs = embedder.encode(todo + [c.text for c in cands])
    sv, cv = vecs[: len(todo)], vecs[len(todo) :]
    sims = sv @ cv.T
    by_id = {b.id: b for b in blocks}
    out, done, pos = [], [], 0
    for i, s in enumerate(todo):
        order = sims[i].argsort()[::-1]
        chosen = None
        for j in order[:5]:
            if sims[i, j] < min_cosine:
                break
            block = by_id[cands[j].block_id]
            if _numbers(s) <= _numbers(block.text):
                chosen = block.id
                break
        if chosen is None:
            continue
        at = text.find(s, pos)
        if at < 0:
            continue
        body = s.rstrip()
        end = len(body)
        while end > 0 and body[end - 1] in ".!?:;":
            end -= 1
        new = f"{body[:end]} [{chosen}]{body[end:]}"
        out.append(text[pos:at] + new)
        pos = at + len(body)
        done.append((s, chosen))
    out.append(text[pos:])
    return "".join(out), done
