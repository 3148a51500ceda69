"""Sentence choice of the extractive answer, swept offline (issue 11: the fact is in the evidence
far more often than the answer states it).

    .venv/bin/python bench/sentence_sweep.py cache   # search + evidence + candidates: dev, heldout, heldout2
    .venv/bin/python bench/sentence_sweep.py sweep   # every scoring variant on every set

`cache` runs the answer's own steps up to the sentence ranking (search top 8, the confidence
decision, the evidence packed into the extractive budget, every quotable candidate sentence with
its cosine to the question) for the dev set, the held-out set and held-out set 2, and keeps them in
bench/results/sentence_cache_<set>.pkl. `sweep` scores each variant's chosen sentences like
bench_answer.py does (gold page cited: a chosen sentence's lines lie on a gold page; gold fact:
states_fact over the chosen sentences) without running search again, so a variant costs seconds.
Only the development set may choose a variant; the held-out sets report it. The variants
re-implement the ranking here ("default" is the rule before session 13; the engine's rule since
then is "ctx all3"), so they keep their meaning when the engine changes.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import re
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from bench_answer import states_fact  # noqa: E402
from sweep import SETS as SEARCH_SETS  # noqa: E402

# the sets with facts written down (bench_answer.load_facts): questions file, library folder
SETS = {name: SEARCH_SETS[name] for name in ("dev", "heldout", "heldout2")}


PAGE_PASSAGES = 0  # experiment: > 0 needs the engine of commit c2f18b8 (search(page_passages=n))


def cache_path(name: str) -> Path:
    return BENCH / "results" / f"sentence_cache_{name}{'-pp' if PAGE_PASSAGES else ''}.pkl"


def _previous(sentences: list[str], position: int) -> str:
    """The sentence before candidate `position` of a block ("" for the first; table blocks' candidates
    are rows, which the sentence split does not number alike)."""
    return sentences[position - 1] if 0 < position <= len(sentences) else ""


def build_cache(name: str) -> None:
    from bench_answer import load_facts

    from mmrag_desktop.engine.answer.confidence import assess, content_terms
    from mmrag_desktop.engine.answer.encode_once import EncodeOnce
    from mmrag_desktop.engine.answer.evidence import pack_evidence
    from mmrag_desktop.engine.answer.extractive import _FIGURE_PART, candidate_sentences
    from mmrag_desktop.engine.answer.pipeline import DEFAULT_K
    from mmrag_desktop.engine.answer.quote_boxes import quote_boxes
    from mmrag_desktop.engine.library import Library
    from mmrag_desktop.engine.search.rerank import passage_of
    from mmrag_desktop.engine.sentence_split import split_sentences

    qfile, lib_name = SETS[name]
    lib_dir, qpath = BENCH / "data" / lib_name, BENCH / qfile
    facts = load_facts()
    lib = Library.open(lib_dir, access="read")
    embedder = EncodeOnce(lib.embedder)
    df: dict[str, int] = {}
    n_chunks = lib.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    def doc_freq(term: str) -> int:
        if term not in df:
            try:
                df[term] = lib.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                                            (f'"{term}"*',)).fetchone()[0]
            except Exception:  # noqa: BLE001 - an FTS syntax corner: treat as rare
                df[term] = 1
        return df[term]

    out = []
    try:
        for line in Path(qpath).read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            if q["kind"] == "none":
                continue
            groups = (facts.get(q["id"]) or {}).get("facts") or []
            if PAGE_PASSAGES:
                hits = lib.search(q["query"], k=DEFAULT_K, page_passages=PAGE_PASSAGES)
                main = [h for h in hits if "page_of" not in h.sources]
                blocks = pack_evidence(main, lib.settings.evidence_tokens, embedder.count_tokens)
                extra = pack_evidence([h for h in hits if "page_of" in h.sources], 600, embedder.count_tokens)
                for b in extra:
                    b.id += len(blocks)
                blocks += extra
                hits = main
            else:
                hits = lib.search(q["query"], k=DEFAULT_K)
                blocks = pack_evidence(hits, lib.settings.evidence_tokens, embedder.count_tokens)
            report = assess(q["query"], hits, embedder, lib.settings.extra.get("answer_confidence_threshold"))
            cands = candidate_sentences(blocks)
            texts = [c.text for c in cands]
            nexts = [c.following for c in cands]
            vecs = embedder.encode([q["query"]] + texts) if cands else None
            cos = (vecs[1:] @ vecs[0]).tolist() if cands else []
            pair_vecs = embedder.encode([f"{t} {f}" for t, f in zip(texts, nexts, strict=True)]) if cands else None
            cos_pair = (pair_vecs @ vecs[0]).tolist() if cands else []
            ctx = [f"{blocks[c.block_id - 1].hit.section.split(' > ')[-1]}: {c.text}" if blocks[c.block_id - 1].hit.section
                   else c.text for c in cands]
            ctx_vecs = embedder.encode(ctx) if cands else None
            cos_ctx = (ctx_vecs @ vecs[0]).tolist() if cands else []
            ctx2 = [passage_of(c.text, blocks[c.block_id - 1].hit.section or "") for c in cands]
            cos_ctx2 = (embedder.encode(ctx2) @ vecs[0]).tolist() if cands else []
            split = {}
            for b in blocks:
                t = b.text[:-4] if b.truncated and b.text.endswith(" ...") else b.text
                split[b.id] = [x for y in split_sentences(t, newlines=True) for x in _FIGURE_PART.split(y)]
            rows = []
            for i, c in enumerate(cands):
                b = blocks[c.block_id - 1]
                lines = lib.chunk(b.hit.chunk_id).get("lines") or []
                boxes = quote_boxes(lines, c.text) if b.hit.kind != "figure" else []
                pages = {p for p, _ in boxes} or ({b.hit.page} | {p for p, _ in b.hit.boxes})
                hl = any(p == b.hit.page and b.hit.bbox and _overlap(bb, b.hit.bbox) for p, bb in boxes)
                rows.append({"block": c.block_id, "pos": c.position, "text": c.text, "following": c.following,
                             "cos": cos[i], "cos_pair": cos_pair[i], "cos_ctx": cos_ctx[i], "cos_ctx2": cos_ctx2[i],
                             "prev": _previous(split[c.block_id], c.position), "doc": b.hit.doc,
                             "pages": sorted(pages), "kind": b.hit.kind, "hl": bool(hl),
                             "states": bool(states_fact(c.text, groups)) if groups else None,
                             "states_pair": bool(states_fact(f"{c.text} {c.following}", groups)) if groups else None})
            terms = set(content_terms(q["query"]))
            out.append({"id": q["id"], "query": q["query"], "kind": q["kind"], "groups": groups,
                        "gold": sorted({(g["doc"], int(g["page"])) for g in q["gold"]}),
                        "insufficient": report.insufficient, "n_blocks": len(blocks),
                        "idf": {t: math.log((n_chunks + 1) / (doc_freq(t) + 1)) for t in terms},
                        "cands": rows})
            print(name, q["id"], len(rows), file=sys.stderr)
    finally:
        lib.close()
    cache_path(name).write_bytes(pickle.dumps(out))


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


# ---- scoring variants ------------------------------------------------------------------------
def base_score(q: dict, c: dict, n: int, p: dict) -> float:
    from mmrag_desktop.engine.answer.confidence import content_terms
    from mmrag_desktop.engine.answer.extractive import (
        LEAD_IN_PENALTY,
        PAIR_WORDS,
        _asked_kind,
        _carries,
        is_term_line,
    )

    q_terms = set(content_terms(q["query"]))
    c_terms = set(content_terms(c["text"]))
    cover = len(q_terms & c_terms) / len(q_terms) if q_terms else 0.0
    if p.get("idf_cover") and q_terms:
        idf = q["idf"]
        cover = sum(idf.get(t, 0) for t in q_terms & c_terms) / max(1e-9, sum(idf.get(t, 0) for t in q_terms))
    key = p.get("cos", "cos")
    cos = (c["cos"] + c["cos_ctx"]) / 2 if key == "avg" else max(c["cos"], c["cos_ctx"]) if key == "max" else c[key]
    s = cos + p.get("cover_w", 0.5) * cover + p.get("rank_w", 0.2) * (n - c["block"]) / n
    if p.get("hl_w"):
        s += p["hl_w"] * c["hl"]
    if p.get("novel_w"):  # words beyond the question's: an answer adds something
        s += p["novel_w"] * min(1.0, len(c_terms - q_terms) / 8)
    asked = _asked_kind(q["query"]) if p.get("asked2") else _asked_old(q["query"])
    text = c["text"]
    if p.get("label") and (is_term_line(c["prev"]) if p.get("label") == "engine" else _is_label(c["prev"])):
        text = f"{' '.join(c['prev'].split())} {text}"
        if asked and _carries(c["prev"], asked):
            s += p.get("value_bonus", 0.15)
            asked = ""
    if asked and _carries(text, asked):
        s += p.get("value_bonus", 0.15)
    elif asked and c["following"] and _carries(c["following"], asked) and len(text.split()) + len(
            c["following"].split()) <= PAIR_WORDS:
        text = f"{text} {c['following']}"
        pair_bonus = p.get("value_bonus", 0.15) / 2
        if p.get("pair_named"):  # "ITL1=x resets ..." + "The default is 100." for "default value of ITL1"
            from mmrag_desktop.engine.answer.key_terms import terms
            names = {t.norm or t.text.lower() for t in terms(q["query"]) if t.kind == "name"}
            if names & {t.norm or t.text.lower() for t in terms(c["text"]) if t.kind == "name"}:
                pair_bonus += p["pair_named"]
        s += pair_bonus
    if c["text"].rstrip()[-1:] not in ".!?)":
        s -= LEAD_IN_PENALTY
    if p.get("fragment") and c["pos"] == 0 and c["text"][:1].islower() and c["text"].split()[0].isalpha():
        s -= p["fragment"]  # a block that starts mid-sentence ("default value is 1.0e-12.")
    if p.get("entry_w") and not p.get("one_entry") and _asked_kind(q["query"]) == "option":
        from mmrag_desktop.engine.answer.extractive import _OPTION_ENTRY
        if _OPTION_ENTRY.match(text):
            s += p["entry_w"]  # an option list's entry ("-c programmer-id Specify the programmer ...")
    if p.get("default_w") and _DEFAULT_Q.search(q["query"]) and _DEFAULT_S.search(text):
        s += p["default_w"]  # "... when I don't set one" -> "By default, ... format is "%f"."
    if p.get("caption_w") and c["kind"] == "figure" and _CAPTION.match(text):
        from mmrag_desktop.engine.search.query import plan_query
        if plan_query(q["query"]).intent == "visual" and (not p.get("strict") or _FIGURE_ASKED.search(q["query"])
                                                          or not _WH.match(q["query"])):
            s += p["caption_w"]
    if p.get("name_w"):
        from mmrag_desktop.engine.answer.key_terms import terms
        names = {t.norm or t.text.lower() for t in terms(q["query"]) if t.kind == "name"}
        if names and names & {t.norm or t.text.lower() for t in terms(text) if t.kind == "name"}:
            s += p["name_w"]
    return s, text


_DEFAULT_Q = re.compile(r"\b(?:default|without|don'?t (?:set|give|specify|change)|leave (?:\w+ )?out|left out|"
                        r"omit\w*|unless|assumed?|not (?:set|given|specified))\b", re.I)
_DEFAULT_S = re.compile(r"\bdefaults?\b|\bomitted\b|\bif (?:not|no)\b", re.I)
_WH = re.compile(r"^\s*(?:which|what|how|why|when|where|who|does|do|is|are|can)\b", re.I)
_FIGURE_ASKED = re.compile(r"\blooks? like\b|\bshow me\b", re.I)
_CAPTION = re.compile(r"^(?:\.\.\.\s*)?(?:fig(?:ure)?\.?)\s*\d", re.I)


# the rule before session 13 ("which command", not "which startup file"); `asked2` is the engine's now
_NAME_OLD = re.compile(
    r"\b(?:which|what) (?:command|option|function|flag|setting|variable|parameter|keyword|name|register|"
    r"pin|signal|macro|argument|switch|directive|statement|package|library|file)s?\b|\bwhat is it called\b", re.I)


def _asked_old(question: str) -> str:
    from mmrag_desktop.engine.answer.extractive import _VALUE_Q

    if _NAME_OLD.search(question):
        return "name"
    return "value" if _VALUE_Q.search(question) else ""


def _is_label(prev: str) -> bool:
    """A definition list's term line before its description ("~/.octaverc", "FIT_LOG")."""
    from mmrag_desktop.engine.answer.key_terms import terms

    words = prev.split()
    return 0 < len(words) <= 3 and prev.rstrip()[-1:] not in ".!?:;," and (
        any(t.kind == "name" for t in terms(prev)) or bool(re.search(r"[./_~]\w", prev)))


