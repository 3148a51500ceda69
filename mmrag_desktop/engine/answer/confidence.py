"""How far the evidence can be trusted to answer the question, from the evidence alone.

Features (each in 0..1):
- `similarity`: cosine between the question and the best hit text (the library's embedder),
  rescaled so 0.15 -> 0 and 0.65 -> 1;
- `coverage`: share of the question's content words found in the top hits;
- `agreement`: share of the top hits that both the dense and the keyword retriever returned
  (`Hit.sources`);
- `gap`: how far the top fused score stands above the next one (relative).
The score is a weighted sum; below `threshold` the answer becomes "the indexed manuals do not
cover this". Calibrated on bench/questions.jsonl (63 answerable, 6 unanswerable questions over
five Debian manuals; `python bench/bench_answer.py --only confidence`): unanswerable scores were
0.10-0.38 except one (0.56: "maximum ambient operating temperature of the power supply unit",
whose words all occur in the circuit simulator manual), answerable ones 0.51 and up except one
whose retrieval missed (0.11). 0.45 sits in the middle of that gap: 1/63 false positives,
1/6 false negatives. The weights were set by hand, not fitted: six unanswerable questions are
too few to fit four weights without overfitting.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..hits import Hit
from ..search.doc_names import named_documents
from ..search.query import (
    GREEK_NAMES,
    asked_phrase,
    common_words,
    entry_codes,
    howto_object,
    part_spellings,
    plan_query,
    split_spellings,
    symbol_spellings,
)

WEIGHTS = {"similarity": 0.5, "coverage": 0.35, "agreement": 0.1, "gap": 0.05}
DEFAULT_THRESHOLD = 0.45
# a question with a word the library never uses is not covered below DEFAULT_THRESHOLD + this margin:
# chosen on the dev and unseen-manual sets as the largest margin that flags no more answerable
# questions there (0.20: unseen not-covered recall 0.70 -> 0.80; 0.25 flags u10); bench/README.md, session 14
UNKNOWN_MARGIN = 0.20
# and below this much more when two words of the question or more are nowhere ("How do I make studymanager run
# the cases on a remote machine over ssh?" of a manual that never says "remote" or "ssh", scored 0.72; the
# unseen set's "K-type thermocouple" question, 0.66): the pages found share the question's frame, not its matter
UNKNOWN_MORE_MARGIN = 0.10
# but only this margin when every such word is a common one, written in lower case (`common_word`), in a question
# asked as one: a small library need not write "matter", "steady" or "bears" ("Does upper or lower case matter for
# labels ...?" of the microHOPE manual, 0.61, which says "the labels are case sensitive"). Not in a query of keywords,
# each of which is what it asks about (the unseen set's "analog bandwidth (-3 dB) of the expEYES Junior oscilloscope
# inputs A1 and A2", 0.646, of a manual that never says "bandwidth"); and a word of what a question asks for is
# decisive anyway (`decisive_unknown`: "What is the analog bandwidth of ...?")
COMMON_UNKNOWN_MARGIN = 0.10
# ... unless one of the first hits carries every number the question gives ("How do I draw a resistor 1.25
# units long going upward with 7 zigzag vertices on each side?" of Circuit_macros' manual, which never says
# "zigzag": "resistor(up_ 1.25,7) draws a resistor 1.25 units long up ... with 7 vertices per side."):
# the passage is about the thing asked, the unknown word a paraphrase
NUMBERS_HITS = 5
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\.?\d)")
TOP_N = 3

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under about
    as is are was were be been being do does did done have has had having can could should would
    may might must shall will i you he she it we they me him her us them my your his its our their
    this that these those there here what which who whom whose when where why how all any both each
    few more most other some such no nor not only own same so than too very just also use used using
    get gets got make makes way ways tell show give find need needs want does doesn't don't isn't
    please know one ones thing things something anything within without between per via""".split()
)
# (with the accented letters of Latin scripts: "Gröbner" is one word, not "Gr" and "bner"; not micro's sign, "10µF")
_TERM = re.compile(r"[A-Za-z0-9À-ÖØ-öø-ſ][A-Za-z0-9À-ÖØ-öø-ſ_.+#-]*")
# the spellings of German letters a manual may write without them ("Groebner" for "Gröbner"; FTS5 matches "Grobner")
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_NAME_WORD = re.compile(r"[A-Za-z0-9]+")
# a Greek letter the question spells out ("a Dirichlet character chi") is known to a library that
# writes the letter ("induce χ ∈ Ĝ to Z/NZ", the PARI/GP card); micro's sign is a mu too
GREEK = {name: letters for name, letters in zip(
    GREEK_NAMES,
    ["αΑ", "βΒ", "γΓ", "δΔ", "εϵΕ", "ζΖ", "ηΗ", "θϑΘ", "ιΙ", "κΚ", "λΛ", "μµΜ", "νΝ", "ξΞ", "οΟ", "πΠ", "ρΡ",
     "σςΣ", "τΤ", "υΥ", "φϕΦ", "χΧ", "ψΨ", "ωΩ"], strict=True)}
# a phrasal verb's particle or a general verb or adverb ("how can I get it back?", "sit right up
# against it", "spaced apart", "is gone"): never what a question is about, so a library that never uses
# one is no sign that the question is not covered (siunitx's and bodeplot's manuals, 123 pages, use
# none of "back", "gone", "against", "apart": two answerable questions were answered "not covered"), nor
# a question's frame ("What happens when I double-click on a curve ...?": Grace's user's guide never
# writes "happens"; "Is it possible to ...?"; "What is the rectwindow counterpart of plothraw?": the
# PARI/GP card never says "counterpart"; "What kinds of jobs is Ecasound meant for ...?": its user's guide
# never writes "meant"; "... can bodeplot still compute the plots, and what is the downside?": a manual states
# what a thing costs, seldom that it is a drawback; "numbered 31 down to 16"; a conjunction: "... how can I show the
# overlay number while developing?" of tikz-relay's manual, which never writes "while")
_GENERAL_WORDS = frozenset(
    """back down again apart away together against along around across ahead behind instead anymore already
    downside downsides drawback drawbacks disadvantage disadvantages upside upsides tradeoff tradeoffs caveat caveats
    none while whilst unless until though although whether because
    ever yet still gone come comes came went goes going gotten put keep keeps kept even
    happen happens happened happening possible possibly counterpart counterparts meant intended supposed
    myself yourself ourselves themselves
    mainly mostly primarily chiefly largely usually typically generally normally commonly especially particularly
    specifically basically really actually simply merely
    don doesn didn isn aren wasn weren won shouldn couldn wouldn haven hasn hadn""".split()
)  # (and what is left of "don't" and its kind: a manual that never writes "don't" has no word "don")


