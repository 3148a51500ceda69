"""Answer quality and speed on the development question set (issue 3's benchmark).

    python bench/bench_answer.py                       # everything, default library bench/data/lib-answer
    python bench/bench_answer.py --library DIR         # an existing library of bench/data/manuals
    python bench/bench_answer.py --only confidence     # calibration of the "not covered" detector
    python bench/bench_answer.py --only answers --limit 20
    python bench/bench_answer.py --only speed --threads 1 2 --model PATH.gguf

Parts:
- confidence: features and score for every question; false-positive rate (answerable questions
  flagged "not covered") and false-negative rate (unanswerable ones answered) at the shipped
  threshold, and the threshold that minimises their sum (calibration);
- answers: generative answers (and extractive ones for all questions): share of answers with at
  least one citation, share of the model's citations that were valid before the check and after
  it (must be 1.0), share of answers citing a gold page, insufficient-evidence precision/recall;
- speed: with a 1,000-token evidence budget, time to first token of `answer_events` (retrieval,
  confidence, packing, templating included) against llama.cpp's own prompt-processing time for
  the same prompt from an empty cache, measured in the same run (target <= 1.2x), and generation
  speed against a raw llama.cpp decode loop of the same model (target >= 0.9x).
Results go to bench/results/answer.json; a markdown summary is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

RESULTS = BENCH / "results"


def load_questions(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def open_library(folder: Path, threads: int):
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.settings import Settings

    if not (folder / "library.sqlite").exists():
        manuals = sorted((BENCH / "data" / "manuals").glob("*.pdf"))
        if not manuals:
            raise SystemExit("no manuals: run bash bench/fetch_manuals.sh first")
        exe = Path(sys.executable).with_name("mmrag")
        print(f"building {folder} from {len(manuals)} manuals (slow, once)", file=sys.stderr)
        subprocess.run([str(exe), "--library", str(folder), "add", *map(str, manuals)], check=True)
    return Library.open(folder, Settings(threads=threads))


def gold_pages(q: dict) -> set[tuple[str, int]]:
    return {(g["doc"], int(g["page"])) for g in q.get("gold", [])}


def cites_gold(citations, gold: set[tuple[str, int]]) -> bool:
    for c in citations:
        pages = {c.page} | {p for p, _ in c.boxes}
        if any((c.doc, p) in gold for p in pages):
            return True
    return False


def cites_gold_box(citations, gold: list[dict]) -> bool:
    """A citation's highlight (any of its boxes) overlaps a gold box on a gold page."""
    for c in citations:
        for p, b in c.boxes or [(c.page, c.bbox)]:
            for g in gold:
                if b and g["doc"] == c.doc and int(g["page"]) == p and g.get("bbox"):
                    gb = g["bbox"]
                    if min(b[2], gb[2]) > max(b[0], gb[0]) and min(b[3], gb[3]) > max(b[1], gb[1]):
                        return True
    return False


