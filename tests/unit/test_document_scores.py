"""The document index scores the documents a question may name in one search per score and per term over the
documents found: the same hits (scores, name terms, order) as asking each document apart, which is how the scores
are defined here."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus.lexical.index import DocEntry, DocHit, IndexState
from kruschnexus.lexical.tantivy_index import TantivyIndex

WORDS = ("master", "lease", "credit", "agreement", "acme", "ribbon", "bylaws", "oakland", "code", "amendment")

names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
fronts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=20).map(" ".join)
documents = st.lists(st.tuples(names, fronts), min_size=1, max_size=12)
questions = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True)


@contextmanager
def _indexed(docs: list[tuple[str, str]]) -> Iterator[TantivyIndex]:
    """A document index in a temporary folder holding one entry per (name, front)."""
    with tempfile.TemporaryDirectory() as folder:
        index = TantivyIndex(Path(folder) / "index")
        try:
            entries = [DocEntry(f"{n:064d}", name, front) for n, (name, front) in enumerate(docs)]
            index.replace([], [], entries)
            index.commit(IndexState("test", 1))
            yield index
        finally:
            index.close()


def _one_by_one(index: TantivyIndex, terms: list[str], limit: int, front_weight: float) -> list[DocHit]:
    """The definition: each document found scored, and its name searched for each term, apart from the others."""
    schema = index._docs.schema
    searcher = index._docs.searcher()

    def either(field: str) -> Any:
        queries = [tantivy.Query.term_query(schema, field, t, index_option="freq") for t in terms]
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in queries])

    def score(scored: Any, only: Any) -> float:
        zero = tantivy.Query.const_score_query(only, 0.0)
        both = tantivy.Query.boolean_query([(tantivy.Occur.Must, scored), (tantivy.Occur.Must, zero)])
        hits = searcher.search(both, 1).hits
        return float(hits[0][0]) if hits else 0.0

    name_q, front_q = either("name"), either("front")
    combined = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, name_q), (tantivy.Occur.Should, tantivy.Query.boost_query(front_q, front_weight))]
    )
    out = []
    for _, address in searcher.search(combined, limit).hits:
        doc_id = str(searcher.doc(address)["doc_id"][0])
        only = tantivy.Query.term_query(schema, "doc_id", doc_id)
        named = tuple(
            t
            for t in terms
            if searcher.search(
                tantivy.Query.boolean_query(
                    [(tantivy.Occur.Must, tantivy.Query.term_query(schema, "name", t)), (tantivy.Occur.Must, only)]
                ),
                1,
            ).hits
        )
        out.append(DocHit(doc_id, score(name_q, only), score(front_q, only), named, front_weight))
    return sorted(out, key=lambda h: (-h.total, -h.score, h.doc_id))


@settings(max_examples=60, deadline=None)
@given(docs=documents, terms=questions, limit=st.integers(1, 6), front_weight=st.sampled_from([0.0, 0.25, 1.0]))
def test_documents_are_scored_as_each_apart(
    docs: list[tuple[str, str]], terms: list[str], limit: int, front_weight: float
) -> None:
    with _indexed(docs) as index:
        analysed = list(dict.fromkeys(t for word in terms for t in index.analyze(word)))
        hits = index.documents(analysed, limit, front_weight)
        assert hits == _one_by_one(index, analysed, limit, front_weight)


def test_a_document_matched_by_its_first_pages_alone_has_no_name_score() -> None:
    with _indexed([("acme master lease", "rent"), ("ribbon bylaws", "acme acme credit")]) as index:
        acme, credit = index.analyze("acme credit")
        hits = {h.doc_id[-1]: h for h in index.documents([acme, credit], 5, 0.5)}
    assert hits["0"].score > 0 and hits["0"].name_terms == (acme,)
    assert hits["1"].score == 0.0 and hits["1"].front > 0 and hits["1"].name_terms == ()


def test_no_document_matches() -> None:
    with _indexed([("acme master lease", "rent")]) as index:
        assert index.documents(["oakland"], 5, 0.5) == []
        assert index.documents([], 5, 0.5) == []
