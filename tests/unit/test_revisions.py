"""The pure parts of comparing versions: heading titles without their numbers, and old hits read from ids or JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.errors import QueryError
from kruschnexus.revisions import OldHit, heading_title


@pytest.mark.parametrize(
    ("header", "title"),
    [
        ("Section 4. Rent", "rent"),
        ("Section 5. Rent", "rent"),
        ("8.22.030 Hours.", "hours"),
        ("ARTICLE IV REPRESENTATIONS AND WARRANTIES", "representations and warranties"),
        ("4.1 Rent", "rent"),
        ("12.1(a) Late Charges", "late charges"),
        ("IV. Conclusion", "conclusion"),
        ("Definitions", "definitions"),
        ("", ""),
    ],
)
def test_a_heading_title_leaves_its_number_out(header: str, title: str) -> None:
    assert heading_title(header) == title


@given(st.integers(1, 999), st.integers(1, 99), st.sampled_from(["Rent", "Security Deposit", "Use of Premises"]))
def test_renumbering_keeps_the_title(major: int, minor: int, words: str) -> None:
    assert heading_title(f"Section {major}.{minor} {words}") == heading_title(f"{major + 1}. {words}")


def test_an_old_hit_is_read_from_its_id_or_its_json() -> None:
    doc = "ab" * 32
    paged = OldHit.parse(f"{doc}:3:10-42")
    assert (paged.doc_id, paged.page_number, paged.locator, paged.char_start, paged.char_end) == (doc, 3, None, 10, 42)
    row = OldHit.parse(doc + ':{"kind": "row", "row": 4}:0-9')
    assert (row.page_number, row.locator) == (None, {"kind": "row", "row": 4})
    hit = {"doc_id": doc, "page_number": None, "locator": {"kind": "row", "row": 4}, "char_start": 0, "char_end": 9}
    assert OldHit.parse(json.dumps({**hit, "text": "Acme", "document": "p.csv", "version": 1})).document == "p.csv"
    assert OldHit.parse(hit).text is None, "a 1.0 hit without text or document still parses"


@pytest.mark.parametrize("bad", ["", "not a hit", "ab:3:1-2", "ab" * 32 + ":three:1-2", "[1, 2]", '{"doc_id": "x"}'])
def test_anything_else_is_a_clear_query_error(bad: str) -> None:
    with pytest.raises(QueryError):
        OldHit.parse(bad)