# ---- confidence ----------------------------------------------------------------------------
def bench_confidence(lib, questions: list[dict], k: int) -> dict:
    from mmrag_desktop.engine.answer.confidence import DEFAULT_THRESHOLD, assess

    rows = []
    for q in questions:
        hits = lib.search(q["query"], k=k)
        r = assess(q["query"], hits, lib.embedder, term_df=lib.term_df)
        rows.append({"id": q["id"], "none": q["kind"] == "none", "score": r.score,
                     "features": {k_: round(v, 4) for k_, v in r.features.items()},
                     "absent": r.absent, "unknown": r.unknown})

    def rates(thr: float) -> dict:
        ans = [r for r in rows if not r["none"]]
        none = [r for r in rows if r["none"]]
        fp = sum(r["score"] < thr for r in ans)
        fn = sum(r["score"] >= thr for r in none)
        flagged = fp + sum(r["score"] < thr for r in none)
        return {"threshold": round(thr, 3), "fp_rate": fp / max(1, len(ans)), "fn_rate": fn / max(1, len(none)),
                "precision": (len(none) - fn) / flagged if flagged else None,
                "recall": (len(none) - fn) / max(1, len(none)), "fp": fp, "fn": fn}

    grid = [i / 200 for i in range(0, 201)]
    best = min(grid, key=lambda t: (rates(t)["fp_rate"] + rates(t)["fn_rate"], abs(t - DEFAULT_THRESHOLD)))
    # feature separation: median per class
    sep = {}
    for name in rows[0]["features"] if rows else []:
        a = [r["features"][name] for r in rows if not r["none"]]
        n = [r["features"][name] for r in rows if r["none"]]
        sep[name] = {"answerable_median": round(statistics.median(a), 3) if a else None,
                     "none_median": round(statistics.median(n), 3) if n else None}
    def decision(margin: float) -> dict:
        """The engine's whole decision: score below the threshold, a name in no hit, or a word
        the library never uses with a score below the threshold + `margin`."""
        unknown_thr = DEFAULT_THRESHOLD + margin
        def flag(r):
            return r["score"] < DEFAULT_THRESHOLD or bool(r["absent"]) or (bool(r["unknown"]) and r["score"] < unknown_thr)
        ans = [r for r in rows if not r["none"]]
        none = [r for r in rows if r["none"]]
        return {"unknown_margin": margin, "recall": sum(map(flag, none)) / max(1, len(none)),
                "fp_rate": sum(map(flag, ans)) / max(1, len(ans)),
                "missed": [r["id"] for r in none if not flag(r)], "flagged": [r["id"] for r in ans if flag(r)]}

    return {"shipped": rates(DEFAULT_THRESHOLD), "best": rates(best), "features": sep, "rows": rows,
            "decision": [decision(t / 100) for t in range(0, 51, 5)]}


# ---- answers -------------------------------------------------------------------------------
def pick(questions: list[dict], limit: int, seed: int = 3) -> list[dict]:
    none = [q for q in questions if q["kind"] == "none"]
    ans = [q for q in questions if q["kind"] != "none"]
    random.Random(seed).shuffle(ans)
    return none + ans[: max(0, limit - len(none))] if limit else questions


