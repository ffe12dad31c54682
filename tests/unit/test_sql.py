"""The retrieval SQL is built in one place, pinned by golden files, and never carries a value in its text."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.retrieve.filters import glob_to_like, items_only, items_with_numbers, phrase_pattern, span_filter
from kruschnexus.retrieve.query import parse_query
from kruschnexus.store import queries as q

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FULL = q.SpanFilter(
    workspace="w",
    doc_types=("lease",),
    page_ranges=((1, 2),),
    source_likes=("%.pdf",),
    sections=("8.22",),
    section_likes=("8.22.%", "8.22(%"),
    line_marker_keys=("8.22",),
    section_patterns=("(^|\n)[ \t]*8\\.22([^0-9a-z]|$)",),
    phrase_patterns=("office[[:space:]]+space",),
    excluded_likes=("%retail%",),
    excluded_terms=("hazardous",),
    doc_ids=("d1",),
)


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("NEXUS_REGEN_GOLDEN") == "1":
        path.write_text(text + "\n", encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text + "\n", f"{name} changed: review, then NEXUS_REGEN_GOLDEN=1"


def test_dense_leg_is_pinned() -> None:
    sql, params = q.dense_leg(FULL, 384)
    _check("dense_leg.sql", sql.as_string(None))
    assert set(params) == {
        "workspace", "doc_types", "page_lo", "page_hi", "source_likes", "sections", "section_like_0",
        "section_like_1", "line_marker_keys", "section_pattern_0", "phrase_0", "excluded_likes", "excluded_terms",
        "doc_ids",
    }  # fmt: skip


def test_capped_exact_leg_carries_values_as_parameters() -> None:
    sql_text = q.capped_exact_leg(_filled("'; DROP TABLE spans; --"), 384)[0].as_string(None)
    assert sql_text == q.capped_exact_leg(FULL, 384)[0].as_string(None) and "DROP" not in sql_text


def test_the_word_first_ranking_is_pinned_and_carries_values_as_parameters() -> None:
    """The spans are found by the word (two ``LIKE``, else its regular expression) with every other restriction; the
    phrases are tested only after the spans are ordered by distance, on each span's own row."""
    sql, params = q.word_first_exact_leg(FULL, 384)
    text = sql.as_string(None)
    _check("word_first_exact_leg.sql", text)
    hostile = q.word_first_exact_leg(_filled("'; DROP TABLE spans; --"), 384)[0].as_string(None)
    assert hostile == text and "DROP" not in hostile
    assert params["phrase_0"] == FULL.phrase_patterns[0]
    found = text.index("(s.text LIKE %(word_title)s OR s.text LIKE %(word_lower)s OR s.text ~* %(word_pattern)s)")
    assert found < text.index("ORDER BY distance OFFSET 0") < text.index("t.text ~* %(phrase_0)s")
    assert "s.text ~* %(phrase_0)s" not in text


def test_the_nearest_first_read_tests_its_filter_on_the_rows_it_read() -> None:
    """The filter applies above the read of the ``scan`` nearest spans (whole rows), never to ``spans`` itself: no
    index of the filter (a phrase's trigrams) can find spans for it."""
    text = q.nearest_first_leg(FULL, 384)[0].as_string(None)
    read = text.index("LIMIT %(scan)s) s")
    assert "JOIN spans" not in text and text.count("FROM spans") == 1
    assert text.index("FROM (SELECT s.*,") < text.index("FROM spans s") < read < text.rindex(" WHERE s.workspace")
    assert text.index("s.text ~* %(phrase_0)s") > read


def test_keyed_leg_is_pinned() -> None:
    sql, _ = q.keyed_leg(FULL)
    _check("keyed_leg.sql", sql.as_string(None))


def test_keyed_nearer_is_pinned() -> None:
    sql, _ = q.keyed_nearer(FULL, 384)
    _check("keyed_nearer.sql", sql.as_string(None))


def test_span_cosines_is_pinned() -> None:
    """The check's cosines: by primary key within the workspace, only spans of the question's dimension."""
    _check("span_cosines.sql", q.span_cosines(384).as_string(None))
    assert q.span_cosines(768).as_string(None) == q.span_cosines(384).as_string(None).replace("384", "768")