def stem(word: str) -> str:
    """A crude suffix stripper: enough to match "plots"/"plotting"/"plotted"/"plot",
    "voltage"/"voltages" and "rectangular"/"rectangle"."""
    w = word.lower().strip(".-")
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(("angular", "ircular")):  # a shape's adjective is its noun: "rectangular" / "rectangle"
        return w[:-4] + "l"
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    for suf in ("ation", "ing", "ed"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)]
            if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def content_terms(text: str) -> list[str]:
    """Stemmed content words of `text`, stopwords removed, unique, in order."""
    out: dict[str, None] = {}
    for t in _TERM.findall(text):
        if t.lower() not in STOPWORDS and (len(t) > 1 or t.isdigit()):
            out.setdefault(stem(t), None)
    return list(out)


@dataclass
class ConfidenceReport:
    """The confidence score, its features and the decision."""

    score: float
    insufficient: bool
    threshold: float
    features: dict[str, float] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)  # question names no hit mentions
    unknown: list[str] = field(default_factory=list)  # question words the library never uses
    unused: list[str] = field(default_factory=list)  # names the question writes that `unused_in` never use
    unused_in: list[str] = field(default_factory=list)  # the documents asked about (file names)


def _similarity(question: str, hits: Sequence[Hit], embedder) -> float | None:
    if embedder is None or not hits:
        return None
    texts = [question] + [h.text for h in hits]
    vecs = embedder.encode(texts)
    sims = vecs[1:] @ vecs[0]
    return float(max(sims))


def _plain(hits: Sequence[Hit]) -> list[Hit]:
    """The hits the query found, not those group enrichment joined to them (a figure's caption, a
    referencing paragraph: `Hit.enriched`); all of them when there are no others."""
    return [h for h in hits if not h.enriched] or list(hits)


def features(question: str, hits: Sequence[Hit], embedder=None, mates: Sequence[Hit] = ()) -> dict[str, float]:
    """The raw features for `question` and its ranked `hits` (see module docstring); `mates` are the
    search's reserve (other passages of the hits' pages)."""
    plain = _plain(hits)
    first = plain[:TOP_N]
    # and the passages of their pages among the next hits: a figure that stands for the text its page
    # was found by (search's region preference) is followed by that text, which the question's words
    # are in (Asymptote's "How do I draw a secondary logarithmic y axis on a graph?": the plots' tick
    # labels alone read as not covered)
    pages = {(h.doc_id, h.page) for h in first}
    top = first + [h for h in plain[TOP_N:2 * TOP_N] if (h.doc_id, h.page) in pages]
    # or in the reserve, left out because the figure or table is the page's hit (FreeDV's "What three
    # parts does the Easy Setup dialog shown on first start cover ...?": the dialog's screenshot stood
    # for "... is divided into three sections: 1. Sound card configuration, 2. CAT/PTT control, and 3.
    # Reporting.", and the answer read as not covered)
    shown = {(h.doc_id, h.page) for h in first if h.kind != "text"}
    have = {h.chunk_id for h in top}
    top += [m for m in mates if (m.doc_id, m.page) in shown and m.kind == "text" and m.chunk_id not in have]
    if not top:
        return {"similarity": 0.0, "cosine": 0.0, "coverage": 0.0, "agreement": 0.0, "gap": 0.0, "top_score": 0.0}
    terms = content_terms(question)
    hit_terms = set()
    for h in top:
        hit_terms.update(content_terms(h.text + " " + (h.section or "")))
    coverage = sum(t in hit_terms for t in terms) / len(terms) if terms else 0.0
    agreement = sum(1 for h in first if "dense" in h.sources and "keyword" in h.sources) / len(first)
    s1 = float(top[0].score)
    s2 = float(top[1].score) if len(top) > 1 else 0.0
    gap = (s1 - s2) / s1 if s1 > 0 else 0.0
    cos = _similarity(question, top, embedder)
    sim = min(1.0, max(0.0, (cos - 0.15) / 0.5)) if cos is not None else coverage
    return {
        "similarity": sim,
        "cosine": cos if cos is not None else -1.0,
        "coverage": coverage,
        "agreement": agreement,
        "gap": max(0.0, min(1.0, gap)),
        "top_score": s1,
    }


def score_features(f: dict[str, float], weights: dict[str, float] | None = None) -> float:
    """Weighted sum of the features, in 0..1."""
    w = weights or WEIGHTS
    total = sum(w.values())
    return sum(w[k] * f.get(k, 0.0) for k in w) / total


