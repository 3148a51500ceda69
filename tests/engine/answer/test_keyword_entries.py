"""The LAMMPS Colvars manual (asked in session 46, no set's) documents each keyword in an entry: "• Keyword hillWidth
⟨Width 2σ of a Gaussian hill, measured in number of grid points⟩", "Context: metadynamics", "Acceptable values:
...", "Default value: ...", "Description: ...". "What hillWidth values are recommended for metadynamics ...?" was
answered with other keywords' sentences; hillWidth's "Values between 1 and 3 are recommended for this option"
ranked seventh: nothing tied the sentence to the keyword the question names. Real MiniLM embedder."""

from __future__ import annotations

from mmrag_desktop.engine.answer.evidence import pack_evidence
from mmrag_desktop.engine.answer.extractive import candidate_sentences, rank_candidates
from mmrag_desktop.engine.hits import Hit

ENTRIES = ("• Keyword hillWeight ⟨Height of each hill (energy units)⟩\nContext: metadynamics\n"
           "Acceptable values: positive decimal\nDescription: This option sets the height of the Gaussian hills that "
           "are added during this run. Small values are recommended for metadynamics: if they are too large, the hills are too tall and the free energy "
           "is inaccurate.\n"
           "• Keyword hillWidth ⟨Width 2σ of a Gaussian hill, measured in number of grid points⟩\n"
           "Context: metadynamics\nAcceptable values: positive decimal\nDescription: This keyword sets the Gaussian "
           "width for all colvars, expressed in number of grid points.\nValues between 1 and 3 are recommended for "
           "this option: smaller numbers will fail to adequately interpolate each Gaussian function, while larger "
           "values may be unable to account for steep free-energy gradients.")


def block(text: str) -> Hit:
    return Hit(chunk_id=393, doc_id=1, doc="colvars-refman-lammps.pdf", page=71, bbox=(72.0, 100.0, 500.0, 300.0),
               kind="text", score=0.03, text=text, section="6.4 Metadynamics")


def test_the_sentences_of_a_keyword_s_entry_are_under_it():
    under = {c.text[:30]: c.under for c in candidate_sentences(pack_evidence([block(ENTRIES)], 1000))}
    assert under["Values between 1 and 3 are rec"] == "hillWidth"
    assert under["Description: This option sets "] == "hillWeight"


def test_the_entry_of_the_keyword_the_question_names_is_quoted_first(embedder):
    q = "What hillWidth values are recommended for metadynamics, and what goes wrong if it is too small or too large?"
    ranked = rank_candidates(q, pack_evidence([block(ENTRIES)], 1000), embedder)
    assert ranked[0].under == "hillWidth", [(c.score, c.text[:60]) for c in ranked]
    assert not any(c.entry for c in ranked if c.under == "hillWeight")
