"""What the store writes and reads is typed: each ``INSERT`` names its record's fields once, in order, and binds
each to its own parameter; the hit column list is the hit record."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st
from psycopg import sql

from kruschnexus.store import queries as q
from kruschnexus.store.records import (
    BlockRecord,
    DocumentRecord,
    HitRow,
    LegRow,
    PageRecord,
    SpanRecord,
    TokenRecord,
    columns,
    values,
)
from tests.unit.test_sql import _check

INSERTS: list[tuple[str, sql.Composed, type]] = [
    ("documents", q.INSERT_DOCUMENT, DocumentRecord),
    ("pages", q.INSERT_PAGE, PageRecord),
    ("blocks", q.INSERT_BLOCK, BlockRecord),
    ("spans", q.INSERT_SPAN, SpanRecord),
    ("tokens", q.INSERT_TOKEN, TokenRecord),
]


def test_inserts_are_pinned() -> None:
    _check("inserts.sql", "\n".join(statement.as_string(None) for _, statement, _ in INSERTS))


@pytest.mark.parametrize(("table", "statement", "record"), INSERTS, ids=[t for t, _, _ in INSERTS])
def test_an_insert_lists_its_record_fields_in_order_and_binds_each(
    table: str, statement: sql.Composed, record: type
) -> None:
    text = statement.as_string(None)
    m = re.match(rf'INSERT INTO "{table}" \((?P<names>[^)]*)\) VALUES', text)
    assert m is not None, text
    names = [n.strip().strip('"') for n in m.group("names").split(",")]
    assert names[: len(columns(record))] == list(columns(record))
    assert len(names) == len(set(names)), "a column named twice"
    assert set(re.findall(r"%\((\w+)\)s", text)) == set(columns(record)), "a field unbound, or a stray parameter"


def test_the_hit_column_list_is_the_hit_record() -> None:
    names = [item.split(" AS ")[-1].split(".")[-1].strip() for item in q._HIT_COLUMN_LIST.split(",")]
    assert names == list(columns(HitRow))
    assert columns(LegRow)[: len(names)] == tuple(names), "a leg row is a hit row and then what the leg adds"


@given(
    st.text(max_size=20),
    st.integers(min_value=1, max_value=10_000),
    st.lists(st.floats(allow_nan=False, width=32), min_size=4, max_size=4),
    st.one_of(st.none(), st.dictionaries(st.sampled_from(["kind", "row", "col"]), st.integers(), max_size=3)),
)
def test_values_are_the_fields_themselves(
    text: str, page: int, box: list[float], locator: dict[str, int] | None
) -> None:
    record = PageRecord("w", "d" * 64, page, text, box[2], box[3], 0, None, False, True, locator)
    bound = values(record)
    assert list(bound) == [f.name for f in fields(PageRecord)]
    assert all(bound[name] is getattr(record, name) for name in bound), "values are bound as they are, not copied"
