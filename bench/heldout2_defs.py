"""Definitions of held-out set 2 (turned into ``heldout2.jsonl`` by make_gold.py).

Purpose: a second held-out check, written and frozen before any issue-13 experiment, on four
manuals that no earlier set uses (the development, held-out and unseen sets use ngspice, Octave,
gnuplot, R-intro, R-admin, avr-libc, avrdude and expEYES Junior). Fetched by
``bash bench/fetch_manuals.sh heldout2`` into ``bench/data/heldout2/``:

- ``yosys-manual.pdf``: Yosys manual (Debian ``yosys-doc`` 0.23-6), 286 pages, ISC. An EDA
  (logic synthesis) user guide: LaTeX, captioned tables ("Table 5.7:") and vector figures
  ("Figure 2.4:"), a long command reference, and three application notes reprinted in Appendix E
  whose figures are numbered "Figure N." in two columns.
- ``nut-user-manual.pdf``: Network UPS Tools 2.8.0 user manual (``nut-doc`` 2.8.0-7), 135 pages,
  GPL-2+. A hardware (UPS) user guide: DBLaTeX, ruled tables of variables and pinouts, and
  uncaptioned raster pictures (monitoring diagrams, cable wiring drawings).
- ``sdccman.pdf``: SDCC 4.2.0 compiler user guide (``sdcc-doc`` 4.2.0+dfsg-1), 134 pages,
  GPL-2+. A microcontroller C compiler manual with ruled, uncaptioned parameter tables.
- ``simh-pdp11.pdf``: SIMH PDP-11 simulator usage (``simh`` 3.8.1-6.1, pdp11_doc.pdf), 39 pages,
  the MIT-style "Supnik licence". The datasheet-style manual: per simulated device, its SET
  options and a borderless register table (name, width in bits, meaning).

No scanned manual was found in a Debian documentation package (checked: the above,
linuxcnc-doc-en, gputils-doc, gpsim-doc, pcb-common, the other simh PDFs, and direwolf,
apcupsd-doc, urjtag, ocrmypdf, unpaper, g3data, gscan2pdf, pdfsandwich, which ship no PDF at all:
every PDF found has a full text layer). The
nearest thing is the NUT manual's cable appendix: its wiring drawings are raster images whose
labels exist only as pixels, one of them a scanned vendor drawing (page 91, Powerware LanSafe);
page 90 has no text at all. Figure questions v51-v54 ask about those pictures.

The questions were written once, from the pages alone (read with PyMuPDF and rendered to PNG);
the engine's search and answer code were never run on them. Same ``q(...)`` format and locators
as ``question_defs.py`` (see make_gold.py); pages are 1-based physical pages of the PDF. Gold
boxes of the application-note figures, the NUT pictures and the Yosys tables (whose rules are
not vector drawings PyMuPDF clusters) are ``rect`` boxes: the union of the drawing cluster(s) or
image, or the ``find_tables()`` table, with the caption, computed once with PyMuPDF.

How the pages were chosen (the rule of ``heldout_defs.py``/``unseen_defs.py``, never looking at
any search output)
----------------------------------------------------------------------------------------------
1. Pools, per manual and kind, without front matter, tables of contents, licences, indexes,
   acknowledgements and bibliographies (``CONTENT`` gives the body page range kept; ``NON_BODY``
   the pages inside it that are not body text: the one-paragraph divider of the Yosys
   application notes, the NUT acknowledgement lists):

   - text: every body page.
   - table: body pages with a "Table N.M:" caption, or on which PyMuPDF's ``find_tables()``
     (default settings) finds a table of at least 3 rows and 2 columns, run on every body page
     (``TABLE_POOL``, computed by ``table_pool()``; the SIMH and SDCC tables have no captions).
   - figure: body pages with a numbered figure caption line ("Figure N.M:" in the Yosys
     chapters, "Figure N. " in its application notes) or a raster image larger than 40 x 30 pt
     (``FIGURE_POOL``, computed by ``figure_pool()``). The image clause is for the NUT manual,
     whose pictures have no numbered captions; SDCC and SIMH have no figures.

2. Each pool is shuffled with ``random.Random(f"{SEED}:{doc}:{kind}")`` (``sampled_order``).
3. The kinds are walked in the order figure, table, text (the figure and table pools are the
   scarce ones), each pool in its sampled order, and a question is written about a page when it
   holds a fact an engineer would look up, until the manual's quota (``QUOTA``) is met. Every
   page passed over is listed in ``SKIPPED`` with the reason: ``find_tables`` false positives
   (framed code listings), pages holding only tables (for text), pages already used by a
   question of another kind, and NUT pages whose pictures are the same image as on another page
   (a question about them would have two answering pages).
   Quotas (Yosys/NUT/SDCC/SIMH): text 9/7/7/5, tables 4/3/4/3, figures 8/4/0/0.
4. One question per page, about one fact on it; the query is paraphrased the way an engineer
   asks, sharing no run of 4+ consecutive words with the gold page (``copied_ngrams`` checks).
   Figure questions describe what the diagram, screenshot or drawing shows.

The eight ``none`` questions (two per manual) stay in the manuals' domain (timing constraints
and power estimation in synthesis; MQTT and Prometheus for UPS monitoring; RISC-V/Cortex-M and
link-time optimisation for a small-device compiler; a TU58 drive and the VT11 display for the
PDP-11), so their words overlap with the manuals. Each was checked by a case-insensitive
regular-expression search of the PyMuPDF text of every page of all four manuals (``ABSENT``
lists, per question, the patterns that must find nothing); the comment above each says what the
search found.

``python bench/heldout2_defs.py`` re-derives the sampled orders (and, with ``--pools``, the table
and figure pools; slow, ~6 minutes), reports queries that copy 4+ consecutive words from their
gold page, and re-runs the absence checks of the ``none`` questions.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from question_defs import q  # noqa: E402 - the same format
from sampling import absent_hits, copied_ngrams, report_walk, seeded_order, table_pages  # noqa: E402

YO = "yosys-manual.pdf"
NU = "nut-user-manual.pdf"
SD = "sdccman.pdf"
PD = "simh-pdp11.pdf"

SEED = "mmrag-heldout2-2025"

# Body pages kept (1-based, inclusive): after the contents, before the index/bibliography.
# YO: 1-14 title, abstract, abbreviations, contents; 284-286 bibliography.
# NU: 1-12 title, revision history, contents. SD: 1-7 title, contents; 128 acknowledgments,
# 129-134 index. PD: 1 title and copyright notice, 2 contents.
CONTENT = {YO: (15, 283), NU: (13, 135), SD: (8, 127), PD: (3, 39)}
# Pages inside CONTENT that are not body text.
NON_BODY = {
    YO: {268},  # "Appendix E: Application Notes", a one-paragraph divider
    NU: {68, 69, 70},  # B.1-B.2 acknowledgement lists (team members, companies)
    SD: set(),
    PD: set(),
}

QUOTA = {
    "figure": {YO: 8, NU: 4, SD: 0, PD: 0},
    "table": {YO: 4, NU: 3, SD: 4, PD: 3},
    "text": {YO: 9, NU: 7, SD: 7, PD: 5},
}

# Output of table_pool() on the pinned manuals (CONTENT range, before removing NON_BODY).
TABLE_POOL = {
    YO: [19, 22, 26, 30, 42, 43, 51, 52, 53, 54, 55, 67, 68, 76, 90, 130, 139, 164, 165, 168, 175,
         183, 215, 280, 283],
    NU: [20, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 88, 92],
    SD: [9, 15, 16, 17, 18, 19, 50, 51, 57, 58, 59, 65, 84, 85, 86, 88, 89, 90, 91, 92, 100, 103,
         104, 105, 106, 112, 115, 116, 122, 123],
    PD: [5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 17, 18, 19, 20, 21, 22, 23, 24, 26, 27, 28, 29, 30, 31,
         32, 35, 36, 37, 39],
}

# Output of figure_pool() on the pinned manuals (CONTENT range, before removing NON_BODY).
FIGURE_POOL = {
    YO: [17, 25, 26, 27, 28, 32, 33, 65, 272, 273, 274, 275, 276, 277, 278, 279],
    NU: [23, 24, 34, 45, 46, 85, 86, 87, 88, 89, 90, 91, 92, 93, 109],
    SD: [],
    PD: [],
}

# Pages passed over while walking the sampled orders (everything before the last page used).
SKIPPED = {
    (NU, "figure", 45): "its only picture (the 'Advanced' monitoring diagram) is the same image as on "
                        "page 23: a question on it would have two answering pages",
    (NU, "figure", 23): "both pictures repeat on other pages (the 'Simple' diagram on page 34, the "
                        "'Advanced' one on page 45)",
    (NU, "figure", 34): "its only picture is the 'Simple' monitoring diagram of page 23 (same image)",
    (YO, "table", 19): "find_tables false positive: a framed 4-line Verilog code listing",
    (YO, "table", 139): "a line-numbered command help listing (memory_bram rule syntax), not a table",
    (YO, "table", 26): "already used by a figure question (v48, Figure 2.3)",
    (YO, "table", 30): "find_tables false positive: a line-numbered synthesis script listing",
    (YO, "table", 164): "a line-numbered command help listing (read_verilog options), not a table",
    (NU, "text", 92): "already used by a table question (v33)",
    (NU, "text", 81): "tables only (C.2.10-C.3 driver/server variables, instant commands; in "
                      "TABLE_POOL): no prose fact",
    (SD, "text", 103): "a table of the distribution's tools only (in TABLE_POOL): no prose fact",
}


QUESTIONS: list[dict] = [
    # ---------------------------------------------------------------- text (answer in prose)
    q("v01", "text", "at which level of design abstraction does a circuit first exist as a netlist, i.e. a graph of registers and combinational cells",
      (YO, 19, {"snippet": "Note that RTL is the first abstraction level in which the circuit is represented as a graph of circuit elements"})),
    q("v02", "text", "one-line yosys invocation that turns a Verilog file into BLIF using its stock synthesis flow, no script file",
      (YO, 269, {"snippet": "yosys -o softusb_navre.blif -S softusb_navre.v"})),
    q("v03", "text", "what does the abbreviation RTLIL stand for in yosys and what is it used for",
      (YO, 29, {"snippet": "Register-Transfer-Level-Intermediate-Language (RTLIL) representation"})),
    q("v04", "text", "yosys command that dumps the design as a tab-separated list of cell ports and the signals hooked to them",
      (YO, 257, {"between": ["write_table [options] [filename]", "'pi' (primary input)"]})),
    q("v05", "text", "synth_anlogic: flag that keeps the flow from inferring EG_PHY_BRAM block RAM primitives",
      (YO, 190, {"between": ["-nobram", "do not use EG_PHY_BRAM or EG_PHY_BRAM32K cells"]})),
    q("v06", "text", "opt_merge combines my flip-flops even though their init values contain x bits: which switch prevents that",
      (YO, 151, {"between": ["-keepdc", "Do not merge flipflops with don"]})),
    q("v07", "text", "map logic onto an FPGA fabric with a mix of LUT sizes, say a few 6-input and many 4-input ones",
      (YO, 146, {"between": ["nlutmap [options] [selection]", "to generic logic gates"]})),
    q("v08", "text", "fsm_opt: how does it find out which FSM control outputs nobody uses",
      (YO, 79, {"snippet": "is used to determine which control outputs are unused"})),
    q("v09", "text", "can the generic yosys read command load VHDL or EDIF sources, and what extra does that need",
      (YO, 160, {"between": ["read {-vhdl87", "Load the specified EDIF files"]})),
    q("v10", "text", "package NUT into a staging directory instead of installing it onto the live system",
      (NU, 29, {"between": ["If you are packaging this software", "make DESTDIR=/tmp/package install-conf"]})),
    q("v11", "text", "check that a downloaded NUT release tarball is genuine: which gpg command and signature file",
      (NU, 56, {"snippets": ["Launch the GPG checking using the following command:",
                             "$ gpg --verify nut-X.Y.Z.tar.gz.sig"]})),
    q("v12", "text", "chrooted upsd writes UTC timestamps to syslog although other daemons log local time: what did I forget to copy",
      (NU, 66, {"between": ["Next we must put /etc/localtime", "cp /etc/localtime /chroot/nut/etc"]})),
    q("v13", "text", "both the old 0.1 and the newer 1.0 libusb are installed: which one does NUT's configure pick, and how do I force the old one",
      (NU, 94, {"snippets": ["libusb 1.0 takes precedence", "explicitly calling --with-usb=libusb-0.1"]})),
    q("v14", "text", "which serial cable does a recent MGE or Eaton unit such as the Ellipse MAX need",
      (NU, 87, {"between": ["DB9-RJ45 cable", "This cable is used on the more recent models"]})),
    q("v15", "text", "building an old NUT 2.7.4 release on OpenIndiana: which extra python package to install",
      (NU, 123, {"snippet": "To build older NUT releases (2.7.4 and before), you may need to explicitly pkg install python-27."})),
    q("v16", "text", "NUT build on OpenBSD: how to choose which autoconf and automake versions the wrapper scripts run",
      (NU, 120, {"snippets": ["you may have to tell system dispatcher scripts which version to use",
                              "export AUTOCONF_VERSION=2.69 AUTOMAKE_VERSION=1.10"]})),
    q("v17", "text", "sdcc option that dumps intermediate output to help track down an optimizer bug before reporting it",
      (SD, 107, {"between": ["Compiling your", "program with the --dumpall option"]})),
    q("v18", "text", "in SDCC, b = ~b on a __bit variable sets it to 1 instead of flipping it: why, and what does toggle it",
      (SD, 11, {"snippets": ["__bit and __sbit types now consistently behave like the C99 _Bool type",
                             "b = !b; /* toggles b */"]})),
    q("v19", "text", "8051 code banking in sdcc: which registers carry the callee address and the bank number into the trampoline",
      (SD, 67, {"snippet": "When calling a banked function SDCC will put the LSB of the functions address in register R0"})),
    q("v20", "text", "recommended way to install SDCC: prebuilt binaries or building it myself, and with which tools",
      (SD, 13, {"snippet": "The preferred method of installation is to compile SDCC from source using GNU GCC and make."})),
    q("v21", "text", "default heap size for malloc in SDCC on the 8051 and how to make it bigger",
      (SD, 59, {"snippets": ["a default heap space of 1024 bytes is provided for malloc",
                             "sdcc -c _heap.c -D HEAP_SIZE=2048"]})),
    q("v22", "text", "SDCC on a Cypress EZ-USB 8051: which SFR address to declare as _XPAGE for pdata",
      (SD, 66, {"snippet": "__sfr __at (0x92) _XPAGE;"})),
    q("v23", "text", "printf on 8051 with sdcc prints a placeholder instead of my float value: how do I enable float formatting",
      (SD, 58, {"snippet": "To enable floating point output, recompile it with the option -DUSE_FLOATS=1"})),
    q("v24", "text", "simh PDP-11 DECtape: required relation between the line time and deceleration time registers",
      (PD, 25, {"between": ["It is critically important to maintain certain timing", "DCTIME needs to be at least 100 times LTIME"]})),
    q("v25", "text", "how many terminal lines can the simulated DZ11 multiplexers provide and in what steps",
      (PD, 31, {"between": ["The DZ11 is an 8-line terminal multiplexer", "The line count must be a multiple of 8, with a maximum of 32."]})),
    q("v26", "text", "create the DEC 044 bad-sector table for an RK06/RK07 disk image in the PDP-11 simulator: command and when is it allowed",
      (PD, 17, {"between": ["SET HKn BADBLOCK", "only when a unit is attached to a file"]})),
    q("v27", "text", "RSX-11M+ hangs or crashes at boot with the simulated TQK50 tape: could changing its timing registers cause it",
      (PD, 28, {"between": ["Some DEC operating systems, notably RSX11M/M+", "the default values may cause M/M+ to crash"]})),
    q("v28", "text", "largest and smallest tape size I can give a TK50 with the user-defined capacity option in simh",
      (PD, 27, {"between": ["SET TQ TKUSER{=n}", "User-specified capacity must be between 50 and 2000 MB."]})),
    # ---------------------------------------------------------------- tables
    q("v29", "table", "yosys gate-level cell for a rising-edge flip-flop with an active-high reset to 1 and an active-low enable",
      (YO, 53, {"rect": [89, 89, 473, 311]})),  # Table 5.7 (find_tables box + caption)
    q("v30", "table", "which AST node type does the yosys Verilog frontend create for the conditional ?: operator",
      (YO, 68, {"rect": [94, 89, 521, 513]})),  # Table 7.1, continued
    q("v31", "table", "yosys cell name for a d-latch with active-high enable and an active-low reset that resets to 1",
      (YO, 54, {"rect": [167, 325, 459, 451]})),  # Table 5.10
    q("v32", "table", "internal SR latch cell type with active-low set and active-high reset",
      (YO, 55, {"rect": [181, 230, 445, 308]})),  # Table 5.12
    q("v33", "table", "Best Power Patriot Pro II with its non-standard DB-9 socket: which UPS pins carry RxD and ground",
      (NU, 92, {"table_at": "RxD"})),
    q("v34", "table", "NUT variable reporting how long the device has been powered up, and its unit",
      (NU, 71, {"table_at": "device.uptime"})),
    q("v35", "table", "NUT variable for the phase angle between two input sources of a UPS",
      (NU, 74, {"table_at": "input.phase.shift"})),
    q("v36", "table", "default install prefix of SDCC on Linux compared with the official Windows build",
      (SD, 15, {"table_at": "DOCDIR"})),
    q("v37", "table", "interrupt signal name in the SDCC pic16 library for the A/D conversion finished interrupt",
      (SD, 92, {"table_at": "SIG_AD"})),
    q("v38", "table", "8051 with sdcc: interrupt number and vector address of the serial port ISR",
      (SD, 50, {"table_at": "0x0023"})),
    q("v39", "table", "how wide is a long in SDCC and what is its signed range",
      (SD, 9, {"table_at": "+4.294.967.295"})),
    q("v40", "table", "capacity of the simulated RF11 fixed-head disk with all eight platters, and the command to set it",
      (PD, 23, {"between": ["SET RF 1P", "SET RF AUTOSIZE"]})),
    q("v41", "table", "which register of the simulated CR11/CD11 card reader holds the blower state and how many bits it has",
      (PD, 37, {"between": ["The CR controller implements these registers", "delay time between columns"]})),
    q("v42", "table", "in the simh PDP-11, the KW11-P: which registers give the ticks per second for each of its rates",
      (PD, 13, {"between": ["The programmable clock implements these registers", "ticks per second, rates 0 to 3"]})),
    # ---------------------------------------------------------------- figures
    q("v43", "figure", "yosys show diagrams of a small half adder made of NOR and NOT gates, before and after giving it the cell library and splitting the nets",
      (YO, 273, {"rect": [304, 75, 555, 427]})),  # Figure 5 of application note 011
    q("v44", "figure", "diagram of a single $add cell whose nets are drawn as ellipses after selecting just that cell by name or by type",
      (YO, 275, {"rect": [41, 83, 281, 199]})),  # Figure 8 of application note 011
    q("v45", "figure", "three circuit diagrams of the same small design as read from Verilog, after proc and after opt",
      (YO, 272, {"rect": [304, 470, 545, 747]})),  # Figure 2 of application note 011
    q("v46", "figure", "abstract syntax tree drawing for an assign statement that adds the constant 42 to a signal",
      (YO, 27, {"figure": "Figure 2.4"})),
    q("v47", "figure", "block diagram showing how a synthesizer moves HDL through a frontend, several passes and a backend to a netlist",
      (YO, 28, {"figure": "Figure 3.1"})),
    q("v48", "figure", "parse tree of the verilog assignment foo = bar + 42 according to a bison grammar",
      (YO, 26, {"figure": "Figure 2.3"})),
    q("v49", "figure", "entity-relationship diagram of yosys' internal design representation: design, modules, wires, cells, processes, memories",
      (YO, 33, {"figure": "Figure 4.2"})),
    q("v50", "figure", "circuit diagram of the input cone of output y that skips over mux select lines and flip-flops in the memory demo",
      (YO, 277, {"rect": [41, 608, 279, 747]})),  # Figure 16 of application note 011
    q("v51", "figure", "screenshot of the early NUT CGI status page with bar gauges for battery charge, utility voltage and UPS load",
      (NU, 109, {"rect": [56.7, 296.5, 566.9, 592.7]})),  # raster image, no caption
    q("v52", "figure", "wiring diagram of a cable from an APC smart UPS DB-9 port to a Macintosh's RS-422 mini-DIN 8 port",
      (NU, 86, {"rect": [56.7, 81.0, 566.9, 285.1]})),  # raster image, no caption (G.1.3)
    q("v53", "figure", "scanned cable drawing for the Powerware LanSafe: DB-9 to DB-9 wire colours and the DB-25 adapter pinout",
      (NU, 91, {"rect": [56.7, 107.9, 567.0, 504.9]})),  # scanned vendor drawing (G.3.2)
    q("v54", "figure", "Eaton USB to RJ45 cable wiring: which RJ45 pins carry D+ and D-, and the wire gauges",
      (NU, 89, {"rect": [58.2, 80.0, 565.5, 366.9]})),  # raster image, no caption (G.3.1, USB-RJ45 cable)
    # ---------------------------------------------------------------- not covered by the manuals
    # "SDC", "create_clock|set_max_delay" and "timing.driven" find nothing: Yosys maps and
    # optimises logic, the manual has no timing-constraint input.
    q("vn1", "none", "read an SDC file with create_clock constraints into yosys for timing-driven synthesis"),
    # "power (estimat|analys)", "dynamic power", "switching activity", "power consumption" find
    # nothing.
    q("vn2", "none", "estimate the dynamic power consumption of a synthesized netlist with yosys"),
    # "mqtt" and "broker" find nothing (NUT talks its own network protocol, SNMP, XML/HTTP).
    q("vn3", "none", "publish UPS status from NUT to an MQTT broker"),
    # "prometheus|grafana", "exporter" and "metrics" find nothing.
    q("vn4", "none", "export NUT UPS readings to Prometheus and graph them in Grafana"),
    # "risc.?v", "cortex", "STM32" find nothing: SDCC targets 8051, Z80, HC08/S08, STM8, PIC.
    q("vn5", "none", "compile for a RISC-V or ARM Cortex-M microcontroller with SDCC"),
    # "\bLTO\b", "link.time optim", "whole.program" find nothing.
    q("vn6", "none", "enable link-time optimization across files in SDCC"),
    # "TU58" and "DECtape II" find nothing; the manual covers the TC11 DECtape and a TA11
    # cassette ("cassette" occurs on pages 2, 4, 14), not the TU58.
    q("vn7", "none", "attach a TU58 DECtape II drive to the simulated PDP-11"),
    # "VT11|GT40" and "vector (graphics|display)" find nothing.
    q("vn8", "none", "emulate the VT11 vector graphics display of a GT40 on the simh PDP-11"),
]

# Patterns (case-insensitive regular expressions) that must find nothing in any of the four
# manuals, per none question.
ABSENT = {
    "vn1": [r"\bSDC\b", r"create_clock|set_max_delay", r"timing.driven"],
    "vn2": [r"power (estimat|analys)", r"dynamic power", r"switching activity", r"power consumption"],
    "vn3": [r"mqtt", r"broker"],
    "vn4": [r"prometheus|grafana", r"exporter", r"metrics"],
    "vn5": [r"risc.?v", r"cortex", r"STM32"],
    "vn6": [r"\bLTO\b", r"link.time optim", r"whole.program"],
    "vn7": [r"TU58", r"DECtape II"],
    "vn8": [r"VT11|GT40", r"vector (graphics|display)"],
}


# ---------------------------------------------------------------- the selection rule, re-derivable

BENCH = Path(__file__).resolve().parent
MANUALS = BENCH / "data" / "heldout2"
FIGURE_CAPTION = re.compile(r"^Figure (\d+\.\d+:|\d+\. )", re.M)


def pool(doc: str, kind: str) -> list[int]:
    """Return the candidate pages of ``doc`` for ``kind`` (body pages only)."""
    lo, hi = CONTENT[doc]
    pages = {"text": range(lo, hi + 1), "table": TABLE_POOL[doc], "figure": FIGURE_POOL[doc]}[kind]
    return sorted(p for p in pages if lo <= p <= hi and p not in NON_BODY[doc])


def sampled_order(doc: str, kind: str) -> list[int]:
    """Return the pool of ``doc``/``kind`` shuffled with the fixed seed: the order pages are read in."""
    return seeded_order(pool(doc, kind), SEED, doc, kind)


def table_pool(doc: str) -> list[int]:
    """Recompute TABLE_POOL[doc] with PyMuPDF (slow)."""
    lo, hi = CONTENT[doc]
    return table_pages(MANUALS / doc, lo, hi, only_with_drawings=False)


def figure_pool(doc: str) -> list[int]:
    """Recompute FIGURE_POOL[doc]: pages with a numbered figure caption line or a raster image
    larger than 40 x 30 pt."""
    import pymupdf

    lo, hi = CONTENT[doc]
    out = []
    with pymupdf.open(MANUALS / doc) as d:
        for i in range(lo - 1, hi):
            page = d[i]
            if FIGURE_CAPTION.search(page.get_text()) or any(
                    b["bbox"][2] - b["bbox"][0] > 40 and b["bbox"][3] - b["bbox"][1] > 30
                    for b in page.get_image_info()):
                out.append(i + 1)
    return out


def main() -> int:
    import pymupdf

    if "--pools" in sys.argv:
        for doc in CONTENT:
            got = table_pool(doc)
            print(f"table pool {doc}: {'same as TABLE_POOL' if got == TABLE_POOL[doc] else got}")
            got = figure_pool(doc)
            print(f"figure pool {doc}: {'same as FIGURE_POOL' if got == FIGURE_POOL[doc] else got}")
    report_walk(QUESTIONS, {k: {d: n for d, n in v.items() if n} for k, v in QUOTA.items()},
                sampled_order, SKIPPED, width=20)
    pages_used = [(g["doc"], g["page"]) for qq in QUESTIONS for g in qq["gold"]]
    if len(pages_used) != len(set(pages_used)):
        print("a page is used by more than one question")
    for (doc, kind, page), _why in SKIPPED.items():
        if page not in pool(doc, kind):
            print(f"SKIPPED {doc} {kind} {page} is not in the pool")
    texts = {}
    for doc in CONTENT:
        with pymupdf.open(MANUALS / doc) as d:
            texts[doc] = [p.get_text() for p in d]
    for qq in QUESTIONS:
        for g in qq["gold"]:
            copied = copied_ngrams(qq["query"], texts[g["doc"]][g["page"] - 1])
            if copied:
                print(f"{qq['id']}: query copies {copied}")
    for qid, hits in absent_hits(ABSENT, texts).items():
        print(f"{qid}: found {hits}")
    kinds: dict[str, int] = {}
    for qq in QUESTIONS:
        kinds[qq["kind"]] = kinds.get(qq["kind"], 0) + 1
    print(f"{len(QUESTIONS)} questions: {kinds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
