"""An identifier a whole manual is about ("NUT" in the NUT user manual, in most of its chunks) is
not matched exactly: its exact list was that manual's every page and outranked the passage asked
for (held-out 2). A rare identifier ("FINALDELAY") still is (real PDF, real SQLite FTS5, real MiniLM)."""

from __future__ import annotations

from conftest import write_pdf

from mmrag_desktop.engine.search.searcher import EXACT_MAX_SHARE

TOPICS = ["the driver", "the server", "the monitor", "the shutdown", "the client", "the battery",
          "the outlet", "the command", "the variable", "the protocol"]


def test_an_identifier_in_most_chunks_is_not_matched_exactly(library, tmp_path):
    pages = [[(72, 80 + 14 * j, f"NUT note {i}.{j}: how NUT handles {TOPICS[(i + j) % 10]} in part {i} of the guide.")
              for j in range(45)] for i in range(70)]
    pages.append([(72, 80, "FINALDELAY sets how long upsmon waits before it runs the shutdown command.")])
    added = list(library.add([write_pdf(tmp_path / "nut.pdf", pages, fontsize=8)]))
    assert [e.stage for e in added if e.stage in ("done", "failed")] == ["done"]
    assert 1 / library.store.chunks.count() <= EXACT_MAX_SHARE  # FINALDELAY, in one chunk, counts as rare
    hits = library.search("NUT upsmon FINALDELAY before shutdown", k=10)
    assert hits[0].page == 71 and "exact" in hits[0].sources
    assert not any("exact" in h.sources for h in hits if h.page != 71), [(h.page, h.sources) for h in hits]