def assess(
    question: str,
    hits: Sequence[Hit],
    embedder=None,
    threshold: float | None = None,
    *,
    term_df: Callable[[list[str]], dict[str, int]] | None = None,
    unknown_margin: float | None = None,
    titles: dict[str, str] | None = None,
    mates: Sequence[Hit] = (),
    doc_term_df: Callable[[list[str], Sequence[int]], dict[str, int]] | None = None,
) -> ConfidenceReport:
    """Score the evidence for `question`; `insufficient` when below the threshold, when no hits,
    when a name of the question is in no hit (`absent_names`; a family named in a hit's model number
    counts: "SAMD" in "at91samd"), or when a word of the question occurs
    nowhere in the library (`unknown_words`, needs `term_df`) and the score is below the threshold
    plus `unknown_margin` (default UNKNOWN_MARGIN; UNKNOWN_MORE_MARGIN more for two such words or more, a word
    joining words the library uses and an everyday verb aside).

    `embedder` is the library's text embedder (anything with `encode(list[str])` returning
    L2-normalised rows); without it similarity falls back to term coverage. `term_df` is the
    library's `term_df`. `titles` ({file name: title}) are the documents'; a name that a hit's
    document is called by is no absent name (`names_a_document`). `mates` (other passages of the hits'
    pages, the search's reserve) are not scored, but a name they mention is no absent name: Autoconf's
    "exit with status 208" is in the table of exit statuses under the sentence found. `doc_term_df(terms,
    doc_ids)` is `term_df` over some documents (the library's): a name the question writes that none of the
    documents asked about uses (`asked_documents`, `unused_names`) makes it not covered too, whatever other
    manuals of the library say. Never raises for empty hits (returns score 0, insufficient).
    """
    thr = DEFAULT_THRESHOLD if threshold is None else float(threshold)
    f = features(question, hits, embedder, mates)
    score = score_features(f) if hits else 0.0
    named = [*hits, *mates] if hits else []
    text = "\n".join(f"{h.section}\n{h.text}" for h in named).lower()
    absent = [n for n in absent_names(question, named) if not _named_otherwise(n, text)
              and not names_a_document(n, hits, titles or {})]
    f["absent_names"] = float(len(absent))
    written = {t.lower(): t for t in _TERM.findall(question)}
    unknown = [w for w in (unknown_words(question, term_df) if term_df is not None else [])
               if not _named_otherwise(written.get(w, w), text)]
    f["unknown_words"] = float(len(unknown))
    decisive = decisive_unknown(question, unknown)
    f["decisive_unknown"] = float(len(decisive))
    unused: list[str] = []
    asked: list[str] = []  # the documents the question is about (file names), when unused names are looked for
    if doc_term_df is not None and hits:
        asked = asked_documents(question, hits, titles or {}, doc_term_df, term_df)
        ids = sorted({h.doc_id for h in hits if h.doc in asked})

        def found_df(terms: list[str]) -> dict[str, int]:
            return doc_term_df(terms, ids)

        unused = [n for n in unused_names(question, found_df, unknown) if not _named_otherwise(n, text)
                  and not names_a_document(n, hits, titles or {})]
    f["unused_names"] = float(len(unused))
    margin = UNKNOWN_MARGIN if unknown_margin is None else float(unknown_margin)
    u_thr = thr + margin
    if unknown and question.rstrip().endswith("?") and all(common_word(w, question) for w in unknown):
        u_thr = thr + min(margin, COMMON_UNKNOWN_MARGIN)
    elif len([w for w in unknown if not _joins_known_words(w, term_df) and stem(w) not in _EVERYDAY]) >= 2:
        u_thr += UNKNOWN_MORE_MARGIN
    stated = bool(unknown) and states_the_numbers(question, hits)
    f["numbers_stated"] = float(stated)
    return ConfidenceReport(score=score, insufficient=(not hits) or score < thr or bool(absent) or bool(decisive)
                            or bool(unused) or (bool(unknown) and score < u_thr and not stated), threshold=thr,
                            features=f, absent=absent, unknown=unknown, unused=unused, unused_in=asked if unused else [])


def _named_otherwise(name: str, text: str) -> bool:
    """True when the evidence's `text` (lower case) names `name` (as the question writes it) in another way: as part
    of a model number, spelled out, with an optional part in brackets or a wildcard part, or when it is the asker's
    placeholder."""
    return (in_model_number(name, text) or spelled_out(name, text) or placeholder(name)
            or with_optional_part(name, text) or with_wildcard_part(name, text))


# a word of the question that one manual of the library uses in this many chunks or more, and no other manual uses at
# all, is what that manual is about (the tool it documents: "gplink" in the gputils manual)
SUBJECT_CHUNKS = 10


def asked_documents(question: str, hits: Sequence[Hit], titles: dict[str, str],
                    doc_term_df: Callable[[list[str], Sequence[int]], dict[str, int]] | None = None,
                    term_df: Callable[[list[str]], dict[str, int]] | None = None) -> list[str]:
    """The file names of the hits' documents the question is about: the ones it names (search/doc_names.py's
    `named_documents`: "Is there a Python binding for Gri ...?" of gri.pdf), else the ones whose subject it writes
    (`subject_documents`, with the library's `doc_term_df` and `term_df`: "Can gplink write its output as an ELF
    file instead of COFF?" of gputils.pdf, whose library holds the SCons guide, which writes "ELF"), else all of
    them."""
    docs = {h.doc_id: h.doc for h in hits}
    named = named_documents(question, {i: (d, titles.get(d, "")) for i, d in docs.items()})
    if not named and len(docs) > 1 and doc_term_df is not None and term_df is not None:
        named = subject_documents(question, list(docs), doc_term_df, term_df)
    return [d for i, d in docs.items() if i in named] or list(docs.values())


def subject_documents(question: str, doc_ids: Sequence[int],
                      doc_term_df: Callable[[list[str], Sequence[int]], dict[str, int]],
                      term_df: Callable[[list[str]], dict[str, int]]) -> set[int]:
    """The documents of `doc_ids` that use a word of `question` in SUBJECT_CHUNKS chunks or more where no other
    document of the library uses it (`term_df` counts it in the whole library): the tool or library the manual
    documents ("gplink", "gpasm": gputils'), which the question need not call by the manual's name."""
    words = list(dict.fromkeys(w for t in _TERM.findall(question)
                               if len(w := t.rstrip(".").lower()) > 2 and w not in STOPWORDS))
    if not words:
        return set()
    everywhere = term_df(words)
    out = set()
    for d in doc_ids:
        here = doc_term_df(words, [d])
        if any(here.get(w, 0) >= SUBJECT_CHUNKS and here[w] == everywhere.get(w, 0) for w in words):
            out.add(d)
    return out


def unused_names(question: str, found_df: Callable[[list[str]], dict[str, int]], known: Sequence[str] = ()) -> list[str]:
    """The names the question writes (a capital, letters only, not its first word: decisive_unknown's) that no
    chunk of the documents asked about uses (`found_df`: term_df over them; `unknown_words` with it), as the
    question writes them, leaving out the `known` words (the library's unknown words, told apart): "Is there a
    Python binding for Gri ...?" of a library whose FreedomBox manual writes "Python" while Gri's never does. A
    name the question offers as an alternative to a name those documents do use is left out ("accented European
    characters or Chinese/Japanese text": the manual may say what it does with the other)."""
    written = {t.rstrip(".").lower(): t.rstrip(".") for i, t in enumerate(_TERM.findall(question)) if i > 0}
    names = [written[w] for w in unknown_words(question, found_df) if w not in known
             and written.get(w, "").isalpha() and not written[w].islower()]
    return [n for n in names if not _or_a_used_name(n, question, found_df)]


def _or_a_used_name(name: str, question: str, found_df: Callable[[list[str]], dict[str, int]]) -> bool:
    """True when `question` joins `name` by "or" or "/" to a capitalised word that `found_df` counts."""
    n = re.escape(name)
    joint = r"\s*(?:/|\bor\b)\s*"
    others = re.findall(rf"(?<![\w-]){n}{joint}([A-Z][A-Za-z]+)", question)
    others += re.findall(rf"([A-Z][A-Za-z]+){joint}{n}(?![\w-])", question)
    return bool(others) and any(found_df(others).get(o, 0) for o in others)


