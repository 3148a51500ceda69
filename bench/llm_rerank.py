"""The answer model scoring search's candidates (issue 13, a second-stage lever; session 62, not kept).

    .venv/bin/python bench/llm_rerank.py --model bench/data/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --lib dev=bench/data/lib-answer-n --lib heldout=bench/data/lib-answer-n \\
        --lib heldout2=bench/data/lib-heldout2-n --lib unseen=bench/data/lib-unseen-n --out bench/results/llm_rerank.json
    .venv/bin/python bench/llm_rerank.py --scores bench/results/llm_rerank.json     # the table again, no model

A chat GGUF model reads each of the first K hits of every question (the hit's section title and its text up to
--words words) and is asked whether the passage answers the question; its score is log P(yes) - log P(no) at the
first answer token (the question's prompt prefix is evaluated once for its K passages). The hits are then re-sorted by
fused score / best fused score + w x that score ("score"), or by -rank/10 + w x that score ("rank"), for each w, and
scored as bench/sweep.py scores (R@1, R@5, MRR@10; bench/metrics.py). Choose w on dev. The model's prompt format is
ChatML (Qwen2.5, SmolLM2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from metrics import score_run  # noqa: E402
from sweep import SETS, library_folders, questions_of  # noqa: E402

SYSTEM = "You judge search results for engineers reading technical manuals."
WEIGHTS = (0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 100)  # 100: the model's order alone (ties kept in search order)


class Judge:
    """Yes-minus-no log-odds of a ChatML model for (question, passage) pairs, reusing the evaluated prompt prefix."""

    def __init__(self, model: str, words: int) -> None:
        from llama_cpp import Llama

        self.llm = Llama(model_path=model, n_ctx=1024, n_threads=2, n_batch=512, verbose=False)
        self.words = words
        self.yes = [self._token(w) for w in ("yes", "Yes", " yes", " Yes")]
        self.no = [self._token(w) for w in ("no", "No", " no", " No")]
        self.tokens = 0  # prompt tokens evaluated

    def _token(self, word: str) -> int:
        return self.llm.tokenize(word.encode(), add_bos=False, special=True)[0]

    def prompt(self, question: str, section: str, text: str) -> str:
        words = text.split()
        passage = " ".join(words[: self.words]) + (" ..." if len(words) > self.words else "")
        return (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\nQuestion: {question}\n\n"
                f"Passage (section: {section}):\n{passage}\n\n"
                "Does this passage answer the question? Answer yes or no.<|im_end|>\n<|im_start|>assistant\n")

    def score(self, question: str, section: str, text: str) -> float:
        llm = self.llm
        tokens = llm.tokenize(self.prompt(question, section, text).encode(), add_bos=False, special=True)
        # (the last token is evaluated again even when all are cached: its logits are the answer)
        same = min(llm.longest_token_prefix(llm.input_ids[: llm.n_tokens], tokens), len(tokens) - 1)
        llm.n_tokens = same  # eval() drops the cache past this point
        llm.eval(tokens[same:])
        self.tokens += len(tokens) - same
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
        return float(np.logaddexp.reduce(logits[self.yes]) - np.logaddexp.reduce(logits[self.no]))


def collect(args) -> dict:
    from mmrag_desktop.engine.library import Library

    judge = Judge(args.model, args.words)
    folders = library_folders(args.lib)
    out: dict[str, dict] = {}
    start = time.perf_counter()
    for name in args.sets:
        questions = questions_of(name)[: args.limit or None]
        with Library.open(folders[name], access="read") as lib:
            out[name] = {}
            for q in questions:
                hits = lib.search(q["query"], k=args.k)
                out[name][q["id"]] = {
                    "hits": [h.to_json() for h in hits],
                    "llm": [judge.score(q["query"], h.section.rpartition(" > ")[2], h.text) for h in hits],
                }
        print(f"{name}: {len(questions)} questions, {judge.tokens} prompt tokens, "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return out


def reorder(entry: dict, w: float, form: str) -> list[dict]:
    hits, llm = entry["hits"], entry["llm"]
    if not hits:
        return hits
    top = max(h["score"] for h in hits) or 1.0
    prior = [h["score"] / top for h in hits] if form == "score" else [-(i + 1) / 10 for i in range(len(hits))]
    key = [p + w * s for p, s in zip(prior, llm, strict=True)]
    return [hits[i] for i in sorted(range(len(hits)), key=lambda i: -key[i])]


def table(scores: dict) -> str:
    rows = ["| order | w | " + " | ".join(scores) + " |", "|---|---|" + "---|" * len(scores)]
    asked = {name: [q for q in questions_of(name) if q["id"] in entries] for name, entries in scores.items()}
    for form in ("score", "rank"):
        for w in WEIGHTS:
            cells = []
            for name, entries in scores.items():
                questions = asked[name]
                agg = score_run(questions, {q["id"]: reorder(entries[q["id"]], w, form) for q in questions})["overall"]
                cells.append(f"{agg['R@1']:.3f} / {agg['R@5']:.3f} / {agg['MRR@10']:.3f}")
            rows.append(f"| {form} | {w} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="a ChatML GGUF model")
    ap.add_argument("--scores", type=Path, help="a saved --out file: print its table, run no model")
    ap.add_argument("--sets", nargs="*", default=list(SETS))
    ap.add_argument("--lib", action="append", default=[], metavar="SET=DIR")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--limit", type=int, default=0, help="the first N questions of each set (0: all)")
    ap.add_argument("--words", type=int, default=110)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.scores:
        scores = json.loads(args.scores.read_text())
    elif args.model:
        scores = collect(args)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(scores))
    else:
        ap.error("give --model or --scores")
    print(table(scores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
