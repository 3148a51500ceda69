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


def test_a_number_in_a_compound_word_is_known_written_as_a_word(library, tmp_path):
    """Asked in session 68 (no set's): "For ribosomal RNA, should I use the doublet model or a plain 4-by-4 model ...?"
    of MrBayes' manual, which writes "a standard four-by-four nucleotide model", said "the indexed manuals never use
    4-by-4". A compound word's numbers up to twelve are known written the other way, digits or words."""
    from mmrag_desktop.engine.answer.confidence import number_word_spellings

    lines = ["Use a doublet model for the stems and a standard four-by-four model for the loops.",
             "The 2-dimensional grid holds the states of the chain."]
    pdf = write_pdf(tmp_path / "models.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    assert number_word_spellings("4-by-4") == ["four-by-four"] and number_word_spellings("two-dimensional") == [
        "2-dimensional"]
    assert number_word_spellings("rs-485") == [] and number_word_spellings("x86-64") == [] and number_word_spellings("42") == []
    assert unknown_words("Should I use a 4-by-4 model for the loops?", library.term_df) == []
    assert unknown_words("Is the grid two-dimensional?", library.term_df) == []
    assert unknown_words("Should I use a 5-by-5 model?", library.term_df) == ["5-by-5"]


def test_a_name_given_again_in_brackets_is_named_by_either(library, tmp_path):
    """Asked in session 68 (no set's): "Will HMMER3 build on a little-endian POWER9 (ppc64le) box, and which vector
    instruction set does it need on an x86 CPU?" of HMMER's guide, which writes "HMMER3 does not support little-endian
    PowerPC systems (ppc64le)." and never "POWER9", was "not covered" (no page found mentions POWER9, a word the library
    never uses). A name the question names again in brackets right after it is named when a page writes either."""
    from mmrag_desktop.engine.answer.confidence import bracketed_aliases

    lines = ["HMMER3 does not support little-endian PowerPC systems (ppc64le).",
             "On x86 processors it requires the SSE2 vector instruction set."]
    pdf = write_pdf(tmp_path / "install.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(lines)]])
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    question = "Does HMMER3 support little-endian POWER9 (ppc64le) systems, and which instruction set on x86?"
    hits = library.search(question, k=5)
    assert bracketed_aliases(question) == {"power9": "ppc64le", "ppc64le": "power9"}
    assert absent_names(question, hits) == [] and unknown_words(question, library.term_df) == []
    # without the bracketed name, or with one no page writes, it is absent as before; brackets holding a word are no name
    assert absent_names("Does HMMER3 support POWER9 systems?", hits) == ["POWER9"]
    other = "Does HMMER3 support POWER9 (ppc64be) systems?"
    assert absent_names(other, hits) == ["POWER9", "ppc64be"]
    assert unknown_words(other, library.term_df) == ["power9", "ppc64be"]
    assert bracketed_aliases("the timeout (seconds) of the DAC (digital-to-analog converter)") == {}
