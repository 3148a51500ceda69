"""Fields of a reference list's entries (session 58, the FireHOL Reference asked for the first time). Its 129 services
are entries under numbered lines deeper than the outline ("6.27.3.127 service: whois"), each with fields whose values
are bullets on the lines below: "Server Ports:" / "• tcp/43". "Which port does FireHOL's whois service definition
open?" quoted "WHOIS Protocol Example: server whois accept ..." and never the port: a field's name is too short to be a
sentence, and its value shorter still. Now a field is quoted with its values, a question that names an entry's name
(and kind) prefers that entry's fields, another entry's fields give way, and "which port" asks for a number. Real
library (SQLite, hnswlib, PyMuPDF) and the real MiniLM embedder."""

from __future__ import annotations

import pymupdf
import pytest
from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.evidence import pack_evidence, unwrap_lines
from mmrag_desktop.engine.answer.extractive import (
    _heading_named,
    candidate_sentences,
    quote_text,
    select_sentences,
)
from mmrag_desktop.engine.hits import Hit


def service(number: int, name: str, title: str, kind: str, ports: str) -> list[str]:
    return [f"6.27.3.{number} service: {name}", f"{title} Example:", f"server {name} accept", "Service Type:",
            f"• {kind}", "Server Ports:", f"• {ports}", "Client Ports:", "• default", "Links", "• Wikipedia"]


LINES = (["Each FireHOL service definition below opens the server ports listed for it to the clients allowed."]
         + service(125, "webmin", "Webmin web administration", "simple", "tcp/10000")
         + service(126, "whois", "WHOIS Protocol", "simple", "tcp/43")
         + service(127, "xdmcp", "X Display Manager Control Protocol", "simple", "udp/177")
         + service(128, "ntp", "Network Time Protocol", "simple", "udp/123 tcp/123"))


def test_a_field_is_quoted_with_its_values():
    hit = Hit(chunk_id=903, doc_id=1, doc="firehol-manual.pdf", page=158, bbox=None, kind="text", score=1.0,
              text="\n".join(LINES), section="6.27 firehol-services(5) > 6.27.3 DESCRIPTION")
    texts = [c.text for c in candidate_sentences(pack_evidence([hit], 2000))]
    assert "Server Ports: • tcp/43" in texts and "Server Ports: • udp/123 tcp/123" in texts, texts
    # its values only, not the next field's name and values
    assert not any(t.startswith("Server Ports: • tcp/43 ") for t in texts), texts
    # whole as it is: no " ..." as after a piece of a sentence
    assert quote_text("Server Ports: • udp/123 tcp/123", 1) == "Server Ports: • udp/123 tcp/123 [1]"


