"""A C library's reference that describes each routine above its signature (session 60, CFITSIO's User's Reference Guide,
asked in session 59). "What does CFITSIO's fits_read_tdim return for a binary table column that has no TDIMn keyword?"
quoted another routine's signature first ("(fitsfile *fptr, char *tdimstr, ...) int fits_decode_tdimll / ffdtdmll
..."), and the description of fits_read_tdim was run together with the parameters of the signature above it. "When I
merge two grouping tables with fits_merge_groups, how do I keep the input grouping table ...?" quoted fits_compact_group's
"The cmopt parameter defines whether ..." first. Real library (SQLite, hnswlib, PyMuPDF) and the real MiniLM
embedder."""

from __future__ import annotations

import re

from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.evidence import EvidenceBlock
from mmrag_desktop.engine.answer.extractive import (
    _names_another_routine,
    is_term_line,
    negative_forms,
    routine_parameters,
)
from mmrag_desktop.engine.hits import Hit
from mmrag_desktop.engine.sentence_split import split_sentences

COLUMNS = [
    "5.7.2 Column Information Routines",
    "These CFITSIO routines get information about the columns of an ASCII or binary table.",
    "4",
    "Return the display width of a column. This is the length of the string that will be returned by",
    "the fits read col routine when reading the column as a formatted string. The display width",
    "is determined by the TDISPn keyword, if present, otherwise by the data type of the column.",
    "int fits_get_col_display_width / ffgcdw",
    "(fitsfile *fptr, int colnum, > int *dispwidth, int *status)",
    "5",
    "Return the number of and size of the dimensions of a table column in a binary table. Normally",
    "this information is given by the TDIMn keyword, but if this keyword is not present then this",
    "routine returns naxis = 1 and naxes[0] equal to the repeat count in the TFORM keyword.",
    "int fits_read_tdim / ffgtdm",
    "(fitsfile *fptr, int colnum, int maxdim, > int *naxis,",
    "long *naxes, int *status)",
    "6",
    "Decode the input TDIMn keyword string (e.g. '(100,200)') and return the number of and size",
    "of the dimensions of a binary table column.",
]
COLUMNS_NEXT = [  # (the guide's next page: item 6's signatures)
    "int fits_decode_tdim / ffdtdm",
    "(fitsfile *fptr, char *tdimstr, int colnum, int maxdim, > int *naxis,",
    "long *naxes, int *status)",
    "int fits_decode_tdimll / ffdtdmll",
    "(fitsfile *fptr, char *tdimstr, int colnum, int maxdim, > int *naxis,",
    "LONGLONG *naxes, int *status)",
    "7",
    "Write a TDIMn keyword whose value has the form '(l,m,n...)' where l, m, n... are the dimensions",
    "of a multidimensional array column in a binary table.",
]
GROUPS = [
    "8.1 Grouping Table Routines",
    "These CFITSIO routines create, copy, merge and compact grouping tables.",
    "6",
    "Merge the two groups defined by the grouping table HDUs infptr and outfptr by combining",
    "their members into a single grouping table. All member HDUs (rows) are copied from infptr",
    "to outfptr. If mgopt == OPT_MRG_COPY then infptr continues to exist unaltered after the",
    "merge. If the mgopt == OPT_MRG_MOV then infptr is deleted after the merge.",
    "int fits_merge_groups / ffgtmg",
    "(fitsfile *infptr, fitsfile *outfptr, int mgopt, > int *status)",
    "7",
    "\u201dCompact\u201d the group defined by grouping table pointed to by gfptr. The compaction is achieved",
    "by merging (via fits_merge_groups()) all direct member HDUs of gfptr that are themselves",
    "grouping tables. The cmopt parameter defines whether the merged grouping table HDUs remain",
    "after merging (cmopt == OPT_CMT_MBR) or if they are deleted after merging (cmopt == OPT_CMT_MBR_DEL).",
    "int fits_compact_group / ffgtcm",
    "(fitsfile *gfptr, int cmopt, > int *status)",
]


def test_a_signature_ends_before_the_next_routine_s_description():
    text = "\n".join(COLUMNS[6:8] + COLUMNS[9:11])  # (as the passage holds it: the item's number is not in its text)
    assert split_sentences(text)[:2] == [
        "int fits_get_col_display_width / ffgcdw\n(fitsfile *fptr, int colnum, > int *dispwidth, int *status)",
        "Return the number of and size of the dimensions of a table column in a binary table."]
    # a wrapped list of parameters ends its signature too
    assert split_sentences("int f / g\n(fitsfile *fptr, int colnum,\nlong *naxes, int *status)\nRead it.")[-1] == "Read it."
    # and so does a pointer that closes the brackets a line above opened (Libgcrypt's, set by Texinfo)
    assert split_sentences("void gcry_set_log_handler (gcry handler log t func_log, void\n*cb_data)\nThis function "
                           "registers func log as 'logging handler'.")[-1] == ("This function registers func log as "
                                                                              "'logging handler'.")
    assert not is_term_line("*cb_data)")  # (nor is that end the term of the description below it)
    # prose in brackets before a capital goes on (a name that opens the next line)
    assert len(split_sentences("It reads (for example, the value)\nTDIMn of the column.")) == 1


def _block(i: int, text: str) -> EvidenceBlock:
    hit = Hit(chunk_id=i, doc_id=1, doc="cfitsio.pdf", page=1, bbox=None, kind="text", score=1.0, text=text)
    return EvidenceBlock(id=i, hit=hit, text=text)