def bench_answers(lib, questions: list[dict], mode: str, settings, k: int) -> dict:
    from mmrag_desktop.engine.answer import answer_events
    from mmrag_desktop.engine.answer.citations import find_marks

    per = []
    for q in questions:
        t0 = time.perf_counter()
        ans = None
        for ev in answer_events(lib, q["query"], mode=mode, settings=settings, k=k):
            if ev.kind == "done":
                ans = ev.answer
            elif ev.kind == "error":
                print(f"{q['id']}: error {ev.message}", file=sys.stderr)
        if ans is None:
            continue
        valid = {c.id for c in ans.evidence}
        after = [i for m in find_marks(ans.text) for i in m.ids]
        per.append({
            "id": q["id"], "none": q["kind"] == "none", "mode": ans.mode,
            "insufficient": ans.insufficient_evidence, "confidence": round(ans.confidence, 3),
            "cited": bool(ans.citations), "model_cited": bool(ans.stats.get("model_cited")),
            "attributed": len(ans.stats.get("attributed", [])),
            "fallback": bool(ans.stats.get("fallback_from")), "refs_total": ans.stats.get("refs_total", 0),
            "refs_valid": ans.stats.get("refs_valid", 0), "refs_after": len(after),
            "refs_after_valid": sum(i in valid for i in after),
            "gold": cites_gold(ans.citations, gold_pages(q)), "gold_box": cites_gold_box(ans.citations, q["gold"]),
            "seconds": round(time.perf_counter() - t0, 2),
            "text": ans.text[:400], "removed": ans.removed_citations,
        })
        print(f"{q['id']} {ans.mode:12s} cited={bool(ans.citations)} gold={per[-1]['gold']} "
              f"{per[-1]['seconds']:.1f}s", file=sys.stderr)
    answered = [p for p in per if not p["insufficient"]]
    ans_q = [p for p in per if not p["none"]]
    flagged = [p for p in per if p["insufficient"]]
    tot = sum(p["refs_total"] for p in per)
    after = sum(p["refs_after"] for p in per)
    return {
        "mode": mode, "n": len(per),
        "answers_with_citation": sum(p["cited"] for p in answered) / max(1, len(answered)),
        "answers_with_model_citation": (sum(p["model_cited"] for p in answered) / max(1, len(answered))
                                        if mode == "generative" else None),
        "attributed_sentences": sum(p["attributed"] for p in per),
        "uncited_fallbacks": sum(p["fallback"] for p in per),
        "cites_gold_page_model_answers": (sum(p["gold"] for p in ans_q if not p["insufficient"] and not p["fallback"])
                                          / max(1, sum(1 for p in ans_q if not p["insufficient"] and not p["fallback"]))),
        "citation_validity_before": sum(p["refs_valid"] for p in per) / tot if tot else None,
        "citation_validity_after": sum(p["refs_after_valid"] for p in per) / after if after else None,
        "cites_gold_page": sum(p["gold"] for p in ans_q) / max(1, len(ans_q)),
        "cites_gold_box": sum(p["gold_box"] for p in ans_q) / max(1, len(ans_q)),
        "cites_gold_box_when_gold_page": (sum(p["gold_box"] for p in ans_q)
                                          / max(1, sum(p["gold"] for p in ans_q))),
        "cites_gold_page_when_answered": (sum(p["gold"] for p in ans_q if not p["insufficient"])
                                          / max(1, sum(1 for p in ans_q if not p["insufficient"]))),
        "insufficient_precision": sum(p["none"] for p in flagged) / len(flagged) if flagged else None,
        "insufficient_recall": (sum(p["insufficient"] for p in per if p["none"])
                                / max(1, sum(p["none"] for p in per))),
        "mean_seconds": statistics.mean(p["seconds"] for p in per) if per else None,
        "rows": per,
    }


# ---- modes x models (issue 11) ------------------------------------------------------------
def load_facts() -> dict:
    facts = {}
    for p in (BENCH / "answer_facts.json", BENCH / "answer_facts_heldout2.json"):
        if p.exists():
            facts.update(json.loads(p.read_text()))
    return facts


def states_fact(text: str, groups: list[list[str]]) -> bool | None:
    """Every fact group has an alternative in `text` (numbers by value, names as whole tokens,
    case-insensitive); None when the question has no facts written down."""
    from mmrag_desktop.engine.answer.key_terms import Term, TermIndex, terms

    if not groups:
        return None
    ix = TermIndex(text)
    low = " ".join(text.lower().split())

    def has(alt: str) -> bool:
        ts = terms(alt)
        if len(ts) == 1 and ts[0].kind == "number" and ts[0].text.replace(" ", "") == alt.replace(" ", ""):
            return ix.has(Term(alt, "number", value=ts[0].value, unit=ts[0].unit))
        a = " ".join(alt.lower().split())
        import re as _re
        # whole tokens, but a call's opening "rm(" takes its arguments: "rm(x, y)"
        after = "" if a.endswith("(") else r"(?![\w])"
        return _re.search(r"(?<![\w])" + _re.escape(a) + after, low) is not None

    return all(any(has(a) for a in g) for g in groups)


_DIGITS = __import__("re").compile(r"\d+(?:[.,]\d+)*")  # "18.7.3" whole: its parts alone are found in "18.7.2"
_SNAKE = __import__("re").compile(r"[\w.-]*[A-Za-z0-9]_[\w.-]*")


def unbacked_numbers(sentence: str, evidence_text: str) -> list[str]:
    """Digit runs of `sentence` (markers removed; a section or version number such as "18.7.3" as one run) and
    words with an underscore (snake_case names, "2-Dmatrix_matchingthe") that do not occur in `evidence_text` at
    all: a check independent of the engine's term matching (plain substrings, names without case)."""
    import re as _re

    body = _re.sub(r"\[[\d,\s-]+\]", " ", sentence)
    ev = evidence_text.replace(",", "")
    low = evidence_text.lower()
    return ([n for n in _DIGITS.findall(body) if n.replace(",", "") not in ev]
            + [w for w in _SNAKE.findall(body) if w.strip(".-").lower() not in low])


