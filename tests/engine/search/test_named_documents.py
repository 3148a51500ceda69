"""A query that names a manual ("How do I read a CSV file into R?") prefers that manual's pages:
the gnuplot and Octave manuals say "CSV" far more often than R's introduction, which reads such
files with read.table (real PDFs, real SQLite FTS5, real MiniLM)."""

from __future__ import annotations

from conftest import write_pdf

from mmrag_desktop.engine.search.doc_names import name_words, named_documents


def test_the_words_that_name_a_manual():
    assert name_words("R-intro.pdf", "R-intro") == {"R"}
    assert name_words("sdccman.pdf", "SDCC Compiler User Guide") == {"sdccman", "sdcc"}
    assert name_words("nut-user-manual.pdf", "Network UPS Tools User Manual") == {"nut", "ups"}
    assert name_words("simh-pdp11.pdf", "Microsoft Word - pdp11_doc.doc") == {"simh", "pdp11"}
    docs = {1: ("R-intro.pdf", "R-intro"), 2: ("gnuplot.pdf", "gnuplot documentation"), 3: ("octave.pdf", "")}
    assert named_documents("How do I read a CSV file into R?", docs) == {1}
    assert named_documents("plot an R graph with gnuplot", docs) == {1, 2}
    # a lower-case r, a part number or a word that only contains the name names nothing
    assert named_documents("for r in rows, set R2 to 5", docs) == set()
    assert named_documents("gnuplotting the octaves", docs) == set()


PLOTTER = ["Reading CSV files: the plotter reads CSV files with the csv data style.",
           "A CSV file separates its fields with commas; set the separator for other CSV files.",
           "Each line of a CSV data file holds one record; the plotter skips CSV comment lines.",
           "To read a CSV file, give its name to the plot command with the csv keyword."]
R_INTRO = ["Reading data from files: large data objects are read from external files.",
           "The function read.table() reads a file of values separated by commas or spaces",
           "into a data frame; read.csv() is the same for a CSV file with a header line.",
           "Use sep to name the separator of the fields in each line of the file."]


def _one_page(path, lines):
    return write_pdf(path, [[(72, 80 + 18 * i, t) for i, t in enumerate(lines)]])


def test_a_question_that_names_a_manual_finds_that_manual_first(library, tmp_path):
    added = list(library.add([_one_page(tmp_path / "plotter.pdf", PLOTTER)]))
    assert [e.stage for e in added if e.stage in ("done", "failed")] == ["done"]
    assert library.search("How do I read a CSV file into R?", k=2)[0].doc == "plotter.pdf"
    # a manual added after a search is known by name at once (the cached titles are not stale)
    added = list(library.add([_one_page(tmp_path / "R-intro.pdf", R_INTRO)]))
    assert [e.stage for e in added if e.stage in ("done", "failed")] == ["done"]
    assert library.search("How do I read a CSV file?", k=2)[0].doc == "plotter.pdf"
    assert library.search("How do I read a CSV file into R?", k=2)[0].doc == "R-intro.pdf"