def _dup(a: str, b: str, rule: str) -> bool:
    from mmrag_desktop.engine.answer.confidence import content_terms
    from mmrag_desktop.engine.answer.key_terms import terms

    ta, tb = set(content_terms(a)), set(content_terms(b))
    if rule == "new_terms_rows":
        from mmrag_desktop.engine.answer.extractive import _row_keys
        if _row_keys(a) and _row_keys(a) == _row_keys(b):
            return True  # two rows of a table with the same columns: the best one is enough
    if rule == "jaccard":
        return len(ta & tb) / max(1, len(ta | tb)) > 0.6
    if len(ta & tb) / max(1, min(len(ta), len(tb))) <= 0.7:
        return False
    if rule in ("new_terms", "new_terms_rows"):  # a candidate with a number or name the other lacks says something else
        kb = {(t.kind, t.norm or t.value) for t in terms(b)}
        return all((t.kind, t.norm or t.value) in kb for t in terms(a))
    return True


_LIST_Q = re.compile(r"^\s*(?:list|what are the|which \w+s (?:are|does|do|can)|name the)\b", re.I)


def choose(q: dict, p: dict) -> list[dict]:
    cands = q["cands"]
    if p.get("list_rows") and _LIST_Q.search(q["query"]):
        p = {**p, "dedup": "new_terms"}  # a list is asked for: rows of one table are its items
    if not cands:
        return []
    n = max(c["block"] for c in cands) if p.get("n_from_cands") else q["n_blocks"]
    scored = []
    for c in cands:
        s, text = base_score(q, c, n, p)
        scored.append((s, text, c))
    if p.get("one_caption"):  # only the best caption keeps its bonus
        caps = [i for i, (_, t, c) in enumerate(scored) if c["kind"] == "figure" and _CAPTION.match(t)]
        if caps:
            best = max(caps, key=lambda i: scored[i][0])
            bonus = p["caption_w"] if scored[best][0] - base_score(q, scored[best][2], n, {**p, "caption_w": 0})[0] > 0 else 0
            scored = [(x - bonus if i in caps and i != best else x, t, c) for i, (x, t, c) in enumerate(scored)]
    from mmrag_desktop.engine.answer.extractive import _OPTION_ENTRY, _asked_kind
    if p.get("one_entry") and _asked_kind(q["query"]) == "option":
        entries = [i for i, (_, t, c) in enumerate(scored) if _OPTION_ENTRY.match(t)]
        if entries:
            best = max(entries, key=lambda i: scored[i][0])
            scored[best] = (scored[best][0] + p["entry_w"], scored[best][1], scored[best][2])
    scored.sort(key=lambda x: -x[0])
    chosen, words = [], 0
    for s, text, c in scored:
        if any(_dup(text, o[1], p.get("dedup", "")) for o in chosen):
            continue
        w = len(text.split())
        if chosen and words + w > p.get("max_words", 110):
            continue
        chosen.append((s, text, c))
        words += w
        if len(chosen) >= p.get("sentences", 4):
            break
    return chosen


