"""Reading order by recursive XY-cut (``layout.order.reading_order``) on synthetic line boxes."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.layout.order import reading_order
from kruschnexus.model import Rect

LINE_H = 10.0
PITCH = 14.0  # baseline-to-baseline: 4 pt of leading between lines


def column(x0: float, x1: float, top: float, n: int) -> list[Rect]:
    return [(x0, top + k * PITCH, x1, top + k * PITCH + LINE_H) for k in range(n)]


def ordered(rects: list[Rect]) -> list[Rect]:
    return [rects[i] for i in reading_order(rects)]


def test_empty() -> None:
    assert reading_order([]) == []


def test_single_column_reads_top_to_bottom() -> None:
    lines = column(72, 540, 100, 12)
    shuffled = lines[:]
    random.Random(7).shuffle(shuffled)
    assert ordered(shuffled) == lines


def test_ragged_single_column_reads_top_to_bottom() -> None:
    lines = [(72, 100 + k * PITCH, 300 + (k * 37) % 240, 110 + k * PITCH) for k in range(10)]
    assert ordered(list(reversed(lines))) == lines


def test_two_columns_read_left_column_first() -> None:
    left = column(72, 288, 100, 8)
    right = column(324, 540, 100, 8)
    interleaved = [r for pair in zip(left, right, strict=True) for r in pair]  # text-layer order: row by row
    assert ordered(interleaved) == left + right


def test_title_above_two_columns_comes_first_and_footer_last() -> None:
    title = (150.0, 50.0, 460.0, 70.0)
    left = column(72, 288, 100, 8)
    right = column(324, 540, 100, 8)
    footer = (72.0, 740.0, 540.0, 750.0)
    items = [footer, *right, title, *left]
    assert ordered(items) == [title, *left, *right, footer]


def test_words_on_one_line_read_left_to_right() -> None:
    words = [(300.0, 100.0, 340.0, 110.0), (72.0, 101.0, 120.0, 111.0), (130.0, 99.5, 200.0, 109.5)]
    assert ordered(words) == [words[1], words[2], words[0]]


finite = st.floats(min_value=0, max_value=800, allow_nan=False, allow_infinity=False)
size = st.floats(min_value=0, max_value=300, allow_nan=False, allow_infinity=False)


@st.composite
def rect(draw: st.DrawFn) -> Rect:
    x0, y0 = draw(finite), draw(finite)
    return (x0, y0, x0 + draw(size), y0 + draw(size))


@given(st.lists(rect(), max_size=60))
def test_result_is_a_permutation(rects: list[Rect]) -> None:
    order = reading_order(rects)
    assert sorted(order) == list(range(len(rects)))
    assert reading_order(rects) == order  # deterministic


@st.composite
def two_column_pages(draw: st.DrawFn) -> tuple[list[Rect], list[Rect]]:
    def col(x0: float, max_x1: float) -> list[Rect]:
        n = draw(st.integers(1, 25))
        widths = draw(st.lists(st.floats(20, max_x1 - x0), min_size=n, max_size=n))
        return [(x0, 100 + k * PITCH, x0 + w, 100 + k * PITCH + LINE_H) for k, w in enumerate(widths)]

    return col(72, 288), col(324, 540)


@given(two_column_pages(), st.randoms(use_true_random=False))
def test_random_two_column_pages_read_column_by_column(page: tuple[list[Rect], list[Rect]], rnd: random.Random) -> None:
    left, right = page
    items = left + right
    rnd.shuffle(items)
    assert ordered(items) == left + right


def test_paragraph_numbers_in_the_margin_are_read_on_their_lines() -> None:
    """``¶ 2`` left of the third line (its paragraph's first) comes right before that line, not with ``¶ 1``
    before the page's text; the margin is no column."""
    body = [(72.0, 100 + k * 28.8, 540.0, 111 + k * 28.8) for k in range(8)]  # double-spaced: every line a band
    notes = [(29.0, 101.0, 40.0, 110.0), (29.0, 101 + 3 * 28.8, 40.0, 110 + 3 * 28.8)]
    rects = [*notes, *body]
    assert ordered(rects) == [notes[0], *body[:3], notes[1], *body[3:]]


def test_a_label_level_with_the_middle_of_its_paragraph_comes_before_the_paragraph() -> None:
    """``(d)`` set beside the second line of a single-spaced paragraph labels the whole paragraph."""
    first = column(110, 574, 100, 4)
    second = column(110, 574, 100 + 4 * PITCH + 12, 3)
    labels = [(74.0, first[1][1], 84.0, first[1][3]), (74.0, second[1][1], 84.0, second[1][3])]
    assert ordered([*labels, *first, *second]) == [labels[0], *first, labels[1], *second]


def test_two_real_columns_are_not_a_margin() -> None:
    left = column(72, 290, 100, 10)
    right = column(320, 540, 100, 10)
    assert ordered([*right, *left]) == [*left, *right]


def test_several_numbers_beside_one_band_each_go_before_their_line() -> None:
    """An agenda's item numbers beside single-spaced text with no blank line between items: ``3.3`` comes before
    its own "Subject:" line, not before the tail of item 3.2 that shares the band."""
    text = column(90, 500, 100, 12)
    numbers = [(55.0, text[0][1], 69.0, text[0][3]), (55.0, text[5][1], 69.0, text[5][3])]
    assert ordered([*numbers, *text]) == [numbers[0], *text[:5], numbers[1], *text[5:]]


def test_a_lone_number_beside_a_single_spaced_page_goes_before_its_own_paragraph() -> None:
    """``¶ 12`` beside the indented first line of a paragraph in the middle of a single-spaced page (no blank line
    between paragraphs): it comes before that line, not at the top of the page, so the tail of ¶ 11 stays ¶ 11's."""
    body = [(72.0 + (36 if k == 11 else 0), 100 + k * 18, 540.0 if k != 10 else 300.0, 112 + k * 18) for k in range(20)]
    note = (40.0, 100 + 11 * 18, 55.0, 112 + 11 * 18)
    assert ordered([note, *body]) == [*body[:11], note, *body[11:]]