def common_word(word: str, question: str) -> bool:
    """True when `word` (lower case) is a general English word (`common_words`) that `question` writes in lower case
    wherever it writes it: not a name or an acronym the asker capitalises ("Python", "XML"), which names a thing the
    library may lack."""
    written = [t.rstrip(".") for t in _TERM.findall(question) if t.rstrip(".").lower() == word]
    return bool(written) and all(t == word for t in written) and word in common_words()


# everyday verbs and words of a question's frame, which a small library may well never write ("how can I accept a
# key=value option ... and fall back to a default", Circuit_macros): not the second thing it never names
_EVERYDAY = frozenset(stem(w) for w in """accept allow avoid begin bring call care carry change choose come cope
    buy deal decide end enter fall feel fit follow forget happen help hold hope keep leave let like live look lose mean
    move notice pass pick place plan prefer prevent pull push reach read remember rely return run save say see seem
    send set sit stand stay stop suggest suppose take talk think throw touch try turn wait walk wish wonder work worry
    worth write""".split())


def _joins_known_words(word: str, term_df: Callable[[list[str]], dict[str, int]] | None) -> bool:
    """True when `word` joins words of three letters or more that the library uses ("trouble-free": the asker's
    way of putting what the manual says otherwise), not a name ("k-type") or a thing it never names."""
    parts = word.split("-")
    if len(parts) < 2 or term_df is None or any(len(p) < 3 for p in parts):
        return False
    df = term_df(parts)
    return all(df.get(p, 0) for p in parts)


def names_a_document(name: str, hits: Sequence[Hit], titles: dict[str, str]) -> bool:
    """True when `name` is a word of the file name or the title of a hit's document: the question names
    the manual or its product, which its pages need not repeat ("How do I induce a Dirichlet character
    ... in PARI/GP?" of refcard.pdf, "Pari-GP reference card", whose table rows never say "PARI")."""
    words = {w.lower() for h in hits for w in _NAME_WORD.findall(f"{h.doc.rsplit('.', 1)[0]} {titles.get(h.doc, '')}")}
    return name.lower() in words


def states_the_numbers(question: str, hits: Sequence[Hit]) -> bool:
    """True when one of the first NUMBERS_HITS hits carries every number `question` gives, and one of
    them is more than a single digit (a digit alone is on every page)."""
    wanted = set(_NUMBER.findall(question))
    if not wanted or all(len(n) == 1 for n in wanted):
        return False
    return any(wanted <= set(_NUMBER.findall(h.text)) for h in _plain(hits)[:NUMBERS_HITS])


_CAMEL_PART = re.compile(r"(?<=[a-z])(?=[A-Z])")


# the word a question says how it wants a thing done with ("What's the idiomatic way to loop over ...?" of the nauty
# guide, which never writes "idiomatic"; "the quickest way to", "the recommended way to"): the question's frame, not
# its matter
_WAY = re.compile(r"\b([a-z]+)\s+ways?\s+(?:to|of)\b")  # (in lower case: not a name, "a Python way to")


def unknown_words(question: str, term_df: Callable[[list[str]], dict[str, int]]) -> list[str]:
    """The question's words (three letters or more, not stopwords, not numbers) that occur in no
    chunk of the library ("consumption", "link-time", "grafana"): with a middling score, the pages
    found are about something near but not the thing asked. `term_df` is the library's."""
    # (a sentence's full stop is no part of its last word: "... instead of right away. How do I ...")
    terms = (t.rstrip(".") for t in _TERM.findall(question))
    framing = {w.lower() for w in _WAY.findall(question)}
    words = list(dict.fromkeys(t.lower() for t in terms if len(t) > 2 and not t.isdigit()
                               and t.lower() not in STOPWORDS and t.lower() not in _GENERAL_WORDS
                               and t.lower() not in framing))
    if not words:
        return []
    variants = {w: _spellings(w) + _nouns_of(w) + _verbs_of(w) + dimension_spellings(w) + part_spellings(w)
                + list(GREEK.get(w, "")) + list(_GRADED.get(w, ())) + symbol_spellings(w) + _IRREGULAR.get(w, [])
                + number_word_spellings(w)
                + ([plain] if (plain := w.translate(_UMLAUTS)) != w else [])
                for w in words}
    parts = {w: _dotted_parts(w) for w in words}
    df = term_df(list(dict.fromkeys([*(v for vs in variants.values() for v in vs), *(p for ps in parts.values() for p in ps)])))
    unknown = [w for w in words if not any(df.get(v, 0) for v in variants[w])
               and not (parts[w] and all(df.get(p, 0) for p in parts[w]))]
    unknown = [w for w in unknown if not _written_otherwise(w, term_df)]
    aliases = bracketed_aliases(question)  # (a word whose other name the library knows is known)
    if any(w in aliases for w in unknown):
        known = term_df([aliases[w] for w in unknown if w in aliases])
        unknown = [w for w in unknown if not known.get(aliases.get(w, ""), 0)]
    # a word the question writes as a part of a name in camel case it also gives, which the library knows
    # ("\PartialBigg and its bigg/Bigg relatives": the manual writes \Partialbigg, never "bigg" alone; not "Pro" of
    # "Programmer", one word)
    camel = {piece.lower() for name in _TERM.findall(question) if name.lower() in words and name.lower() not in unknown
             for piece in _CAMEL_PART.split(name) if piece != name}
    return [w for w in unknown if w not in camel]


# a number a question joins to a word by a hyphen ("an empty 16-cell map", "a few 6-input ones"): the asker's way of
# counting what the manual writes otherwise ("16 fields"); not a number written as a word, which names a kind ("two-factor
# authentication" of Baculum's manual, which writes "factor" but no two-factor login)
_COUNTED = re.compile(r"^\d+(?:\.\d+)?-([a-z][a-z-]*)$")


