"""Retrieval tests on the user's manuals (engine/evaluation.py): the question file's format and
its one-line errors, scoring ranks and region hits on a real library, unknown documents,
recording tests, and a run that leaves the library exactly as it was."""

from __future__ import annotations

import hashlib
import json

import pytest

from mmrag_desktop.engine.errors import Cancelled
from mmrag_desktop.engine.evaluation import (
    Expected,
    Question,
    QuestionFileError,
    append_question,
    evaluate,
    parse_questions,
    read_questions,
    score_hits,
)
from mmrag_desktop.engine.hits import Hit
from mmrag_desktop.engine.jobs import CancelToken
from mmrag_desktop.engine.library import Library

# one section a page (a heading in a larger bold font), the body line at y = 130 (400 on page 4)
PAGES = [
    ("Coolant pump", 130, "The coolant pump delivers 12 litres per minute at 2 bar."),
    ("Relief valve", 130, "The relief valve opens at 8 bar and closes again at 6 bar."),
    ("Fan filter", 130, "Replace the fan filter mat every 2000 operating hours."),
    ("Earthing", 400, "Connect the cable shield to terminal PE on the left rail."),
    ("Service", 130, "Drain the coolant pump and clean the coolant pump strainer once a year."),
]


def write_manual(path):
    """A real 5-page PDF, one titled section a page (so each page is its own chunk)."""
    import pymupdf

    doc = pymupdf.open()
    for title, y, body in PAGES:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), title, fontsize=16, fontname="hebo")
        page.insert_text((72, y), body, fontsize=11)
    doc.save(str(path))
    doc.close()
    return path


COOLANT = "coolant pump"


def run(gen):
    """Drive an engine job generator; returns (events, return value)."""
    events = []
    while True:
        try:
            events.append(next(gen))
        except StopIteration as stop:
            return events, stop.value


def q(qid, query, doc, pages, bbox=None, kind=""):
    return Question(qid, query, tuple(Expected(doc, p, bbox) for p in pages), kind)


def hit(doc, page, bbox=None, enriched=False):
    return Hit(chunk_id=page, doc_id=1, doc=doc, page=page, bbox=bbox, kind="text", score=0.1, text="t",
               enriched=enriched)


# ---- the file format ----------------------------------------------------------------------
def test_parse_reads_pages_page_bbox_comments_paths_and_the_bench_format():
    text = "\n".join([
        "# my tests",
        "",
        json.dumps({"id": "a", "query": " pump flow ", "doc": "pump.pdf", "pages": [3, 4], "bbox": [1, 2, 30, 40],
                    "kind": "text"}),
        json.dumps({"id": 7, "query": "valve", "doc": "manuals/sub/valve.pdf", "page": 2}),
        json.dumps({"query": "no id", "doc": "C:\\docs\\x.pdf", "page": 1}),
        json.dumps({"id": "b", "query": "bench", "kind": "table",
                    "gold": [{"doc": "a.pdf", "page": 5, "bbox": [0, 0, 10, 10]}, {"doc": "b.pdf", "page": 1}]}),
    ])
    qs = parse_questions(text, "t.jsonl")
    assert [x.id for x in qs] == ["a", "7", "line5", "b"]
    assert qs[0].query == "pump flow" and qs[0].kind == "text"
    assert qs[0].expected == (Expected("pump.pdf", 3, (1.0, 2.0, 30.0, 40.0)), Expected("pump.pdf", 4, (1.0, 2.0, 30.0, 40.0)))
    assert qs[1].expected == (Expected("valve.pdf", 2, None),) and not qs[1].has_region
    assert qs[2].docs == ["x.pdf"] and qs[2].line == 5
    assert qs[3].docs == ["a.pdf", "b.pdf"] and qs[3].describe_expected() == "a.pdf p. 5; b.pdf p. 1"


@pytest.mark.parametrize("line, message", [
    ("{not json", "t.jsonl:3: not valid JSON"),
    ("[1, 2]", "t.jsonl:3: expected a JSON object"),
    ('{"id": "x", "doc": "a.pdf", "pages": [1]}', 't.jsonl:3: "query" is missing'),
    ('{"id": "x", "query": "q", "pages": [1]}', 't.jsonl:3: "doc" is missing'),
    ('{"id": "x", "query": "q", "doc": "a.pdf"}', 't.jsonl:3: "pages" is missing'),
    ('{"id": "x", "query": "q", "doc": "a.pdf", "pages": [0]}', "t.jsonl:3: page 0 is not a page number"),
    ('{"id": "x", "query": "q", "doc": "a.pdf", "pages": ["3"]}', "t.jsonl:3: page '3' is not a page number"),
    ('{"id": "x", "query": "q", "doc": "a.pdf", "page": 1, "bbox": [1, 2, 3]}', 't.jsonl:3: "bbox" must be'),
    ('{"id": "x", "query": "q", "doc": "a.pdf", "page": 1, "bbox": [10, 2, 3, 40]}', 't.jsonl:3: "bbox" [10, 2, 3, 40] is empty'),
    ('{"id": "ok", "query": "q", "doc": "a.pdf", "page": 1}', "t.jsonl:3: id 'ok' is used on line 1 too"),
])
def test_a_malformed_line_is_one_line_error_naming_the_line(line, message):
    text = '{"id": "ok", "query": "fine", "doc": "a.pdf", "page": 1}\n# comment\n' + line + "\n"
    with pytest.raises(QuestionFileError) as e:
        parse_questions(text, "t.jsonl")
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


