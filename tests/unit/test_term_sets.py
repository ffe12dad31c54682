"""The lexical index restricts to documents, types and sections by one term query per value: the same entries as
tantivy's term-set query, which it stands for because that reads the field's whole term dictionary first; no value
matches nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from kruschnexus.lexical.index import IndexState, SpanEntry
from kruschnexus.lexical.tantivy_index import TantivyIndex, _one_of

DOCS = tuple(f"{n:064x}" for n in range(6))
TYPES = ("lease", "credit_agreement", "bylaws")
KEYS = ("8.22.030", "8.22.030(c)", "article iv", "2.1")

spans = st.lists(
    st.tuples(st.sampled_from(DOCS), st.sampled_from(TYPES), st.lists(st.sampled_from(KEYS), max_size=2)),
    min_size=1,
    max_size=30,
)
#: The fields restricted by values: documents, types, sections as stored, and the section markers of a span's lines
#: (``ids``, indexed with frequencies where the others are not).
FIELDS = ("doc_id", "doc_type", "section_keys", "ids")


@settings(max_examples=40, deadline=None)
@given(
    entries=spans,
    field_values=st.one_of(
        st.tuples(st.just("doc_id"), st.lists(st.sampled_from(DOCS), min_size=1, max_size=4)),
        st.tuples(st.just("doc_type"), st.lists(st.sampled_from(TYPES), min_size=1, max_size=3)),
        st.tuples(st.just("section_keys"), st.lists(st.sampled_from(KEYS), min_size=1, max_size=3)),
        st.tuples(st.just("ids"), st.lists(st.sampled_from(KEYS), min_size=1, max_size=3)),
    ),
)
def test_one_term_query_per_value_matches_the_term_set(
    entries: list[tuple[str, str, list[str]]], field_values: tuple[str, list[str]]
) -> None:
    field, values = field_values
    with tempfile.TemporaryDirectory() as folder:
        index = TantivyIndex(Path(folder) / "index")
        try:
            index.replace(
                [],
                [
                    SpanEntry(doc, 1, n, "rent", "", tuple(keys), tuple(keys), kind, True)
                    for n, (doc, kind, keys) in enumerate(entries)
                ],
                [],
            )
            index.commit(IndexState("test", 1))
            schema, searcher = index._spans.schema, index._spans.searcher()

            def ordinals(query: tantivy.Query) -> set[int]:
                return {int(searcher.doc(a)["ordinal"][0]) for _, a in searcher.search(query, 100).hits}

            expected = ordinals(tantivy.Query.term_set_query(schema, field, values))
            assert ordinals(_one_of(schema, field, values)) == expected
            held = {n for n, (doc, kind, keys) in enumerate(entries) if {doc, kind, *keys} & set(values)}
            assert expected == held
        finally:
            index.close()


def test_no_value_matches_nothing() -> None:
    with tempfile.TemporaryDirectory() as folder:
        index = TantivyIndex(Path(folder) / "index")
        try:
            index.replace([], [SpanEntry(DOCS[0], 1, 0, "rent", "", (), (), "lease", True)], [])
            index.commit(IndexState("test", 1))
            schema, searcher = index._spans.schema, index._spans.searcher()
            assert all(searcher.search(_one_of(schema, field, []), 10).hits == [] for field in FIELDS)
        finally:
            index.close()
