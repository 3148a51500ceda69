"""The BIRD 2.0 user's guide (asked in session 53, no set's) lists the daemon's command-line options as a definition
list: "-p" on a line of its own, its description below it, two sentences on one line. "How can I check that my
bird.conf is valid without actually starting the routing daemon?" quoted "Return value is zero if the config file is
valid, nonzero if there are some errors." alone: which option does that, the reader could not tell. A sentence that
goes on an option's description is the option's, quoted with its name. Real MiniLM embedder."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import candidate_sentences, rank_candidates
from mmrag_desktop.engine.hits import Hit

OPTIONS = ("-h, --help\ndisplay command-line options to bird.\n-l\nlook for a configuration file and a communication "
           "socket in the current working directory instead of in\ndefault system locations. However, paths specified "
           "by options -c, -s have higher priority.\n-p\njust parse the config file and exit. Return value is zero if "
           "the config file is valid, nonzero if there are\nsome errors.\n-P name of PID file\ncreate a PID file with "
           "given filename.\n-R\napply graceful restart recovery after start.")
PARAGRAPH = ("Edit the configuration file before you start the daemon.\nThe daemon reads it once. It never reads it "
             "again unless told to.")


def block(text: str, chunk_id: int = 31) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=1, doc="bird.pdf", page=5, bbox=(72.0, 100.0, 500.0, 300.0), kind="text",
               score=0.03, text=text, section="1.3 Running BIRD")


def ranked_texts(question: str, text: str, embedder) -> list[str]:
    """The candidates of one block of `text`, best first."""
    return [c.text for c in rank_candidates(question, pack_evidence([block(text)], 1000), embedder)]


def test_a_sentence_that_goes_on_an_options_description_is_quoted_with_the_option():
    cands = {c.text: c for c in candidate_sentences(pack_evidence([block(OPTIONS)], 1000))}
    ret = next(c for t, c in cands.items() if t.startswith("Return value is zero"))
    assert ret.label == "-p just parse the config file and exit.", ret.label
    # "However, ..." goes on the -l entry's description; the -P entry's own line is no continuation
    however = next(c for t, c in cands.items() if t.startswith("However, paths"))
    assert however.label.startswith("-l look for a configuration file"), however.label
    assert not any(c.label for t, c in cands.items() if t.startswith("-P name of PID file"))


def test_prose_after_prose_takes_no_option_for_its_own():
    """Neither a sentence on a line of its own nor one after a sentence of prose is an option's."""
    cands = candidate_sentences(pack_evidence([block(PARAGRAPH, chunk_id=32)], 1000))
    assert cands and not any(c.label for c in cands), [(c.text, c.label) for c in cands]


def test_the_option_that_does_what_is_asked_is_named_in_the_answer(embedder):
    ranked = ranked_texts("How can I check that my bird.conf is valid without actually starting the routing daemon?",
                          OPTIONS, embedder)
    assert ranked[0].startswith("-p just parse the config file and exit."), ranked[:3]


WATCHDOG = ("watchdog warning time\nSet time limit for I/O loop cycle. If one iteration took more time to complete, a "
            "warning is logged.\nDefault: 5 s.\nwatchdog timeout time\nSet time limit for I/O loop cycle. If the limit is "
            "breached, BIRD is killed by abort signal. The timeout has effective granularity of seconds, zero means "
            "disabled. Default: disabled (0).\nmrtdump \"filename\"\nSet MRTdump file name.")
CROSSHAIR = ("--crosshair-color <string>\nColor of the crosshair. Default: ‘#ff0000’\n--cross-color <string>\n"
             "Color of the cross. Default: ‘#cdcd00’")


def test_a_setting_named_with_its_values_type_is_an_entry_whose_sentences_are_its_own(embedder):
    """BIRD's options are named with the type of their value ("watchdog timeout time", "gc period time", "passive
    switch"): "What does BIRD do when the watchdog timeout for its I/O loop is exceeded ...?" ranked "If the limit is
    breached, BIRD is killed by abort signal." below the other entries' sentences; alone it names no watchdog."""
    from mmrag_desktop.engine.answer.extractive import is_term_line

    assert is_term_line("watchdog timeout time") and is_term_line("passive switch") and is_term_line("preference expr")
    assert not is_term_line("the switch time") and not is_term_line("set time")
    # an entry's term whose description goes on: no line of code, no table's first cell, no reference to a note
    from mmrag_desktop.engine.answer.extractive import _is_term

    assert _is_term("write_table [options] [filename]") and _is_term("soft_reset_halt [Command]") and _is_term("-p")
    assert not _is_term(".model DMOD D") and not _is_term("0x0008 nopaste") and not _is_term("Note [\u206012]")
    cands = candidate_sentences(pack_evidence([block(WATCHDOG, chunk_id=33)], 1000))
    breached = next(c for c in cands if c.text.startswith("If the limit is breached"))
    assert breached.label == "watchdog timeout time Set time limit for I/O loop cycle.", breached.label
    q = "What does BIRD do when the watchdog timeout for its I/O loop is exceeded, and is it on by default?"
    best = rank_candidates(q, pack_evidence([block(WATCHDOG, chunk_id=33)], 1000), embedder)[0]
    assert best.text.startswith("watchdog timeout time Set time limit") and "abort signal" in best.text, best.text