def test_read_questions_file_errors(tmp_path):
    with pytest.raises(QuestionFileError, match="no such question file"):
        read_questions(tmp_path / "missing.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(QuestionFileError, match="not a UTF-8 text file"):
        read_questions(tmp_path / "bin.jsonl")
    (tmp_path / "empty.jsonl").write_text("# only a comment\n\n")
    with pytest.raises(QuestionFileError, match="holds no question"):
        read_questions(tmp_path / "empty.jsonl")


# ---- scoring ------------------------------------------------------------------------------
def test_score_hits_rank_box_and_enriched_hits_left_out():
    question = q("a", "x", "a.pdf", [3], bbox=(100, 100, 200, 150))
    hits = [hit("a.pdf", 1), hit("a.pdf", 3, enriched=True), hit("b.pdf", 3, (100, 100, 200, 150)),
            hit("a.pdf", 3, (150, 120, 250, 160))]
    r = score_hits(question, hits)
    assert r.rank == 3 and not r.hit_at_1 and r.hit_at_5 and r.reciprocal_rank == pytest.approx(1 / 3)
    assert r.box_hit is True and r.missed and r.found.page == 1
    # the box of a hit on the right page that lies elsewhere does not count
    r = score_hits(question, [hit("a.pdf", 3, (100, 500, 200, 550))])
    assert r.rank == 1 and r.box_hit is False
    # beyond k: no rank; the box is looked for in the top 5 only
    far = [hit("a.pdf", p) for p in (10, 11, 12, 13, 14)] + [hit("a.pdf", 3, (100, 100, 200, 150))]
    r = score_hits(question, far, k=10)
    assert r.rank == 6 and r.box_hit is False
    assert score_hits(question, far, k=5).rank is None
    # no region given: no box measure
    assert score_hits(q("b", "x", "a.pdf", [1]), [hit("a.pdf", 1, (0, 0, 1, 1))]).box_hit is None


@pytest.fixture
def pump_library(tmp_path, library):
    pdf = write_manual(tmp_path / "plant.pdf")
    list(library.add([pdf]))
    return library


def test_evaluate_on_a_real_library(pump_library, tmp_path):
    lib = pump_library
    box_shield = (60.0, 385.0, 540.0, 410.0)  # the shield sentence at y = 400
    second_page = [h for h in lib.search(COOLANT, k=10) if not h.enriched][1].page
    lines = [
        {"id": "pump", "query": "how many litres per minute does the coolant pump deliver", "doc": "plant.pdf",
         "pages": [1], "kind": "text"},
        {"id": "valve", "query": "at what pressure does the relief valve open", "doc": "plant.pdf", "page": 2},
        {"id": "shield-box", "query": "where do I connect the cable shield", "doc": "plant.pdf", "pages": [4],
         "bbox": list(box_shield)},
        {"id": "shield-wrong-box", "query": "where do I connect the cable shield", "doc": "plant.pdf",
         "pages": [4], "bbox": [60, 110, 540, 140]},  # a region on page 4 away from the sentence
        {"id": "fan-wrong-page", "query": "how often is the fan filter mat replaced", "doc": "plant.pdf",
         "pages": [1]},
        {"id": "coolant-second", "query": COOLANT, "doc": "plant.pdf", "pages": [second_page]},
        {"id": "unknown", "query": "coolant pump", "doc": "other.pdf", "pages": [1]},
        {"id": "past-end", "query": "coolant pump", "doc": "plant.pdf", "pages": [9]},
    ]
    path = tmp_path / "tests.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    questions = read_questions(path)
    events, report = run(evaluate(questions, lambda query, k: lib.search(query, k=k), lib.documents(), k=10))
    assert [e.done for e in events] == list(range(len(lines) + 1))
    assert all(e.stage == "eval" and e.total == len(lines) and e.unit == "questions" for e in events)
    res = {r.question.id: r for r in report.results}
    assert res["pump"].rank == 1 and res["valve"].rank == 1 and res["shield-box"].rank == 1
    assert res["shield-box"].box_hit is True and res["shield-wrong-box"].box_hit is False
    fan = [h.page for h in lib.search("how often is the fan filter mat replaced", k=10) if not h.enriched]
    assert fan[0] == 3
    assert res["fan-wrong-page"].rank == fan.index(1) + 1 > 1 and res["fan-wrong-page"].missed
    assert res["fan-wrong-page"].found.page == 3
    assert res["fan-wrong-page"].doc_paths["plant.pdf"].endswith("plant.pdf")
    # a question whose page comes second: its rank is where the library's own ranking puts it
    ranked = [h for h in lib.search(COOLANT, k=10) if not h.enriched]
    assert {h.page for h in ranked[:2]} == {1, 5}
    second = res["coolant-second"]
    assert second.question.expected[0].page == ranked[1].page
    assert second.rank == 2 and second.missed and second.found.page == ranked[0].page
    assert res["unknown"].status == "unknown_doc" and "other.pdf" in res["unknown"].message
    assert res["past-end"].status == "bad_page" and "5 pages" in res["past-end"].message
    t = report.totals
    fan_rr = 1 / res["fan-wrong-page"].rank
    assert t.n == 6 and t.r1 == pytest.approx(4 / 6) and t.r5 == pytest.approx((5 + (fan_rr >= 1 / 5)) / 6)
    assert t.mrr == pytest.approx((4 + 1 / 2 + fan_rr) / 6)
    assert (t.box_n, t.box_hits, t.box) == (2, 1, 0.5)
    data = report.to_json()
    assert data["totals"]["n"] == 6 and data["not_scored"] == 2
    assert data["by_kind"]["text"]["n"] == 1
    row = next(x for x in data["questions"] if x["id"] == "coolant-second")
    assert row["found"][0]["page"] == ranked[0].page and row["hit@1"] is False and row["rank"] == 2
    json.dumps(data)  # JSON-ready


def test_a_query_search_refuses_is_reported_on_its_row_and_cancel_stops(pump_library):
    lib = pump_library
    questions = [q("bad", "!!! ???", "plant.pdf", [1]), q("ok", "relief valve pressure", "plant.pdf", [2])]
    _, report = run(evaluate(questions, lambda query, k: lib.search(query, k=k), lib.documents()))
    assert report.results[0].status == "error" and report.results[0].message
    assert report.results[1].rank == 1 and report.totals.n == 1
    token = CancelToken()
    gen = evaluate(questions, lambda query, k: lib.search(query, k=k), lib.documents(), cancel=token)
    next(gen)
    token.cancel()
    with pytest.raises(Cancelled):
        run(gen)


def _fingerprint(folder) -> dict:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "writer.lock"}


