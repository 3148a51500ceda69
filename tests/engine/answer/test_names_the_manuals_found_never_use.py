"""Asked in session 63 (no set's): "Is there a Python binding for Gri so I can build plots from a Python script?" of a
library holding Gri's manual and the FreedomBox manual was answered with a shell script, cited as if it answered. Gri's
manual never writes "Python"; the FreedomBox manual does, so the library-wide check (a name the indexed manuals never
use) let it through. A name the question writes that none of the documents found uses now makes it not covered."""

from __future__ import annotations

from conftest import extractive_answer, write_pdf

from mmrag_desktop.engine.answer.confidence import (
    SUBJECT_CHUNKS,
    asked_documents,
    assess,
    subject_documents,
    unused_names,
)

PLOTTER = [
    ["Gri is a language for scientific graphs. Gri draws xy graphs, contour plots and image plots.",
     "A Gri program is a text file of commands; run it with gri myplot.gri to get a PostScript file.",
     "To build Gri from its source, run configure and then make.",
     "You can put the line #!/usr/bin/gri first in a program and make it executable.",
     "Scripts in perl or the shell can write Gri programs and then run gri on them.",
     "Text in labels may use accented characters of the ISO-Latin-1 encoding.",
     "Japanese text is not supported in labels at this time."],
]
SERVER = [
    ["The server runs on a single-board computer at home and serves web applications.",
     "Its web interface is written in Python with the Django framework.",
     "Its programming interface has language bindings for Go.",
     "Backups are written to an external USB disk once a day.",
     "Users log in with a password set when the server is first started."],
]