def _write_manual(path):
    """The entries on one page, in a font that has the bullet (the base-14 fonts write "•" as "·")."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("cjk")
    for i, line in enumerate(LINES):
        writer.append((57, 60 + 15 * i), line, font=font, fontsize=10)
    writer.write_text(page)
    doc.save(str(path))
    doc.close()
    return path


@pytest.mark.parametrize(("question", "port", "others"), [
    ("Which port does FireHOL's whois service definition open?", "tcp/43", ("tcp/10000", "udp/177", "udp/123")),
    ("Which ports does the ntp service in FireHOL allow?", "udp/123 tcp/123", ("tcp/10000", "tcp/43", "udp/177")),
])
def test_the_port_of_the_service_asked_for(library, tmp_path, question, port, others):
    pdf = _write_manual(tmp_path / "firehol-manual.pdf")
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, question)
    assert f"Server Ports: • {port} [" in answer.text, answer.text
    # no other service's port, which would read as the answer
    assert not any(o in answer.text for o in others), answer.text


def test_an_entry_line_stays_a_line_of_its_own():
    text = ("See also RFC 1928. [WIKI-socks]: http://en.wikipedia.org/wiki/SOCKS\n6.27.3.107 service: squid\n"
            "Squid Web Cache Example:\nserver squid accept")
    assert "6.27.3.107 service: squid" in unwrap_lines(text).split("\n")


@pytest.mark.parametrize(("question", "named"), [
    ("Which port does FireHOL's whois service definition open?", True),
    ("Which ports does the WHOIS service use?", True),
    # the name without the kind asks for no service's entry
    ("Can one client statement allow several services at once, say SMTP and whois?", False),
    ("Which port does the whoisd service use?", False),
])
def test_a_question_names_an_entry_by_its_name_and_kind(question, named):
    assert _heading_named(("service", "whois"), question) is named


def test_a_synopsis_framed_by_unmapped_glyphs_is_quoted_with_its_description():
    """dasm's manual frames each directive's synopsis with glyphs that have no Unicode map (U+FFFD lines): "Same as
    EQU, =, but the symbol may be reassigned later." was quoted without "symbol SET exp", which names the directive."""
    hit = Hit(chunk_id=161, doc_id=1, doc="dasm.pdf", page=44, bbox=None, kind="text", score=1.0,
              text="\ufffd\nsymbol SET exp\n\ufffd\nSame as EQU, =, but the symbol may be reassigned later.\nExample\n"
                   "\ufffd\n; Using SET to do calculations\nN SET 1",
              section="Directives > 6.2 Assigments > 6.2.3 SET")
    (block,) = pack_evidence([hit], 2000)
    texts = [c.text for c in candidate_sentences([block])]
    assert "Same as EQU, =, but the symbol may be reassigned later." in texts
    (quoted,) = [c for c in candidate_sentences([block]) if c.text.startswith("Same as EQU")]
    assert quoted.label == "symbol SET exp"


SEE_ALSO = ["\u2022 firehol(1) - FireHOL program", "\u2022 firehol.conf(5) - FireHOL configuration",
            "\u2022 firehol-masquerade(5) - masquerade helper", "\u2022 NAT HOWTO", "\u2022 netfilter flow diagram"]


def test_a_see_also_list_is_quoted_when_the_question_asks_for_documents(embedder):
    """The FireHOL Reference: "Which documents does the firehol-synproxy manual page refer to for background on NAT
    and on how packets flow through netfilter?" quoted what SYNPROXY is: a "SEE ALSO" list's items are titles, never
    sentences of their own. Asked for, the list is quoted whole; not asked for, it is not quoted."""
    see_also = Hit(chunk_id=945, doc_id=1, doc="firehol-manual.pdf", page=168, bbox=None, kind="text", score=1.0,
                   text="\n".join(SEE_ALSO), section="6.28 firehol-synproxy(5) > 6.28.12 SEE ALSO")
    prose = Hit(chunk_id=913, doc_id=1, doc="firehol-manual.pdf", page=162, bbox=None, kind="text", score=0.5,
                text="SYNPROXY is a TCP SYN packets proxy. SYNPROXY is a netfilter module, in the Linux kernel.\n"
                     "It can be used to protect any TCP server from SYN floods and similar DDoS attacks.",
                section="6.28 firehol-synproxy(5) > 6.28.3 DESCRIPTION")
    blocks = pack_evidence([see_also, prose], 2000)
    chosen = select_sentences("Which documents does the firehol-synproxy manual page refer to for background on NAT "
                              "and on how packets flow through netfilter?", blocks, embedder)
    assert chosen[0].text.startswith("\u2022 firehol(1) - FireHOL program \u2022 firehol.conf(5)"), chosen[0].text
    assert "\u2022 NAT HOWTO \u2022 netfilter flow diagram" in chosen[0].text
    other = select_sentences("What is SYNPROXY and what does it protect a server from?", blocks, embedder)
    assert not any("NAT HOWTO" in c.text for c in other), [c.text for c in other]


