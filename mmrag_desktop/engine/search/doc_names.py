"""Documents a query names: "how do I write a function in R", "gnuplot: log scale minor tics".

Engineers often name the product or manual they mean. A query word names a document when it is one
of the words of the document's file name or title (generic words such as "manual" or "guide" and
version numbers left out) and not a word of every document's name. A one-letter name ("R", "C")
counts only when the query writes it as a capital letter standing alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

GENERIC = frozenset(
    """manual manuals user users guide guides documentation doc docs reference handbook book
    the and of for to a an on in with pdf md json version edition rev draft final copy new""".split()
)
_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=4096)
def name_words(file_name: str, title: str) -> frozenset[str]:
    """Lower-case words that name a document: its file name (without extension) and title."""
    stem = file_name.rsplit(".", 1)[0] if "." in file_name else file_name
    out = set()
    for w in _WORD.findall(f"{stem} {title}"):
        low = w.lower()
        if low in GENERIC or low.isdigit() or not any(c.isalpha() for c in low):
            continue
        out.add(low)
    return frozenset(out)


def query_names(query: str) -> set[str]:
    """The query's candidate name words: words of 2+ letters lower-cased, single capitals as is."""
    out = set()
    for w in _WORD.findall(query):
        if len(w) >= 2:
            out.add(w.lower())
        elif w.isupper():
            out.add(w.lower())
    return out


def named_documents(query: str, documents: dict[int, tuple[str, str]]) -> set[int]:
    """Ids of the documents the query names ({} when none, or when every document would be)."""
    if len(documents) < 2:
        return set()
    words = {doc_id: name_words(name, title) for doc_id, (name, title) in documents.items()}
    shared = frozenset.intersection(*words.values())
    asked = query_names(query) - shared
    named = {doc_id for doc_id, w in words.items() if w & asked}
    return named if len(named) < len(documents) else set()
