"""Seen on the Ecasound user's guide and the MPICH installer's guide (asked in session 45, no set's): a
sentence held by two neighbouring chunks was quoted twice, once alone and once inside the longer quote of
the chunk before ("Here we use “-f:bits,channels,srate” ... using JACK." after "To record a file, you'd
issue: ecasound ... Here we use ..."); a lead-in to a transcript set between "--cut--" lines was quoted
with the fence alone, not with the command; "They are also available in HTML-format." was quoted without
the sentence that says what they are. Real MiniLM embedder (conftest's)."""

from __future__ import annotations

from mmrag_desktop.engine.answer.confidence import unknown_words
from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import candidate_sentences, rank_candidates, select_sentences
from mmrag_desktop.engine.hits import Hit


def chunk(chunk_id: int, text: str, page: int, doc_id: int = 1) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=doc_id, doc="ecasound_users_guide.pdf", page=page,
               bbox=(72.0, 100.0, 500.0, 300.0), kind="text", score=0.03, text=text, section="7.7 JACK")


RECORD = ("To record a file, you’d issue:\n"
          "ecasound -f:,2 -i jack,system -o foo.wav\necasound -f:f32,2,44100 -i jack,system -o foo.wav\n"
          "Here we use “-f:bits,channels,srate” to set how many channels to record from\nthe sound device using JACK.")
# (the chunk ends at "record from": the answer completes a sentence cut at a chunk's end from the next chunk)
FORMAT = ("Here we use “-f:bits,channels,srate” to set how many channels to record from\n"
          "the sound device using JACK.\nThe man page lists every audio object.")
HERE = "Here we use “-f:bits,channels,srate” to set how many channels to record from the sound device using JACK."
QUESTION = "When recording from JACK with ecasound, how do I set how many channels to record?"


def test_a_sentence_two_neighbouring_chunks_hold_is_quoted_once(embedder):
    def chosen(blocks):
        cands = rank_candidates(QUESTION, blocks, embedder)
        here = next(c for c in cands if c.text == HERE)
        record = next(c for c in cands if c.text.startswith("To record a file"))
        return [c.text for c in select_sentences(QUESTION, blocks, embedder, ranked=[here, record])]

    quoted = chosen(pack_evidence([chunk(103, FORMAT, 23), chunk(102, RECORD, 23)], 1000))
    # the longer quote, with the commands, takes the place of the sentence chosen first
    assert len(quoted) == 1 and quoted[0].startswith("To record a file") and quoted[0].endswith(HERE), quoted
    # chunks that are not neighbours say it twice on purpose (a manual repeating itself on another page)
    assert " ".join(chosen(pack_evidence([chunk(103, FORMAT, 23), chunk(140, RECORD, 31)], 1000))).count(HERE) == 2


GATE = ("7.4.1 Example of use\nThe following sequence cuts the section from “guitar.wav”\ninto “gate-test.wav”:\n"
        "--cut--\n|\\$ ls -la guitar.wav\n-rw-rw-r-- 1 kaiv kaiv 15790124 Sep 30 23:27 guitar.wav\n"
        "|\\$ ecasound -i guitar.wav -o gate-test.wav -gc:60,1\n--cut--\nThe threshold gate is used similarly:")
PRESET = ("Once you’ve added a line defining “bassbooster”, you can use it like:\n--cut--\n"
          "ecasound -a:1 -i:some.mp3 -pn:bassbooster\n-a:2 -i:another.mp3 -pn:bassbooster\n-a:1,2 -o:alsa\n--cut--\n"
          "The following two commands will result in identical output:")


def test_a_lead_in_is_quoted_with_the_block_its_fences_hold():
    (lead,) = [c for c in candidate_sentences(pack_evidence([chunk(91, GATE, 21)], 1000)) if c.introduces]
    assert lead.text.startswith("The following sequence cuts the section")
    assert "-gc:60,1" in lead.text and "--cut--" not in lead.text
    (use,) = [c for c in candidate_sentences(pack_evidence([chunk(80, PRESET, 19)], 1000)) if c.introduces]
    assert use.text == ("Once you’ve added a line defining “bassbooster”, you can use it like: ecasound -a:1 "
                        "-i:some.mp3 -pn:bassbooster -a:2 -i:another.mp3 -pn:bassbooster -a:1,2 -o:alsa")


def test_what_a_thing_is_meant_for_asks_no_word_of_the_manual():
    """"What kinds of jobs is Ecasound meant for ...?" was not covered: the guide never writes "meant"."""
    words = {"ecasound": 40, "kinds": 3, "preset": 12}

    def term_df(terms):
        return {t: words.get(t, 0) for t in terms}

    assert unknown_words("What kinds of jobs is Ecasound meant for?", term_df) == ["jobs"]
    assert unknown_words("What is the bassbooster preset intended for?", term_df) == ["bassbooster"]