def test_a_framed_synopsis_description_of_two_words_is_quoted_with_its_term_and_next_sentence():
    """dasm's "ERR" directive: its description "Abort assembly." is two words, under the minimum a quote needs, and was
    dropped; "How do I make dasm abort the assembly on purpose ...?" quoted macro sentences of another page instead.
    The description of a framed synopsis is the entry's, quoted with its term and the sentence that says when to use it."""
    hit = Hit(chunk_id=211, doc_id=1, doc="dasm.pdf", page=60, bbox=None, kind="text", score=1.0,
              text="\ufffd\nERR\n\ufffd\nAbort assembly. Useful in conjunction with Conditionals to end an assembly\n"
                   "if required.\nExample\n\ufffd\nMAC CALL ; function name",
              section="Directives > 6.7 Miscellaneous > 6.7.4 ERR")
    (block,) = pack_evidence([hit], 2000)
    texts = [f"{c.label} {c.text}".strip() for c in candidate_sentences([block])]
    assert "ERR Abort assembly. Useful in conjunction with Conditionals to end an assembly if required." in texts
    # the same two words in prose, under no framed synopsis, are still too short to quote
    hit = Hit(chunk_id=212, doc_id=1, doc="dasm.pdf", page=61, bbox=None, kind="text", score=1.0,
              text="ERR\nAbort assembly.\nThe listing shows where the assembly stopped.", section="Directives > 6.7.4 ERR")
    (block,) = pack_evidence([hit], 2000)
    assert not any("Abort assembly." in c.text for c in candidate_sentences([block]))


def test_a_quote_read_through_a_frame_is_checked_as_verbatim(embedder):
    """The quote "ERR Abort assembly. Useful in conjunction ..." was shown marked "not found in the cited pages", and so
    was session 58's "symbol SET exp Same as EQU, ...": the cited block holds a line of unmapped glyphs between the
    synopsis and its description, so the quote was no run of the block's words."""
    from mmrag_desktop.engine.answer.support import SupportChecker

    hit = Hit(chunk_id=211, doc_id=1, doc="dasm.pdf", page=60, bbox=None, kind="text", score=1.0,
              text="\ufffd\nERR\n\ufffd\nAbort assembly. Useful in conjunction with Conditionals to end an assembly\n"
                   "if required.\nExample", section="Directives > 6.7 Miscellaneous > 6.7.4 ERR")
    blocks = pack_evidence([hit], 2000)
    checker = SupportChecker(blocks, embedder)
    quote = "ERR Abort assembly. Useful in conjunction with Conditionals to end an assembly if required. [1]"
    result = checker.check(quote, quote=True)
    assert result.supported and result.quote and result.support.score == 1.0
    # words the block does not hold in that order are still no verbatim quote
    other = checker.check("ERR Abort the assembly if required, in conjunction with macros. [1]", quote=True)
    assert other.support is None or other.support.score < 1.0


def test_a_list_quoted_across_a_page_number_is_checked_as_verbatim(embedder):
    """FireHOL's "See also" list, read across a page break, holds the page's number on a line of its own ("• NAT HOWTO" /
    "55" / "• netfilter flow diagram"); the list is quoted without it, and was marked "not found in the cited pages"."""
    from mmrag_desktop.engine.answer.support import SupportChecker

    hit = Hit(chunk_id=581, doc_id=1, doc="firehol-manual.pdf", page=55, bbox=None, kind="text", score=1.0,
              text="\n".join([*SEE_ALSO[:4], "55", SEE_ALSO[4], "56"]), section="6.18 firehol-synproxy(5) > SEE ALSO")
    checker = SupportChecker(pack_evidence([hit], 2000), embedder)
    quote = " ".join(SEE_ALSO) + " [1]"
    result = checker.check(quote, quote=True)
    assert result.supported and result.support.score == 1.0
    # a number the quote gives is still read where it stands
    assert checker.check("\u2022 NAT HOWTO 55 \u2022 netfilter flow diagram [1]", quote=True).support.score == 1.0


