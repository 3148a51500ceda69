"""The page-sampling rule the frozen question sets were written by (heldout_defs.py, unseen_defs.py):
seeded page orders, table pages found by PyMuPDF, the 4-word copy check, and the walk report that
shows every page read in order was used or its skip explained."""

from __future__ import annotations

import random
import re
from pathlib import Path


def seeded_order(pages: list[int], seed: str, doc: str, kind: str) -> list[int]:
    """`pages` shuffled with the fixed seed: the order pages are read in."""
    pages = list(pages)
    random.Random(f"{seed}:{doc}:{kind}").shuffle(pages)
    return pages


def table_pages(pdf: Path, lo: int, hi: int, *, only_with_drawings: bool) -> list[int]:
    """Pages lo..hi (1-based) with a 'Table N:' caption line or a table of >= 3 rows and >= 2 columns
    (slow: find_tables on every page, or only on pages with drawings)."""
    import pymupdf

    out = []
    with pymupdf.open(pdf) as d:
        for i in range(lo - 1, hi):
            page = d[i]
            if re.search(r"^Table [0-9A-Z]+(\.[0-9]+)?:", page.get_text(), re.M):
                out.append(i + 1)
                continue
            if only_with_drawings and not page.get_drawings():
                continue
            if any(t.row_count >= 3 and t.col_count >= 2 for t in page.find_tables().tables):
                out.append(i + 1)
    return out


def copied_ngrams(query: str, page_text: str, n: int = 4) -> list[str]:
    """Return the runs of ``n`` consecutive words that ``query`` shares with ``page_text``."""
    def words(s: str) -> list[str]:
        return re.findall(r"[a-z0-9]+", s.lower())

    page = words(page_text)
    grams = {tuple(page[i:i + n]) for i in range(len(page) - n + 1)}
    qw = words(query)
    return [" ".join(qw[i:i + n]) for i in range(len(qw) - n + 1) if tuple(qw[i:i + n]) in grams]


def report_walk(questions, quota: dict, order_of, skipped, *, width: int) -> None:
    """Print, per kind and manual, the pages used of those walked in seeded order, and any page
    walked past without a question or an explained skip."""
    used = {(g["doc"], g["page"], qq["kind"]) for qq in questions for g in qq["gold"]}
    for kind, quotas in quota.items():
        for doc, n in quotas.items():
            order = order_of(doc, kind)
            taken = [p for p in order if (doc, p, kind) in used]
            last = order.index(taken[-1]) if taken else -1
            walked = order[:last + 1]
            bad = [p for p in walked if (doc, p, kind) not in used and (doc, kind, p) not in skipped]
            print(f"{kind:6} {doc:{width}} quota {n}: used {taken} of walked {walked}"
                  + (f"  UNEXPLAINED SKIPS {bad}" if bad else ""))


def report_tables(content: dict, table_pool: dict, recompute) -> None:
    """Print whether each manual's recomputed table pages equal the frozen pool."""
    for doc in content:
        got = recompute(doc)
        print(f"table pool {doc}: {'same as TABLE_POOL' if got == table_pool[doc] else got}")


def absent_hits(absent: dict[str, list[str]], texts: dict[str, list[str]]) -> dict[str, list[str]]:
    """Per `none` question, the patterns of `absent` ({id: [regex, ...]}) that do occur (doc:page)
    in `texts` ({doc: [page text, ...]}); an empty dict means every absence check holds."""
    bad: dict[str, list[str]] = {}
    for qid, patterns in absent.items():
        for pat in patterns:
            rx = re.compile(pat, re.I)
            where = [f"{doc}:{i + 1}" for doc, pages in texts.items()
                     for i, t in enumerate(pages) if rx.search(t)]
            if where:
                bad.setdefault(qid, []).append(f"{pat!r} in {where[:5]}")
    return bad
