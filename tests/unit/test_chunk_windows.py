"""Cutting a region into windows (``chunk.chunker.windows``) and run-in headings (``header_of``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.chunk.chunker import HEADER_CHARS, header_of, windows
from kruschnexus.model import BlockKind

WORDS = ["rent", "Tenant", "shall", "pay", "the", "Landlord", "Sec.", "e.g.", "U.S.", "premises", "§", "(a)"]

piece = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=60),  # long words force hard cuts
    st.sampled_from([". ", "; ", "? ", ".\n", ".) ", '." ', "\n", "\n\n", "  ", " ", "\t", "\u00a0"]),
    st.sampled_from(["A", "The", "1", "(b)", "'Quoted'", "§ 8.22"]),
)


@st.composite
def texts_and_ranges(draw: st.DrawFn) -> tuple[str, int, int, int]:
    text = "".join(draw(st.lists(piece, max_size=80)))
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, len(text)))
    max_chars = draw(st.integers(20, 200))
    return text, start, end, max_chars


@given(texts_and_ranges())
def test_windows_invariants(case: tuple[str, int, int, int]) -> None:
    text, start, end, max_chars = case
    out = windows(text, start, end, max_chars)
    previous_end = start
    for lo, hi in out:
        assert previous_end <= lo < hi <= end  # ordered, disjoint, non-empty, inside the range
        assert hi - lo <= max_chars
        assert not text[lo].isspace()
        assert not text[hi - 1].isspace()
        previous_end = hi
    covered = {i for lo, hi in out for i in range(lo, hi)}
    missing = [i for i in range(start, end) if not text[i].isspace() and i not in covered]
    assert missing == []


@given(texts_and_ranges())
def test_a_range_that_fits_is_one_trimmed_window(case: tuple[str, int, int, int]) -> None:
    text, start, end, _ = case
    out = windows(text, start, end, max(20, end - start))
    body = text[start:end]
    if body.strip():
        lo = start + (len(body) - len(body.lstrip()))
        hi = end - (len(body) - len(body.rstrip()))
        assert out == [(lo, hi)]
    else:
        assert out == []


def test_cuts_after_a_sentence_end() -> None:
    text = "Tenant shall pay rent monthly. Landlord shall keep the roof in repair. Both agree."
    out = windows(text, 0, len(text), 50)
    assert [text[a:b] for a, b in out] == [
        "Tenant shall pay rent monthly.",
        "Landlord shall keep the roof in repair.",
        "Both agree.",
    ]


def test_does_not_cut_after_an_abbreviation() -> None:
    text = "Tenant shall comply with Sec. 4 of this lease and pay rent."
    out = windows(text, 0, len(text), 40)
    first = text[out[0][0] : out[0][1]]
    assert not first.endswith("Sec.")
    assert [text[a:b] for a, b in out] == ["Tenant shall comply with Sec. 4 of this", "lease and pay rent."]


def test_hard_cut_inside_a_long_word() -> None:
    text = "x" * 50
    assert windows(text, 0, 50, 20) == [(0, 20), (20, 40), (40, 50)]


def test_only_spaces_give_no_window() -> None:
    assert windows("   \n\n  ", 0, 7, 20) == []
    assert windows("abc", 1, 1, 20) == []


def test_window_respects_the_range_inside_a_larger_text() -> None:
    text = "HEADER\n\nBody text of the block.\n\nFOOTER"
    start = text.index("Body")
    end = start + len("Body text of the block.")
    assert windows(text, start - 2, end + 2, 100) == [(start, end)]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("ARTICLE IV\n   TERM", BlockKind.HEADING, "ARTICLE IV TERM"),
        ("  Section 4.1   Rent.  ", BlockKind.HEADING, "Section 4.1 Rent."),
        (
            "8.22.030 - Exemptions. A. The following units are exempt.",
            BlockKind.PARAGRAPH,
            "8.22.030 - Exemptions.",
        ),
        ("Section 4.1 Rent. Tenant shall pay\nrent monthly.", BlockKind.PARAGRAPH, "Section 4.1 Rent."),
        ("1. Definitions. In this lease:", BlockKind.LIST_ITEM, "1. Definitions."),
        ("A. Types of units exempt.", BlockKind.LIST_ITEM, "A. Types of units exempt."),
    ],
)
def test_header_of(text: str, kind: BlockKind, expected: str) -> None:
    assert header_of(text, kind) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sec. 5.2 Rent. Tenant shall pay rent monthly.", "Sec. 5.2 Rent."),
        ("SEC. 12 NOTICES. Notices shall be in writing.", "SEC. 12 NOTICES."),
        ("Ordinance No. 13280 Rent Program. The program applies.", "Ordinance No. 13280 Rent Program."),
    ],
)
def test_header_of_does_not_stop_at_an_abbreviation(text: str, expected: str) -> None:
    """``Sec.`` and ``No.`` are abbreviations (``windows`` never cuts after them, and ``Sec.`` is a section
    marker): a run-in heading is the whole first sentence, not the abbreviation."""
    assert header_of(text, BlockKind.PARAGRAPH) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Section 2. Term. The term is five years.", "Section 2. Term."),
        ("SECTION 12. NOTICES. Notices shall be in writing.", "SECTION 12. NOTICES."),
    ],
)
def test_header_of_does_not_stop_at_the_dot_of_a_section_number(text: str, expected: str) -> None:
    """``Section 2.`` is the marker (``parse_marker`` reads the dot as part of it), not a sentence."""
    assert header_of(text, BlockKind.PARAGRAPH) == expected


def test_header_of_long_paragraph_is_cut_at_a_word() -> None:
    text = " ".join(["word"] * 60)  # no sentence end at all
    head = header_of(text, BlockKind.PARAGRAPH)
    assert head.endswith("…")
    assert len(head) <= HEADER_CHARS + 1
    assert text.startswith(head[:-1])
    assert head[:-1].endswith("word")


def test_header_of_heading_is_never_cut() -> None:
    text = "VERY LONG HEADING " * 10
    assert header_of(text, BlockKind.HEADING) == text.strip()
