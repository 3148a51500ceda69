"""Retrieval tests on the user's own manuals: a question file, a run, and the measures.

A question file is JSON Lines (docs/retrieval_testing.md), one question a line:

    {"id": "q1", "query": "How do I set the terminal type?", "doc": "gnuplot.pdf", "pages": [42],
     "bbox": [72, 300, 520, 340], "kind": "text"}

`pages` (or a single `page`) are 1-based; `bbox` is an optional region on those pages in PDF points,
top-left origin. Blank lines and lines starting with `#` are skipped. The bench's own format
(`"gold": [{"doc", "page", "bbox"}]`, bench/README.md) is read too.

    questions = read_questions(path)                      # QuestionFileError names the line
    report = yield from evaluate(questions, search, documents, k=10, cancel=token)
    report.totals.r1, report.results[0].rank ...

`evaluate` takes a `search(query, k)` callable, never the library, so it only ever reads.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .elements import BBox
from .errors import EngineError, QueryError
from .hits import DocumentInfo, Hit
from .jobs import CancelToken, Progress

SearchFn = Callable[[str, int], Sequence[Hit]]
DEFAULT_K = 10
BOX_DEPTH = 5  # a box hit is looked for among the top 5 hits
FOUND_KEPT = 5  # hits kept per question to show what was found instead
FILE_HEADER = ("# mmrag retrieval tests: one JSON object a line, "
               '{"id", "query", "doc", "pages", "bbox"} (docs/retrieval_testing.md)\n')


class QuestionFileError(EngineError):
    """The question file cannot be read or one of its lines is malformed (the message names it)."""


@dataclass(frozen=True)
class Expected:
    """One place a question's answer is: a document (file name), a 1-based page and an optional
    region on it (PDF points, top-left origin)."""

    doc: str
    page: int
    bbox: BBox | None = None


@dataclass(frozen=True)
class Question:
    """One retrieval test: the query and where its answer is expected (`line`: its line in the file)."""

    id: str
    query: str
    expected: tuple[Expected, ...]
    kind: str = ""
    line: int = 0

    @property
    def docs(self) -> list[str]:
        """The expected documents, in file order, each once."""
        return list(dict.fromkeys(e.doc for e in self.expected))

    @property
    def has_region(self) -> bool:
        """True when an expected region is given (the box measure applies)."""
        return any(e.bbox is not None for e in self.expected)

    def describe_expected(self) -> str:
        """'manual.pdf p. 3, 4' (several documents joined by '; ')."""
        parts = []
        for doc in self.docs:
            pages = sorted({e.page for e in self.expected if e.doc == doc})
            parts.append(f"{doc} p. {', '.join(map(str, pages))}")
        return "; ".join(parts)


@dataclass
class QuestionResult:
    """How one question did.

    status: "scored" | "unknown_doc" (an expected document is not in the library) | "bad_page" (an
    expected page is past the end of its document) | "error" (the query cannot be searched) |
    "not_scored" (no expected page, e.g. the bench's unanswerable questions). Only scored questions
    count in the totals. rank: 1-based rank of the first hit on an expected page within the top k,
    or None. box_hit: a top-5 hit on an expected page whose box intersects the expected region;
    None when no region is given. hits: the top hits (at most 5), to show what was found.
    doc_paths: expected document name -> its file in the library.
    """

    question: Question
    status: str = "scored"
    rank: int | None = None
    box_hit: bool | None = None
    hits: list[Hit] = field(default_factory=list)
    message: str = ""
    doc_paths: dict[str, str] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        return self.status == "scored"

    @property
    def hit_at_1(self) -> bool:
        return self.rank == 1

    @property
    def hit_at_5(self) -> bool:
        return self.rank is not None and self.rank <= 5

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0

    @property
    def missed(self) -> bool:
        """A scored question whose first hit is not on an expected page."""
        return self.scored and self.rank != 1

    @property
    def found(self) -> Hit | None:
        """What search ranked first, or None."""
        return self.hits[0] if self.hits else None

    def to_json(self) -> dict:
        """A JSON-ready row: the question, its measures and the top hits (doc, page, bbox, text)."""
        q = self.question
        return {
            "id": q.id, "query": q.query, "kind": q.kind, "status": self.status, "message": self.message,
            "expected": [{"doc": e.doc, "page": e.page, "bbox": list(e.bbox) if e.bbox else None}
                         for e in q.expected],
            "rank": self.rank, "hit@1": self.hit_at_1, "hit@5": self.hit_at_5,
            "reciprocal_rank": round(self.reciprocal_rank, 6), "box_hit": self.box_hit,
            "found": [_hit_json(h) for h in self.hits],
        }


@dataclass
class Totals:
    """The measures over scored questions: n, R@1, R@5, MRR@10 (`k`), and the box measure over
    the `box_n` scored questions that give a region (`box_hits` of them hit it)."""

    n: int = 0
    r1: float = 0.0
    r5: float = 0.0
    mrr: float = 0.0
    box_n: int = 0
    box_hits: int = 0

    @property
    def box(self) -> float | None:
        """The share of questions with a region whose top 5 hit it, or None when none gives one."""
        return self.box_hits / self.box_n if self.box_n else None

    def to_json(self) -> dict:
        return {"n": self.n, "R@1": round(self.r1, 4), "R@5": round(self.r5, 4), "MRR@10": round(self.mrr, 4),
                "box": None if self.box is None else round(self.box, 4), "box_n": self.box_n,
                "box_hits": self.box_hits}


def totals_of(results: Iterable[QuestionResult]) -> Totals:
    """The measures over the scored ones of `results`."""
    rows = [r for r in results if r.scored]
    n = len(rows)
    if not n:
        return Totals()
    boxed = [r for r in rows if r.box_hit is not None]
    return Totals(n=n, r1=sum(r.hit_at_1 for r in rows) / n, r5=sum(r.hit_at_5 for r in rows) / n,
                  mrr=sum(r.reciprocal_rank for r in rows) / n, box_n=len(boxed),
                  box_hits=sum(bool(r.box_hit) for r in boxed))


@dataclass
class EvalReport:
    """A finished run: every question's result in file order and `k`, the rank depth searched."""

    results: list[QuestionResult]
    k: int = DEFAULT_K

    @property
    def totals(self) -> Totals:
        return totals_of(self.results)

    def by_kind(self) -> dict[str, Totals]:
        """Totals per question `kind` (questions without one left out)."""
        kinds = sorted({r.question.kind for r in self.results if r.question.kind})
        return {kind: totals_of(r for r in self.results if r.question.kind == kind) for kind in kinds}

    @property
    def not_scored(self) -> list[QuestionResult]:
        return [r for r in self.results if not r.scored]

    def to_json(self) -> dict:
        """{"k", "questions": [...], "totals": {...}, "by_kind": {...}, "not_scored": n}."""
        return {"k": self.k, "questions": [r.to_json() for r in self.results], "totals": self.totals.to_json(),
                "by_kind": {k: t.to_json() for k, t in self.by_kind().items()},
                "not_scored": len(self.not_scored)}


# ---- reading a question file ------------------------------------------------------------
def read_questions(path: Path | str) -> list[Question]:
    """The questions of the file at `path`. Raises QuestionFileError (one line, naming the file
    and the line) when the file cannot be read or a line is malformed."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise QuestionFileError(f"{p}: no such question file") from None
    except UnicodeDecodeError:
        raise QuestionFileError(f"{p}: not a UTF-8 text file") from None
    except OSError as e:
        raise QuestionFileError(f"{p}: cannot be read ({e.strerror or e})") from None
    return parse_questions(text, str(p))


def parse_questions(text: str, source: str = "questions") -> list[Question]:
    """Parse JSON Lines `text` (blank lines and `#` comments skipped). Raises QuestionFileError
    'SOURCE:LINE: what is wrong' at the first malformed line, or when the file holds no question."""
    out: list[Question] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            q = _question(line, n)
        except ValueError as e:
            raise QuestionFileError(f"{source}:{n}: {e}") from None
        if q.id in seen:
            raise QuestionFileError(f"{source}:{n}: id {q.id!r} is used on line {seen[q.id]} too")
        seen[q.id] = n
        out.append(q)
    if not out:
        raise QuestionFileError(f"{source}: holds no question (one JSON object a line: "
                                '{"id", "query", "doc", "pages"})')
    return out


def _question(line: str, n: int) -> Question:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        raise ValueError('expected a JSON object {"id", "query", "doc", "pages"}')
    qid = obj.get("id", f"line{n}")
    if isinstance(qid, bool) or not isinstance(qid, str | int) or str(qid).strip() == "":
        raise ValueError('"id" must be a non-empty string or a number')
    query = obj.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError('"query" is missing or empty')
    kind = obj.get("kind") or ""
    if not isinstance(kind, str):
        raise ValueError('"kind" must be a string')
    if "gold" in obj:
        expected = _gold(obj["gold"])
    else:
        doc = _doc(obj.get("doc"))
        bbox = _bbox(obj.get("bbox"))
        expected = tuple(Expected(doc, p, bbox) for p in _pages(obj))
    return Question(id=str(qid).strip(), query=query.strip(), expected=expected, kind=kind, line=n)


def _doc(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError('"doc" is missing: the file name of the document, as the library lists it')
    return re.split(r"[\\/]", value.strip())[-1]  # a path given: its file name


def _pages(obj: dict) -> list[int]:
    pages = obj.get("pages")
    if pages is None:
        pages = [] if obj.get("page") is None else [obj.get("page")]
    elif not isinstance(pages, list):
        pages = [pages]
    if obj.get("pages") is not None and obj.get("page") is not None:
        pages = [*pages, obj["page"]]
    if not pages:
        raise ValueError('"pages" is missing: a list of 1-based page numbers, e.g. "pages": [12]')
    out = []
    for p in pages:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"page {p!r} is not a page number (1-based whole numbers)")
        out.append(p)
    return list(dict.fromkeys(out))


def _bbox(value) -> BBox | None:
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 4
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise ValueError('"bbox" must be [x0, y0, x1, y1] in PDF points (top-left origin)')
    x0, y0, x1, y1 = (float(v) for v in value)
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f'"bbox" {value} is empty: x1 must exceed x0 and y1 exceed y0')
    return (x0, y0, x1, y1)


def _gold(value) -> tuple[Expected, ...]:
    if not isinstance(value, list):
        raise ValueError('"gold" must be a list of {"doc", "page", "bbox"}')
    out = []
    for g in value:
        if not isinstance(g, dict):
            raise ValueError('"gold" must be a list of {"doc", "page", "bbox"}')
        pages = _pages({"page": g.get("page")})
        out.append(Expected(_doc(g.get("doc")), pages[0], _bbox(g.get("bbox"))))
    return tuple(out)


# ---- running and scoring ----------------------------------------------------------------
def intersects(a: BBox, b: BBox) -> bool:
    """True when boxes (x0, y0, x1, y1) overlap with positive area."""
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def score_hits(question: Question, hits: Sequence[Hit], k: int = DEFAULT_K) -> QuestionResult:
    """Score ranked `hits` (best first; enriched hits are left out) against `question`: the rank
    of the first hit on an expected page within the top `k`, and the box hit among the top 5."""
    ranked = [h for h in hits if not h.enriched][:k]
    targets: dict[tuple[str, int], list[BBox | None]] = {}
    for e in question.expected:
        targets.setdefault((e.doc, e.page), []).append(e.bbox)
    rank = next((i for i, h in enumerate(ranked, start=1) if (h.doc, h.page) in targets), None)
    box_hit = None
    if question.has_region:
        box_hit = any(h.bbox is not None and b is not None and intersects(h.bbox, b)
                      for h in ranked[:BOX_DEPTH] for b in targets.get((h.doc, h.page), []))
    return QuestionResult(question, rank=rank, box_hit=box_hit, hits=list(ranked[:FOUND_KEPT]))


def evaluate(questions: Sequence[Question], search: SearchFn, documents: Iterable[DocumentInfo] | None = None, *,
             k: int = DEFAULT_K, cancel: CancelToken | None = None) -> Generator[Progress, None, EvalReport]:
    """Run every question through `search(query, k)` and score it; yields a Progress per question
    (stage "eval", unit "questions") and returns the EvalReport.

    `documents` (the library's) lets a question that names an unknown document, or a page past
    a document's end, be reported on its own row rather than counted as a miss. A query search
    refuses (QueryError) is reported on its row; other engine errors (no text model) end the run.
    Raises Cancelled when `cancel` is set, EngineError when `k` < 1.
    """
    if k < 1:
        raise EngineError(f"-k must be at least 1 (got {k})")
    cancel = cancel or CancelToken()
    docs = {d.name: d for d in documents} if documents is not None else None
    results: list[QuestionResult] = []
    total = len(questions)
    for i, q in enumerate(questions):
        cancel.check()
        yield Progress("eval", doc=q.id, done=i, total=total, unit="questions", message=q.query)
        results.append(_run_one(q, search, docs, k))
    yield Progress("eval", done=total, total=total, unit="questions", message="done")
    return EvalReport(results, k)


def _run_one(q: Question, search: SearchFn, docs: dict[str, DocumentInfo] | None, k: int) -> QuestionResult:
    if not q.expected:
        return QuestionResult(q, status="not_scored", message="no expected page (not scored)")
    paths = {d: docs[d].path for d in q.docs if d in docs} if docs is not None else {}
    if docs is not None:
        unknown = [d for d in q.docs if d not in docs]
        if unknown:
            return QuestionResult(q, status="unknown_doc", doc_paths=paths,
                                  message=f"unknown document {unknown[0]!r} (not in this library)")
        past = [e for e in q.expected if docs[e.doc].pages and e.page > docs[e.doc].pages]
        if past:
            e = past[0]
            return QuestionResult(q, status="bad_page", doc_paths=paths,
                                  message=f"page {e.page} is past the end of {e.doc} ({docs[e.doc].pages} pages)")
    try:
        hits = search(q.query, k)
    except QueryError as e:
        return QuestionResult(q, status="error", message=str(e), doc_paths=paths)
    result = score_hits(q, hits, k)
    result.doc_paths = paths
    return result


def _hit_json(h: Hit) -> dict:
    text = " ".join(h.text.split())
    return {"doc": h.doc, "page": h.page, "bbox": [round(v, 2) for v in h.bbox] if h.bbox else None,
            "kind": h.kind, "score": round(float(h.score), 6), "chunk_id": h.chunk_id,
            "text": text[:300] + ("…" if len(text) > 300 else "")}


# ---- recording a question ---------------------------------------------------------------
def _norm(query: str) -> str:
    return " ".join(query.split()).casefold()


def _same_test(obj: dict, query: str, doc: str, pages: list[int]) -> bool:
    try:
        return (isinstance(obj.get("query"), str) and _norm(obj["query"]) == _norm(query)
                and _doc(obj.get("doc")) == doc and sorted(set(_pages(obj))) == pages)
    except ValueError:
        return False


def append_question(path: Path | str, query: str, doc: str, pages: Sequence[int], bbox: BBox | None = None, *,
                    kind: str = "", qid: str | None = None) -> str | None:
    """Append one question line to the file at `path` (created, with a comment line, when missing)
    and return its id; None when the file already holds the same query (ignoring case and spacing)
    for the same document and pages. The line is written with one append, so a reader never sees
    half of it. Raises QuestionFileError when the file cannot be written or the question is empty."""
    p = Path(path)
    query = " ".join(query.split())
    if not query:
        raise QuestionFileError("an empty query cannot be saved as a test")
    doc = _doc(doc)
    pages = sorted({int(x) for x in pages})
    try:
        existing = p.read_text(encoding="utf-8-sig") if p.exists() else ""
    except (OSError, UnicodeDecodeError) as e:
        raise QuestionFileError(f"{p}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
    ids = set()
    for raw in existing.splitlines():
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            continue  # comments, and lines the user is still editing
        if not isinstance(obj, dict):
            continue
        ids.add(str(obj.get("id")))
        if _same_test(obj, query, doc, pages):
            return None
    if qid is None or qid in ids:
        n = 1
        while f"r{n}" in ids:
            n += 1
        qid = f"r{n}"
    item: dict = {"id": qid, "query": query, "doc": doc, "pages": pages}
    if bbox is not None:
        item["bbox"] = [round(float(v), 1) for v in bbox]
    if kind:
        item["kind"] = kind
    data = json.dumps(item, ensure_ascii=False) + "\n"
    if not existing:
        data = FILE_HEADER + data
    elif not existing.endswith("\n"):
        data = "\n" + data
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise QuestionFileError(f"{p}: cannot be written ({e.strerror or e})") from None
    return qid


__all__ = ["DEFAULT_K", "EvalReport", "Expected", "Question", "QuestionFileError", "QuestionResult", "Totals",
           "append_question", "evaluate", "intersects", "parse_questions", "read_questions", "score_hits",
           "totals_of"]
