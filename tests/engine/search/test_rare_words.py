"""A word of the question that no dictionary has and only a chunk or two use ("rseq") is matched as exactly as an
identifier (session 57: "How does Valgrind 3.19.0 handle a program that calls the Linux rseq system call?" of the
397-page Valgrind documentation, whose one chunk with "The Linux rseq syscall is now implemented as (silently) returning
ENOSYS." BM25 ranked tenth, below chunks with more of the question's common words). A dictionary word used as rarely
("pumpkin") is not: it says nothing a manual's names do. Real PDF, real SQLite FTS5, real MiniLM."""

from __future__ import annotations

import pytest
from conftest import write_pdf

from mmrag_desktop.engine.search import searcher

TOPICS = ["signals", "threads", "the scheduler", "file descriptors", "memory maps", "the stack", "timers", "sockets"]
QUESTION = "How does Valgrind handle a program that calls the Linux rseq system call?"


def manual(tmp_path):
    pages = [[(72, 80 + 14 * j, f"Valgrind handles each system call a program makes on Linux for {TOPICS[(i + j) % 8]} "
                                f"(note {i}.{j}).") for j in range(30)] for i in range(40)]
    pages.append([(72, 80, "Release 3.19.0"),
                  (72, 110, "The Linux rseq syscall is now implemented as (silently) returning ENOSYS."),
                  (72, 130, "The pumpkin test was removed.")])
    return write_pdf(tmp_path / "valgrind.pdf", pages, fontsize=8)


def test_a_rare_word_no_dictionary_has_is_matched_exactly(library, tmp_path):
    added = list(library.add([manual(tmp_path)]))
    assert [e.stage for e in added if e.stage in ("done", "failed")] == ["done"]
    hits = library.search(QUESTION, k=10)
    assert hits[0].page == 41 and "exact" in hits[0].sources, [(h.page, h.sources) for h in hits]
    assert not any("exact" in h.sources for h in hits[1:]), [(h.page, h.sources) for h in hits]


@pytest.mark.parametrize(("question", "rare"), [
    (QUESTION, ['"rseq"']),
    ("Which Valgrind release removed the pumpkin test?", []),  # a dictionary word
    ("How does Valgrind handle signals on Linux?", []),  # words many chunks use
    # a word no chunk uses is nothing to match ("frobnicate"); "syscall", in one chunk, is
    ("Does Valgrind handle the frobnicate syscall?", ['"syscall"']),
])
def test_which_words_are_rare(library, tmp_path, question, rare):
    list(library.add([manual(tmp_path)]))
    s = library.searcher
    assert s._rare_words(searcher.plan_query(question), []) == rare


def test_rare_words_can_be_turned_off(library, tmp_path, monkeypatch):
    list(library.add([manual(tmp_path)]))
    monkeypatch.setattr(searcher, "RARE_WORD_DF", 0)
    assert library.searcher._rare_words(searcher.plan_query(QUESTION), []) == []


def test_in_a_library_of_a_few_chunks_no_word_is_rare(library, tmp_path):
    pdf = write_pdf(tmp_path / "notes.pdf", [[(72, 80, "The Linux rseq syscall is now implemented as returning ENOSYS.")],
                                             [(72, 80, "Valgrind handles each system call a program makes.")]])
    list(library.add([pdf]))
    assert library.store.chunks.count() < 1 / searcher.RARE_WORD_SHARE
    assert library.searcher._rare_words(searcher.plan_query(QUESTION), []) == []