def _written_otherwise(word: str, term_df: Callable[[list[str]], dict[str, int]]) -> bool:
    """True when the library writes `word` (an unknown word of the question) another way: as two words
    ("changeover" / "change over contact", tikz-relay's; "screenshot", "subfolders"), without the negating prefix
    ("unactivated" / "activated": the asker's "not activated"), or, after a number in digits joined to it by a hyphen,
    the words counted ("16-cell" / "cell"; `_COUNTED`)."""
    forms = split_spellings(word)
    if (m := re.match(r"(?:un|non-?)([a-z]{5,})$", word)) is not None:
        forms.append(m.group(1))
    if (m := _COUNTED.match(word)) is not None:
        return all(any(term_df(_spellings(p)).values()) for p in m.group(1).split("-"))  # (a word is its own spelling)
    return bool(forms) and any(term_df(forms).values())


# an irregular verb's past forms, which no stemmer takes back to the verb a manual writes ("If I broke the terms of
# the licence and then stopped, do I get it back?" of the AGPL's "if you cease all violation ...", whose text
# writes "break" but never "broke"): the verb is the word, and so are its other forms
_IRREGULAR = {past: [verb, *(f for f in forms.split("/") if f != past)]
              for verb, forms in (line.split(":") for line in """
    begin:began/begun bend:bent bind:bound bite:bit/bitten blow:blew/blown break:broke/broken bring:brought
    build:built buy:bought catch:caught choose:chose/chosen deal:dealt dig:dug draw:drew/drawn drive:drove/driven
    eat:ate/eaten fall:fell/fallen feed:fed feel:felt fight:fought find:found fly:flew/flown
    forbid:forbade/forbidden forget:forgot/forgotten freeze:froze/frozen give:gave/given grow:grew/grown hang:hung
    hear:heard hide:hid/hidden hold:held know:knew/known lay:laid lead:led leave:left lend:lent lose:lost make:made
    mean:meant pay:paid ride:rode/ridden ring:rang/rung rise:rose/risen run:ran say:said see:saw/seen seek:sought
    sell:sold send:sent shake:shook/shaken shine:shone shoot:shot show:shown shrink:shrank/shrunk sing:sang/sung
    sink:sank/sunk sit:sat sleep:slept slide:slid speak:spoke/spoken spend:spent spin:spun stand:stood
    steal:stole/stolen stick:stuck strike:struck swear:swore/sworn swim:swam/swum take:took/taken teach:taught
    tear:tore/torn tell:told think:thought throw:threw/thrown understand:understood wake:woke/woken wear:wore/worn
    win:won wind:wound write:wrote/written""".split())
              for past in forms.split("/")}


# a judgement a question makes in one word and a manual in its opposite: "is that cheap for GMRES?" of PETSc's
# "For certain KSP methods (e.g., GMRES), the construction of the solution is expensive": the library speaks
# of the quality asked about, so the word is not unknown
_GRADED = {"cheap": ("expensive", "costly"), "cheaper": ("expensive", "costly"), "inexpensive": ("expensive",),
           "costly": ("cheap", "expensive"), "pricey": ("expensive",)}


def _nouns_of(word: str) -> list[str]:
    """The nouns an adjective in -ic or -ical may be made from, which a manual writes instead: "a
    parabolic diagram" of one that says "parabola" (stanli's "[parabola height]"), "periodic" /
    "period", "cyclic" / "cycle", "geometrical" / "geometry"; [] for other words."""
    if word.endswith("ical") and len(word) > 7:
        return [word[:-4] + "y"]
    if word.endswith("ic") and len(word) > 5:
        base = word[:-2]
        return [base + "a", base, base + "e"]
    return []


def _verbs_of(word: str) -> list[str]:
    """The verb a noun in -er names the doer of, which a manual writes instead: "linker" of FFTW's "link with
    -lfftw3 -lm" ("What linker flags do I need ...?" was not covered), "compiler" / "compile", "parser" / "parse";
    [] for other words (not "-or": "factor", "tensor")."""
    noun = word[:-1] if word.endswith("ers") else word
    if not (noun.endswith("er") and len(noun) > 5 and noun[-3] not in "aeiou"):
        return []
    return [noun[:-2], noun[:-1]]


def _dotted_parts(word: str) -> list[str]:
    """The parts of a dotted name a manual writes apart ("x.status": the suffix ".status" of a variable the
    question calls x; "stopwatch.rollover"), one-letter placeholders left out; [] for other words."""
    pieces = word.split(".")
    if len(pieces) < 2 or not all(pieces):
        return []
    return [p for p in pieces if len(p) > 1]


# British and American spellings ("licence" / "license", "colour" / "color", "centre" / "center",
# "optimise" / "optimize", "optimised" / "optimized", "analyse" / "analyze"): a manual that writes one does not miss
# the word written the other way ("My VU-meter bargraphs get optimised away ...?" of the FAUST manual, which writes
# "optimized", was not covered)
_SPELLINGS = (("our", "or"), ("ence", "ense"), ("ise", "ize"), ("ised", "ized"), ("ising", "izing"),
              ("isation", "ization"), ("yse", "yze"), ("ysed", "yzed"), ("ysing", "yzing"), ("tre", "ter"), ("ogue", "og"))


def _spellings(word: str) -> list[str]:
    """`word` and its other spelling(s), for whole words and their plurals ("colours" / "colors")."""
    out = [word]
    stem, s = (word[:-1], "s") if word.endswith("s") and not word.endswith("ss") else (word, "")
    for a, b in _SPELLINGS:
        for x, y in ((a, b), (b, a)):
            if stem.endswith(x) and len(stem) > len(x) + 2:
                out.append(stem[: -len(x)] + y + s)
    return out


# the opening of a yes-or-no question about what something does, and an adverb before its verb
_YES_NO = r"^\s*(?:can|could|does|do|will|would)\s+"
_ADVERB = r"(?:(?:also|still|really|actually|ever)\s+)?"
# "Can Gpredict decode ...?", "Does the board support ...?": what the manual's subject is asked to do (not
# "Can I ...", "Is there ...")
_CAN_IT = re.compile(_YES_NO + r"(?:the\s+|a\s+|an\s+)?(?!(?:i|you|we|it|they|one|this|that|there|these|those|he|"
                     r"she|my|our|your)\b)[\w.+-]+\s+" + _ADVERB + r"([a-z]+)\b", re.I)
