"""Asked in session 51 (no set's): bodeplot's manual says "If a delay is not specified, it is assumed to be zero. If a
gain is not specified, it is assumed to be 1." and "If gnuplot is not available, the pgf package option can be used
to do the calculations ..."; bytefield's numbers a register's bit header "31 down to 16"."""

from __future__ import annotations

from mmrag_desktop.engine.answer.confidence import content_terms, unknown_words
from mmrag_desktop.engine.answer.extractive import Candidate, _choose

DELAY = "If a delay is not specified, it is assumed to be zero."
GAIN = "If a gain is not specified, it is assumed to be 1."


def test_the_other_sentence_of_a_pair_is_quoted_when_it_brings_a_word_of_the_question():
    """"If I leave out the gain and the delay in \\BodeZPK, what values are assumed ...?" was answered with the gain's
    sentence alone: the delay's came only as a pair with it, and the pair was a repetition of the sentence chosen
    (no number or name of its own). It is quoted after the sentence chosen, which stays first."""
    question = "If I leave out the gain and the delay in \\BodeZPK, what values are assumed?"
    asked = frozenset(content_terms(question))
    ranked = [Candidate(2, 1, GAIN, score=1.0), Candidate(2, 0, f"{DELAY} {GAIN}", score=0.9)]
    chosen = _choose(ranked, 4, 110, asked)
    assert [c.text for c in chosen] == [GAIN, DELAY] and chosen[1].position == 0
    # asked about the gain alone, the pair repeats the sentence chosen and adds nothing asked
    ranked = [Candidate(2, 1, GAIN, score=1.0), Candidate(2, 0, f"{DELAY} {GAIN}", score=0.9)]
    only_gain = frozenset(content_terms("What gain is assumed in \\BodeZPK when none is given?"))
    assert [c.text for c in _choose(ranked, 4, 110, only_gain)] == [GAIN]


def test_a_question_s_verdict_word_or_particle_is_no_word_the_library_misses():
    """"I don't have gnuplot installed; can bodeplot still compute the plots, and what is the downside?" was "not
    covered" (0.75 against the 0.75 two unknown words ask): "installed" and "downside". A manual says what a thing
    costs, seldom that it is a downside; and "down" in "numbered 31 down to 16" is a particle as "back" is."""
    library_words = {"gnuplot": 20, "bodeplot": 30, "compute": 3, "plots": 40, "numbered": 2, "row": 5}

    def term_df(words):
        return {w: library_words.get(w, 0) for w in words}

    question = "I don't have gnuplot installed; can bodeplot still compute the plots, and what is the downside?"
    assert unknown_words(question, term_df) == ["installed"]
    assert unknown_words("Which drawbacks or caveats does it have?", term_df) == []
    assert unknown_words("The upper row numbered 31 down to 16", term_df) == ["upper"]


def test_a_pair_whose_other_part_is_a_lead_in_does_not_take_the_place_of_its_sentence():
    """chemplants' manual: "\\pic at (R-anchor) {stirrer }; and the result is:" brings "result" of "How much taller
    does a tank reactor become when I add a stirrer pic to it, and is there a single pic that gives the same
    result?", but is no sentence: the pair took the place of the sentence alone and left no room for the one that
    answers the second part."""
    question = ("How much taller does a tank reactor become when I add a stirrer pic to it, and is there a single pic "
                "that gives the same result?")
    said = "It should be noticed that the stirrer extends the dimensions of the tank reactor by 3 mm in vertical on the top."
    lead = "\\pic at (R-anchor) {stirrer }; and the result is:"
    ranked = [Candidate(1, 1, said, score=1.0), Candidate(1, 0, f"{lead} {said}", score=0.9)]
    assert [c.text for c in _choose(ranked, 4, 110, frozenset(content_terms(question)))] == [said]


def test_a_word_the_library_writes_otherwise_is_no_word_it_misses():
    """tikz-relay's and karnaughmap's manuals (no set's): "How do I connect a wire to the third (top-left) terminal
    of a change over contact ...?" was "not covered" for "third" and "changeover" (the manual writes "change over
    contact"); "... how should I write the alt key so the handout shows the normal, unactivated state ... while
    developing?" for "unactivated", "state" and "while"; "... on an empty 16-cell map ...?" for "16-cell" and "whole".
    A word the library writes as two words, without its negating prefix, or counted by a number in digits joined to it
    is the asker's phrasing; a conjunction is the question's frame."""
    library_words = {"change over": 24, "terminal": 9, "contact": 40, "connect": 3, "activated": 30, "handout": 3,
                     "cell": 20, "map": 40, "empty": 5, "draw": 8, "bit": 7, "take": 2}

    def term_df(words):
        return {w: library_words.get(w, 0) for w in words}

    assert unknown_words("How do I connect the third terminal of a changeover contact?", term_df) == ["third"]
    assert unknown_words("How does the handout show the unactivated state while developing?", term_df) == ["state",
                                                                                                          "developing"]
    assert unknown_words("How do I draw an empty 16-cell map?", term_df) == []
    # a number written as a word names a kind ("two-factor authentication" of a manual that writes "factor")
    assert unknown_words("Can I draw a four-bit map?", term_df) == ["four-bit"]
    # not a prefix ("underlying": the library never writes "derlying"), not a letter joined to a word ("K-type"), not
    # a word joined to words the library does not write
    assert unknown_words("Which underlying K-type map?", term_df) == ["underlying", "k-type"]
    assert unknown_words("Does it take a 16-pin socket?", term_df) == ["16-pin", "socket"]