def test_a_short_sentence_about_the_one_before_is_quoted_with_it():
    """"They are also available in HTML-format." was quoted alone for "Is there Ecasound documentation that is
    kept more up to date than this guide, and can I read it as HTML?"; what "they" are was not said."""
    text = ("To avoid duplicating documentation, I’ve used references to other sources whenever suitable.\n"
            "For instance, Ecasound’s man pages are a very good (and up-to-date!) source of information.\n"
            "They are also available in HTML-format. If not otherwise specified, all documentation refers to the\n"
            "latest Ecasound version. It is a long sentence that names its own subject and needs no other one.")
    texts = [c.text for c in candidate_sentences(pack_evidence([chunk(16, text, 4)], 1000))]
    assert ("For instance, Ecasound’s man pages are a very good (and up-to-date!) source of information. "
            "They are also available in HTML-format.") in texts
    assert "They are also available in HTML-format." not in texts
    assert "It is a long sentence that names its own subject and needs no other one." in texts  # long: alone
    # and "This option is disabled by default." (Bash's pipefail) says whose default it is with its entry
    entry = ("pipefail\nIf set, the return value of a pipeline is the value of the last (rightmost) command to exit\n"
             "with a non-zero status, or zero if all commands in the pipeline exit successfully. This option is\n"
             "disabled by default.")
    texts = [c.text for c in candidate_sentences(pack_evidence([chunk(470, entry, 75)], 1000))]
    assert any(t.endswith("exit successfully. This option is disabled by default.") for t in texts), texts
    # and code_saturne's "This is the default." after the setting it is the default of
    ids = ("Above 150 million hexahedral cells or so, it is thus imperative to configure the build to use 64-bit\n"
           "global element ids. This is the default. Local indexes use the default int size.")
    texts = [c.text for c in candidate_sentences(pack_evidence([chunk(1140, ids, 15)], 1000))]
    assert any(t.endswith("64-bit global element ids. This is the default.") for t in texts), texts


def test_what_must_be_done_with_the_thing_before_is_quoted_with_it():
    """The nauty guide (session 66): "... how do I hand the generators from the first call to the second ...?" quoted
    "We have declared a variable "generators" that will be used to hold the group generators between the two calls."
    without the sentence after it that says how, "It has to be initialised to NULL and its address has to be given to
    Traces using options.generators.": what "it" is, the sentence before says, however long the pair."""
    text = ("We have declared a variable \"generators\" that will be used to hold the group generators between the two\n"
            "calls. It has to be initialised to NULL and its address has to be given to Traces using\n"
            "options.generators. The first call to Traces computes the automorphism group. It has a long sentence of\n"
            "its own that says what it does and needs no other one.")
    texts = [c.text for c in candidate_sentences(pack_evidence([chunk(40, text, 75)], 1000))]
    assert any(t.endswith("between the two calls. It has to be initialised to NULL and its address has to be given to "
                          "Traces using options.generators.") for t in texts), texts
    assert any(t.startswith("It has a long sentence") for t in texts), texts  # no "must be": alone


def test_two_quotes_of_one_passage_that_share_a_sentence_are_not_both_quoted():
    """Unseen u09 (expEYES Junior): with the sentence after "SEN is connected to 5 volts through a 5.1kΩresistor."
    quoted with it ("It also has a built-in analog comparator."), the sentence was quoted twice, in that pair and
    after the sensor input's label."""
    from mmrag_desktop.engine.answer.extractive import Candidate, _choose

    sen = "SEN is connected to 5 volts through a 5.1k resistor."
    label = Candidate(1, 1, f"Resistive Sensor Input (SEN): This is mainly meant for light sensors. {sen}",
                      chunk=(1, 10, 3))
    pair = Candidate(1, 2, f"{sen} It also has a built-in analog comparator.", chunk=(1, 10, 3))
    assert _choose([label, pair], 4, 200) == [label]
    # the same words on another page are that page's (a manual repeating itself)
    far = Candidate(2, 0, pair.text, chunk=(1, 40, 12))
    assert _choose([label, far], 4, 200) == [label, far]


def test_a_tex_macro_on_its_own_line_names_the_entry_below_it():
    """The pgfplots manual (asked in session 45): "\\axisdefaultwidth" / "This macro defines the default width.
    It is preset to 240pt." was quoted without the macro's name, and so was "\\plotnum"'s entry."""
    from mmrag_desktop.engine.answer.extractive import is_term_line

    assert is_term_line("\\axisdefaultwidth") and is_term_line("\\sankeyturn*")
    assert not is_term_line("\\def\\axisdefaultwidth{10cm}")  # a line of code, no entry's name
    text = ("You can change it using\n\\def\\axisdefaultwidth{10cm}\n\\axisdefaultheight\n"
            "This macro defines the default height. It is preset to 207pt.\nSee \\axisdefaultwidth.")
    texts = [c.text for c in candidate_sentences(pack_evidence([chunk(1620, text, 296)], 1000))]
    assert "\\axisdefaultheight This macro defines the default height. It is preset to 207pt." in texts, texts


