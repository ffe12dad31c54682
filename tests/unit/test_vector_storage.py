"""The doctor's vector storage line (migration 0011: vectors kept in their spans' rows), for each reading."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.doctor import VACUUM_FULL_FIGURE, vector_storage_detail
from kruschnexus.store.records import VectorStorage


def test_nothing_in_toast_or_nothing_older_is_an_all_clear() -> None:
    assert vector_storage_detail(VectorStorage(0, 0, 0, 0)) == (
        "vectors are kept in their spans' rows (the spans table keeps nothing in TOAST)"
    )
    assert vector_storage_detail(VectorStorage(8192, 0, 0, 0)) == (
        "vectors are kept in their spans' rows (every span was stored since migration 0011)"
    )
    assert vector_storage_detail(VectorStorage(8192, 40, 40, 0)) == (
        "vectors are kept in their spans' rows (40 spans were stored before migration 0011; 40 of them read)"
    )


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(n, 10**7), st.just(n), st.integers(1, n))))
def test_vectors_left_in_toast_are_counted_and_the_rewrite_named(counts: tuple[int, int, int]) -> None:
    older, read, outside = counts
    detail = vector_storage_detail(VectorStorage(1 << 20, older, read, outside))
    assert detail.startswith(f"{older} spans were stored before migration 0011; {outside} of the {read} read keep")
    assert "`VACUUM FULL spans`" in detail and "blocks every search and ingest" in detail
    assert VACUUM_FULL_FIGURE in detail


def test_a_server_that_cannot_tell_is_told_what_rewrites_older_spans() -> None:
    detail = vector_storage_detail(VectorStorage(1 << 20, 12, 0, None))
    assert detail.startswith("12 spans were stored before migration 0011; their vectors may be in TOAST")
    assert "before PostgreSQL 17" in detail and "`VACUUM FULL spans`" in detail