def test_an_entry_term_quoted_with_a_later_sentence_of_its_entry_is_verbatim(embedder):
    """gputils' "BANKSEL <label> It will use MOVLB or MOVLR in 16 bit devices." quotes the directive's term and the third
    sentence of its description, two runs of the block's words: it was marked "not found in the cited pages". A quote
    the answer places is read as two runs, the first a term of a few words; a model's sentence is not."""
    from mmrag_desktop.engine.answer.support import SupportChecker

    hit = Hit(chunk_id=2937, doc_id=1, doc="gputils.pdf", page=19, bbox=None, kind="text", score=1.0,
              text="BANKSEL <label>\nThis directive generates bank selecting code to set the bank to the bank containing "
                   "<label>. The bank\nselecting code will set/clear bits in the FSR for 12 bit devices. It will set/clear "
                   "bits in the STATUS register\nfor 14 bit devices. It will use MOVLB or MOVLR in 16 bit devices.",
              section="4.3 Directives > BANKSEL")
    checker = SupportChecker(pack_evidence([hit], 2000), embedder)
    quote = "BANKSEL <label> It will use MOVLB or MOVLR in 16 bit devices. [1]"
    assert checker.check(quote, quote=True).support.score == 1.0
    said = checker.check(quote)  # (a model's sentence: one run of words, or meaning)
    assert said.support is None or said.support.score < 1.0
    # two runs whose first is no term but a long piece of another sentence are no quote
    long_first = ("This directive generates bank selecting code to set the bank to the bank It will use MOVLB or MOVLR "
                  "in 16 bit devices. [1]")
    result = checker.check(long_first, quote=True)
    assert result.support is None or result.support.score < 1.0


SELF_TESTS = [
    "A.1 Power-Up Tests",
    "Power-up tests are only performed if Libgcrypt is in FIPS mode.",
    "If Libgcrypt is in FIPS mode, the self-tests will be performed within the \u201cSelf-Test\u201d state and any",
    "failure puts the library into the \u201cError\u201d state.",
    "A.1.1 Symmetric Cipher Algorithm Power-Up Tests",
    "The following symmetric encryption algorithm tests are run during power-up:",
    "3DES To test the 3DES 3-key EDE encryption in ECB mode these tests are run.",
    "AES-128 A known answer tests is run using one test vector and one test key with AES in ECB mode.",
    "AES-192 A known answer tests is run using one test vector and one test key with AES in ECB mode.",
    "AES-256 A known answer tests is run using one test vector and one test key with AES in ECB mode.",
]


def test_an_entry_whose_term_opens_its_line(library, tmp_path):
    """(Libgcrypt, session 60) "When Libgcrypt runs its power-up self-test for AES-256 in FIPS mode, what kind of test is
    it and which cipher mode does it use?" quoted three sentences on FIPS mode before "AES-256 A known answer tests is
    run ...": an entry whose term opens its line, the description after it, is the entry of the name asked about."""
    pdf = write_pdf(tmp_path / "gcrypt.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(SELF_TESTS)]], fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "When Libgcrypt runs its power-up self-test for AES-256 in FIPS mode, what kind "
                                        "of test is it and which cipher mode does it use?")
    assert answer.text.startswith("AES-256 A known answer tests is run"), answer.text


RANDOM_CONF = [
    "16 Configuration files and environment variables",
    "/etc/gcrypt/random.conf",
    "This file can be used to globally change parameters of the random generator.",
    "The file is a simple text file where empty lines and lines with the first non white-space",
    "character being '#' are ignored. Supported options are",
    "disable-jent",
    "Disable the use of the jitter based entropy generator.",
    "only-urandom",
    "Always use the non-blocking /dev/urandom or the respective system call instead of the",
    "blocking /dev/random. If Libgcrypt is used early in the boot process of the system, this",
    "option should only be used if the system also supports the getrandom system call.",
    "/etc/gcrypt/fips_enabled",
    "On Linux systems the presence of this file puts Libgcrypt into FIPS mode at initialization time.",
]


def test_a_term_the_question_names_on_a_line_of_its_own(library, tmp_path):
    """(Libgcrypt, session 60) "What does the only-urandom option in Libgcrypt's /etc/gcrypt/random.conf do ...?" quoted
    the entry's second sentence first and "Always use the non-blocking /dev/urandom ..." fifth: "only-urandom" alone on
    its line reads as no term (a hyphenated word may be prose's) unless the question names it."""
    pdf = write_pdf(tmp_path / "gcrypt.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(RANDOM_CONF)]], fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "What does the only-urandom option in Libgcrypt's /etc/gcrypt/random.conf do, "
                                        "and what caveat applies if the library is used early during system boot?")
    assert answer.text.startswith("only-urandom Always use the non-blocking /dev/urandom"), answer.text