def _filled(value: str) -> q.SpanFilter:
    return q.SpanFilter(
        workspace=value,
        doc_types=(value,),
        page_ranges=((1, 2),),
        source_likes=(value,),
        sections=(value,),
        section_likes=(value, value),
        line_marker_keys=(value,),
        section_patterns=(value,),
        phrase_patterns=(value,),
        excluded_likes=(value,),
        excluded_terms=(value,),
        doc_ids=(value,),
    )


@given(st.text(min_size=1, max_size=40))
def test_values_never_enter_the_sql_text(value: str) -> None:
    hostile = _filled(value)
    assert q.dense_leg(hostile, 384)[0].as_string(None) == q.dense_leg(FULL, 384)[0].as_string(None)
    assert q.keyed_leg(hostile)[0].as_string(None) == q.keyed_leg(FULL)[0].as_string(None)
    assert q.dense_leg(hostile, 384)[1]["workspace"] == value


def test_operators_become_filters() -> None:
    f = span_filter(parse_query('"Office  Space" -retail doc:lease_*.pdf page:3 doc_type:x Section 8.22 rent'), "w")
    assert f.phrase_patterns == (phrase_pattern("Office Space"),)
    assert f.excluded_terms == ("retail",)
    assert f.source_likes == ("lease\\_%.pdf",)
    assert f.page_ranges == ((3, 3),) and f.doc_types == ("x",)
    assert f.sections == ("8.22",) and f.section_likes == ("8.22.%", "8.22(%")
    assert glob_to_like("a%b?c*") == "a\\%b_c%"


def test_an_item_key_matches_the_item_under_any_section() -> None:
    """``paragraph (g)`` (within a named document) keeps ``(g)``, ``(g)(2)``, ``5.1(g)`` and ``5.1(g)(2)``."""
    f = span_filter(parse_query("paragraph (g) of the directive"), "w")
    assert f.sections == ("(g)", "(G)")
    assert {"(g).%", "(g)(%", "%(g)", "%(g)(%", "%(G)", "%(G)(%"} <= set(f.section_likes)
    assert not any(like.startswith("%") for like in span_filter(parse_query("Section 8.22"), "w").section_likes)


def test_an_item_restricts_only_with_a_document_and_never_widens_a_section() -> None:
    """``paragraph (g)`` restricts within a named document or a ``doc:`` one, and only reorders otherwise; next to
    a numbered section (``Section 5.1 paragraph (a)``) the section alone restricts."""
    bare = parse_query("paragraph (g) of the directive")
    assert items_only(bare, named=False)
    assert not items_only(bare, named=True)
    assert not items_only(parse_query("doc:AD-2021-*.pdf paragraph (g)"), named=False)
    assert items_with_numbers(parse_query("Section 5.1 paragraph (a)")).sections == ("5.1",)
    assert items_with_numbers(bare).sections == ("(g)", "(G)")


def test_a_phrase_becomes_one_pattern_of_its_words() -> None:
    """Words in order, any white space between them, ASCII marks escaped, letter case left to ``~*``."""
    assert (
        phrase_pattern("Events  of Default")
        == "events[[:space:]\u00a0\u2007\u202f]+of[[:space:]\u00a0\u2007\u202f]+default"
    )
    assert phrase_pattern("§ 8.22(c)") == "§[[:space:]\u00a0\u2007\u202f]+8\\.22\\(c\\)"
    f = span_filter(parse_query('"events of default" "8.22" rent'), "w")
    _, params = q.dense_leg(f, 384)
    assert (params["phrase_0"], params["phrase_1"]) == f.phrase_patterns and f.planned_for_values


def test_a_scope_is_one_statement_of_bound_values() -> None:
    """The workspace, the lowered role and a leg's settings are set in one statement; every name and value is
    bound, none is in the text."""
    assert q.scope_statement(False).as_string(None) == "SELECT set_config('nexus.workspace', %(workspace)s, true)"
    assert q.scope_statement(True, 2).as_string(None) == (
        "SELECT set_config('nexus.workspace', %(workspace)s, true), set_config('role', 'nexus_workspace', true),"
        " set_config(%(setting_0)s, %(value_0)s, true), set_config(%(setting_1)s, %(value_1)s, true)"
    )