def test_a_run_leaves_the_library_unchanged(tmp_path, embedder):
    folder = tmp_path / "lib"
    with Library.open(folder, embedder=embedder) as lib:
        list(lib.add([write_manual(tmp_path / "plant.pdf")]))
    before = _fingerprint(folder)
    questions = [q("pump", "coolant pump litres per minute", "plant.pdf", [1], (60, 120, 540, 140)),
                 q("fan", "fan filter mat", "plant.pdf", [1])]
    with Library.open(folder, embedder=embedder, access="read") as lib:
        _, report = run(evaluate(questions, lambda query, k: lib.search(query, k=k), lib.documents()))
        counts = len(lib.documents()), lib.documents()[0].chunks
    assert report.totals.n == 2
    assert _fingerprint(folder) == before
    with Library.open(folder, embedder=embedder) as lib:
        assert (len(lib.documents()), lib.documents()[0].chunks) == counts


# ---- recording ----------------------------------------------------------------------------
def test_append_question_creates_appends_and_never_duplicates(tmp_path):
    path = tmp_path / "sub" / "retrieval_tests.jsonl"
    assert append_question(path, "Where does the  shield go?", "plant.pdf", [4], (60, 385.04, 540, 410)) == "r1"
    assert path.read_text().startswith("# ")
    # the same query (case and spacing aside), document and page: not written again
    assert append_question(path, "where does the shield go?", "/home/u/plant.pdf", [4]) is None
    assert append_question(path, "Where does the shield go?", "plant.pdf", [3]) == "r2"
    assert append_question(path, "Where does the shield go?", "other.pdf", [4], kind="text") == "r3"
    qs = read_questions(path)
    assert [x.id for x in qs] == ["r1", "r2", "r3"]
    assert qs[0].query == "Where does the shield go?" and qs[0].expected[0] == Expected("plant.pdf", 4, (60, 385.0, 540, 410))
    assert qs[2].kind == "text"
    # a file the user edited: a last line without newline, ids taken, a line being edited
    path.write_text(path.read_text() + '{"id": "r4", "query": "pump", "doc": "plant.pdf", "pages": [1]}\n{broken')
    assert append_question(path, "fan filter", "plant.pdf", [3], qid="r4") == "r5"
    last = path.read_text().splitlines()
    assert last[-2] == "{broken" and json.loads(last[-1])["id"] == "r5"
    with pytest.raises(QuestionFileError, match="empty query"):
        append_question(path, "   ", "plant.pdf", [1])