# what a yes-or-no question asks the manual's subject to have: its object, up to a clause's end, examples
# or an infinitive ("Does chemplants provide a symbol for a membrane separation unit such as reverse
# osmosis?" of a manual that never says "membrane" scored 0.66, over the bar, and quoted the manual's
# general scope). Its words joined by hyphens are left to the score, and "Is there ...?" is not read so:
# "Is there a ready-made library ...", "... a four-terminal Kelvin resistor" of Circuit_macros' manual,
# which has both (lg_pin, KelvinR), were said not covered when it was (not kept)
_HAS_IT = re.compile(_YES_NO + r"(?:the\s+)?[\w.+-]+\s+" + _ADVERB
                     + r"(?:provide|have|support|offer|include|contain|define|ship|come)s?\s+(?:with\s+)?"
                     r"([^,?;:]+?)\s*(?=,|\?|;|:|\bsuch as\b|\blike\b|\be\.g\.|\bto\b|$)", re.I)


# what a yes-or-no question asks the manual's subject to act on: the object of its verb, up to a clause's end, examples,
# "instead" or a preposition ("Can FireHOL generate nftables rules instead of iptables ones?" of a manual that never
# writes "nftables" scored 0.78: iptables rules are its matter); the dictionary's words of it are left to the score
# (what _CAN_IT matches, then the object: group 2)
_DOES_IT_TO = re.compile(_CAN_IT.pattern + r"\s+([^,?;:]+?)\s*(?=,|\?|;|:|\bsuch as\b|\blike\b|\be\.g\.|\binstead\b|"
                         r"\bto\b|\bfrom\b|\bwith\b|\bin\b|$)", re.I)
# what a question asks a tool of the manual to do something to: the object of the verb after "Which program ..."
# ("Which gtools program computes the chromatic number of each graph in a graph6 file?" of the nauty guide, which never
# writes "chromatic", scored 0.86 and quoted the gtools' introduction); the same clause's end as _DOES_IT_TO's
_WHICH_DOES = re.compile(r"^\s*(?:which|what)\s+(?:[\w.+-]+\s+){0,3}?(?:program|tool|utility|utilities|command|function|"
                         r"routine|option|module|macro|script|package|librar(?:y|ies)|setting|flag|directive|method|"
                         r"procedure|plugin|filter|driver|keyword|primitive)s?\s+(?:(?:can|will|would|should)\s+)?"
                         r"(?!(?:does|is|has|was)\b)[a-z]+s\s+(?:the\s+|a\s+|an\s+|each\s+|my\s+)?([^,?;:]+?)\s*"
                         r"(?=,|\?|;|:|\bsuch as\b|\blike\b|\be\.g\.|\binstead\b|\bof\b|\bto\b|\bfrom\b|\bwith\b|"
                         r"\bin\b|\binto\b|\bon\b|\bby\b|$)", re.I)
_ABSTRACT = ("tion", "sion", "ment", "ness", "ing", "ity", "ance", "ence")
# (the object itself, not a word that qualifies it: "with a quadratic objective", "with the transposed basis matrix")
_TOOL = re.compile(r"\b(?:with|using|via|over|through)\s+(?:the\s+|a\s+|an\s+)?([a-z][a-z0-9]{1,11})"
                   r"(?=\s*[?,.;:]|\s*$|\s+(?:using|in|into|and|or|to|for|on|from|so|instead|rather|without|when|if|but|"
                   r"as|at|by|while)\b)")


def decisive_unknown(question: str, unknown: Sequence[str]) -> list[str]:
    """The `unknown` words (unknown_words) that make a question not covered whatever the score: one
    written as a name ("the HackRF Pro": letters only, a capital, not the question's first word) or a
    word of what it asks for ("What is the operating temperature range of HackRF One?" of a library
    that never says "temperature"; "Can Gpredict decode the telemetry ...?" of one that never says "decode"; capitalised words joined by hyphens, "a Drucker-Prager or
    Mohr-Coulomb strength model", _names_joined; "How do I calibrate my monitor ...?" of one that never says
    "monitor"). Codes ("DB-25", "Mini-DIN": a figure question may name a drawing's
    connector by a name its labels do not give) and general words the manuals happen not to use
    ("screenshot", "rerun", "largest") are left to the score."""
    if not unknown:
        return []
    asked = set(" ".join(filter(None, (asked_phrase(question), howto_object(question)))).lower().split())
    if m := _CAN_IT.match(question):  # "Can Gpredict decode the telemetry ...?" asks whether it decodes
        asked.add(m.group(1).lower())
    if m := _HAS_IT.match(question):  # "Does chemplants provide a symbol for a membrane separation unit ...?"
        asked.update(w for w in m.group(1).lower().split() if "-" not in w)
    if m := _DOES_IT_TO.match(question):  # "Can FireHOL generate nftables rules instead of iptables ones?": what the
        # subject is asked to act on, a word no dictionary has (not "Does upper or lower case matter ...", "... depend on
        # a particular output driver ...")
        asked.update(w for w in m.group(2).lower().split() if not common_word(w, question) and "-" not in w)
    if m := _WHICH_DOES.match(question):  # "Which gtools program computes the chromatic number ...?"
        asked.update(w for w in m.group(1).lower().split() if not common_word(w, question) and "-" not in w)
    # the tool or protocol a question would do it with ("Can I copy files to a remote host with scp using Erlang's ssh
    # application?" of a manual that never writes "scp"): a word no dictionary has, so a name
    asked.update(w for w in _TOOL.findall(question) if not w.endswith(_ABSTRACT)  # (not "with duplication")
                 and not any(common_word(v, question.replace(w, v)) for v in (w, w[:-1], w[:-2]) if len(v) > 2))
    written = {t.lower(): t for i, t in enumerate(_TERM.findall(question)) if i > 0}
    return [w for w in unknown
            if w in asked or (written.get(w, "").isalpha() and not written[w].islower()) or _names_joined(written.get(w, ""))]


def _names_joined(word: str) -> bool:
    """True for two or more capitalised words joined by hyphens: a law or a model named after people
    ("Drucker-Prager", "Mohr-Coulomb", "Runge-Kutta"), not a code ("Mini-DIN", "DB-25", "RS-485")."""
    parts = word.split("-")
    return len(parts) > 1 and all(p.isalpha() and p[:1].isupper() and p[1:].islower() and len(p) > 1 for p in parts)


# an acronym this long or longer is spelled out by chance too rarely to count (3 letters: "every single page")
ACRONYM_LETTERS = 4


def spelled_out(name: str, text: str) -> bool:
    """True when `name` is an acronym in capitals (ACRONYM_LETTERS to 6 letters) that `text` (lower case) spells
    out, its words' initials in order, joined by spaces, hyphens, commas or slashes: "Windows-style CRLF line endings"
    of a manual that writes "Both Windows-style (carriage-return, line-feed) and Unix-style (line-feed) line endings
    are supported" (dasm's): the asker's short name for what the pages say in words."""
    if not (ACRONYM_LETTERS <= len(name) <= 6 and name.isalpha() and name.isupper()):
        return False
    joint = r"[\s,/()-]+"
    pattern = joint.join(c.lower() + r"[a-z]+" for c in name)
    return re.search(r"(?<![a-z])" + pattern + r"(?![a-z])", text) is not None


