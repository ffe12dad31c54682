"""The doctor's vector storage line (migration 0011: vectors kept in their spans' rows), for each count it may read."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.doctor import VACUUM_FULL_FIGURE, vector_storage_detail


def test_no_spans_and_every_vector_in_its_row() -> None:
    assert vector_storage_detail((0, 0)) == "no spans stored yet"
    assert vector_storage_detail((10_000, 0)) == "vectors are kept in their spans' rows (10000 spans read)"


@given(st.integers(min_value=1, max_value=10_000).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_vectors_left_in_toast_are_counted_and_the_rewrite_named(found: tuple[int, int]) -> None:
    detail = vector_storage_detail(found)
    assert detail.startswith(f"{found[1]} of the first {found[0]} spans hold their vector in the TOAST table")
    assert "`VACUUM FULL spans`" in detail and "locks the table" in detail and VACUUM_FULL_FIGURE in detail


def test_a_server_that_cannot_tell_is_told_what_rewrites_old_spans() -> None:
    detail = vector_storage_detail(None)
    assert "before PostgreSQL 17" in detail and "`VACUUM FULL spans`" in detail
