"""Another passage of a first hit's page, left out by one hit per page, is quoted when one of its sentences
matches the question best (Searcher._reserve, pipeline._from_reserve), after the first sentence and taking no
sentence's place (real PDF, SQLite, hnswlib, MiniLM). Gpredict's user manual: "On the map view one satellite
is drawn in white while the others are yellow, what does that mean?" found the page's first paragraph (yellow
squares, white footprints); "... satellite AO-51 is drawn in white instead of yellow. This means that AO-51 is
selected." was two chunks further down the page and never quoted."""

from __future__ import annotations

import json
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
    assert {h.page for h in reserve} == {1} and any("AO-51 is drawn in white" in h.text for h in reserve)
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
    assert cited.page == 1 and "AO-51 is drawn in white" in next(h.text for h in reserve if h.chunk_id == cited.chunk_id)


# NETGEN's known problems: a section's first passage states the problem and ends with its geometry; the
# work-around is the next chunk of the same section and page
PROBLEM = ["2.4.2 Degenerated edges",
           "Degenerated edges are found sometimes, but some still cause troubles when the mesher meets them.",
           "A sphere on top of a cylinder may be described by a cylinder cut by two planes, or-ed with a",
           "sphere whose centre is on the end face of the cylinder and whose radius is the cylinder's own:",
           "the sphere then touches the circle of that face in a single degenerated edge, and the surface",
           "mesher stops at that edge because it has no length and its two faces meet at a single point."]
WORKAROUND = ["The remedy is to split the domain (artificially) into two non-degenerated parts, each",
              "its own top level object: tlo cyl; tlo half; Both parts then have ordinary boundaries where",
              "they meet, and the mesher treats the circle between them as any other line of the geometry.",
              "The same split helps wherever two surfaces of a solid touch in a point or along a line of no",
              "width: give each side a top level object of its own and let the two share a common face, so",
              "that the surface mesher finds proper boundaries on both sides."]
MATE = ["A degenerated edge where a sphere sits on the end of a cylinder is reported in the mesher's",
        "messages as an edge of zero length: the sphere, the cylinder and the end face of the cylinder",
        "are named there, with the point where the sphere touches the end of the cylinder. A sphere on a",
        "cylinder of a smaller radius has an ordinary edge and is meshed without trouble, as is a sphere",
        "that sits on the end of a cylinder of a larger radius, where the edge is a circle of its own."]
SOLIDS = [  # other pages about spheres, cylinders and edges
    "A sphere is given by its centre and radius: sphere (cx, cy, cz; r). A sphere sits on any solid with or.",
    "A cylinder is given by two points on its axis and the radius: cylinder (ax, ay, az; bx, by, bz; r).",
    "An infinite cylinder is cut by two planes at its end to make a finite cylinder; a sphere can sit on it.",
]
ASK_WORKAROUND = "How can I work around a degenerated edge where a sphere sits on the end of a cylinder?"


