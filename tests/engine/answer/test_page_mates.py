"""Another passage of a first hit's page, left out by one hit per page, is quoted when one of its sentences
matches the question best (Searcher._reserve, pipeline._from_reserve), after the first sentence and taking no
sentence's place (real PDF, SQLite, hnswlib, MiniLM). Gpredict's user manual: "On the map view one satellite
is drawn in white while the others are yellow, what does that mean?" found the page's first paragraph (yellow
squares, white footprints); "... satellite AO-51 is drawn in white instead of yellow. This means that AO-51 is
selected." was two chunks further down the page and never quoted."""

from __future__ import annotations

import re

from conftest import write_pdf

FIRST = ["The map view is one of the views a module can show. Figure 4.2 shows how the map view looks",
         "like using the default settings. As you can see, the satellites are shown as small yellow squares",
         "with their name printed just below the square. The footprints of the satellites are drawn using",
         "the same colour as the satellite mark and label, and the area covered by the footprint is",
         "highlighted using a transparent white colour. The map view is intended to give you a quick",
         "overview of which satellite is where at any given time. The map view shows both the position",
         "of the satellites and their footprints. Moreover, the map view can also show information about",
         "the current ground station, the next event, which satellite comes up next, as well as",
         "information about the selected satellite. The footprint of a satellite is the area on the",
         "surface of the Earth where the satellite is visible. On a sphere the footprint would be a circle,",
         "but since the map view projects the sphere to a rectangular surface the footprints will only",
         "look like a circle when the satellite is near the Equator. The grid of the map is drawn in grey."]
SELECTED = ["As you can see on figure 4.2, satellite AO-51 is drawn in white instead of yellow. This",
            "means that AO-51 is selected. You can select a satellite by simply clicking on it with the left",
            "mouse button. You can click anywhere within its footprint area. The selected satellite will have",
            "its next AOS or LOS time shown in the lower right corner of the map view. Selecting a satellite",
            "will clear any other selection, that is you can have only one satellite selected at a time. You",
            "can also clear your selection by clicking once more on the selected satellite."]
OTHER = [["The list view shows the satellites of a module in a table, one row per satellite, with",
          "columns for azimuth, elevation, range and the next pass. The rows are sorted by elevation."],
         ["The polar view draws the sky as seen from the ground station: the horizon is the outer circle",
          "and the zenith its centre. Satellites within range are drawn as small squares with their names."]]
QUESTION = "On the map view one satellite is drawn in white while the others are yellow, what does that mean?"
MEANING = "As you can see on figure 4.2, satellite AO-51 is drawn in white instead of yellow. This means that AO-51 is selected."


def _add_manual(library, tmp_path):
    page = [(57, 80 + 14 * i, t) for i, t in enumerate([*FIRST, "", *SELECTED])]
    pages = [page] + [[(57, 80 + 14 * i, t) for i, t in enumerate(o)] for o in OTHER]
    pdf = write_pdf(tmp_path / "tracker.pdf", pages, fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]


def test_a_page_mate_that_says_what_was_asked_is_quoted_after_the_first_sentence(library, tmp_path):
    from mmrag_desktop.engine.answer.pipeline import COMPANIONS, DEFAULT_K, ask
    from mmrag_desktop.engine.settings import Settings

    _add_manual(library, tmp_path)
    hits = library.search(QUESTION, k=DEFAULT_K, companions=COMPANIONS)
    reserve = [h for h in hits if h.reserve]
    # the case: the page is a hit through its first paragraph; the passage that answers is only in reserve
    assert hits[0].page == 1 and "AO-51" not in hits[0].text
    assert not any("AO-51 is drawn in white" in h.text for h in hits if not h.reserve)
    assert [h.page for h in reserve] == [1] and "AO-51 is drawn in white" in reserve[0].text
    # the Search list has no reserve
    assert not any(h.reserve for h in library.search(QUESTION, k=DEFAULT_K))

    answer = ask(library, QUESTION, mode="extractive")
    without = Settings()
    without.extra["extractive_reserve"] = 0
    before = ask(library, QUESTION, mode="extractive", settings=without)
    assert MEANING not in before.text  # (what this is about)
    quoted = [re.sub(r"\s*\[\d+\]$", "", s.text) for s in answer.sentences]
    assert quoted[1] == MEANING, quoted
    # added after the first sentence: every sentence quoted without it still is, in the same order
    assert [t for t in quoted if t != MEANING] == [re.sub(r"\s*\[\d+\]$", "", s.text) for s in before.sentences]
    cited = next(c for c in answer.citations if c.id == answer.sentences[1].citations[0])
    assert cited.page == 1 and cited.chunk_id == reserve[0].chunk_id
