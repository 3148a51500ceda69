"""Documents a query names: "How do I read a CSV file into R?" names R-intro.pdf and R-admin.pdf,
"yosys: which pass flattens ..." the Yosys manual. Their hits are preferred (searcher.py)."""

from __future__ import annotations

import re

from .query import STOPWORDS

# words of file names and titles that name no product ("ngspice-manual.pdf", "SDCC Compiler User
# Guide", "Microsoft Word - pdp11_doc.doc")
GENERIC = frozenset(
    """manual manuals user users guide guides documentation doc docs reference introduction intro admin
    administration installation install handbook book tutorial version pdf draft compiler tools tool
    microsoft word junior""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def name_words(file_name: str, title: str) -> set[str]:
    """The words that name a document's subject: lower-cased words of its file name (without the
    extension) and the acronyms of its title, generic ones dropped; a single capital letter stays as
    it is ("R")."""
    stem = file_name.rsplit(".", 1)[0]
    # every word of the file name; of the title only acronyms ("SDCC Compiler User Guide",
    # "Network UPS Tools": "network" names no manual)
    words = _WORD.findall(stem) + [w for w in _WORD.findall(title or "") if w.isupper()]
    out = set()
    for w in words:
        if len(w) == 1:
            if w.isupper():
                out.add(w)
        elif w.lower() not in GENERIC and w.lower() not in STOPWORDS:
            out.add(w.lower())
    return out


def named_documents(query: str, documents: dict[int, tuple[str, str]]) -> set[int]:
    """Ids of the `documents` ({id: (file name, title)}) whose name words the query uses (whole
    words; a single capital letter only as a word of its own in capitals)."""
    used = {_as_name(w) for w in _WORD.findall(query)}
    return {doc_id for doc_id, (name, title) in documents.items() if name_words(name, title) & used}


def _as_name(word: str) -> str:
    """`word` as name_words keeps it: lower-cased, a single letter as written (only "R" names a manual)."""
    return word.lower() if len(word) > 1 else word


def without_names(query: str, documents: dict[int, tuple[str, str]], named: set[int]) -> str:
    """`query` without the words that name the `named` documents ("What does the Asymptote command
    filldraw do?" -> "What does the command filldraw do?"): they say which manual, not which
    passage, and an embedder reads them as the subject. `query` itself when nothing is named or
    fewer than two words would be left."""
    names = set().union(*(name_words(*documents[d]) for d in named)) if named else set()
    found = list(_WORD.finditer(query))
    drop = [m for m in found if _as_name(m.group(0)) in names]
    if not drop or len(found) - len(drop) < 2:
        return query
    out = query
    for m in reversed(drop):
        out = out[:m.start()] + out[m.end():]
    return re.sub(r"\s+(?=[?.!,;:])", "", " ".join(out.split()))
