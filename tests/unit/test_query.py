"""The query language: table-driven cases from cases/queries.json, and properties of the parser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.errors import QueryError
from kruschnexus.retrieve.query import Query, parse_query

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "queries.json").read_text("utf-8"))
FIELDS = ("text", "phrases", "excluded_terms", "excluded_phrases", "doc_types", "pages", "docs", "sections")


@pytest.mark.parametrize("case", CASES, ids=[c["raw"] or "<empty>" for c in CASES])
def test_query_cases(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(QueryError) as info:
            parse_query(case["raw"])
        assert case["error"] in str(info.value)
        assert info.value.offset == case["offset"]
        assert f"(at position {case['offset']})" in str(info.value)
        return
    query = parse_query(case["raw"])
    expect = case["expect"]
    for name in (*FIELDS, "section_refs"):
        default: Any = "" if name == "text" else []
        got = getattr(query, name)
        got = [list(p) for p in got] if name == "pages" else (list(got) if isinstance(got, tuple) else got)
        assert got == expect.get(name, default), name
    assert query.raw == case["raw"]


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.,()§", min_size=1, max_size=10)


@given(st.lists(_word, max_size=8))
def test_plain_words_stay_free_text(words: list[str]) -> None:
    raw = " ".join(words)
    query = parse_query(raw)
    assert query.text == " ".join(w for w in words)
    assert not (query.phrases or query.excluded_terms or query.doc_types or query.pages or query.docs)


@given(st.text(max_size=60))
def test_any_input_parses_or_names_a_position(raw: str) -> None:
    try:
        query = parse_query(raw)
    except QueryError as exc:
        assert 0 <= exc.offset <= len(raw)
        return
    assert isinstance(query, Query)
    assert all(lo <= hi for lo, hi in query.pages)


def test_search_text_joins_free_text_and_phrases() -> None:
    query = parse_query('"office space" rent page:1')
    assert query.search_text == "rent office space"
    assert parse_query("page:1").is_empty


def test_a_nul_character_is_a_query_error_not_a_database_error() -> None:
    with pytest.raises(QueryError, match="NUL character") as caught:
        parse_query("rent\x00 OR 1=1")
    assert caught.value.offset == 4