def test_a_default_quoted_with_its_entry_takes_the_entry_once():
    """pcb's "--crosshair-color <string>" / "Color of the crosshair. Default: ‘#ff0000’": the default, too short alone,
    is quoted with its entry already; the entry is not put before it a second time."""
    texts = [c.text if not c.label else f"{c.label} {c.text}"
             for c in candidate_sentences(pack_evidence([block(CROSSHAIR, chunk_id=34)], 1000))]
    crosshair = [t for t in texts if "‘#ff0000’" in t]
    assert crosshair and all(t.count("--crosshair-color") == 1 for t in crosshair), crosshair


SYSTEM_INFO = ("\u2022 transactions. Returns a list of all currently active local transactions.\n"
               "\u2022 transaction_failures. Returns a number that indicates how many transactions have failed since Mnesia\n"
               "was started.\n"
               "\u2022 transaction_commits. Returns a number that indicates how many transactions have terminated successfully\n"
               "since Mnesia was started.\n"
               "\u2022 transaction_restarts. Returns a number that indicates how many transactions have been restarted since\n"
               "Mnesia was started.\n"
               "\u2022 Notes.\n"
               "Returns are counted per node. Each node keeps its own counts.")


def test_an_items_name_set_off_by_a_full_stop_names_the_description_after_it(embedder):
    """Mnesia's reference manual (session 54's list) lists mnesia:system_info's keys as "\u2022 transaction_failures. Returns
    a number that indicates how many transactions have failed ...": "How can I check how many transactions have failed,
    committed or been restarted ...?" quoted three "Returns a number that indicates ..." sentences without the keys, and
    two of them so alike that one was left out as saying what the other did."""
    cands = {c.text: c for c in candidate_sentences(pack_evidence([block(SYSTEM_INFO)], 1000))}
    failed = next(c for t, c in cands.items() if "have failed" in t)
    assert failed.label == "\u2022 transaction_failures.", failed.label
    assert next(c for t, c in cands.items() if "active local" in t).label == "\u2022 transactions."
    # a capitalised item is a heading, not a name; a sentence on a line of its own is no item's description
    assert not next(c for t, c in cands.items() if t.startswith("Returns are counted")).label
    assert not next(c for t, c in cands.items() if t.startswith("Each node keeps")).label
    # a word alone at a line's start ends the sentence of the line above, unless it is a name with an underscore
    wrapped = candidate_sentences(pack_evidence([block("The dumper writes the log to the\ndisc. Then it is "
                                                       "truncated and the next transaction starts a new one.\n"
                                                       "log_version. Returns the version of the log format.")], 1000))
    assert not next(c for c in wrapped if c.text.startswith("Then it is truncated")).label
    assert next(c for c in wrapped if c.text.startswith("Returns the version")).label == "log_version."
    ranked = ranked_texts("How can I check how many transactions have failed, committed or been restarted on a node "
                          "since Mnesia started?", SYSTEM_INFO, embedder)
    assert ranked[0].startswith("\u2022 transaction_failures. Returns a number"), ranked[:3]


COPY_TYPE = ("change_table_copy_type(Tab :: table(), Node :: node(), To :: storage_type()) -> t_result(ok)\n"
             "For example:\n"
             "mnesia:change_table_copy_type(person, node(), disc_copies)\n"
             "Transforms the person table from a RAM table into a disc-based table at Node.\n"
             "This function can also be used to change the storage type of the table named schema.")


def test_the_sentence_after_an_example_is_quoted_with_it():
    """Mnesia's reference manual: "How do I turn a table that is currently held only in RAM on a node into a
    disc-backed one ...?" quoted "Transforms the person table from a RAM table into a disc-based table at Node." without
    the call above it, the example it explains."""
    cands = {c.text: c for c in candidate_sentences(pack_evidence([block(COPY_TYPE)], 1000))}
    transforms = next(c for t, c in cands.items() if t.startswith("Transforms the person table"))
    assert transforms.label == "For example: mnesia:change_table_copy_type(person, node(), disc_copies)", transforms.label
    # the sentence after that one is about the function, no example's
    assert not next(c for t, c in cands.items() if t.startswith("This function can also")).label