def bench_modes(lib, questions: list[dict], facts: dict, model_names: list[str], modes: list[str],
                threads: int, k: int, extra: dict | None = None) -> list[dict]:
    from answer_models import model_path

    from mmrag_desktop.engine.answer import answer_events, close_models
    from mmrag_desktop.engine.settings import Settings

    out = []
    for model in model_names:
        for mode in modes:
            if mode == "extractive" and model != model_names[0]:
                continue  # the model plays no part
            s = Settings(threads=threads, max_answer_tokens=160, evidence_tokens=1000)
            s.extra.update(extra or {})
            path = model_path(model)
            if path:
                s.models["answer_llm"] = path
            close_models()
            rows = []
            for q in questions:
                t0 = time.perf_counter()
                ans, err = None, ""
                for ev in answer_events(lib, q["query"], mode=mode, settings=s, k=k):
                    if ev.kind == "done":
                        ans = ev.answer
                    elif ev.kind == "error":
                        err = ev.message
                if ans is None:
                    print(f"{q['id']}: error {err}", file=sys.stderr)
                    continue
                # (with each block's section: a quote's label may be the heading it stands under, "read_verilog –
                # read modules from Verilog file:" above its option "-dump_ast1 ...")
                # (one read of their rows, not a decoded chunk per citation)
                sections = lib.store.chunks.rows([c.chunk_id for c in ans.evidence])
                ev_text = "\n".join(f"{sections[c.chunk_id]['section']}\n{c.text}" for c in ans.evidence)
                supported = [x for x in ans.sentences if x.claim and x.supported]
                claims = [x for x in ans.sentences if x.claim]
                g = ans.stats.get("generation") or {}
                gen_s = (g.get("total_s") or 0) - (g.get("ttft_s") or 0)
                groups = (facts.get(q["id"]) or {}).get("facts") or []
                rows.append({
                    "id": q["id"], "none": q["kind"] == "none", "kind": q["kind"], "mode": ans.mode,
                    "insufficient": ans.insufficient_evidence, "fallback": bool(ans.stats.get("fallback_from")),
                    "guard": ans.stats.get("guard", ""),
                    "gold": cites_gold(ans.citations, gold_pages(q)),
                    "gold_in_evidence": cites_gold(ans.evidence, gold_pages(q)),
                    "gold_box": cites_gold_box(ans.citations, q["gold"]),
                    "fact": states_fact(" ".join(x.text for x in supported), groups),
                    "fact_any": states_fact(ans.text, groups),
                    # what a reader sees first: the first claim, when it is backed
                    "fact_first": states_fact(claims[0].text if claims and claims[0].supported else "", groups),
                    "claims": len(claims), "supported": len(supported),
                    "unmarked_unbacked": [x.text for x in supported if unbacked_numbers(x.text, ev_text)],
                    "ttft_s": ans.stats.get("ttft_s"), "confidence": ans.confidence,
                    "sentence_scores": ans.stats.get("sentence_scores", []),
                    "gen_tok_s": (g["generated_tokens"] - 1) / gen_s if gen_s > 0 and g.get("generated_tokens", 0) > 1 else None,
                    "seconds": round(time.perf_counter() - t0, 2), "text": ans.text,
                    "model_answer": ans.stats.get("model_answer", ""),
                    "sentences": [x.to_json() for x in ans.sentences],
                    "model_sentences": ans.stats.get("model_sentences", []),
                    "pick": ans.stats.get("pick"),
                })
                r = rows[-1]
                print(f"{model} {mode} {q['id']} {ans.mode:12s} gold={r['gold']} fact={r['fact']} "
                      f"{r['supported']}/{r['claims']} {r['seconds']:.1f}s", file=sys.stderr)
            close_models()
            out.append(summarise_modes(model if mode != "extractive" else "-", mode, rows))
    return out


