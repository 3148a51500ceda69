"""Asked in session 64 (no set's): FFTW's manual writes in its own way what two questions wrote otherwise, and both were
"not covered": "linker" (it writes "link with -lfftw3 -lm") and "5x6" (it writes "three 5 by 6 arrays")."""

from __future__ import annotations

from conftest import write_pdf

from mmrag_desktop.engine.answer.confidence import absent_names, dimension_spellings, unknown_words


def test_a_doer_noun_is_known_by_its_verb(library, tmp_path):
    """Asked in session 64 (no set's): "What linker flags do I need to build the simple 1-D complex FFT example on
    Linux ...?" of FFTW's manual, which writes "On Unix systems, link with -lfftw3 -lm" but never "linker", was not
    covered (0.63 against the 0.65 an unknown word asks). A noun in -er is known by the verb it names the doer of;
    a noun in -or is not read so ("factor", "tensor")."""
    lines = ["You must link this code with the fftw3 library. On Unix systems, link with -lfftw3 -lm.",
             "Compile the example with the C compiler of your system and run it.",
             "You can execute the same plan as many times as you like on the same arrays."]
    pdf = write_pdf(tmp_path / "fft.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    assert unknown_words("Which linker options do I need?", library.term_df) == ["options"]
    assert unknown_words("Which linkers and compilers?", library.term_df) == []
    assert unknown_words("Which tensor or factor?", library.term_df) == ["tensor", "factor"]
    assert unknown_words("Does it come with a debugger?", library.term_df) == ["debugger"]


def test_dimensions_joined_by_an_x_are_known_written_by(library, tmp_path):
    """"Using fftw_plan_many_dft to transform three 5x6 complex arrays stored back to back, what should idist/odist
    and the strides be ...?" was not covered: "5x6" was a name no page mentions and a word the library never uses,
    where the manual writes "Transform of three 5 by 6 arrays, each contiguous in memory". Dimensions are known
    written with "by", "x", "×" or "-by-" between the numbers; other numbers are not."""
    lines = ["Transform of three 5 by 6 arrays, each contiguous in memory, stored one after another:",
             "int rank = 2; int n[] = {5, 6}; int howmany = 3; int idist = odist = n[0]*n[1];",
             "A 2 × 3 × 4 array is stored in row-major order."]
    pdf = write_pdf(tmp_path / "plans.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    assert dimension_spellings("5x6") == ["5 by 6", "5 x 6"] and dimension_spellings("0x42") == []
    assert dimension_spellings("x86") == [] and dimension_spellings("5x") == []
    question = "How do I transform three 5x6 arrays stored one after another?"
    hits = library.search(question, k=5)
    assert unknown_words(question, library.term_df) == [] and absent_names(question, hits) == []
    assert absent_names("How is a 2x3x4 array stored?", hits) == []
    assert absent_names("How do I transform three 7x6 arrays?", hits) == ["7x6"]
    assert unknown_words("How do I transform three 7x6 arrays?", library.term_df) == ["7x6"]


def test_a_word_with_accented_letters_is_one_word(library, tmp_path):
    """Asked in session 67 (no set's): "How do I compute a Gröbner basis of an ideal in a polynomial ring with GAP?" of
    GAP's tutorial, which never names Gröbner bases, was answered with sentences about ideals of algebras: the words
    were read as "Gr" and "bner", and "bner" as no name. A word with accented letters is one word, known to a library
    that writes it with or without the accents ("Schrödinger", "Groebner")."""
    from mmrag_desktop.engine.answer.confidence import decisive_unknown

    lines = ["The solver integrates the Schrödinger equation on a grid of points.",
             "Groebner bases of ideals are computed by the Buchberger algorithm.",
             "Subalgebras and ideals of an algebra are given by generators."]
    pdf = write_pdf(tmp_path / "algebra.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    assert unknown_words("Does it integrate the Schrödinger equation?", library.term_df) == []
    assert unknown_words("How do I compute Gröbner bases of an ideal?", library.term_df) == []
    question = "Are Gröbner bases of an ideal computed by Göttinger?"
    unknown = unknown_words(question, library.term_df)
    assert unknown == ["göttinger"]
    assert decisive_unknown(question, unknown) == ["göttinger"]