def _library_of_two(library, tmp_path):
    pdfs = [write_pdf(tmp_path / "gri.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(p)] for p in PLOTTER]),
            write_pdf(tmp_path / "homeserver.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(p)] for p in SERVER])]
    assert [e.stage for e in library.add(pdfs) if e.stage in ("done", "failed")] == ["done", "done"]
    return {d.name: d.id for d in library.documents()}


def test_a_name_the_documents_found_never_use_is_not_covered(library, tmp_path):
    docs = _library_of_two(library, tmp_path)
    question = "Is there a Python binding for Gri so I can build plots from a Python script?"
    assert library.term_df(["python"]) == {"python": 1}, "the other manual writes it"
    assert library.term_df(["python"], doc_ids=[docs["gri.pdf"]]) == {"python": 0}
    hits = library.search(question, k=8)
    assert {h.doc for h in hits} == {"gri.pdf", "homeserver.pdf"}, "the server manual's Python line is found too"
    # the question names Gri: its manual is the one asked about, and it never writes "Python"
    assert asked_documents(question, hits, {}) == ["gri.pdf"]
    report = assess(question, hits, library.embedder, term_df=library.term_df, doc_term_df=library.term_df)
    assert report.unknown == [] and report.unused == ["Python"] and report.unused_in == ["gri.pdf"], report
    assert report.insufficient
    # the library-wide check alone lets it through, as before
    assert not assess(question, hits, library.embedder, term_df=library.term_df).insufficient
    # a question that names no manual asks about every manual found: the server manual writes "Python"
    plain = "Is there a Python binding so I can build plots from a Python script?"
    assert set(asked_documents(plain, hits, {})) == {"gri.pdf", "homeserver.pdf"}
    assert assess(plain, hits, library.embedder, term_df=library.term_df, doc_term_df=library.term_df).unused == []

    def found_df(terms):
        return library.term_df(terms, doc_ids=[docs["gri.pdf"]])

    # a name offered as the alternative to one they do use is no reason: the manual says what it does with the other
    assert unused_names("Can labels hold accented letters or Chinese/Japanese text?", found_df) == []
    assert unused_names("Can labels hold Chinese or Korean text?", found_df) == ["Chinese", "Korean"]
    # the question's first word, a word in lower case and a name the library never uses are left to the other checks
    assert unused_names("Python bindings: is there one for Gri?", found_df) == []
    assert unused_names("Can a python script call gri?", found_df) == []
    assert unused_names("Is there a Python binding?", library.term_df) == []


def test_the_answer_says_which_manual_never_uses_the_name(library, tmp_path):
    _library_of_two(library, tmp_path)
    ans = extractive_answer(library, "Is there a Python binding for Gri so I can build plots from a Python script?")
    assert ans.insufficient_evidence and ans.citations == [], ans.text
    assert "Nothing in gri.pdf uses “Python”." in ans.notices, ans.notices
    # a question the plotting manual answers is answered
    ok = extractive_answer(library, "How do I make a Gri program executable?")
    assert not ok.insufficient_evidence and "#!/usr/bin/gri" in ok.text, ok.text



# Session 31's gputils list, asked again in session 65: "Can gplink write its output as an ELF file instead of COFF?"
# names no manual (its file and title say "gputils"), and the SCons guide of the same library, found among the hits,
# writes "ELF": the question is about the manual whose tool it names ("gplink", which only that manual writes, often).
LINKER = [[f"Option -{chr(97 + i % 26)}{i} of gplink changes how it writes the map file and the hex file.",
           "The linker gplink relocates and links COFF objects made by the assembler into an absolute executable COFF.",
           "The linker script names the memory regions of the processor and the sections placed in each of them.",
           "Each object's relocation entries are resolved against the symbols that the other objects export."]
          for i in range(40)]
BUILDER = [["The builder compiles C sources and links them into executables for embedded targets.",
            "Its output file can be an ELF executable or a COFF object, whichever the toolchain writes.",
            "The builder writes its output files next to the sources unless told otherwise."]]


def test_a_question_is_about_the_manual_whose_tool_it_names(library, tmp_path):
    pdfs = [write_pdf(tmp_path / "gputils.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(p)] for p in LINKER]),
            write_pdf(tmp_path / "builder.pdf", [[(72, 90 + 16 * i, t) for i, t in enumerate(p)] for p in BUILDER])]
    assert [e.stage for e in library.add(pdfs) if e.stage in ("done", "failed")] == ["done", "done"]
    docs = {d.name: d.id for d in library.documents()}
    question = "Can gplink write its output as an ELF file instead of COFF?"
    assert library.term_df(["gplink"], doc_ids=[docs["gputils.pdf"]])["gplink"] >= SUBJECT_CHUNKS
    assert library.term_df(["gplink", "elf"], doc_ids=[docs["builder.pdf"]]) == {"gplink": 0, "elf": 1}
    hits = library.search(question, k=8)
    assert {h.doc for h in hits} == {"gputils.pdf", "builder.pdf"}, "the builder's ELF line is found too"
    assert subject_documents(question, list(docs.values()), library.term_df, library.term_df) == {docs["gputils.pdf"]}
    assert asked_documents(question, hits, {}, library.term_df, library.term_df) == ["gputils.pdf"]
    assert set(asked_documents(question, hits, {})) == {"gputils.pdf", "builder.pdf"}, "without the counts: all"
    report = assess(question, hits, library.embedder, term_df=library.term_df, doc_term_df=library.term_df)
    assert report.unused == ["ELF"] and report.unused_in == ["gputils.pdf"] and report.insufficient, report
    # a word both manuals write ("COFF"), or one the other manual alone writes, makes neither the subject
    assert subject_documents("Can the output be a COFF file?", list(docs.values()), library.term_df,
                             library.term_df) == set()
    assert subject_documents("Does the builder link embedded targets?", list(docs.values()), library.term_df,
                             library.term_df) == set(), "the builder's words are in fewer chunks than the rule asks"
    ans = extractive_answer(library, question)
    assert ans.insufficient_evidence and "Nothing in gputils.pdf uses “ELF”." in ans.notices, (ans.text, ans.notices)
