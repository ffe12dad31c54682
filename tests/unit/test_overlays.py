"""Ink laid over the body's text (layout/overlays.py): a run of another colour lying on the body's letters is a
stamp; coloured text elsewhere, and touching boxes of one ink, are not."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from kruschnexus.layout.fragments import split_fragments
from kruschnexus.layout.overlays import overlaid
from kruschnexus.parse.glyphs import Glyph

BLACK, RED, BLUE = 0x000000, 0xD90D0D, 0x1A26A0


def line(text: str, x: float, y: float, color: int, size: float = 11.0, width: float = 6.0) -> list[Glyph]:
    """Glyphs of ``text`` on one line from ``x``, the line's top at ``y``."""
    out = []
    for k, ch in enumerate(text):
        left = x + k * width
        out.append(Glyph(ch, None if ch == " " else (left, y, left + width, y + size), color=color))
    return out


def body() -> list[Glyph]:
    lines = ["Tenant shall pay the rent on the first day", "of each month without demand or offset."]
    out: list[Glyph] = []
    for k, text in enumerate(lines):
        out += [*line(text, 72, 100 + 14 * k, BLACK), Glyph("\n", None)]
    return out


def test_a_red_word_lying_on_the_text_is_an_overlay_and_leaves_the_body_alone() -> None:
    glyphs = body()
    start = len(glyphs)
    glyphs += line("PAID", 120, 102, RED, size=16, width=10)
    assert overlaid(glyphs) == set(range(start, start + 4))
    fragments = split_fragments(glyphs)
    assert [f.text for f in fragments if not f.is_stamp] == [
        "Tenant shall pay the rent on the first day",
        "of each month without demand or offset.",
    ]
    assert [f.text for f in fragments if f.is_stamp] == ["PAID"]


def test_coloured_text_that_lies_on_nothing_stays_body() -> None:
    glyphs = [*line("Section 4. Rent", 72, 70, BLUE), Glyph("\n", None), *body()]
    assert overlaid(glyphs) == set()


def test_one_ink_never_overlays_itself_however_tight_the_leading() -> None:
    glyphs = [*line("first line of text", 72, 100, BLACK), Glyph("\n", None), *line("second line", 72, 106, BLACK)]
    assert overlaid(glyphs) == set()


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=40))
def test_a_page_of_one_colour_has_no_overlay(places: list[tuple[int, int]]) -> None:
    glyphs = [Glyph("x", (float(x), float(y), x + 6.0, y + 11.0), color=BLACK) for x, y in places]
    assert overlaid(glyphs) == set()


def test_glyphs_of_unknown_colour_are_never_overlays() -> None:
    glyphs = [Glyph(g.ch, g.rect) for g in body()] + [Glyph(g.ch, g.rect) for g in line("PAID", 120, 102, RED, 16)]
    assert overlaid(glyphs) == set()


def test_a_tall_stamp_word_lying_on_a_line_of_small_text_is_an_overlay() -> None:
    """A 20 pt ``PAID`` whose lower part lies on a 7 pt line: its box covers little of their area (under
    :data:`COVERED`), but body letters lie under its width."""
    small = [*line("WHEREAS, the Company pays for the marketing", 72, 234, BLACK, size=7.0, width=5.0)]
    glyphs = [*small, Glyph("\n", None)]
    start = len(glyphs)
    glyphs += line("PAID", 110, 220, RED, size=20.0, width=10.0)
    assert overlaid(glyphs) == set(range(start, start + 4))


def test_a_coloured_heading_whose_box_touches_the_line_below_stays_body() -> None:
    """A 16 pt blue heading one line above 11 pt text, its box reaching a point into theirs: no letter lies
    half inside it."""
    glyphs = [*line("Section 4. Rent", 72, 85, BLUE, size=16.0, width=9.0), Glyph("\n", None), *body()]
    assert overlaid(glyphs) == set()