# a name the asker makes up for an example of their own ("labels with a caret surrounded by spaces (like "^ myLabel")",
# "my_func", "foo"): no manual names it, and it says nothing of what is asked
_PLACEHOLDER = re.compile(r"my[A-Z][a-z]\w*|my_\w+|(?:foo|bar|baz|qux)(?:_\w+|\d*)")  # (not "MySQL", "barometer")


def placeholder(name: str) -> bool:
    """True when `name`, as the question writes it, is a made-up example name (`_PLACEHOLDER`)."""
    return _PLACEHOLDER.fullmatch(name) is not None


# a name with an optional part in brackets, a family of routines written once: "fits_make_hist[d]" (CFITSIO's), "ffgkn[sjed]"
_OPTIONAL_PART = re.compile(r"(?<![\w.])([a-z_][\w.]*)\[([a-z0-9_|]{1,12})\]")


def with_optional_part(name: str, text: str) -> bool:
    """True when `text` (lower case) writes `name` with its end as an optional part in brackets: "fits_make_histd" of
    "int fits_make_hist[d] (fitsfile *fptr, ...)", one entry for the routine and its double-precision twin; a part
    of letters in brackets is the letters one at a time too ("[sjed]") or alternatives split by "|"."""
    low = name.lower()
    for m in _OPTIONAL_PART.finditer(text):
        prefix, part = m.groups()
        ends = part.split("|") if "|" in part else [part, *part]
        if low.startswith(prefix) and low[len(prefix):] in ends:
            return True
    return False


def with_wildcard_part(name: str, text: str) -> bool:
    """True when `text` (lower case) writes `name` (words joined by underscores) with a part more written as a
    wildcard, "*": "umfpack_solve" of UMFPACK's "umfpack_*_solve" and "umfpack_*_*solve", one name for its di, dl, zi
    and zl routines (and "wsolve" beside "solve")."""
    parts = [re.escape(p) for p in name.lower().split("_") if p]
    if len(parts) < 2:
        return False
    pattern = r"(?<![\w*])" + r"_(?:\*_)?\*?".join(parts) + r"(?![\w])"
    return any("*" in m.group() for m in re.finditer(pattern, text))


def in_model_number(name: str, text: str) -> bool:
    """True when `name` (a family: "SAMD", "ESP", "PIC18F") is part of a model number in `text` (lower
    case), joined to it at a digit: "at91samd", "samd21", "esp32", or before x's standing for its
    members when it carries a series number: "pic18fxxx" ("samdx" is no SAMD). A name that only starts a
    longer word ("Pro" in "program") is not."""
    n = re.escape(name.lower())
    # or, a series with its number, before the x's that stand for its members: "PIC18F" in "pic18fxxx"
    members = r"|x+(?![a-z0-9])" if any(c.isdigit() for c in name) else ""
    return re.search(r"\d" + n + r"(?![a-z])|(?<![a-z])" + n + r"(?:\d" + members + ")", text) is not None


# a name a question gives another name for in brackets right after it ("a little-endian POWER9 (ppc64le) box" of HMMER's
# guide, which writes "ppc64le" and never "POWER9"): one thing named twice, which a page may call by either name; both
# names of one word, each with a digit, a capital after its first letter or an underscore (not "the timeout (seconds)")
_ALIAS = re.compile(r"(?<![\w.-])([\w.+-]+)\s+\(([\w.+-]+)\)")


def bracketed_aliases(question: str) -> dict[str, str]:
    """Each name of `question` (lower case) that the question names again in brackets (`_ALIAS`), to its other name,
    both ways: {"power9": "ppc64le", "ppc64le": "power9"}."""
    def name_like(w: str) -> bool:
        return any(c.isdigit() or c == "_" for c in w) or any(c.isupper() for c in w[1:])

    out: dict[str, str] = {}
    for m in _ALIAS.finditer(question):
        a, b = m.group(1).strip(".-"), m.group(2).strip(".-")
        if a and b and name_like(a) and name_like(b) and a.lower() != b.lower():
            out[a.lower()], out[b.lower()] = b.lower(), a.lower()
    return out


def absent_names(question: str, hits: Sequence[Hit]) -> list[str]:
    """The question's names (part numbers, ALL-CAPS names, identifiers: key_terms.py) that occur in
    none of the hits: a question about "the ESP32" or "the RS-485 port" is not answered by pages
    that never name it, however close their wording."""
    from .key_terms import TermIndex, missing_terms, terms

    # a quoted letter ("the 'O' character", "the 'x' option") names nothing a page must repeat: a chunk of
    # its section may never write it alone (tikz-timing's "Please note that the width of the first argument
    # is ignored ..." under "4.3 Overlays", the 'O' named three paragraphs above)
    names = [t for t in terms(question) if t.kind == "name" and len(t.norm) > 1]
    # nor do the letters of a formula ("the Lie bracket AB - BA": products of matrices, which a page writes as it likes)
    operands = formula_operands(question)
    names = [t for t in names if t.text not in operands]
    # and its codes and model numbers ("the Tormach 1100", "error 118"; no quantities)
    codes = entry_codes(plan_query(question))
    if not (names or codes) or not hits:
        return []
    index = TermIndex("\n".join(f"{h.section}\n{h.text}" for h in hits))
    absent = [t.text for t in missing_terms(names, index)
              if not _named_by_parts(t.norm, index.low) and not _named_as_the_tools_do(t.text, index.low)
              and not _named_by_its_number(t.text, question, index.low) and not _named_with_its_value(t.norm, index.low)
              and not _named_as_formulas_do(t.norm, index.low) and not _named_as_dimensions(t.norm, index.low)]
    absent += [n for n in codes if not re.search(r"(?<![\w.])" + n.lower() + r"(?![\w])", index.low)]
    aliases = bracketed_aliases(question)  # (a name whose other name a hit writes is named)
    absent = [n for n in absent if n.lower() not in aliases
              or not re.search(r"(?<![\w.])" + re.escape(aliases[n.lower()]) + r"(?![\w])", index.low)]
    return list(dict.fromkeys(absent))  # a hexadecimal code is a name too


