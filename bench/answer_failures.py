"""Where the extractive answer loses the gold fact (issue 11 failure analysis).

    .venv/bin/python bench/answer_failures.py --library bench/data/lib-heldout2 \
        --questions bench/heldout2.jsonl --facts bench/answer_facts_heldout2.json

For every answerable question with facts written down: is a fact-stating passage among the
evidence blocks the answer reads (search top 8 packed into the answer's token budget), in a search
hit cut off by the budget, in another passage of a gold page that search did not return, or in no
passage of a gold page; and the rank of the first candidate sentence that states the fact among the
extractive answer's ranked candidates. Prints one line per question and the counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from bench_answer import states_fact  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--questions", type=Path, required=True)
    ap.add_argument("--facts", type=Path, required=True)
    args = ap.parse_args(argv)

    from mmrag_desktop.engine.answer.encode_once import EncodeOnce
    from mmrag_desktop.engine.answer.evidence import pack_evidence
    from mmrag_desktop.engine.answer.extractive import EXTRACTIVE_RANK_WEIGHT, rank_candidates
    from mmrag_desktop.engine.answer.pipeline import DEFAULT_K
    from mmrag_desktop.engine.library import Library

    facts = json.loads(args.facts.read_text(encoding="utf-8"))
    lib = Library.open(args.library, access="read")
    embedder = EncodeOnce(lib.embedder)
    where, ranks = collections.Counter(), collections.Counter()
    try:
        for line in args.questions.read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            groups = (facts.get(q["id"]) or {}).get("facts") or []
            if q["kind"] == "none" or not groups:
                continue
            hits = lib.search(q["query"], k=DEFAULT_K)
            blocks = pack_evidence(hits, lib.settings.evidence_tokens, lib.embedder.count_tokens)
            ranked = rank_candidates(q["query"], blocks, embedder, rank_weight=EXTRACTIVE_RANK_WEIGHT)
            rank = next((i + 1 for i, c in enumerate(ranked) if states_fact(c.text, groups)), None)
            ranks["no single sentence" if rank is None else "1-4" if rank <= 4 else "5-10" if rank <= 10 else "> 10"] += 1
            if any(states_fact(b.text, groups) for b in blocks):
                place = "in the evidence"
            elif any(states_fact(h.text, groups) for h in hits):
                place = "in a hit the budget cut"
            else:
                on_gold = False
                for g in q["gold"]:
                    rows = lib.conn.execute(
                        "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.doc_id "
                        "WHERE d.path LIKE ? AND c.page <= ? AND c.page_end >= ?",
                        (f"%{g['doc']}", g["page"], g["page"])).fetchall()
                    on_gold = on_gold or any(states_fact(t, groups) for (t,) in rows)
                place = "on a gold page, passage not returned" if on_gold else "in no passage of a gold page"
            where[place] += 1
            print(f"{q['id']}: {place}; first stating sentence ranked {rank}")
    finally:
        lib.close()
    print("where the fact is:", dict(where))
    print("rank of the first candidate sentence stating it:", dict(ranks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