def test_a_need_is_quoted_with_the_sentence_that_says_how_it_is_met(embedder):
    """pgfplots: "Occasionally, one wants to place a node using pos and one wants to typeset the coordinates of
    that point inside of the node." was quoted without "This can be accomplished using \\pgfplotspointplotattime:"."""
    text = ("The computation of coordinates for the pos feature is computationally expensive.\n"
            "Occasionally, one wants to place a node using pos and one wants to typeset the coordinates of that\n"
            "point inside of the node. This can be accomplished using \\pgfplotspointplotattime:\n"
            "After it returns, the macros contain the coordinates of the resulting point.")
    question = "How can I show the actual x and y coordinates of a point placed at some fraction along a plot inside a node?"
    ranked = rank_candidates(question, pack_evidence([chunk(1990, text, 363)], 1000), embedder)
    need = next(c for c in ranked if c.text.startswith("Occasionally"))
    assert need.text.endswith("This can be accomplished using \\pgfplotspointplotattime:"), need.text


def test_a_command_named_with_its_key_binding_is_the_entry_the_question_names(embedder):
    """The Bash reference manual's Readline commands ("unix-word-rubout (C-w)" / "Kill the word behind point,
    ..."): the entry's name was no term line, and "What is the difference between Ctrl-W and
    unix-filename-rubout ...?" quoted other commands' descriptions."""
    from mmrag_desktop.engine.answer.extractive import is_term_line

    assert is_term_line("unix-word-rubout (C-w)") and is_term_line("unix-filename-rubout ()")
    assert is_term_line("re-read-init-file (C-x C-r)")
    assert not is_term_line("well-known (x)") and not is_term_line("non-interactive (see below)")
    text = ("Drag the word before point past the word after point, moving point past that word as well.\n"
            "unix-word-rubout (C-w)\nKill the word behind point, using white space as a word boundary. The killed\n"
            "text is saved on the kill-ring.\nunix-filename-rubout ()\nKill the word behind point, using white space "
            "and the slash character as the word\nboundaries. The killed text is saved on the kill-ring.\n"
            "delete-horizontal-space ()\nDelete all spaces and tabs around point. By default, this is unbound.")
    question = "What is the difference between Ctrl-W and unix-filename-rubout when deleting the word before the cursor?"
    blocks = pack_evidence([chunk(898, text, 144)], 1000)
    ranked = rank_candidates(question, blocks, embedder)
    # both entries the question names come first: one by its name, one by its key ("Ctrl-W" is "C-w")
    assert {c.text.split()[0] for c in ranked[:2]} == {"unix-filename-rubout", "unix-word-rubout"}, ranked[:3]
    assert all(c.entry for c in ranked[:2])
    # and both are quoted, though their descriptions read alike
    chosen = [c.text.split()[0] for c in select_sentences(question, blocks, embedder)]
    assert "unix-filename-rubout" in chosen and "unix-word-rubout" in chosen, chosen


SALOME = ("Note that specifying a SALOME directory does not automatically force the configure script to find the\n"
          "libraries of the SALOME distribution. To indicate that the versions from SALOME should be used, without\n"
          "needing to provide the full paths, the following configuration options may be used for HDF5, CGNS, and\n"
          "MED respectively.\n--with-hdf5=salome\n--with-cgns=salome\n--with-med=salome\n"
          "As CGNS and MED file formats are portable, files produced by either remain interoperable.")


def test_a_sentence_that_announces_options_with_a_full_stop_is_quoted_with_them():
    """code_saturne's installation guide: "... the following configuration options may be used for HDF5, CGNS, and
    MED respectively, as well as for Catalyst ..." ends with a full stop, not a colon; the options below it
    ("--with-hdf5=salome" / "--with-cgns=salome" / "--with-med=salome") were not quoted with it, and a block of
    code lines without a prompt gave its first line only."""
    (lead,) = [c for c in candidate_sentences(pack_evidence([chunk(1144, SALOME, 16)], 1000)) if c.introduces]
    assert lead.text.endswith("MED respectively. --with-hdf5=salome --with-cgns=salome --with-med=salome"), lead.text
    # a sentence that speaks of a table or of the next line announces no code
    table = ("The following table shows the function name to use for each operation.\nfunction p = mtimes (a, b)\n"
             "Lines that end with ... are joined with the following line by the parser.\nx = long_name ...")
    assert not [c for c in candidate_sentences(pack_evidence([chunk(7, table, 3)], 1000)) if c.introduces]


def test_a_sentence_begun_in_the_chunk_before_is_quoted_once():
    """The LAMMPS Colvars manual (asked in session 46): spinAngle's note was quoted twice, whole from one chunk
    and from the next, which opens mid-sentence, as "... with the corresponding “tilt” angle equal to 180◦ ...":
    the mark of a chunk that opens mid-sentence hid that the piece is the end of the whole sentence."""
    from mmrag_desktop.engine.answer.extractive import Candidate, _choose

    end = "with the corresponding tilt angle equal to 180 degrees: in those cases, spinAngle is undefined."
    whole = Candidate(7, 3, f"Note: the value of spinAngle is continuous almost everywhere, with the exception of "
                            f"configurations {end}", chunk=(1, 199, 32))
    piece = Candidate(1, 0, f"... {end}", chunk=(1, 200, 32))
    assert _choose([whole, piece], 4, 200) == [whole]
    assert _choose([piece, whole], 4, 200) == [whole]