# two or more symbols of at most three capitals (or one small letter) joined by arithmetic ("AB - BA", "A*B", "x + y"); a
# hyphen or a slash counts only with spaces around it ("RS-485", "DB-25" are codes, "TX/RX", "A/D" names)
_OPERAND = r"(?:[A-Z]{1,3}|[a-z])"
_FORMULA = re.compile(r"(?<![\w.-])" + _OPERAND + r"(?:(?:\s+[-+*/=−]\s+|\s*[+*=]\s*)" + _OPERAND + r")+(?![\w.-])")


def formula_operands(question: str) -> set[str]:
    """The symbols of the formulas a question writes (`_FORMULA`): "AB" and "BA" of "the Lie bracket AB - BA"."""
    return {t for m in _FORMULA.finditer(question) for t in re.findall(_OPERAND, m.group())}


def _named_by_its_number(name: str, question: str, text: str) -> bool:
    """True when the question joins `name` to a number by a hyphen, a maker's prefix of a model ("my Icom
    IC-7300"), and `text` (lower case) names that number as a word: FreeDV's manual writes "On newer
    radios (e.g. 7300, 7610)"."""
    return any(re.search(r"(?<![\w.])" + m.group(1) + r"(?![\w.])", text)
               for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"-(\d+)(?![\w.-])", question))


def _named_as_the_tools_do(name: str, text: str) -> bool:
    """True when the part number `name` is in `text` (lower case) as its tools spell it ("PIC16F1829LIN"
    as "p16f1829lin", search/query.part_spellings)."""
    return any(re.search(r"(?<![\w.])" + re.escape(v) + r"(?![\w])", text) for v in part_spellings(name))


def _named_as_formulas_do(name: str, text: str) -> bool:
    """True when the symbol `name` spells in Latin letters ("C_mu", "sigma_eps": search/query.symbol_spellings) is
    in `text` (lower case) as a formula writes it: "Cµ" (micro's sign or the Greek letter), "C ε1", "σε", "k − ε"."""
    spelled = symbol_spellings(name.lower())
    if not spelled:
        return False
    letters = {c: variants for variants in GREEK.values() for c in variants}  # any way of writing it: all of them
    pattern = r"[\s\u2212\u2013-]{0,3}".join(f"[{letters[c]}]" if c in letters else re.escape(c) for c in spelled[0].replace(" ", ""))
    return re.search(r"(?<!\w)" + pattern + r"(?!\w)", text) is not None


# (not a hexadecimal code: "0x42")
_DIMENSIONS = re.compile(r"([1-9]\d*)x([1-9]\d*)(?:x([1-9]\d*))?")


# the numbers a compound word may write as words ("4-by-4" / "four-by-four", "2-dimensional" / "two-dimensional")
_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve").split()
_COMPOUND_NUMBER = re.compile(r"(?<![\w.])(\d{1,2})(?=-[a-z])|(?<=[a-z]-)(\d{1,2})(?![\w.])")
_COMPOUND_WORD = re.compile(r"(?<![\w])(" + "|".join(_NUMBER_WORDS) + r")(?=-[a-z])|(?<=[a-z]-)("
                            + "|".join(_NUMBER_WORDS) + r")(?![\w])")


def number_word_spellings(word: str) -> list[str]:
    """A compound word (lower case, joined by hyphens) with its numbers up to twelve written the other way, digits as
    words or words as digits: "four-by-four" of MrBayes' manual for a question's "4-by-4"; [] for other words."""
    if "-" not in word:
        return []
    words = _COMPOUND_NUMBER.sub(lambda m: _NUMBER_WORDS[int(m.group(0))] if int(m.group(0)) < len(_NUMBER_WORDS)
                                 else m.group(0), word)
    digits = _COMPOUND_WORD.sub(lambda m: str(_NUMBER_WORDS.index(m.group(0))), word)
    return [w for w in dict.fromkeys([words, digits]) if w != word]


def dimension_spellings(name: str) -> list[str]:
    """The ways a manual writes the dimensions a question joins by an "x" ("5x6", "4x4x2"): "5 by 6", "5 x 6";
    [] for other words ("0x42" is a hexadecimal code)."""
    m = _DIMENSIONS.fullmatch(name.lower())
    if m is None:
        return []
    nums = [n for n in m.groups() if n]
    return [" by ".join(nums), " x ".join(nums)]


def _named_as_dimensions(name: str, text: str) -> bool:
    """True when the dimensions `name` ("5x6") are in `text` (lower case) written otherwise: "three 5 by 6 arrays"
    (FFTW's manual; "Using fftw_plan_many_dft to transform three 5x6 complex arrays ..." was not covered), "5 × 6",
    "5-by-6", "5 x 6"."""
    m = _DIMENSIONS.fullmatch(name.lower())
    if m is None:
        return False
    joint = r"\s*(?:x|\u00d7|\*|-?by-?)\s*"
    pattern = joint.join(re.escape(n) for n in m.groups() if n)
    return re.search(r"(?<![\d.])" + pattern + r"(?![\d.])", text) is not None


def _named_with_its_value(name: str, text: str) -> bool:
    """True when the one-letter option `name` ("-d") is in `text` (lower case) with its value written on
    to it, as such options are used ("-dresolution=N", "-dcrop" of LilyPond's "-d" option; "-Wall", "-O2")."""
    return (re.fullmatch(r"-[a-z]", name) is not None
            and re.search(r"(?<![\w-])" + re.escape(name) + r"[a-z0-9]", text) is not None)


def _named_by_parts(name: str, text: str) -> bool:
    """True when the dotted `name` ("stopwatch.rollover") is named in `text` (lower case) by its parts:
    the attribute with its dot and the object it belongs to ("The .rollover attribute is the number of
    cycles at which the stopwatch timer rolls over.", gpsim's manual); a one-letter owner is a placeholder
    ("What does a status of 3 mean for x.status?" of GNU MathProg's ".status" suffix)."""
    owner, _, attr = name.rpartition(".")
    owner = owner.rsplit(".", 1)[-1]
    if not owner or not attr:
        return False
    # a one-letter owner is the question's placeholder ("x.status" for a variable's .status suffix)
    return (re.search(r"(?<![\w])\." + re.escape(attr) + r"(?![\w])", text) is not None
            and (len(owner) == 1 or re.search(r"(?<![\w.])" + re.escape(owner) + r"(?![\w])", text) is not None))
