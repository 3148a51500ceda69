"""Calibrating the support threshold (answer/support.py SUPPORT_THRESHOLD) on labelled sentences.

    python bench/calibrate_support.py extract results/answer_modes_dev.json ...  # -> results/support_to_label.jsonl
    python bench/calibrate_support.py report                                    # reads bench/support_labels.jsonl
    python bench/calibrate_support.py sample MODEL results/answer_modes_heldout.json ...  # 30 unmarked sentences to read

`extract` collects every sentence a model wrote itself (claims that are not verbatim quotes, from
the answers and from the model's own answers a fallback replaced) with the evidence sentence the
check compared it with (`nearest`) and the cosine. A person reads each against that evidence and
the cited page and writes `label`: 1 when the evidence says what the sentence says (numbers and
names included), 0 otherwise, into bench/support_labels.jsonl (one JSON object a line, `set` =
the question set the answer came from).

`sample` draws (seeded) 30 sentences a model's answers showed unmarked (supported claims: quotes
and its own sentences), with the evidence that backs each and its page, to read against the page;
the verdicts go into bench/support_labels.jsonl too (`set` "sample-<model>").

`report` prints, for cosine thresholds and content-word coverage thresholds, on each set's labels:
how many sentences would be shown unmarked (both met and every term in the cited evidence), the
share of those that are really supported (precision) and the share of really supported sentences
shown unmarked (recall). The thresholds are chosen on the development set's labels alone (the
highest recall with precision >= 0.9); the held-out labels say how they fare on answers nobody
tuned on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
LABELS = BENCH / "support_labels.jsonl"
OUT = BENCH / "results" / "support_to_label.jsonl"


def extract(paths: list[str]) -> int:
    seen = set()
    rows = []
    for p in paths:
        data = json.loads(Path(p).read_text())
        qset = Path(data["questions"]).stem
        for res in data["results"]:
            for r in res["rows"]:
                for s in r["sentences"] + r.get("model_sentences", []):
                    if not s["claim"] or s["quote"] or not s.get("nearest"):
                        continue
                    key = (r["id"], s["text"])
                    if key in seen:
                        continue
                    seen.add(key)
                    terms_ok = not s["missing"] and not s["reason"].startswith("not in the cited")
                    rows.append({"set": qset, "qid": r["id"], "model": res["model"], "mode": res["mode"],
                                 "sentence": s["text"], "evidence": s["nearest"]["text"],
                                 "score": s["nearest"]["score"], "terms_ok": terms_ok,
                                 "supported": s["supported"], "label": None})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(rows)} sentences to label -> {OUT}")
    return 0


def _passes(r: dict, t: float, k: float) -> bool:
    from mmrag_desktop.engine.answer.confidence import content_terms
    from mmrag_desktop.engine.answer.key_terms import strip_markers
    from mmrag_desktop.engine.answer.support import MAX_MISSING_WORDS, coverage

    share, missing = coverage(content_terms(strip_markers(r["sentence"])), set(content_terms(r["evidence"])))
    return r["terms_ok"] and r["score"] >= t and share >= k and missing <= MAX_MISSING_WORDS


def report() -> int:
    rows = [json.loads(line) for line in LABELS.read_text().splitlines() if line.strip()]
    samples = [r for r in rows if r["set"].startswith("sample-")]
    for name in sorted({r["set"] for r in samples}):
        part = [r for r in samples if r["set"] == name]
        print(f"{name}: {sum(r['label'] for r in part)} of {len(part)} unmarked sentences read against the page "
              f"are backed by it ({sum(bool(r.get('quote')) for r in part)} verbatim quotes)")
    rows = [r for r in rows if r.get("label") in (0, 1) and "score" in r]
    sets = sorted({r["set"] for r in rows})
    print(f"{len(rows)} labelled sentences: " + ", ".join(f"{s} {sum(r['set'] == s for r in rows)}" for s in sets))
    print("| set | cosine >= | coverage >= | shown unmarked | precision | recall |\n|---|---|---|---|---|---|")
    best = None
    for qset in sets:
        part = [r for r in rows if r["set"] == qset]
        pos = sum(r["label"] for r in part)
        for t in (0.5, 0.6, 0.7, 0.8):
            for k in (0.0, 0.6, 0.7, 0.8, 0.9):
                shown = [r for r in part if _passes(r, t, k)]
                tp = sum(r["label"] for r in shown)
                prec = tp / len(shown) if shown else None
                rec = tp / pos if pos else 0.0
                print(f"| {qset} | {t:.2f} | {k:.2f} | {len(shown)} | {'-' if prec is None else f'{prec:.2f}'} | "
                      f"{rec:.2f} |")
                if qset == "questions" and prec is not None and prec >= 0.9 and (best is None or rec > best[2]):
                    best = (t, k, rec)
    print(f"\nthe development labels' best (cosine, coverage) with precision >= 0.9, by recall: {best}")
    return 0


def sample(model: str, paths: list[str], n: int = 30) -> int:
    import random

    pool = []
    for p in paths:
        data = json.loads(Path(p).read_text())
        for res in data["results"]:
            if res["model"] != model and not (model == "-" and res["mode"] == "extractive"):
                continue
            for r in res["rows"]:
                for s in r["sentences"]:
                    if s["claim"] and s["supported"]:
                        pool.append({"qid": r["id"], "mode": res["mode"], "sentence": s["text"], "quote": s["quote"],
                                     "evidence": (s.get("support") or {}).get("text", ""),
                                     "chunk_id": (s.get("support") or {}).get("chunk_id")})
    random.Random(f"sample:{model}").shuffle(pool)
    for i, r in enumerate(pool[:n]):
        print(json.dumps({"i": i, **r}, ensure_ascii=False))
    print(f"# {min(n, len(pool))} of {len(pool)} unmarked sentences", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH.parent))
    cmd = sys.argv[1] if len(sys.argv) > 1 else "report"
    if cmd == "extract":
        sys.exit(extract(sys.argv[2:]))
    if cmd == "sample":
        sys.exit(sample(sys.argv[2], sys.argv[3:]))
    sys.exit(report())