def test_one_letter_of_a_spread_stamp_lying_on_a_line_makes_the_run_an_overlay() -> None:
    """``P  A  I  D`` stretched across centred title lines, only its ``D`` on ``{NAME OF TENANT}``: ink on ink,
    which typesetting never makes."""
    glyphs = [*line("{NAME OF TENANT}", 265, 212, BLACK, size=10.0, width=5.0), Glyph("\n", None)]
    start = len(glyphs)
    for k, ch in enumerate("PAID"):
        glyphs.append(Glyph(ch, (184 + 35 * k, 206.0, 194 + 35 * k, 225.0), color=RED))
    assert overlaid(glyphs) == set(range(start, start + 4))


def test_a_coloured_link_inside_a_line_stays_body() -> None:
    """A blue word on the body's baseline, between black words: beside the body's letters, not on them."""
    glyphs = [*line("See the ", 72, 86, BLACK), *line("Schedule", 72 + 8 * 6, 86, BLUE)]
    glyphs += [*line(" for the rent.", 72 + 16 * 6, 86, BLACK), Glyph("\n", None), *body()]
    assert overlaid(glyphs) == set()


def laid(glyphs: list[Glyph], paint: int, framed: bool = True) -> list[Glyph]:
    """``glyphs`` as drawn from the page object at ``paint`` in the paint order (from a form XObject when
    ``framed``)."""
    return [replace(g, paint=paint, framed=framed) for g in glyphs]


def stamp_texts(glyphs: list[Glyph]) -> list[str]:
    return [f.text for f in split_fragments(glyphs) if f.is_stamp]


def test_an_upright_stamp_laid_on_white_space_after_the_page_is_a_stamp() -> None:
    """An opaque red ``PAID`` of body size between two paragraphs, clear of every letter: what gives it away is how
    it reached the page, a form XObject drawn over the finished page."""
    glyphs = [*laid(body(), 3, framed=False), *laid(line("PAID", 150, 140, RED, size=16, width=10), 4)]
    assert overlaid(glyphs) == set()
    assert stamp_texts(glyphs) == ["PAID"]
    assert [f.text for f in split_fragments(glyphs) if not f.is_stamp] == [
        "Tenant shall pay the rent on the first day",
        "of each month without demand or offset.",
    ]


def test_a_coloured_heading_in_the_pages_flow_stays_body() -> None:
    """The same red word drawn by the page's own content, or from a form XObject drawn before the body's text (a
    letterhead), or from the one form XObject that is the whole page: typeset, not laid on."""
    heading = line("RENT", 72, 70, RED, size=16, width=10)
    in_flow = [*laid(heading, 1, framed=False), Glyph("\n", None), *laid(body(), 2, framed=False)]
    letterhead = [*laid(heading, 1), Glyph("\n", None), *laid(body(), 2, framed=False)]
    whole_page = [*laid(heading, 1), Glyph("\n", None), *laid(body(), 1)]
    for glyphs in (in_flow, letterhead, whole_page):
        assert stamp_texts(glyphs) == []


def test_grey_ink_laid_on_is_left_to_the_running_footers() -> None:
    """A service's grey ``Source:`` line drawn over every page is furniture, not a stamp."""
    source = laid(line("Source: ACME CORP, 8-K", 60, 780, 0x808080, size=9), 9)
    assert stamp_texts([*laid(body(), 2, framed=False), Glyph("\n", None), *source]) == []


@given(
    st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=2, max_size=2),
    st.sampled_from([BLACK, RED, BLUE, 0x808080]),
)
def test_the_bodys_ink_is_never_laid_on(places: list[tuple[int, bool]], colour: int) -> None:
    """Whatever draws them, the body's letters stay body: only a run of another, hued ink can be laid on."""
    (body_paint, body_framed), (word_paint, word_framed) = places
    glyphs = [*laid(body(), body_paint, body_framed), *laid(line("PAID", 150, 140, colour), word_paint, word_framed)]
    texts = [f.text for f in split_fragments(glyphs) if not f.is_stamp]
    assert texts[:2] == ["Tenant shall pay the rent on the first day", "of each month without demand or offset."]
    laid_on_page = colour in (RED, BLUE) and word_framed and word_paint > body_paint
    assert ("PAID" in stamp_texts(glyphs)) == laid_on_page
