"""Defaults given next to what they are the default of, and the pieces of a listing's comments (session 55: Erlang's
SSH manual and Prawn's manual, asked for the first time). Erlang's sftpd options read "max_handles" / "The default
value is 1000. Positive integer value represents the maximum number of file handles ...": the answer to "How many
open file handles ... by default?" quoted the description without the value. ssh:start/1's "Default type is
temporary." follows the sentence that says what the function starts, and was left out. Prawn's manual shows each
example's source, its prose as comments over several lines: "# (default) or landscape." was quoted first. Real
MiniLM embedder."""

from __future__ import annotations

from mmrag_desktop.engine.answer.confidence import decisive_unknown
from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import _GIVES_DEFAULT, candidate_sentences, rank_candidates
from mmrag_desktop.engine.hits import Hit

SFTPD = ("Options:\ncwd\nSets the initial current working directory for the server.\nmax_files\nThe default value is 0, "
         "which means that there is no upper limit. If supplied, the number of filenames returned to\nthe SFTP client per "
         "READDIR request is limited to at most the given value.\nmax_handles\nThe default value is 1000. Positive integer "
         "value represents the maximum number of file handles allowed for\na connection.\nmax_path\nThe default value is "
         "4096. Positive integer value represents the maximum path length which cannot be exceeded\nin data provided by "
         "the SFTP client.")
START = ("start(Type) -> ok | {error, term()}\nTypes:\nType = permanent | transient | temporary\nUtility function that "
         "starts the applications crypto, public_key, and ssh. Default type is temporary. For more\ninformation, see the "
         "application(3) manual page in Kernel.\nstop() -> ok | {error, term()}\nStops the ssh application.")
LISTING = ("You may also define the orientation of the page to be either portrait (default) or landscape.\n"
           "# frozen_string_literal: true\n# You may also define the orientation of the page to be either portrait\n"
           "# (default) or landscape. Use :page_layout when creating new\n"
           "# documents and :layout when starting new pages.\nrequire_relative '../example_helper'")


def block(text: str, chunk_id: int, doc: str = "ssh-4.15.2.pdf") -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc=doc, page=97, bbox=(72.0, 100.0, 500.0, 300.0), kind="text",
               score=0.03, text=text, section="ssh_sftpd")


def ranked(question: str, text: str, embedder, chunk_id: int = 41) -> list[str]:
    return [c.text for c in rank_candidates(question, pack_evidence([block(text, chunk_id)], 1000), embedder)]


def test_a_description_after_its_options_default_is_quoted_with_the_option_and_the_default(embedder):
    cands = candidate_sentences(pack_evidence([block(SFTPD, 41)], 1000))
    handles = next(c for c in cands if c.text.startswith("Positive integer value represents the maximum number"))
    assert handles.label == "max_handles The default value is 1000.", handles.label
    top = ranked("How many open file handles per connection does the Erlang SFTP server allow by default?", SFTPD,
                 embedder)[0]
    assert top.startswith("max_handles The default value is 1000.") and "file handles" in top, top


def test_the_default_in_the_sentence_after_is_quoted_with_it(embedder):
    q = "Which OTP applications does ssh:start() start, and what application type does it use if I don't give one?"
    top = ranked(q, START, embedder, chunk_id=42)[0]
    assert "crypto, public_key, and ssh." in top and top.endswith("Default type is temporary."), top


def test_what_gives_a_default():
    assert _GIVES_DEFAULT.search("Default type is temporary.")
    assert _GIVES_DEFAULT.search("The default page size for new documents is LETTER (612.00 x 792.00).")
    assert _GIVES_DEFAULT.search("The default value is 1000.")
    # a default's use, not its value; a thing done by default is no default given
    assert not _GIVES_DEFAULT.search("Changing the set of default packages is normally used to reduce the set.")
    assert not _GIVES_DEFAULT.search("If no font is given, the default font is used.")
    assert not _GIVES_DEFAULT.search("In addition, the compiler uses (by default) generic pointers.")


def test_the_pieces_of_a_comments_sentence_are_not_quoted():
    texts = [c.text for c in candidate_sentences(pack_evidence([block(LISTING, 43, "prawn-manual.pdf")], 1000))]
    assert texts[0].startswith("You may also define the orientation"), texts
    assert not any(t.startswith(("# (default)", "# documents")) for t in texts), texts


def test_a_tool_the_library_never_names_is_decisive():
    q = "Can I copy files to a remote host with scp using Erlang's ssh application?"
    assert decisive_unknown(q, ["scp"]) == ["scp"]
    # not a word a dictionary has, nor a word that qualifies the object, nor an abstract noun
    assert decisive_unknown("How do I fill a region with stripes?", ["stripes"]) == []
    assert decisive_unknown("Can GLPK solve a QP with a quadratic objective?", ["quadratic"]) == []
    assert decisive_unknown("I use variant directories with duplication and files vanish.", ["duplication"]) == []


