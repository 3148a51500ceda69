"""Asked in session 51 (no set's): bodeplot's change history says "gnuplot@prefix: Added jobname to gnuplot prefix";
"In which bodeplot version did the gnuplot temporary file prefix start to include the job name?" found the page that
says where the temporary files go first, and the change history second: no keyword of the question is "jobname".
Real library (SQLite FTS5, MiniLM)."""

from __future__ import annotations

from mmrag_desktop.engine.search.query import joined_pairs, plan_query, split_spellings
from mmrag_desktop.engine.store.chunks import Filters


def test_two_words_are_also_looked_up_as_the_one_word_the_library_writes(library, tmp_path):
    history = tmp_path / "history.md"
    history.write_text("# Change History\n\nv1.0.3: gnuplot@prefix: Added jobname to gnuplot prefix.\n", encoding="utf-8")
    other = tmp_path / "files.md"
    other.write_text("# Temporary files\n\nSince version 1.0.8, the package places all temporary files in the working "
                     "directory.\n", encoding="utf-8")
    list(library.add([history, other]))
    searcher = library.searcher
    plan = searcher._with_library_spellings(plan_query("When did the job name become part of it?"))
    assert "jobname" in plan.terms and '"jobname"' in plan.fts
    found = searcher.chunks.keyword_ids(plan.fts, 5, Filters())
    texts = [library.conn.execute("SELECT text FROM chunks WHERE id = ?", (cid,)).fetchone()[0] for cid in found]
    assert any("Added jobname" in t for t in texts), texts
    # a pair the library does not write as one word is no keyword ("job become", "bit width"), nor one it also
    # writes apart ("temporary files" / "temporaryfiles": ngspice's manual writes "code model" and "codemodel")
    assert searcher._with_library_spellings(plan_query("What is the bit width?")).terms == plan_query("What is the bit width?").terms
    assert "jobbecome" not in plan.terms and "namebecome" not in plan.terms
    both = tmp_path / "both.md"
    both.write_text("# Files\n\nThe temporaryfiles key names the folder.\n", encoding="utf-8")
    list(library.add([both]))
    assert "temporaryfiles" not in searcher._with_library_spellings(plan_query("Where do temporary files go?")).terms
    assert "jobname" in searcher._with_library_spellings(plan_query("Where does the job name go?")).terms


def test_a_word_the_library_writes_as_two_is_looked_up_as_their_phrase(library, tmp_path):
    """tikz-relay's manual writes "change over contact"; "How do I wire the top-left terminal of a changeover?" had no
    keyword of the page but "terminal"."""
    relay = tmp_path / "relay.md"
    relay.write_text("# 5.4 Change over contact\n\nThe change over contact is the only contact in this library that has "
                     "three terminals.\n", encoding="utf-8")
    list(library.add([relay]))
    plan = library.searcher._with_library_spellings(plan_query("Is the changeover special?"))
    assert '"change over"' in plan.fts and "change over" not in plan.terms
    found = library.searcher.chunks.keyword_ids(plan.fts, 5, Filters())
    assert found, plan.fts
    # a word the library writes is looked up as it is
    assert '"con tact"' not in library.searcher._with_library_spellings(plan_query("Which contact?")).fts
    assert split_spellings("change") == ["cha nge"] and split_spellings("k-type") == [] and split_spellings("bit") == []


def test_the_pairs_are_neighbouring_words_in_lower_case_without_stopwords_or_codes():
    assert joined_pairs("the job name prefix") == ["job name", "name prefix"]
    assert joined_pairs("What is the bit width?") == ["bit width"]
    # no stopword, no number, no name, no word joined to another by a hyphen or a dot, no pair across punctuation
    assert joined_pairs("set it to 5 volts") == []
    assert joined_pairs("the expEYES Junior board") == []
    assert joined_pairs("a low-pass filter, time out. x.y name") == ["time out"]