def summarise_modes(model: str, mode: str, rows: list[dict]) -> dict:
    ans_q = [r for r in rows if not r["none"]]
    none_q = [r for r in rows if r["none"]]
    answered = [r for r in rows if not r["insufficient"]]
    with_facts = [r for r in ans_q if r["fact"] is not None]
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    return {
        "model": model, "mode": mode, "n": len(rows), "answerable": len(ans_q), "none": len(none_q),
        "cites_gold_page": sum(r["gold"] for r in ans_q) / max(1, len(ans_q)),
        "gold_page_in_evidence": sum(r.get("gold_in_evidence", False) for r in ans_q) / max(1, len(ans_q)),
        "states_gold_fact": sum(bool(r["fact"]) for r in with_facts) / max(1, len(with_facts)),
        "states_gold_fact_any_sentence": sum(bool(r["fact_any"]) for r in with_facts) / max(1, len(with_facts)),
        "states_gold_fact_first_sentence": sum(bool(r.get("fact_first")) for r in with_facts) / max(1, len(with_facts)),
        "facts_known": len(with_facts),
        "supported_share": (sum(r["supported"] for r in answered) / max(1, sum(r["claims"] for r in answered))),
        "unmarked_unbacked_numbers": sum(len(r["unmarked_unbacked"]) for r in rows),
        "fallbacks": sum(r["fallback"] for r in rows), "guards": sum(bool(r["guard"]) for r in rows),
        "not_covered_recall": sum(r["insufficient"] for r in none_q) / max(1, len(none_q)) if none_q else None,
        "answerable_flagged": sum(r["insufficient"] for r in ans_q),
        "ttft_median_s": med([r["ttft_s"] for r in answered if r["ttft_s"] is not None]),
        "gen_tok_s_median": med([r["gen_tok_s"] for r in answered if r["gen_tok_s"]]),
        "rows": rows,
    }


# ---- speed ---------------------------------------------------------------------------------
def raw_llama(runner, toks: list[int], gen_tokens: int) -> dict:
    """llama.cpp on its own, same loaded model: prompt processing of `toks` from an empty KV
    cache (one `Llama.eval`, i.e. llama_decode over n_batch chunks), then a bare greedy
    sample+decode loop. (llama.cpp's perf counters read 0 in this build, so wall time is used.)"""
    llm = runner.llm
    llm.reset()
    llm._ctx.kv_cache_clear()
    t0 = time.perf_counter()
    llm.eval(toks)
    pp_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    for _ in range(gen_tokens):
        tok = llm.sample(temp=0.0)
        llm.eval([tok])
    gen_s = time.perf_counter() - t1
    return {"prompt_tokens": len(toks), "llama_prompt_s": pp_s, "prompt_tok_s": len(toks) / pp_s,
            "gen_tokens": gen_tokens, "raw_gen_tok_s": gen_tokens / gen_s}