def evaluate(data: list[dict], p: dict) -> dict:
    gold = fact = n_fact = 0
    for q in data:
        if q["insufficient"]:
            n_fact += bool(q["groups"])
            continue
        chosen = choose(q, p)
        g = {tuple(x) for x in q["gold"]}
        gold += any((c["doc"], pg) in g for _, _, c in chosen for pg in c["pages"])
        if q["groups"]:
            n_fact += 1
            fact += bool(states_fact(" ".join(t for _, t, _ in chosen), q["groups"]))
    return {"gold": gold / len(data), "fact": fact / max(1, n_fact)}


VARIANTS = {
    "default": {},
    "idf_cover": {"idf_cover": True},
    "cos_pair": {"cos": "cos_pair"},
    "cos_ctx": {"cos": "cos_ctx"},
    "ctx dedup new_terms": {"cos": "cos_ctx", "dedup": "new_terms"},
    "ctx dedup jaccard": {"cos": "cos_ctx", "dedup": "jaccard"},
    "ctx label": {"cos": "cos_ctx", "label": True},
    "ctx asked2": {"cos": "cos_ctx", "asked2": True},
    "ctx all3": {"cos": "cos_ctx", "dedup": "new_terms", "label": True, "asked2": True},
    "all3 rows": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": True, "asked2": True},
    "engine": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True},
    "engine + pair named 0.075": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "pair_named": 0.075},
    "engine + pair named 0.15": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "pair_named": 0.15},
    "engine + list rows": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "list_rows": True},
    "engine + fragment 0.2": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "fragment": 0.2},
    "engine + fragment 0.5": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "fragment": 0.5},
    "engine + name 0.1": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "name_w": 0.1},
    "engine + name 0.2": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "name_w": 0.2},
    "engine + both 0.2": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "name_w": 0.2, "fragment": 0.2},
    "engine + default 0.15": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "default_w": 0.15},
    "engine + default 0.3": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "default_w": 0.3},
    "engine + caption 0.15": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 0.15},
    "engine + caption 0.3": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 0.3},
    "engine + caption 0.5": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 0.5},
    "engine + strict caption 0.5": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 0.5, "strict": True},
    "engine + strict caption 1.0": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True},
    "s17 + option entry 0.15": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True, "one_caption": True, "entry_w": 0.15},
    "s17 + option entry 0.3": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True, "one_caption": True, "entry_w": 0.3},
    "s17 + one entry 0.15": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True, "one_caption": True, "entry_w": 0.15, "one_entry": True},
    "s17 + one entry 0.3": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True, "one_caption": True, "entry_w": 0.3, "one_entry": True},
    "s17 + one entry 0.5": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True, "one_caption": True, "entry_w": 0.5, "one_entry": True},
    "engine + one strict caption 1.0": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0, "strict": True, "one_caption": True},
    "engine + one strict caption 0.5": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 0.5, "strict": True, "one_caption": True},
    "engine + caption 1.0": {"cos": "cos_ctx", "dedup": "new_terms_rows", "label": "engine", "asked2": True, "caption_w": 1.0},
    "ctx dedup label": {"cos": "cos_ctx", "dedup": "new_terms", "label": True},
    "dedup label asked2 (no ctx)": {"dedup": "new_terms", "label": True, "asked2": True},
    "all3 + idf": {"cos": "cos_ctx", "dedup": "new_terms", "label": True, "asked2": True, "idf_cover": True},
    "all3 + rank 0.3": {"cos": "cos_ctx", "dedup": "new_terms", "label": True, "asked2": True, "rank_w": 0.3},
    "all3 + rank 0.1": {"cos": "cos_ctx", "dedup": "new_terms", "label": True, "asked2": True, "rank_w": 0.1},
    "all3, 5 sentences": {"cos": "cos_ctx", "dedup": "new_terms", "label": True, "asked2": True, "sentences": 5},
    "ctx2": {"cos": "cos_ctx2"},
    "ctx2 + idf": {"cos": "cos_ctx2", "idf_cover": True},
    "ctx2, 5 sentences": {"cos": "cos_ctx2", "sentences": 5},
    "ctx avg": {"cos": "avg"},
    "ctx max": {"cos": "max"},
    "ctx + novel 0.1": {"cos": "cos_ctx", "novel_w": 0.1},
    "ctx + cover 0.8": {"cos": "cos_ctx", "cover_w": 0.8},
    "ctx + idf": {"cos": "cos_ctx", "idf_cover": True},
    "ctx + rank 0.3": {"cos": "cos_ctx", "rank_w": 0.3},
    "ctx + rank 0.1": {"cos": "cos_ctx", "rank_w": 0.1},
    "ctx + value 0.25": {"cos": "cos_ctx", "value_bonus": 0.25},
    "ctx + value 0.05": {"cos": "cos_ctx", "value_bonus": 0.05},
    "ctx, 3 sentences": {"cos": "cos_ctx", "sentences": 3},
    "ctx, 5 sentences": {"cos": "cos_ctx", "sentences": 5},
    "hl 0.1": {"hl_w": 0.1},
    "hl 0.2": {"hl_w": 0.2},
    "novel 0.1": {"novel_w": 0.1},
    "novel 0.2": {"novel_w": 0.2},
    "cover 0.3": {"cover_w": 0.3},
    "cover 0.8": {"cover_w": 0.8},
    "rank 0.1": {"rank_w": 0.1},
    "rank 0.3": {"rank_w": 0.3},
}


