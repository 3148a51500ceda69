"""Checks of the benchmark's own scoring and gold-box code (run: pytest bench/test_bench.py -q).

Uses a PDF generated here with PyMuPDF, so it needs neither the fetched manuals nor the engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import BM25Pages  # noqa: E402
from metrics import iou, score_run  # noqa: E402


def _q(qid, kind, gold):
    return {"id": qid, "kind": kind, "query": "x", "gold": gold}


def test_scores_rank_box_overlap_and_none():
    gold = [{"doc": "a.pdf", "page": 3, "bbox": [100, 100, 200, 150]}]
    questions = [_q("1", "text", gold), _q("2", "figure", gold), _q("3", "none", [])]
    results = {
        # correct page at rank 2 with an overlapping box, then the same page with a box elsewhere
        "1": [{"doc": "a.pdf", "page": 1, "bbox": None, "score": 0.9},
              {"doc": "a.pdf", "page": 3, "bbox": [150, 120, 250, 160], "score": 0.8},
              {"doc": "a.pdf", "page": 3, "bbox": [100, 500, 200, 550], "score": 0.7}],
        # wrong document with the right page number is a miss
        "2": [{"doc": "b.pdf", "page": 3, "bbox": [100, 100, 200, 150], "score": 0.5}],
        "3": [{"doc": "a.pdf", "page": 9, "bbox": None, "score": 0.2}],
    }
    sc = score_run(questions, results)
    assert sc["text"]["R@1"] == 0.0 and sc["text"]["R@5"] == 1.0 and sc["text"]["MRR@10"] == 0.5
    assert sc["text"]["box@5"] == 0.5 and sc["text"]["qbox@5"] == 1.0
    assert sc["figure"]["R@5"] == 0.0
    assert sc["overall"]["n"] == 2 and sc["overall"]["R@5"] == 0.5
    assert sc["none_top_scores"]["max"] == 0.2


def test_iou():
    assert iou([0, 0, 10, 10], [0, 0, 10, 10]) == 1.0
    assert iou([0, 0, 10, 10], [20, 20, 30, 30]) == 0.0
    assert iou([0, 0, 10, 10], [5, 0, 15, 10]) == pytest.approx(50 / 150)


@pytest.fixture()
def pdf(tmp_path):
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 100), "The default damping factor is XMU=0.5 for trapezoidal integration.", fontsize=10)
    page.draw_rect(pymupdf.Rect(150, 300, 450, 450), color=(0, 0, 0), width=1)
    page.draw_line((150, 350), (450, 350))
    page.insert_text((200, 470), "Figure 3.1: Output characteristic of the stage", fontsize=10)
    doc.new_page().insert_text((72, 100), "Another page about plotting data files.", fontsize=10)
    path = tmp_path / "m.pdf"
    doc.save(path)
    return path


def test_gold_locators_resolve_on_a_real_pdf(pdf):
    import pymupdf
    from make_gold import GoldError, resolve

    with pymupdf.open(pdf) as doc:
        page = doc[0]
        x0, y0, x1, y1 = resolve(page, {"snippet": "XMU=0.5 for trapezoidal"})
        assert 72 < x0 < x1 < 540 and 85 < y0 < y1 < 105
        fig = resolve(page, {"figure": "Figure 3.1"})
        assert fig[0] <= 150 and fig[1] <= 300 and fig[2] >= 450 and fig[3] >= 470  # drawing + caption
        with pytest.raises(GoldError):
            resolve(page, {"snippet": "not on this page"})


def test_bm25_pages_baseline(pdf):
    from baselines import page_texts

    pages = page_texts([pdf])
    hits = BM25Pages(pages).search("trapezoidal damping default", k=5)
    assert hits[0]["doc"] == "m.pdf" and hits[0]["page"] == 1


def test_unbacked_numbers_read_section_numbers_whole_and_names_with_underscores():
    from bench_answer import unbacked_numbers

    assert unbacked_numbers("Plots are available via Gnuplot (see 18.7.3) [6].", "via Gnuplot (see 18.7.2).") == ["18.7.3"]
    assert unbacked_numbers("z is a 2-Dmatrix_matchingthe [2]!", "z is a 2-D matrix matching the") == [
        "2-Dmatrix_matchingthe"]
    assert unbacked_numbers("Call mpfr_init_set_d with 1,000 or 3.14 [1].", "MPFR_INIT_SET_D takes 1000 and 3.14") == []


def test_llm_rerank_orders_by_prior_plus_weighted_judgement():
    from llm_rerank import reorder

    entry = {"hits": [{"page": 1, "score": 2.0}, {"page": 2, "score": 1.8}, {"page": 3, "score": 1.0}],
             "llm": [-1.0, 0.5, 3.0]}
    assert [h["page"] for h in reorder(entry, 0, "rank")] == [1, 2, 3]  # no weight: search's order
    # "score": 1.0 - 0.1, 0.9 + 0.05, 0.5 + 0.3 -> page 2 first, page 1 before page 3
    assert [h["page"] for h in reorder(entry, 0.1, "score")] == [2, 1, 3]
    assert [h["page"] for h in reorder(entry, 100, "rank")] == [3, 2, 1]  # the model's order alone
    assert reorder({"hits": [], "llm": []}, 1.0, "score") == []


def test_second_stage_learns_to_put_the_gold_candidate_first():
    import numpy as np
    from second_stage import _offline, fit

    # two features; the gold candidate (second by the engine's score) is the one with the higher second feature
    rng = np.random.RandomState(0)
    mats = {}
    for q in range(12):
        A = rng.rand(5, 2)
        gold = np.zeros(5, dtype=bool)
        gold[1] = True
        A[1, 1] = A[:, 1].max() + 0.5
        mats[q] = (A, gold, np.array([1.0, 0.99, 0.5, 0.4, 0.3]))
    model = fit(mats, list(mats), C=1.0)
    assert model["coef"][1] > 0
    first, top5, rr = _offline(model, *mats[0], w=0.0)
    assert (first, rr) == (0.0, 0.5)  # no weight: the engine's order, gold second
    first, top5, rr = _offline(model, *mats[0], w=1.0)
    assert (first, top5, rr) == (1.0, 1.0, 1.0)