def bench_speed(lib, questions: list[dict], threads: int, model: str | None, n: int, k: int,
                style: str = "generative") -> dict:
    from mmrag_desktop.engine.answer import answer_events, close_models
    from mmrag_desktop.engine.answer import quote_first as qf
    from mmrag_desktop.engine.answer.encode_once import EncodeOnce
    from mmrag_desktop.engine.answer.evidence import pack_evidence
    from mmrag_desktop.engine.answer.extractive import rank_candidates
    from mmrag_desktop.engine.answer.prompt import SYSTEM_PROMPT, build_messages
    from mmrag_desktop.engine.answer.runner import POOL
    from mmrag_desktop.engine.settings import Settings

    system = qf.SYSTEM_PROMPT if style == "quote" else SYSTEM_PROMPT

    def messages(question, blocks):
        if style != "quote":
            return build_messages(question, blocks)
        cands = rank_candidates(question, blocks, EncodeOnce(lib.embedder))[: qf.MAX_CANDIDATES]
        return qf.build_messages(question, cands, {b.id: f"{b.hit.doc}, page {b.hit.page}" for b in blocks})

    s = Settings(threads=threads, evidence_tokens=1000, max_answer_tokens=64, n_ctx=4096)
    if model:
        s.models["answer_llm"] = model
    s.extra["answer_confidence_threshold"] = 0.0  # always generate: this part measures speed
    s.extra["uncited_fallback"] = False  # and keep the model's answer, backed or not
    close_models()
    from mmrag_desktop.engine.answer.pipeline import _load_runner

    t_load = time.perf_counter()
    _load_runner(s)  # load once (as the app does); loading is not part of TTFT
    load_s = time.perf_counter() - t_load
    lib.search("warm up", k=k)  # the embedder and index load once per process (the window warms them at start)
    t0 = time.perf_counter()
    rows = []
    qs = [q for q in questions if q["kind"] != "none"][:n]
    for q in qs:
        # ours, in steady state: only the system prompt is in the KV cache (a previous question)
        if POOL._runner is not None:
            POOL._runner.warm([{"role": "system", "content": system}, {"role": "user", "content": "?"}])
        t_start = time.perf_counter()
        first = None
        ans = None
        for ev in answer_events(lib, q["query"], mode=style, settings=s, k=k):
            if ev.kind == "token" and first is None:
                first = time.perf_counter() - t_start
            if ev.kind == "done":
                ans = ev.answer
        if ans is None or ans.mode != style or first is None:
            print(f"{q['id']}: no generative answer ({ans.mode if ans else 'error'})", file=sys.stderr)
            continue
        runner = POOL._runner
        g = ans.stats["generation"]
        gen_s = g["total_s"] - g["ttft_s"]
        ours_gen = (g["generated_tokens"] - 1) / gen_s if gen_s > 0 and g["generated_tokens"] > 1 else None
        # the same prompt, raw llama.cpp, same run and same loaded model
        hits = lib.search(ans.search_query, k=k)
        blocks = pack_evidence(hits, min(1000, s.evidence_tokens), runner.count_tokens)
        toks, _ = runner.render(messages(ans.search_query, blocks))
        same = len(toks) == g["prompt_tokens"]
        raw = raw_llama(runner, toks, gen_tokens=max(16, g["generated_tokens"]))
        rows.append({
            "id": q["id"], "prompt_tokens": g["prompt_tokens"], "cached_tokens": g["cached_tokens"],
            "same_prompt": same, "evidence_tokens": sum(b.tokens for b in blocks),
            "ttft_end_to_end_s": first, "ttft_generation_s": g["ttft_s"],
            "retrieval_s": ans.stats.get("retrieval_s"), "prepare_s": ans.stats.get("prepare_s"),
            "llama_prompt_s_full": raw["llama_prompt_s"], "raw_prompt_tok_s": raw["prompt_tok_s"],
            "ttft_ratio": first / raw["llama_prompt_s"],
            "ttft_generation_ratio": g["ttft_s"] / raw["llama_prompt_s"],
            "ours_gen_tok_s": ours_gen, "raw_gen_tok_s": raw["raw_gen_tok_s"],
            "gen_ratio": ours_gen / raw["raw_gen_tok_s"] if ours_gen else None,
        })
        r = rows[-1]
        print(f"threads={threads} {q['id']}: prompt {r['prompt_tokens']} (cached {r['cached_tokens']}), "
              f"TTFT {first:.2f}s vs llama.cpp pp {r['llama_prompt_s_full']:.2f}s (x{r['ttft_ratio']:.2f}); "
              f"gen {ours_gen or 0:.1f} vs raw {r['raw_gen_tok_s']:.1f} tok/s", file=sys.stderr)
    model_id = POOL._runner.model_id if POOL._runner else model
    close_models()

    def med(key):
        vals = [r[key] for r in rows if r.get(key) is not None]
        return statistics.median(vals) if vals else None

    return {"threads": threads, "style": style, "model": model_id, "n": len(rows), "wall_s": time.perf_counter() - t0, "load_s": load_s,
            "median": {k_: med(k_) for k_ in ("prompt_tokens", "cached_tokens", "evidence_tokens",
                                              "ttft_end_to_end_s", "ttft_generation_s", "llama_prompt_s_full",
                                              "ttft_ratio", "ttft_generation_ratio", "raw_prompt_tok_s", "ours_gen_tok_s", "raw_gen_tok_s",
                                              "gen_ratio", "retrieval_s")},
            "rows": rows}


