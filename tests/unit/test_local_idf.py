"""Within the document a question names, the lexical leg weighs words by that document's own statistics: a word
that runs through the whole document (the clinic of a clinic's lease) stops outranking the words that pick the
clause, however rare it is in the rest of the workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kruschnexus.lexical.index import IndexState, LexicalQuery, SpanEntry
from kruschnexus.lexical.tantivy_index import TantivyIndex

LEASE = "a" * 64
OTHERS = [f"{n:064x}" for n in range(1, 4)]
QUESTION = "when does the term of the clinic lease end"


def _span(doc_id: str, ordinal: int, text: str) -> SpanEntry:
    return SpanEntry(doc_id, 1, ordinal, text, "", (), (), "lease", True)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[TantivyIndex]:
    lease = [
        _span(
            LEASE,
            0,
            "Recitals. The landlord leases the clinic building to the tenant for a health clinic; the"
            " clinic lease has a term.",
        ),
        _span(LEASE, 1, "The term of this lease shall end on December 31, 2017 unless sooner terminated."),
        *(
            _span(LEASE, 2 + n, f"The clinic shall keep clause {n} of the clinic rules and the clinic hours posted.")
            for n in range(8)
        ),
    ]
    # Elsewhere "term" and "end" are everyday words and "clinic" never occurs: the workspace's statistics make
    # "clinic" the rarest word of the question.
    others = [
        _span(doc, n, f"Interest accrues until the end of the term of the loan under schedule {n}.")
        for doc in OTHERS
        for n in range(40)
    ]
    opened = TantivyIndex(tmp_path / "index")
    opened.replace([], lease + others, [])
    opened.commit(IndexState("test", 1))
    yield opened
    opened.close()


def _top(index: TantivyIndex, local_idf: float, doc_ids: tuple[str, ...] = (LEASE,)) -> list[tuple[str, int, int]]:
    return [h.key for h in index.search(LexicalQuery(text=QUESTION, doc_ids=doc_ids, local_idf=local_idf), 3)]


def test_a_word_of_the_whole_document_no_longer_picks_the_span(index: TantivyIndex) -> None:
    assert _top(index, 0.0)[0] == (LEASE, 1, 0), "without local statistics the preamble repeating 'clinic' wins"
    assert _top(index, 1.5)[0] == (LEASE, 1, 1), "with them, the clause about the term's end wins"


def test_weights_follow_the_documents_own_frequencies(index: TantivyIndex) -> None:
    query = LexicalQuery(text=QUESTION, doc_ids=(LEASE,), local_idf=1.0)
    weights = index._local_weights(query, index._idfs(QUESTION))
    assert weights is not None
    clinic, end = index.analyze("clinic")[0], index.analyze("end")[0]
    assert weights[clinic] < 0.5 < weights[end], weights
    hits = index.search(query, 10)
    assert all(0.0 <= h.coverage <= 1.0 for h in hits)


def test_only_a_search_within_one_named_document_is_reweighted(index: TantivyIndex) -> None:
    """One document, or a few (one contract kept in several formats): its own statistics; more: the workspace's."""
    many = (LEASE, *OTHERS)
    assert _top(index, 1.5, many) == _top(index, 0.0, many)
    assert index._local_weights(LexicalQuery(text=QUESTION, doc_ids=many, local_idf=1.5), index._idfs(QUESTION)) is None
    assert (
        index._local_weights(
            LexicalQuery(text=QUESTION, doc_ids=(LEASE, OTHERS[0]), local_idf=1.5), index._idfs(QUESTION)
        )
        is not None
    )
    assert (
        index._local_weights(LexicalQuery(text=QUESTION, doc_ids=(LEASE,), local_idf=0.0), index._idfs(QUESTION))
        is None
    )
