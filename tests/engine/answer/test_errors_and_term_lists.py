"""An error message the question quotes, what it probably means, and lists whose terms stand on lines of their own
(session 56: the MIT Kerberos Administration Guide, asked for the first time). Its troubleshooting list reads "3) sclient
returns the error:" / "connect: Connection refused" / "This probably means you didn't edit /etc/inetd.conf correctly,
...": the answer to '... gets "Connection refused" ...; what is the probable cause?' opened with another paragraph of
the page and quoted the error without its cause. Sphinx sets a definition list as a term in lower case on a line of
its own with its description below ("dict" / "Checks against the realm dictionary file" / "empty" / ...): the lines
were read as one run-on sentence, and "Which built-in password quality modules ...?" got the lead-in without the
modules. Real MiniLM embedder."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence, unwrap_lines
from mmrag_desktop.engine.answer.extractive import (
    _SAYS_MEANING,
    QUOTED_BONUS,
    quoted_phrases,
    rank_candidates,
)
from mmrag_desktop.engine.hits import Hit
from mmrag_desktop.engine.sentence_split import list_terms, split_sentences

SCLIENT = ("When you run sclient you should see something like this:\nsendauth succeeded, reply is:\nreply len 32, "
           "contents: you are nlgvan@ATHENA.MIT.EDU\nAlso, if you are running the sclient program on a different host "
           "than the sserver it will be connecting to, be\nsure that both hosts have an entry in /etc/services for the "
           "sample tcp port, and that the same port number is in\nboth files.\n3) sclient returns the error:\nconnect: "
           "Connection refused\nThis probably means you didn't edit /etc/inetd.conf correctly, or you didn't restart "
           "inetd after editing\ninetd.conf.\n4) sclient returns the error:\nsclient: Server not found in Kerberos "
           "database while using sendauth\nThis means that the sample/hostname@LOCAL.REALM service was not defined in "
           "the Kerberos database.")
PWQUAL = ("The pwqual subsection controls modules for the password quality interface, which is used to reject weak "
          "passwords\nwhen passwords are changed. The following built-in modules exist for this interface:\ndict\n"
          "Checks against the realm dictionary file\nempty\nRejects empty passwords\nhesiod\nChecks against user "
          "information stored in Hesiod (only if Kerberos was built with Hesiod support)\nprinc\nChecks against "
          "components of the principal name")


def block(text: str, chunk_id: int, page: int = 158) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc="krb5-admin.pdf", page=page, bbox=(72.0, 100.0, 500.0, 300.0),
               kind="text", score=0.03, text=text, section="Troubleshooting")


def ranked(question: str, text: str, embedder, chunk_id: int = 51, page: int = 158) -> list[str]:
    return [c.text for c in rank_candidates(question, pack_evidence([block(text, chunk_id, page)], 1000), embedder)]


def test_the_quoted_error_comes_first_with_what_it_probably_means(embedder):
    q = 'The sclient test program gets "Connection refused" when contacting sserver; what is the probable cause?'
    top = ranked(q, SCLIENT, embedder)[0]
    assert "Connection refused" in top and "This probably means you didn't edit /etc/inetd.conf correctly" in top, top


def test_phrases_a_question_quotes():
    assert quoted_phrases('The sclient test program gets "Connection refused" when contacting sserver; why?') == [
        "connection refused"]
    assert quoted_phrases("bash fails with \u201c$'\\r': command not found\u201d; how do I fix it?") == [
        "$'\\r': command not found"]
    # one word in quotes is a name, found as a name already; no quotes, no phrase
    assert quoted_phrases('What does the "-n" option of update_princ_encryption do?') == []
    assert quoted_phrases("Which ports does the KDC listen on?") == []


def test_what_a_sentence_says_the_one_before_means():
    says = {"This probably means you didn't edit /etc/inetd.conf correctly.": True,
            "This error usually means that the keytab is stale.": True,
            "That means that you should disable the DRBD init script.": True,
            "This option means nothing to the KDC.": False,  # (an option named: its own description)
            "This probably works on other systems too.": False}
    assert {text: bool(_SAYS_MEANING.match(text)) for text in says} == says


def test_terms_on_lines_of_their_own_are_a_list(embedder):
    sentences = split_sentences(PWQUAL, newlines=True)
    assert sentences[1:5] == ["The following built-in modules exist for this interface:", "dict",
                              "Checks against the realm dictionary file", "empty"], sentences
    assert unwrap_lines(PWQUAL).split("\n")[2:5] == ["Checks against the realm dictionary file", "empty",
                                                     "Rejects empty passwords"]
    q = "Which built-in password quality modules can MIT Kerberos use to refuse weak passwords on a password change?"
    top = ranked(q, PWQUAL, embedder, page=25)[0]
    assert top.startswith("The pwqual subsection controls modules") and "empty Rejects empty passwords" in top, top
    assert "princ Checks against components of the principal name" in top, top


def test_a_word_alone_on_a_line_is_no_term_elsewhere():
    # a wrapped line's last word, a listing's output ("ok"), a name after a full stop: no list's term
    assert list_terms(["The value is set by the", "kernel", "The next release changes it."]) == set()
    assert list_terms(["2> mnesia:start().", "ok", "In this example, the following actions are performed:"]) == set()
    assert list_terms(["The following relations:", "allow_des3", "Permit the KDC to issue des3 tickets.",
                       "allow_rc4", "Permit the KDC to issue rc4 tickets."]) == {1, 3}
    # a command typed below a lead-in, its prompt below it: one term is no list (Bacula's "update" / "Update choice:")
    assert list_terms(["... to append to the tape, you do the following:", "update", "Update choice:",
                       "1: Volume parameters"]) == set()
    assert list_terms(["... you do the following:", "update", "Then check the volume.", "1: Volume"]) == set()


GUILE = ("Therefore, all operators in Scheme are prefix operators.\nIf the first element of a Scheme expression that is a "
         "list passed to the interpreter is not an\noperator or procedure, an error will occur:\nguile> (1 2 3)\n"
         "Backtrace:\nIn current input:\n52: 0* [1 2 3]\n<unnamed port>:52:1: In expression (1 2 3):\n<unnamed port>:52:1: "
         "Wrong type to apply: 1\nABORT: (misc-error)\nguile>")
GUILE_ON = ("ABORT: (misc-error)\nguile>\nHere you can see that the interpreter was trying to treat 1 as an operator or "
            "procedure, and\nit couldn't. Hence the error is \"Wrong type to apply: 1\".\nTherefore, to create a list we "
            "need to use the list operator, or to quote the list so that the\ninterpreter will not try to evaluate it.\n"
            "guile> (list 1 2 3)\n(1 2 3)\nguile> '(1 2 3)\n(1 2 3)\nguile>")


def test_a_transcript_that_prints_the_quoted_error_gains_nothing(embedder):
    # (the Guile tutorial of LilyPond's Extending manual, its two chunks: the transcript, then what it means)
    q = 'What does the Guile error "Wrong type to apply: 1" mean when I type (1 2 3), and how do I write the list instead?'
    blocks = pack_evidence([block(GUILE_ON, 53, page=8), block(GUILE, 52, page=7)], 1000)
    quoted = {c.text: c.score for c in rank_candidates(q, blocks, embedder)}
    plain = {c.text: c.score for c in rank_candidates(q.replace('"', ""), blocks, embedder)}
    said = 'Hence the error is "Wrong type to apply: 1".'
    printed = next(t for t in quoted if t.startswith("<unnamed port>:52:1: In expression") and "Wrong type" in t)
    # (the quotes taken out change the question's vector a little too)
    assert quoted[said] - plain[said] > QUOTED_BONUS - 0.1, (quoted[said], plain[said])
    assert abs(quoted[printed] - plain[printed]) < 0.1, (quoted[printed], plain[printed])