def _f(v, nd=2):
    return "-" if v is None else (f"{v:.{nd}f}" if isinstance(v, float) else str(v))


def print_modes(res: list[dict]) -> None:
    print("| model | mode | cites gold page (in evidence) | states gold fact (backed sentences / any) | shown sentences "
          "backed | unmarked sentences with unbacked numbers or names | not-covered recall | fallbacks | TTFT median | tok/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in res:
        print(f"| {r['model']} | {r['mode']} | {_f(r['cites_gold_page'])} ({_f(r.get('gold_page_in_evidence'))}) | "
              f"{_f(r['states_gold_fact'])} / "
              f"{_f(r['states_gold_fact_any_sentence'])} (n={r['facts_known']}; first sentence "
              f"{_f(r.get('states_gold_fact_first_sentence'))}) | {_f(r['supported_share'])} | "
              f"{r['unmarked_unbacked_numbers']} | {_f(r['not_covered_recall'])} | {r['fallbacks']} | "
              f"{_f(r['ttft_median_s'])} s | {_f(r['gen_tok_s_median'], 1)} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", type=Path, default=BENCH / "data" / "lib-answer")
    ap.add_argument("--questions", type=Path, default=BENCH / "questions.jsonl")
    ap.add_argument("--only", choices=["confidence", "answers", "extractive", "speed", "modes"], nargs="*")
    ap.add_argument("--models", nargs="*", default=["smol", "qwen05", "qwen15"],
                    help="answer models for --only modes (bench/answer_models.py names or .gguf paths)")
    ap.add_argument("--modes", nargs="*", default=["extractive", "quote", "pick", "generative"])
    ap.add_argument("--tag", default="", help="suffix of the modes result file (e.g. heldout, unseen)")
    ap.add_argument("--limit", type=int, default=24, help="questions for generative answers (all 'none' included)")
    ap.add_argument("--speed-n", type=int, default=4, help="questions for the speed part")
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--model", default=None, help="another GGUF for the speed part (default: the registry's)")
    ap.add_argument("-k", type=int, default=8)
    ap.add_argument("--extra", nargs="*", default=[], metavar="KEY=VALUE",
                    help="settings.extra entries for --only modes (experiments, e.g. extractive_highlight_bonus=0.2)")
    args = ap.parse_args(argv)
    parts = set(args.only or ["confidence", "answers", "extractive", "speed"])
    if "modes" in parts:  # its own result file, one per question set
        questions = load_questions(args.questions)
        lib = open_library(args.library, threads=min(args.threads))
        qs = pick(questions, args.limit) if args.limit else questions
        extra = {k_: json.loads(v) for k_, v in (e.split("=", 1) for e in args.extra)}
        res = bench_modes(lib, qs, load_facts(), args.models, args.modes, max(args.threads), args.k, extra)
        lib.close()
        RESULTS.mkdir(parents=True, exist_ok=True)
        name = f"answer_modes{'_' + args.tag if args.tag else ''}.json"
        (RESULTS / name).write_text(json.dumps({"questions": str(args.questions), "results": res}, indent=1, default=str))
        print_modes(res)
        return 0
    from mmrag_desktop.engine.settings import Settings

    questions = load_questions(args.questions)
    lib = open_library(args.library, threads=min(args.threads))
    out: dict = {"library": str(args.library), "questions": len(questions)}
    prev = RESULTS / "answer.json"
    if prev.exists():
        try:
            out.update({k: v for k, v in json.loads(prev.read_text()).items() if k not in parts})
        except ValueError:
            pass
    if "confidence" in parts:
        out["confidence"] = bench_confidence(lib, questions, args.k)
    if "extractive" in parts:
        out["extractive"] = bench_answers(lib, questions, "extractive", Settings(threads=1), args.k)
    if "answers" in parts:
        s = Settings(threads=min(args.threads), max_answer_tokens=96, evidence_tokens=1000)
        out["answers"] = bench_answers(lib, pick(questions, args.limit), "generative", s, args.k)
    if "speed" in parts:
        out["speed"] = [bench_speed(lib, questions, t, args.model, args.speed_n, args.k, style)
                        for t in args.threads for style in args.modes if style != "extractive"]
    lib.close()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "answer.json").write_text(json.dumps(out, indent=1, default=str))

    print("## Answer benchmark\n")
    if "confidence" in out:
        c = out["confidence"]
        for name in ("shipped", "best"):
            r = c[name]
            print(f"- confidence ({name} threshold {r['threshold']}): FP rate {_f(r['fp_rate'])} (answerable flagged), "
                  f"FN rate {_f(r['fn_rate'])} (unanswerable answered), precision {_f(r['precision'])}, "
                  f"recall {_f(r['recall'])}")
        print("- feature medians (answerable / none): " + "; ".join(
            f"{k}: {_f(v['answerable_median'])} / {_f(v['none_median'])}" for k, v in c["features"].items()))
        for d in c["decision"]:
            print(f"- whole decision, unknown-word margin {d['unknown_margin']:.2f}: not-covered recall "
                  f"{_f(d['recall'])} (missed {' '.join(d['missed']) or '-'}), answerable flagged {_f(d['fp_rate'])} "
                  f"({' '.join(d['flagged']) or '-'})")
    for key in ("answers", "extractive"):
        if key in out:
            a = out[key]
            print(f"- {a['mode']} (n={a['n']}): answers with >=1 citation {_f(a['answers_with_citation'])} "
                  f"(from the model itself {_f(a.get('answers_with_model_citation'))}, sentences credited by "
                  f"attribution {a.get('attributed_sentences', '-')}, extractive fallbacks "
                  f"{a.get('uncited_fallbacks', '-')}); "
                  f"citation validity before {_f(a['citation_validity_before'])} / after "
                  f"{_f(a['citation_validity_after'])}; cites gold page {_f(a['cites_gold_page'])} "
                  f"(when answered {_f(a['cites_gold_page_when_answered'])}, model answers kept "
                  f"{_f(a.get('cites_gold_page_model_answers'))}); a citation's box on the gold box "
                  f"{_f(a.get('cites_gold_box'))} (of answers citing the gold page "
                  f"{_f(a.get('cites_gold_box_when_gold_page'))}); insufficient precision "
                  f"{_f(a['insufficient_precision'])} recall {_f(a['insufficient_recall'])}; "
                  f"{_f(a['mean_seconds'])} s/answer")
    for sp in out.get("speed", []):
        m = sp["median"]
        print(f"- speed {sp['model']} {sp.get('style', 'generative')} threads={sp['threads']} (n={sp['n']}, medians): prompt {_f(m['prompt_tokens'], 0)} tok "
              f"(cached {_f(m['cached_tokens'], 0)}), evidence {_f(m['evidence_tokens'], 0)} tok; TTFT end-to-end "
              f"{_f(m['ttft_end_to_end_s'])} s vs llama.cpp prompt processing {_f(m['llama_prompt_s_full'])} s "
              f"= x{_f(m['ttft_ratio'])} (target <= 1.2); prompt {_f(m['raw_prompt_tok_s'], 0)} tok/s; generation "
              f"{_f(m['ours_gen_tok_s'], 1)} vs raw {_f(m['raw_gen_tok_s'], 1)} tok/s = x{_f(m['gen_ratio'])} "
              f"(target >= 0.9)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