ALIGNMENT_OUTPUT = ("This text is flowing from the left. This text is flowing from the left.\nThis text is flowing from the "
                    "center. This text is flowing from the center.\nThis text is flowing from the right. This text is "
                    "flowing from the right.\nThis text is justified. This text is justified. This text is justified.\n"
                    "This text should be vertically centered")
ALIGNMENT_PROSE = ("Vertical text alignment can be achieved using the :valign option with the text methods. Available\n"
                   "options are :top (default), :center, and :bottom.\nBoth forms of alignment will be evaluated in the "
                   "context of the current bounding_box.")


def test_an_examples_printed_output_answers_nothing(embedder):
    """Prawn's "How do I vertically center or bottom-align text?" opened with its example's output, "This text should be
    vertically centered": filler said again and again is no manual's sentence."""
    from mmrag_desktop.engine.answer.extractive import _demo_output

    output = pack_evidence([block(ALIGNMENT_OUTPUT, 44, "prawn-manual.pdf")], 1000)
    assert _demo_output(candidate_sentences(output)) == {output[0].id}
    assert _demo_output(candidate_sentences(pack_evidence([block(ALIGNMENT_PROSE, 45, "prawn-manual.pdf")], 1000))) == set()
    both = pack_evidence([block(ALIGNMENT_OUTPUT, 44, "prawn-manual.pdf"), block(ALIGNMENT_PROSE, 45, "prawn-manual.pdf")],
                         1000)
    top = rank_candidates("How do I vertically center or bottom-align text in Prawn?", both, embedder)[0]
    assert "valign" in top.text or ":bottom" in top.text, top.text


def test_a_listing_is_no_page_mate_when_the_pages_prose_is_at_hand():
    from mmrag_desktop.engine.search.searcher import _reads_as_prose

    assert _reads_as_prose({"text": ALIGNMENT_PROSE})
    assert not _reads_as_prose({"text": "text 'This text is flowing from the right. ' * 4, align: :right\nmove_down 15\n"
                                        "text 'This text is justified. ' * 6, align: :justify\n"
                                        "transparent(0.5) { stroke_bounds }\nend"})


SHELL = ("8> ssh_connection:send(ConnectionRef, ChannelId, <<\"1.\">>).\nok\n7> flush().\nok\n"
         "%% Nothing is received, because the io:read/1\n%% requires the input line to end with a newline.\n"
         "%% Send a newline (it could have been included in the last send):\n"
         "8> ssh_connection:send(ConnectionRef, ChannelId, <<\"\\n\">>).\nok")
MODULE = ("ssh_connection\nErlang module\nThe SSH Connection Protocol is used by clients and servers, that is, SSH channels, to "
          "communicate over the SSH connection. The API functions in this module send SSH Connection Protocol events.")


def test_a_module_named_with_its_function_is_no_subject_of_the_question(embedder):
    """"I run io:read on an Erlang ssh daemon through an exec channel and send my answer with ssh_connection:send, but
    nothing comes back. What am I missing?" opened with the ssh_connection module's introduction, taken for the
    definition of what the question names."""
    blocks = [block(SHELL, 46), Hit(chunk_id=47, doc_id=1, doc="ssh-4.15.2.pdf", page=67, bbox=(72.0, 100.0, 500.0, 300.0),
                                     kind="text", score=0.02, text=MODULE, section="ssh_connection")]
    q = ("I run io:read on an Erlang ssh daemon through an exec channel and send my answer with ssh_connection:send, but "
         "nothing comes back. What am I missing?")
    top = rank_candidates(q, pack_evidence(blocks, 1000), embedder)[0]
    assert not top.text.startswith("The SSH Connection Protocol"), top.text


def test_which_requests_asks_for_names():
    """The ICCCM's "Which requests from my client can a window manager intercept and redirect ...?" is answered by
    "The requests that may be redirected are MapWindow, ConfigureWindow, and CirculateWindow." (seventh of the page's
    sentences, below the ones about redirection in general, before requests were names asked for). Not "method": "which
    integration method does transient analysis use" is answered by a word ("trapezoidal"), not a name."""
    from mmrag_desktop.engine.answer.extractive import _asked_kind, _carries

    q = "Which requests from my client can a window manager intercept and redirect instead of executing them?"
    assert _asked_kind(q) == "name"
    assert _asked_kind("Which field of the gsicc_manager_t structure holds the gray profile?") == "name"
    assert _asked_kind("which integration method does transient analysis use unless I change it") == ""
    assert _carries("The requests that may be redirected are MapWindow, ConfigureWindow, and CirculateWindow.", "name")