def sweep(names: list[str], variants: list[str]) -> None:
    data = {n: pickle.loads(cache_path(n).read_bytes()) for n in names}
    print("| variant | " + " | ".join(f"{n} page / fact" for n in names) + " |")
    for v in variants:
        res = [evaluate(data[n], VARIANTS[v]) for n in names]
        print(f"| {v} | " + " | ".join(f"{r['gold']:.2f} / {r['fact']:.2f}" for r in res) + " |")


def ranks(name: str, p: dict) -> Counter:
    """Rank of the first candidate stating the fact, per question (for reading misses)."""
    cnt = Counter()
    for q in pickle.loads(cache_path(name).read_bytes()):
        if not q["groups"] or q["insufficient"]:
            continue
        n = q["n_blocks"]
        order = sorted(q["cands"], key=lambda c: -base_score(q, c, n, p)[0])
        r = next((i + 1 for i, c in enumerate(order) if c["states"] or c["states_pair"]), None)
        cnt["none" if r is None else "1-4" if r <= 4 else "5-10" if r <= 10 else ">10"] += 1
    return cnt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("cache", "sweep"))
    ap.add_argument("--sets", nargs="*", default=list(SETS))
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS))
    ap.add_argument("--page-passages", type=int, default=0, help="experiment (engine of commit c2f18b8)")
    args = ap.parse_args(argv)
    global PAGE_PASSAGES
    PAGE_PASSAGES = args.page_passages
    if args.what == "cache":
        for n in args.sets:
            build_cache(n)
    else:
        sweep(args.sets, args.variants)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
