"""Definitions of the unseen-manuals question set (turned into ``unseen.jsonl`` by make_gold.py).

Purpose: an independent check of retrieval, answers and the "the manuals do not cover this"
decision on real manuals that nothing was ever tuned on. The development and held-out sets both
use the five manuals of ``fetch_manuals.sh`` (ngspice, Octave, gnuplot, two R manuals); these
questions use three other manuals, fetched by ``fetch_unseen_manuals.sh`` into
``bench/data/unseen/``:

- ``avr-libc-user-manual.pdf``: avr-libc 2.0.0 user manual (Debian ``avr-libc``
  1:2.0.0+Atmel3.6.2-3), 350 pages, Modified BSD licence. Doxygen: guides, FAQ, API reference.
- ``avrdude.pdf``: AVRDUDE 7.1 manual (``avrdude-doc`` 7.1+dfsg-3), 61 pages, GPL-2+. Texinfo:
  command-line options, terminal mode, configuration file; borderless tables.
- ``expeyes-junior.pdf``: expEYES Junior user's manual (``expeyes-doc-en`` 4.3-3), 65 pages,
  GFDL-1.3 (no invariant sections). LyX: a lab interface, its terminals and experiments.

The questions were written once, from the pages alone (read with PyMuPDF); the engine's search
and answer code were never run on them. Same ``q(...)`` format and locators as
``question_defs.py`` (see make_gold.py); pages are 1-based physical pages of the PDF.

How the pages were chosen (the rule of ``heldout_defs.py``, never looking at any search output)
-----------------------------------------------------------------------------------------------
1. Pools, per manual and kind, without front matter, tables of contents, licences and indexes
   (``CONTENT`` gives the body page range kept; ``NON_BODY`` the pages inside it that are not
   body text: the avr-libc licence page, its to-do/deprecated lists and module/file indexes, and
   the expEYES pages that hold only a page number):

   - text: every body page.
   - table: body pages with a "Table N:" caption, or on which PyMuPDF's ``find_tables()``
     (default settings) finds a table of at least 3 rows and 2 columns (``TABLE_POOL``, computed
     by ``table_pool()``). Unlike heldout_defs.py it runs ``find_tables()`` on every body page,
     not only on pages with vector drawings: the avrdude manual's tables have no rules.

2. Each pool is shuffled with ``random.Random(f"{SEED}:{doc}:{kind}")`` (``sampled_order``).
3. The pages are walked in that order and a question is written about a page when it holds a
   fact an engineer would look up (for tables: a real table, not a ``find_tables`` false
   positive), until the manual's quota (``QUOTA``) is met: text 5/3/3, tables 2/2/1
   (avr-libc/avrdude/expEYES). Every page passed over is listed in ``SKIPPED`` with the reason.
4. One question per page, about one fact on it; the query is paraphrased the way an engineer
   asks, sharing no run of 4+ consecutive words with the gold page (``copied_ngrams`` checks).

The ten ``none`` questions are plausible questions in the same domain (AVR C library, AVR
programmer, a USB lab interface), so their vocabulary overlaps with the manuals, about things the
manuals do not cover. Each was checked by a case-insensitive regular-expression search of the
PyMuPDF text of every page of all three manuals (``python bench/unseen_defs.py`` repeats it:
``ABSENT`` lists, per question, the patterns that must find nothing); the comment above each says
what the search found.

``python bench/unseen_defs.py`` re-derives the sampled orders (and, with ``--tables``, the table
pool; slow, ~5 minutes), reports queries that copy 4+ consecutive words from their gold page, and
re-runs the absence checks of the ``none`` questions.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from question_defs import q  # noqa: E402 - the same format
from sampling import absent_hits, copied_ngrams, report_tables, report_walk, seeded_order, table_pages  # noqa: E402

AL = "avr-libc-user-manual.pdf"
AD = "avrdude.pdf"
EY = "expeyes-junior.pdf"

SEED = "mmrag-unseen-2025"

# Body pages kept (1-based, inclusive): after the contents, before the indexes.
CONTENT = {AL: (11, 328), AD: (5, 60), EY: (5, 65)}
# Pages inside CONTENT that are not body text.
NON_BODY = {
    AL: {20, 106, 107, 108, 109},  # 20 licence; 106 to-do/deprecated lists; 107-109 indexes
    AD: set(),
    EY: {14, 32, 36, 48, 54, 60},  # empty pages (a page number only)
}

QUOTA = {
    "text": {AL: 5, AD: 3, EY: 3},
    "table": {AL: 2, AD: 2, EY: 1},
}

# Output of table_pool() on the pinned manuals (CONTENT range, before removing NON_BODY).
TABLE_POOL = {
    AL: [42, 43, 44, 51, 52, 65, 67, 73, 87, 88, 89, 90, 91, 92, 93, 107, 108, 109, 110, 179, 180,
         181, 199, 204, 206, 207, 208, 209, 213, 214, 215, 250, 258, 262],
    AD: [6, 12, 13, 14, 34, 35, 40, 48, 49, 53, 57, 58, 59],
    EY: [16, 17, 18, 22, 23, 24, 25, 62],
}

# Pages passed over while walking the sampled orders (everything before the last page used).
SKIPPED = {
    (AL, "text", 92): "a page of the -mmcu device/architecture table only (in TABLE_POOL): no prose fact",
    (AD, "text", 38): "a printout of an example terminal session (part info, memory dumps), nothing to look up",
}


QUESTIONS: list[dict] = [
    # ---------------------------------------------------------------- text (answer in prose)
    q("u01", "text", "avr-gcc: pinning a global variable to a CPU register with asm(\"rN\"), which registers must I never take",
      (AL, 55, {"snippet": "Do not reserve r0 or r1 as these are used internally by the compiler"})),
    q("u02", "text", "I2C slave receiver: status code in TWSR after the master ends the transfer with a stop, or restarts, while we are addressed",
      (AL, 239, {"snippets": ["#define TW_SR_STOP 0xA0",
                              "stop or repeated start condition received while selected"]})),
    q("u03", "text", "largest value the avr-libc random() function can return",
      (AL, 313, {"between": ["#define RANDOM_MAX 0x7FFFFFFF", "#define RANDOM_MAX 0x7FFFFFFF"]})),  # one list line
    q("u04", "text", "embed a raw binary file such as a bitmap in my AVR firmware image at link time",
      (AL, 71, {"snippets": ["avr-objcopy can create a relocatable object file from arbitrary binary input, like",
                             "avr-objcopy -I binary -O elf32-avr foo.bin foo.o"]})),
    q("u05", "text", "TWI master reading from a slave: status byte when the address with the read bit goes out and nobody acknowledges",
      (AL, 237, {"snippets": ["#define TW_MR_SLA_NACK 0x48", "SLA+R transmitted, NACK received"]})),
    q("u06", "text", "Bus Pirate in ascii mode is slow with avrdude: how long does it wait for the prompt by default and which extended option shortens it",
      (AD, 28, {"snippets": ["serial_recv_timeout=1", "This sets the serial receive timeout to the given value",
                            "The default value is 100ms."]})),
    q("u07", "text", "hooking a bit-bang serial/parallel programmer to an ATtiny10 over TPI: what goes between the programmer's data-out pin and TPIDATA",
      (AD, 59, {"snippet": "However, a 1K resistor should be placed between the SDO and TPIDATA."})),
    q("u08", "text", "oldest JTAG ICE mkII firmware that avrdude works with for debugWIRE and ISP programming",
      (AD, 6, {"snippet": "firmware revision of at least 4.14 (decimal)"})),
    q("u09", "text", "expEYES Junior SEN input has a built-in pull-up: to which voltage and through what resistor",
      (EY, 16, {"snippet": "Remember that SEN is internally connected to 5 volts through a 5.1k resistor."})),
    q("u10", "text", "which 74-series part number is used for the OR gate in the expEYES logic gate experiment",
      (EY, 44, {"snippet": "Repeat using the OR gate, 7432"})),
    q("u11", "text", "Python with expEYES: fit a sine wave captured on A1 to read off its amplitude and frequency",
      (EY, 65, {"snippets": ["import expeyes.eyemath as em", "par = em.fit sine(t,v)"]})),
    # ---------------------------------------------------------------- tables
    q("u12", "table", "avr-libc macro to power down the ADC so it stops drawing current",
      (AL, 213, {"table_at": "power_adc_disable()"})),
    q("u13", "table", "compiling with -mmcu=atmega168: which avr-gcc architecture is that and which device macro gets defined",
      (AL, 90, {"table_at": "__AVR_ATmega168__"})),
    q("u14", "table", "part id to pass to avrdude -p for an ATmega88PB",
      (AD, 12, {"between": ["m6490p", "t24a"]})),
    q("u15", "table", "on FreeBSD which serial device does avrdude use when I give no port",
      (AD, 53, {"between": ["System Default Parallel Port", "/dev/term/a"]})),
    q("u16", "table", "resistance of tap water measured with a sine (AC) source versus a DC source in the expEYES water conductivity experiment",
      (EY, 23, {"table_at": "3.25"})),
    # ---------------------------------------------------------------- not covered by the manuals
    # avr-libc has <util/crc16.h> (CRC-16, CRC-CCITT, XMODEM, CRC-8, iButton) only:
    # "crc.?32", "32.bit CRC" and "CRC.32" find nothing in the three manuals.
    q("un01", "none", "avr-libc function to compute a CRC-32 checksum over a buffer"),
    # "at90can128" and the CAN AVR device list occur; "CAN bus", "CAN controller", "CAN frame",
    # "CAN message", "mcp2515" find nothing: no CAN driver API.
    q("un02", "none", "send a CAN bus frame with avr-libc on an AT90CAN128"),
    # "RTOS", "scheduler", "preempt" find nothing; "multi-tasking"/"thread" occur only in the FAQ
    # on reentrancy and the errno note (no task API).
    q("un03", "none", "create tasks with a preemptive RTOS scheduler in avr-libc"),
    # "at90usb1286" and "USB AVR Devices" occur; "CDC", "USB stack", "virtual COM" find nothing.
    q("un04", "none", "USB CDC virtual COM port driver functions in avr-libc for the at90usb1286"),
    # "SWD", "STM32", "cortex" find nothing; avrdude mentions the Atmel-ICE (ARM/AVR) only for
    # its AVR modes (JTAG, PDI, debugWIRE, ISP, UPDI).
    q("un05", "none", "flash an STM32 through SWD with avrdude and an Atmel-ICE"),
    # "AES", "encrypt", "secure boot" find nothing ("signature" occurs only as the device
    # signature bytes).
    q("un06", "none", "AES-encrypt the firmware image before uploading it with avrdude"),
    # "ESP32|ESP8266", "espressif", "xtensa" find nothing.
    q("un07", "none", "program an ESP32 or ESP8266 board with avrdude"),
    # "wi-?fi", "bluetooth" find nothing; "wireless" occurs only in the avr-libc device list and
    # avrdude's XBee (ZigBee) bootloader programmer, not for expEYES.
    q("un08", "none", "connect the expEYES Junior to a laptop over WiFi or Bluetooth instead of USB"),
    # "thermocouple" finds nothing; expEYES measures temperature with a thermistor (page 22).
    q("un09", "none", "read a K-type thermocouple with the expEYES Junior: which amplifier and gain to use"),
    # "bandwidth", "3 ?dB", "cut.?off freq" find nothing; the manual gives the sampling rate
    # (page 6) and a piezo's frequency response, not the analog bandwidth of the inputs.
    q("un10", "none", "analog bandwidth (-3 dB) of the expEYES Junior oscilloscope inputs A1 and A2"),
]

# Patterns (case-insensitive regular expressions) that must find nothing in any of the three
# manuals, per none question.
ABSENT = {
    "un01": [r"crc.?32", r"32.bit CRC"],
    "un02": [r"CAN bus", r"CAN controller", r"CAN frame", r"CAN message", r"mcp2515"],
    "un03": [r"RTOS", r"scheduler", r"preempt"],
    "un04": [r"\bCDC\b", r"USB stack", r"virtual COM"],
    "un05": [r"\bSWD\b", r"STM32", r"cortex"],
    "un06": [r"\bAES\b", r"encrypt", r"secure boot"],
    "un07": [r"ESP32|ESP8266", r"espressif", r"xtensa"],
    "un08": [r"wi-?fi", r"bluetooth"],
    "un09": [r"thermocouple"],
    "un10": [r"bandwidth", r"3 ?dB", r"cut.?off freq"],
}


# ---------------------------------------------------------------- the selection rule, re-derivable

BENCH = Path(__file__).resolve().parent
MANUALS = BENCH / "data" / "unseen"


def pool(doc: str, kind: str) -> list[int]:
    """Return the candidate pages of ``doc`` for ``kind`` (body pages only)."""
    lo, hi = CONTENT[doc]
    pages = {"text": range(lo, hi + 1), "table": TABLE_POOL[doc]}[kind]
    return sorted(p for p in pages if lo <= p <= hi and p not in NON_BODY[doc])


def sampled_order(doc: str, kind: str) -> list[int]:
    """Return the pool of ``doc``/``kind`` shuffled with the fixed seed: the order pages are read in."""
    return seeded_order(pool(doc, kind), SEED, doc, kind)


def table_pool(doc: str) -> list[int]:
    """Recompute TABLE_POOL[doc] with PyMuPDF (slow)."""
    lo, hi = CONTENT[doc]
    return table_pages(MANUALS / doc, lo, hi, only_with_drawings=False)


def main() -> int:
    import pymupdf

    if "--tables" in sys.argv:
        report_tables(CONTENT, TABLE_POOL, table_pool)
    report_walk(QUESTIONS, QUOTA, sampled_order, SKIPPED, width=26)
    pages_used = [(g["doc"], g["page"]) for qq in QUESTIONS for g in qq["gold"]]
    if len(pages_used) != len(set(pages_used)):
        print("a page is used by more than one question")
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
