"""Definitions of the held-out question set (turned into ``heldout.jsonl`` by make_gold.py).

Purpose: check the development-set numbers (tuned on ``questions.jsonl``) for overfitting. The
questions were written once, from the pages alone; the engine's search was never run to choose,
word or tune them. Same manuals, page numbering, ``q(...)`` format and locators as
``question_defs.py`` (see make_gold.py).

How the pages were chosen (a rule that never looks at any search output)
-------------------------------------------------------------------------
1. Pools, per manual and kind, always without the pages the development set uses (any doc+page
   in ``question_defs.py``) and without front matter, tables of contents, prefaces, licences
   and indexes (``CONTENT`` gives the body page range kept):

   - text: every body page.
   - table: body pages with a "Table N.M:" caption, or on which PyMuPDF's ``find_tables()``
     (default settings) finds a table of at least 3 rows and 2 columns (``TABLE_POOL``,
     computed by ``table_pool()``).
   - figure: body pages with a "Figure N.M:" caption (``FIGURE_POOL``; only the ngspice and
     Octave manuals have captioned figures; gnuplot and the R manuals hold no images).

2. Each pool is shuffled with ``random.Random(f"{SEED}:{doc}:{kind}")`` (``sampled_order``).
3. The pages are walked in that order and a question is written about a page when it holds a
   fact an engineer would look up (for tables: a real table of reference data, not a
   ``find_tables`` false positive on prose or example output), until the manual's quota
   (``QUOTA``) is met. Every page passed over is listed in ``SKIPPED`` with the reason.
   Quotas: text 4/4/4/3/3 (ngspice/Octave/gnuplot/R-intro/R-admin); tables 5/2/1/1/0 and
   figures 4/5/0/0/0 (roughly the size of each manual's pool; R-admin has no table or figure).
4. One question per page, about one fact on it; the query is paraphrased the way an engineer
   asks, sharing no run of 4+ consecutive words with the gold page (``copied_ngrams`` checks).
   Figure questions describe what the plot, schematic or screenshot shows.

The four ``none`` questions are plausible engineering questions about equipment the manuals do
not cover (checked by a text search of all five manuals for their key terms).

``python bench/heldout_defs.py`` re-derives the sampled orders (and, with ``--tables``, the table
pool; slow) and reports queries that copy 4+ consecutive words from their gold page.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from question_defs import GP, NG, OC, RA, RI, q  # noqa: E402 - the same manuals and format
from sampling import copied_ngrams, report_tables, report_walk, seeded_order, table_pages  # noqa: E402

SEED = "mmrag-heldout-2024"

# Body pages kept (1-based, inclusive): after the contents/prefaces, before licences/indexes.
CONTENT = {NG: (35, 710), OC: (23, 1116), GP: (22, 303), RI: (8, 101), RA: (6, 82)}

QUOTA = {
    "text": {NG: 4, OC: 4, GP: 4, RI: 3, RA: 3},
    "table": {NG: 5, OC: 2, GP: 1, RI: 1, RA: 0},
    "figure": {NG: 4, OC: 5, GP: 0, RI: 0, RA: 0},
}

# Output of table_pool() on the pinned manuals (body pages only, before removing dev pages).
TABLE_POOL = {
    NG: [49, 50, 55, 62, 64, 74, 78, 79, 83, 86, 91, 95, 96, 97, 98, 99, 102, 121, 123, 124, 129,
         130, 131, 139, 140, 141, 142, 143, 151, 153, 156, 160, 161, 163, 164, 165, 166, 167, 168,
         169, 172, 173, 174, 180, 215, 339, 347, 353, 364, 365, 366, 367, 368, 378, 387, 388, 389,
         407, 412, 510, 513, 564, 576, 577, 586, 610, 611, 612, 616, 618, 620, 621, 623, 626, 628,
         631, 633, 635, 637, 643, 644, 645, 646, 647, 648, 649, 650, 651, 652, 653, 654, 655, 656,
         657, 658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 668, 669, 670, 671, 672, 673, 675,
         676, 677, 678, 679, 680, 682, 683, 684, 685, 686, 687, 688, 689, 690, 691, 692, 703, 704,
         707],
    OC: [33, 284, 340, 423, 424, 719, 916, 968, 1087],
    GP: [32, 34, 37, 38, 39, 42, 43, 50, 117, 118, 125, 135, 151, 152, 153, 157, 161, 209, 232,
         233, 238, 246, 278, 297, 299],
    RI: [23, 39, 40, 58, 67],
    RA: [],
}

FIGURE_POOL = {
    NG: [143, 144, 146, 171, 384, 448, 450, 464, 498, 500, 501, 523, 534, 536, 539, 550, 553, 554,
         614, 615, 630],
    OC: [332, 337, 349, 353, 373, 374, 426, 526, 683, 684, 689, 690, 717, 822, 823, 824, 825, 826,
         833, 834, 839, 843, 846, 850, 852, 854, 857],
    GP: [], RI: [], RA: [],
}

# Pages passed over while walking the sampled orders (everything before the last page used).
SKIPPED = {
    (OC, "table", 1087): "find_tables false positive: a function's argument list, no table",
    (OC, "table", 284): "a profiler printout inside a tutorial example, nothing to look up",
    (OC, "table", 340): "ASCII 'fenced letter display' of stemleaf output, not a table",
    (GP, "table", 157): "find_tables false positive: ASCII sketch of surface edges",
    (GP, "table", 297): "find_tables false positive: prose about the x11 terminal",
    (GP, "table", 238): "a list of command-line options, not a table",
    (RI, "table", 23): "find_tables false positive: an R session printing a factor",
}


QUESTIONS: list[dict] = [
    # ---------------------------------------------------------------- text (answer in prose)
    q("h01", "text", "configure flag to build ngspice without the FFTW library, using its own FFT code",
      (NG, 698, {"snippet": "Do not check for and use the fftw fast fourier transform library"})),
    q("h02", "text", "must a spice switch element be given an initial on/off state, and when does it matter",
      (NG, 90, {"snippet": "The instance parameters ON or OFF are required, when the controlling voltage"})),
    q("h03", "text", "XSPICE piecewise linear controlled source: what output do I get for inputs beyond the first or last x point",
      (NG, 191, {"snippet": "the PWL Controlled Source model extends the slope found"})),
    q("h04", "text", "which identifiers are reserved and not allowed as .param names",
      (NG, 59, {"snippet": "The variables time, temper, and hertz"})),
    q("h05", "text", "ichol in octave: what drop tolerance applies when I don't set one",
      (OC, 711, {"snippets": ["A non-negative scalar specifying the drop tolerance for factorization if",
                              "The default value is 0 which produces the complete"]})),
    q("h06", "text", "textscan called without a format string, which conversion does it assume",
      (OC, 305, {"snippet": "By default, if there is only one input argument, format is"})),
    q("h07", "text", "reorder the QZ generalized eigenvalues so the ones with magnitude below one come first",
      (OC, 619, {"between": ["for ordering eigenvalues of the GEP pencil", "small: leading block has all"]})),
    q("h08", "text", "which direction is up for the camera of an octave 3-D plot unless I change it",
      (OC, 395, {"snippet": "corresponds to the positive z-axis"})),
    q("h09", "text", "gnuplot: loop a plot over every column of a file when I don't know how many columns there are",
      (GP, 123, {"snippet": "If an iteration is to continue until all available data is consumed"})),
    q("h10", "text", "log scale axis in gnuplot: get minor tick marks at 2 through 9 within each decade",
      (GP, 174, {"snippet": "are obtained by setting <freq> to 10"})),
    q("h11", "text", "make the top x axis a nonlinear function of the bottom one, for example showing x squared",
      (GP, 166, {"snippet": "The set link command establishes a mapping between the x and x2 axes"})),
    q("h12", "text", "bar chart with boxes: make each bar half as wide as gnuplot would by default",
      (GP, 136, {"snippets": ["To set the box width to half of the automatic size use",
                              "set boxwidth 0.5 relative"]})),
    q("h13", "text", "R: compute just the eigenvalues of a big symmetric matrix, skipping the eigenvectors",
      (RI, 31, {"snippets": ["matrices it is better to avoid computing the eigenvectors if they are not needed",
                             "only.values = TRUE"]})),
    q("h14", "text", "how do I write a user-defined function in R, what's the syntax",
      (RI, 51, {"snippet": "A function is defined by an assignment of the form"})),
    q("h15", "text", "read x/y positions off an R graph by clicking on it with the mouse",
      (RI, 79, {"snippet": "Waits for the user to select locations on the current plot using the left mouse"})),
    q("h16", "text", "on a Mac does install.packages fetch binaries or compile from source by default",
      (RA, 32, {"snippet": "On R builds using binary packages, the default is type both"})),
    q("h17", "text", "after building R from source I want to run its regression tests, what do I have to install first",
      (RA, 20, {"snippets": ["Full post-installation testing is possible only if the test files have been installed with",
                             "make install-tests"]})),
    q("h18", "text", "speed up R's make check by checking packages on several cores",
      (RA, 21, {"snippet": "Parallel checking of packages may be possible"})),
    # ---------------------------------------------------------------- tables
    q("h19", "table", "which bjt device variable gives the power the transistor dissipates",
      (NG, 659, {"table_at": "Power dissipation"})),
    q("h20", "table", "pulse source: what rise and fall times are used when I leave them out",
      (NG, 95, {"table_at": "Rise time"})),
    q("h21", "table", "shortcut to rerun the previous command at the ngspice prompt",
      (NG, 387, {"table_at": "The preceding event."})),
    q("h22", "table", "CIDER numerical diode: which parameter selects a one- or two-dimensional simulation",
      (NG, 633, {"table_at": "Dimensionality of numerical model"})),
    q("h23", "table", "MOS level 2 model parameter name for the maximum drift velocity of carriers",
      (NG, 670, {"table_at": "Maximum carrier drift velocity"})),
    q("h24", "table", "which octave quadrature function copes with singularities and infinite integration limits",
      (OC, 719, {"rect": [122.0, 517.0, 496.0, 621.5]})),  # borderless: header row to the quadcc row
    q("h25", "table", "tex markup for a degree sign in an octave plot label",
      (OC, 424, {"table": "Table 15.1"})),
    q("h26", "table", "format code that reads the day-of-year number in gnuplot time data",
      (GP, 209, {"table_at": "day of the year"})),
    q("h27", "table", "sample data file with column names in the first line and a row label on each line, for a data frame",
      (RI, 39, {"between": ["Input file form with names and row labels:", "59.75"]})),
    # ---------------------------------------------------------------- figures
    q("h28", "figure", "plot of the voltage at a node inside a subcircuit from the XSPICE mixed-signal example",
      (NG, 554, {"figure": "Figure 27.3"})),
    q("h29", "figure", "plot window showing v(1) and the base voltage against time in the transistor amplifier tutorial",
      (NG, 500, {"figure": "Figure 21.2"})),
    q("h30", "figure", "schematic where a source feeds clamping diodes, a capacitor and an amplifier subcircuit driving a load resistor",
      (NG, 539, {"figure": "Figure 26.2"})),
    q("h31", "figure", "sketch of CIDER one-dimensional doping profile shapes with the peak concentration and the constant box edges",
      (NG, 614, {"figure": "Figure 30.1"})),
    q("h32", "figure", "mesh surface produced by the interpn example that resamples a 3-D function on a finer grid",
      (OC, 839, {"figure": "Figure 29.4"})),
    q("h33", "figure", "plot comparing clamped and hinged periodic spline fits through noisy wave-like data",
      (OC, 825, {"figure": "Figure 28.4"})),
    q("h34", "figure", "the classic sombrero surface drawn as a wireframe in octave",
      (OC, 373, {"figure": "Figure 15.5"})),
    q("h35", "figure", "plot of the triangles connecting a handful of random points in the unit square",
      (OC, 843, {"figure": "Figure 30.1"})),
    q("h36", "figure", "stair-stepped time series plot caused by single precision in OpenGL, next to the workaround of shifting dates",
      (OC, 526, {"figure": "Figure 15.8"})),
    # ---------------------------------------------------------------- not covered by the manuals
    q("hn1", "none", "export the board layout as Gerber files for the PCB manufacturer"),
    q("hn2", "none", "default baud rate of the RS-485 Modbus port on the controller"),
    q("hn3", "none", "how often should the hydraulic oil filter be replaced"),
    q("hn4", "none", "factory reset procedure for the touchscreen operator panel"),
]


# ---------------------------------------------------------------- the selection rule, re-derivable

BENCH = Path(__file__).resolve().parent
MANUALS = BENCH / "data" / "manuals"


def dev_pages() -> set[tuple[str, int]]:
    """Return every (doc, page) the development set uses."""
    sys.path.insert(0, str(BENCH))
    from question_defs import QUESTIONS as DEV

    return {(g["doc"], g["page"]) for qq in DEV for g in qq["gold"]}


def pool(doc: str, kind: str) -> list[int]:
    """Return the candidate pages of ``doc`` for ``kind`` (body pages, dev pages removed)."""
    lo, hi = CONTENT[doc]
    pages = {"text": range(lo, hi + 1), "table": TABLE_POOL[doc], "figure": FIGURE_POOL[doc]}[kind]
    dev = dev_pages()
    return sorted(p for p in pages if lo <= p <= hi and (doc, p) not in dev)


def sampled_order(doc: str, kind: str) -> list[int]:
    """Return the pool of ``doc``/``kind`` shuffled with the fixed seed: the order pages are read in."""
    return seeded_order(pool(doc, kind), SEED, doc, kind)


def table_pool(doc: str) -> list[int]:
    """Recompute TABLE_POOL[doc] with PyMuPDF (slow)."""
    lo, hi = CONTENT[doc]
    return table_pages(MANUALS / doc, lo, hi, only_with_drawings=True)


def main() -> int:
    import pymupdf

    if "--tables" in sys.argv:
        report_tables(CONTENT, TABLE_POOL, table_pool)
    report_walk(QUESTIONS, QUOTA, sampled_order, SKIPPED, width=20)
    dev = dev_pages()
    docs: dict[str, object] = {}
    for qq in QUESTIONS:
        for g in qq["gold"]:
            if (g["doc"], g["page"]) in dev:
                print(f"{qq['id']}: page {g['doc']}:{g['page']} is in the dev set")
            d = docs.setdefault(g["doc"], pymupdf.open(MANUALS / g["doc"]))
            copied = copied_ngrams(qq["query"], d[g["page"] - 1].get_text())
            if copied:
                print(f"{qq['id']}: query copies {copied}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