def test_the_parameters_of_the_routine_asked_about_and_of_the_others():
    blocks = [_block(1, "\n".join(GROUPS)), _block(2, "The routine fits_read_tdim() reads (a, b) them.")]
    own, other = routine_parameters(blocks, ["fits_merge_groups"])
    assert own == {"infptr", "outfptr", "mgopt"}  # (status is every signature's)
    assert other == {"gfptr", "cmopt"}
    assert routine_parameters(blocks, ["fits_open_file"]) == (set(), set())  # no signature of it: nothing to tell
    signature = "int fits_decode_tdimll / ffdtdmll (fitsfile *fptr, char *tdimstr, int colnum, > int *status)"
    assert _names_another_routine(signature, ["fits_read_tdim"])
    assert not _names_another_routine(signature, ["ffgtdm", "fits_decode_tdimll"])
    assert not _names_another_routine(signature.replace("fits_", "ff_"), ["fits_read_tdim"])  # (another library's)
    # prose that names another routine may say what the one asked about does
    assert not _names_another_routine("When the transaction completes, a raw1394_loop_iterate will call the tag "
                                      "handler and pass it the tag.", ["raw1394_start_read"])


def test_the_routine_s_own_sentences_answer_before_another_s(library, tmp_path):
    pdf = write_pdf(tmp_path / "cfitsio.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(page)]
                                               for page in (COLUMNS, COLUMNS_NEXT, GROUPS)], fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    tdim = extractive_answer(library, "What does CFITSIO's fits_read_tdim return for a binary table column that has no "
                                      "TDIMn keyword?")
    at = _quoted_at(tdim.text, "returns naxis = 1")
    # (among the first three: item 6's "Decode ... and return the number of ..." scores as high here; in the guide it
    # came second, the answer first)
    assert at < 3, tdim.text
    assert not any("(fitsfile" in q or "dispwidth" in q for q in _quotes(tdim.text)[:at + 1]), tdim.text
    merge = extractive_answer(library, "When I merge two grouping tables with CFITSIO's fits_merge_groups, how do I "
                                       "keep the input grouping table instead of having it deleted?")
    at = _quoted_at(merge.text, "mgopt == OPT_MRG_")
    assert at < 2, merge.text
    assert not any("cmopt" in q for q in _quotes(merge.text)[:at + 1]), merge.text


def _quotes(text: str) -> list[str]:
    return [q for q in re.split(r"\s*\[\d+\]\s*", text) if q]


def _quoted_at(text: str, words: str) -> int:
    """The place of the first quote of the answer `text` that holds `words` (99 when none does)."""
    return next((i for i, q in enumerate(_quotes(text)) if words in q), 99)


HASHING = [
    "7.2 Working with hash algorithms",
    "Libgcrypt provides an easy to use and consistent interface for hashing.",
    "[Function]",
    "gpg_err_code_t gcry_md_hash_buffers ( int algo,",
    "unsigned int flags, void *digest, const gcry buffer t *iov, int iovcnt )",
    "gcry_md_hash_buffers is a shortcut function to calculate a message digest from",
    "several buffers. This function does not require a context and immediately returns",
    "the message digest of the data described by iov and iovcnt.",
    "On success the function returns 0 and stores the resulting hash or MAC at digest.",
    "[Function]",
    "void gcry_md_hash_buffer (int algo, void *digest, const void",
    "*buffer, size t length);",
    "gcry_md_hash_buffer is a shortcut function to calculate a message digest of a buffer.",
    "This function does not require a context and immediately returns the message digest",
    "of the length bytes at buffer. digest must be allocated by the caller, large enough to",
    "hold the message digest yielded by the specified algorithm algo.",
    "Note that in contrast to gcry_md_hash_buffers this function will abort the process",
    "if an unavailable algorithm is used.",
    "Hash algorithms are identified by internal algorithm numbers (see gcry_md_open for a",
    "list). However, in most applications they are used by names, so two functions are available",
    "to map between string representations and hash algorithm identifiers.",
]


def test_a_word_the_question_negates_is_said_with_its_prefix():
    forms = negative_forms("What happens if I call it with an algorithm that is not available, or isn't valid?")
    assert forms["unavailabl"] == "availabl" and forms["invalid"] == "valid"
    assert "unknown" not in forms and negative_forms("Which algorithms are available?") == {}


def test_what_happens_if_is_answered_by_the_sentence_that_states_the_condition(library, tmp_path):
    """(Libgcrypt, session 60) "What happens if I call Libgcrypt's gcry_md_hash_buffer with a hash algorithm that is not
    available?" quoted "... is a shortcut function to calculate a message digest of a buffer." first and the answer
    fifth: the sentence says "unavailable", and nothing preferred the one that states the condition asked about."""
    pdf = write_pdf(tmp_path / "gcrypt.pdf", [[(57, 80 + 14 * i, t) for i, t in enumerate(HASHING)]], fontsize=9)
    assert [e.stage for e in library.add([pdf]) if e.stage in ("done", "failed")] == ["done"]
    answer = extractive_answer(library, "What happens if I call Libgcrypt's gcry_md_hash_buffer with a hash algorithm "
                                        "that is not available?")
    assert "abort the process if an unavailable algorithm is used" in _quotes(answer.text)[0], answer.text


def test_a_question_why_about_a_routine_with_parameters_and_a_consequence():
    """A question why that names a routine whose signature the evidence holds, and a consequence among the sentences:
    the sentences as the block words them are read after the parameters' names were (a name shared by the two once
    made the second raise)."""
    from mmrag_desktop.engine.answer.extractive import rank_candidates

    text = "\n".join(GROUPS[2:]) + "\nTherefore, a merged group keeps the members of both groups."
    ranked = rank_candidates("Why does fits_merge_groups delete infptr when mgopt is OPT_MRG_MOV?", [_block(1, text)])
    assert ranked and any(c.text.startswith("If the mgopt == OPT_MRG_MOV then infptr is deleted") for c in ranked[:3])