def test_the_first_hits_passage_goes_on_in_the_next_chunk_of_its_section(library, tmp_path):
    """NETGEN's "Degenerated edges": the first hit states the problem and ends with its geometry; the
    work-around is the next chunk of the section on the same page, below other pages' passages about
    spheres and cylinders: it was no hit, no page-mate in reserve, and never quoted. The first hit's
    continuation is in reserve (Searcher._continuation), first of it: quoted when its sentence ranks first
    (as the page-mate above)."""
    from mmrag_desktop.engine.answer.pipeline import COMPANIONS, DEFAULT_K

    page = [(57, 80 + 14 * i, t) for i, t in enumerate([*PROBLEM, "", *WORKAROUND, "", *MATE])]
    pages = [page] + [[(57, 80, t)] for t in SOLIDS]
    pdf = write_pdf(tmp_path / "ng4.pdf", pages, fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    hits = library.search(ASK_WORKAROUND, k=DEFAULT_K, companions=COMPANIONS)
    # the case: the problem's passage is the first hit, the work-around is in none of the hits
    assert hits[0].page == 1 and "Degenerated edges are found" in hits[0].text
    assert not any("The remedy is to split" in h.text for h in hits if not h.reserve)
    reserve = [h for h in hits if h.reserve]
    assert reserve and "The remedy is to split" in reserve[0].text, [h.text[:60] for h in reserve]
    assert reserve[0].page == 1 and reserve[0].score == hits[0].score
    # the Search list has no reserve
    assert not any(h.reserve for h in library.search(ASK_WORKAROUND, k=DEFAULT_K))



SIGNALS = ["Portable handling of signals within the shell is another major source of headaches. Solaris 10",
           "/bin/sh automatically traps most signals by default; the shell still exits with error upon",
           "termination by one of those signals, but in such a case the exit status might be somewhat",
           "unexpected, even if allowed by Posix, strictly speaking. Other shells exit with the number of",
           "the signal that killed them added to 128, as bash and the Korn shells do after a kill of their",
           "own process, and a script that looks at the status can tell which signal ended the shell."]
STATUSES = ["$ for sig in 1 2 3 15; do /bin/sh -c \"kill -$sig \\$\\$\"; echo $?; done",
            "signal 1: Hangup 129", "signal 2: 208", "signal 3: 208", "signal 15: 208"]
SHELLS = ["The exit status of a pipeline is the status of its last command; a shell that negates it with",
          "! reports the opposite status. Posix requires case to give an exit status of 0 if no cases match.",
          "A trap on EXIT runs when the shell exits, and the status it sees is the status of the last command."]


def test_a_name_only_a_page_mate_mentions_is_no_absent_name(library, tmp_path):
    """Autoconf's manual (no set's): "Why does a shell script killed by SIGINT ... exit with status 208 ...?"
    was answered "not covered": "208" is in the listing of exit statuses below the paragraph found, a
    passage of its page the search held in reserve, and a name no hit mentions made the question not
    covered. The reserve is not scored, but what it names is on the hits' pages."""
    from mmrag_desktop.engine.answer.confidence import assess
    from mmrag_desktop.engine.answer.pipeline import COMPANIONS, DEFAULT_K, ask

    page = [(57, 80 + 14 * i, t) for i, t in enumerate([*SIGNALS, "", "", *STATUSES])]
    pdf = write_pdf(tmp_path / "shells.pdf", [page, [(57, 80 + 14 * i, t) for i, t in enumerate(SHELLS)]], fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    question = "Why does a shell killed by a signal under Solaris 10 /bin/sh exit with status 208 instead of 128 plus the signal?"
    hits = library.search(question, k=DEFAULT_K, companions=COMPANIONS)
    scored = [h for h in hits if not h.reserve]
    reserve = [h for h in hits if h.reserve]
    # the case: only a page-mate in reserve gives the status
    assert not any("208" in h.text for h in scored) and any("208" in h.text for h in reserve), \
        [(h.reserve, h.text[:40]) for h in hits]
    assert assess(question, scored, library.embedder).absent == ["208"]
    assert assess(question, scored, library.embedder, mates=reserve).absent == []
    answer = ask(library, question, mode="extractive")
    assert not answer.insufficient_evidence and "Solaris 10 /bin/sh automatically traps" in answer.text, answer.text
    # a status neither the hits nor their page-mates give still makes the question not covered
    other = assess(question.replace("208", "209"), scored, library.embedder, mates=reserve)
    assert other.absent == ["209"] and other.insufficient


# DRBD's "Using truck based replication": the chunk that opens the section ends with a step's lead-in, and the
# command it announces is in the next chunk of the page
SEEDING = ["To preseed a remote node with the data it is to keep in sync, and to skip the initial full",
           "synchronization of the device, follow the steps below. This assumes that the local node has a",
           "configured but disconnected resource in the primary role: the configuration is complete, the same",
           "configuration file exists on both nodes, and the commands for the first promotion of the resource",
           "were issued on the local node, but the remote node is not connected yet."]
SEEDING_PAD = ["Read the steps once before you start.", "Keep the nodes apart.", "Take care.", "Go on."]
STEP = "- On the local node, issue the following command:"
STEP_COMMAND = "# zapadm new-uuid --clear-bitmap <resource>"
STEPS_AFTER = ["- Make a consistent, verbatim copy of the resource's data and its metadata, for example by",
               "removing a hot-swappable drive from a mirror and rebuilding the mirror with a fresh drive.",
               "- Physically transport the copies to the remote site.",
               "- Add the copies to the remote node. This may be a matter of plugging in a physical disk, or of",
               "grafting a bitwise copy of the shipped data onto existing storage on the remote node. Be sure",
               "to restore not only the replicated data but also its metadata; without it the shipping is moot.",
               "- Bring up the resource on the remote node. After the two peers connect, they do not start a full",
               "synchronization of the device. The synchronization that begins covers only the blocks that",
               "changed since the first command, and even with no changes there may be a brief resync of the",
               "areas the activity log covers, rolled back on the new secondary node. The more the data change",
               "while the disk is on its way, the longer that synchronization takes, so ship the disk soon.",
               "The shipped disk must be at least as large as the resource, or the remote node refuses it."]


def _seeding_manual(library, tmp_path, lead_in: str):
    """The seeding page, its opening padded (SEEDING_PAD) so that `lead_in` is the last line of the page's
    first chunk: the chunker closes a chunk before the line that would take it past TARGET_TOKENS."""
    from mmrag_desktop.engine.ingest.pipeline import TARGET_TOKENS

    cost = lambda text: library.embedder.count_tokens(text) + 1  # noqa: E731 - as chunking.py counts
    opening = list(SEEDING)
    for pad in SEEDING_PAD:
        if sum(map(cost, [*opening, pad, lead_in, STEP_COMMAND])) <= TARGET_TOKENS:
            opening.append(pad)
    lines = [*opening, lead_in, STEP_COMMAND, *STEPS_AFTER]
    pdf = write_pdf(tmp_path / "seeding.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(lines)]], fontsize=10)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    ids = [r[0] for r in library.conn.execute("SELECT id FROM chunks ORDER BY id")]
    rows = library.searcher.chunks.rows(ids)
    return {cid: rows[cid] for cid in ids}


def _reserve_of(library, rows: dict, mate: int) -> list:
    """The reserve Searcher._reserve makes of the page's first hit and `mate`, its page-mate."""
    from mmrag_desktop.engine.search.highlight import Highlight

    hit = library.search("Is the shipped disk large enough for the resource?", k=1)[0]
    assert hit.page == rows[mate]["page"] and hit.chunk_id not in (mate, mate + 1)
    shown = Highlight(hit.page, (57.0, 70.0, 500.0, 140.0), [(hit.page, (57.0, 70.0, 500.0, 140.0))], 0, 0.5)
    return library.searcher._reserve([hit], {(hit.doc_id, hit.page): [mate]}, dict(rows), {mate: shown}, {mate: 1.0},
                                     lambda cid: [], lambda cid: [])


def test_a_page_mate_that_ends_with_a_lead_in_brings_the_command_it_announces(library, tmp_path):
    """DRBD's user's guide (session 53's list): "When I seed a remote node by shipping a copy of the disk, what
    command do I run on the local node before making the copy?" found the page through the section's later
    steps; the section's opening, the page-mate in reserve, ends with "On the local node, issue the following
    command:" and the next chunk holds the command. That chunk is reserve too, its lead-in and command shown."""
    rows = _seeding_manual(library, tmp_path, STEP)
    first, second = list(rows)[:2]
    # the case: the opening ends with the lead-in, the next chunk repeats it (overlap) and goes on with the command
    assert rows[first]["text"].rstrip().endswith(STEP) and STEP_COMMAND not in rows[first]["text"]
    assert rows[second]["text"].startswith(STEP) and STEP_COMMAND in rows[second]["text"]
    reserve = _reserve_of(library, rows, first)
    assert [h.chunk_id for h in reserve] == [first, second] and all(h.reserve for h in reserve)
    lines = {ln["t"]: ln["b"] for ln in json.loads(rows[second]["lines"])}
    (_, shown), = reserve[1].boxes  # the lead-in and its command (as a continued hit's: _continue_lead_ins)
    assert shown[1] <= lines[STEP][1] and lines[STEP_COMMAND][3] <= shown[3], (shown, lines)
    assert reserve[1].text.startswith(STEP) and not reserve[0].text.startswith(STEP)


def test_a_page_mate_that_ends_with_a_sentence_brings_nothing_more(library, tmp_path):
    rows = _seeding_manual(library, tmp_path, "- On the local node, issue the following command.")
    first = next(iter(rows))
    assert rows[first]["text"].rstrip().endswith("command.")
    assert [h.chunk_id for h in _reserve_of(library, rows, first)] == [first]


def test_more_page_mates_of_the_first_hit_come_after_the_mates(library, tmp_path):
    """HMMER's user's guide (session 68's list): "Can I keep HMMER2 and HMMER3 installed on the same machine? What
    clashes between them and how do I get around it?" found the page, its short chunks four of the first six
    candidates, but the reserve held one page-mate: "One workaround is to install the two packages each in their own
    hierarchy ..." was never quoted. Up to FIRST_HIT_MATES more of the first hit's page-mates (the candidates one hit
    per page left out, in their order) come after the hits' mates; a later hit's page keeps one."""
    from dataclasses import replace as replaced

    from mmrag_desktop.engine.search import searcher
    from mmrag_desktop.engine.search.highlight import Highlight

    rows = _seeding_manual(library, tmp_path, "- On the local node, issue the following command.")
    hit = library.search("Is the shipped disk large enough for the resource?", k=1)[0]
    others = [cid for cid in rows if cid != hit.chunk_id and rows[cid]["page"] == hit.page]
    assert len(others) >= 3, rows  # (the case: a page of several chunks)
    box = (57.0, 70.0, 500.0, 140.0)
    shown = {cid: Highlight(hit.page, box, [(hit.page, box)], 0, 0.5) for cid in others}

    def reserve(hits: list) -> list[int]:
        return [h.chunk_id for h in library.searcher._reserve(hits, {(hit.doc_id, hit.page): others}, dict(rows), shown,
                                                              dict.fromkeys(others, 1.0), lambda cid: [], lambda cid: [])]

    assert searcher.FIRST_HIT_MATES == 2 and reserve([hit]) == others[:3]
    other_page = replaced(hit, page=hit.page + 1, chunk_id=-1)
    assert reserve([other_page, hit]) == others[:1]  # (a later hit's page: its mate alone)


