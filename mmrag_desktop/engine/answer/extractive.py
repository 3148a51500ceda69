"""Extractive answers: the evidence sentences that best match the question, each cited."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .confidence import content_terms
from .evidence import EvidenceBlock

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])|\n+|\s+(?=\u2022)")


@dataclass
class Candidate:
    block_id: int
    position: int
    text: str
    score: float = 0.0


def candidate_sentences(blocks: Sequence[EvidenceBlock], min_words: int = 4, max_words: int = 60) -> list[Candidate]:
    """Sentences of every block (truncation ellipses dropped), long ones cut to `max_words`."""
    out = []
    for b in blocks:
        text = b.text[:-4] if b.truncated and b.text.endswith(" ...") else b.text
        for pos, s in enumerate(_SPLIT.split(text)):
            words = s.split()
            if len(words) < min_words:
                continue
            s = " ".join(words[:max_words]) + (" ..." if len(words) > max_words else "")
            out.append(Candidate(b.id, pos, s))
    return out


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, min(len(a), len(b)))


def select_sentences(
    question: str,
    blocks: Sequence[EvidenceBlock],
    embedder=None,
    *,
    max_sentences: int = 3,
    max_words: int = 110,
) -> list[Candidate]:
    """The best sentences for `question`, in reading order (block, position).

    Score = cosine(question, sentence) with `embedder` (if given) + 0.5 x share of the
    question's content words in the sentence + a small bonus for better-ranked blocks.
    Near-duplicates are skipped. Returns [] when the blocks hold no usable sentence.
    """
    cands = candidate_sentences(blocks)
    if not cands:
        return []
    q_terms = set(content_terms(question))
    cos = None
    if embedder is not None:
        vecs = embedder.encode([question] + [c.text for c in cands])
        cos = vecs[1:] @ vecs[0]
    n = max(b.id for b in blocks)
    for i, c in enumerate(cands):
        terms = set(content_terms(c.text))
        cover = len(q_terms & terms) / len(q_terms) if q_terms else 0.0
        c.score = (float(cos[i]) if cos is not None else 0.0) + 0.5 * cover + 0.05 * (n - c.block_id) / n
    chosen: list[Candidate] = []
    words = 0
    for c in sorted(cands, key=lambda c: -c.score):
        terms = set(content_terms(c.text))
        if any(_overlap(terms, set(content_terms(o.text))) > 0.7 for o in chosen):
            continue
        w = len(c.text.split())
        if chosen and words + w > max_words:
            continue
        chosen.append(c)
        words += w
        if len(chosen) >= max_sentences:
            break
    return sorted(chosen, key=lambda c: (c.block_id, c.position))


def extractive_text(chosen: Sequence[Candidate]) -> str:
    """The answer text: each sentence followed by its citation marker."""
    parts = []
    for c in chosen:
        s = c.text.rstrip()
        if s and s[-1] not in ".!?:":
            s += "."
        parts.append(f"{s} [{c.block_id}]")
    return " ".join(parts)
