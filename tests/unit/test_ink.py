"""The body's ink kept apart from lighter ink before OCR (parse/ink.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from PIL import Image

from kruschnexus.parse.ink import OTHER, body_ink

DPI = 300.0  # the rim is round(0.75 pt * 300 / 72) = 3 pixels


def page(width: int = 200, height: int = 120) -> NDArray[np.uint8]:
    return np.full((height, width), 255, dtype=np.uint8)


def cleaned(pixels: NDArray[np.uint8], dpi: float = DPI) -> NDArray[np.uint8]:
    return np.asarray(body_ink(Image.fromarray(pixels), dpi))


def test_a_seal_away_from_the_text_is_dropped_and_the_text_is_untouched() -> None:
    pixels = page()
    pixels[10:20, 10:60] = 0  # a black word
    pixels[9, 10:60] = 120  # its antialiased rim
    pixels[40:110, 100:180] = 90  # a red seal, grey in the scan: 70 pixels tall, over four of the text's heights
    out = cleaned(pixels)
    assert (out[5:25, 5:65] == pixels[5:25, 5:65]).all()
    assert (out[40:110, 100:180] == 255).all()


def words(pixels: NDArray[np.uint8], top: int, left: int, count: int, level: int) -> None:
    """``count`` letters 8 pixels wide and 10 tall, 3 pixels apart, inked at ``level``."""
    for k in range(count):
        pixels[top : top + 10, left + 11 * k : left + 11 * k + 8] = level


def test_a_coloured_heading_away_from_the_text_is_kept() -> None:
    """A heading in Word's blue (grey 80 in a scan), a hyperlink: a level line of lighter ink of the body's size on
    white space is text, and OCR must see it."""
    pixels = page(300, 120)
    words(pixels, 10, 10, 12, 80)  # the heading
    words(pixels, 40, 10, 20, 0)  # the paragraph under it
    assert (cleaned(pixels) == pixels).all()


def test_pale_ink_is_dropped_even_as_a_line_of_text() -> None:
    """A service's footer in 50% grey, a rule, shading: ink more than :data:`PALE` levels lighter than the body's."""
    pixels = page(300, 120)
    words(pixels, 40, 10, 20, 0)
    words(pixels, 90, 10, 20, 150)
    out = cleaned(pixels)
    assert (out[40:50] == pixels[40:50]).all() and (out[90:100] == 255).all()


def test_a_tilted_line_of_lighter_ink_is_dropped() -> None:
    """A ``FILED`` date struck askew: the marks of a long piece run at a slope."""
    pixels = page(300, 120)
    words(pixels, 10, 10, 20, 0)
    for k in range(14):  # letters stepping down a pixel each, 11 pixels across: about 5 degrees
        pixels[60 + k : 70 + k, 20 + 11 * k : 28 + 11 * k] = 90
    out = cleaned(pixels)
    assert (out[55:80, 15:180] == 255).all() and (out[10:20] == pixels[10:20]).all()


def test_a_stamp_touching_the_text_is_dropped_where_it_is_not_the_texts() -> None:
    """Initials written into a line: lighter ink within a hair of the body's goes, the body's letters stay."""
    pixels = page(300, 120)
    words(pixels, 40, 10, 20, 0)
    pixels[36:60, 212:240] = 90  # lighter ink across the line's last two letters
    pixels[40:50, 208:216] = 0
    pixels[40:50, 219:227] = 0
    out = cleaned(pixels)
    assert (out[40:50, 10:228] == pixels[40:50, 10:228]).all()
    assert (out[53:60, 212:240] == 255).all() and (out[36, 212:240] == 255).all()  # beyond the rims


def letters(pixels: NDArray[np.uint8], top: int, left: int, count: int, level: int, height: int = 10) -> None:
    """``count`` letters 8 pixels wide and ``height`` tall standing on one baseline (``top + 10``), 3 pixels apart."""
    for k in range(count):
        pixels[top + 10 - height : top + 10, left + 11 * k : left + 11 * k + 8] = level


def paragraph(width: int = 500) -> NDArray[np.uint8]:
    """A page 400 pixels tall whose first 200 hold ten black lines of text from the margin (10) to 227; the column's
    centre is 118, the page's 250 (with its ``width``)."""
    pixels = page(width, 400)
    for top in range(10, 200, 20):
        words(pixels, top, 10, 20, 0)
    return pixels


def test_initials_of_another_ink_off_the_grid_are_dropped() -> None:
    """A ``PAID`` on white space, initials in the margin: a line of another ink (grey 68 to 74, a blue or red stamp
    pad's) that starts, ends and is centred where no line is and sits on no line's baseline is struck on, not set."""
    pixels = paragraph()
    letters(pixels, 240, 130, 4, 74)  # PAID, the body's size: centre 150.5, 32 from the column's, 99 from the page's
    letters(pixels, 300, 290, 3, 68)  # initials in the right margin
    out = cleaned(pixels)
    assert (out[220:340] == 255).all()
    assert (out[:200] == pixels[:200]).all()


def test_larger_initials_ending_at_the_margin_are_dropped() -> None:
    """Initials in a stamp's larger letters that happen to end where the text's lines end (227): only a line set in
    the text's size keeps to the grid by its end or its baseline."""
    pixels = paragraph()
    letters(pixels, 240, 198, 3, 68, height=14)  # ends at 228, a pixel from the margin; 14 tall against 10
    assert (cleaned(pixels)[220:260] == 255).all()


def test_lines_of_another_ink_on_the_grid_are_kept() -> None:
    """Typeset text of another ink keeps to the grid, whatever its size: a larger navy heading at the margin, a
    centred title, a date in the text's size set flush right, a link continuing its sentence."""
    pixels = paragraph(460)
    letters(pixels, 220, 10, 12, 52, height=14)  # a heading at the margin, larger than the text
    letters(pixels, 255, 85, 6, 57, height=14)  # a title centred on the column (118)
    letters(pixels, 290, 195, 3, 68)  # a date ending at the margin, the text's size
    words(pixels, 325, 10, 10, 0)
    letters(pixels, 325, 260, 8, 80)  # the sentence's link, on its baseline, beyond the joining distance
    assert (cleaned(pixels) == pixels).all()


def test_a_grey_body_beside_a_black_bar_is_the_body() -> None:
    """A page printed in dark grey (55) with a black redaction bar: the bar is the darkest ink, but most of the text's
    lines are grey, so grey is the body's ink, and a lone indented line and a page number set flush right keep
    their place as text (not another ink tested against the grid)."""
    pixels = page(500, 200)
    pixels[5:15, 300:420] = 0  # the redaction bar
    for top in (30, 50, 70):
        words(pixels, top, 10, 20, 55)
    words(pixels, 100, 47, 6, 55)  # a lone indented line
    words(pixels, 150, 442, 2, 55)  # a page number flush right, past the text's right edge
    assert (cleaned(pixels) == pixels).all()


def test_a_heading_centred_on_a_column_of_two_is_kept() -> None:
    """Two columns of black text; a navy heading centred over the right column (not on the page's centre, not at any
    line's start or end) keeps to the grid: its centre is a long line's."""
    pixels = page(500, 200)
    for top in (40, 60, 80, 100):
        words(pixels, top, 10, 20, 0)  # the left column: 10 to 227
        words(pixels, top, 270, 20, 0)  # the right column: 270 to 487, centre 378.5
    letters(pixels, 15, 340, 7, 52, height=14)  # a heading 340 to 414: centre 377, not at 270 nor 487
    assert (cleaned(pixels) == pixels).all()


def test_lines_of_another_ink_holding_a_third_of_the_text_are_its_text() -> None:
    """A page set in two colours: its blue lines hold over a third of the text's ink, so they are text, wherever they
    stand."""
    pixels = paragraph()
    for k in range(7):
        letters(pixels, 220 + 25 * k, 240 + 13 * k, 15, 68)  # off the grid, each at its own place: 34% of the ink
    assert (cleaned(pixels) == pixels).all()


def test_words_inside_a_ring_go_with_it() -> None:
    """A seal: a ring (a frame, mostly paper inside) and the small word printed in it."""
    pixels = page(300, 200)
    words(pixels, 10, 10, 20, 0)
    pixels[60:180, 100:104] = 90
    pixels[60:180, 216:220] = 90
    pixels[60:64, 100:220] = 90
    pixels[176:180, 100:220] = 90
    words(pixels, 115, 125, 6, 90)  # "APPROVED" inside the ring
    out = cleaned(pixels)
    assert (out[55:185, 95:225] == 255).all() and (out[10:20] == pixels[10:20]).all()


def test_a_stamp_over_the_text_keeps_the_letters_under_it() -> None:
    """Where a stamp crosses the body's letters the letters stay black; its ink more than the rim away goes."""
    pixels = page()
    pixels[40:50, 20:120] = 0  # a line of text
    pixels[30:60, 60:70] = 100  # a stamp's stroke crossing it
    pixels[40:50, 60:70] = 0  # the letters under the stroke, as dark as before
    out = cleaned(pixels)
    assert (out[40:50, 20:120] == 0).all()
    assert (out[37:40, 60:70] == 100).all() and (out[50:53, 60:70] == 100).all()  # within the rim
    assert (out[30:36, 60:70] == 255).all() and (out[54:60, 60:70] == 255).all()


def test_grey_text_alone_on_its_page_is_the_body() -> None:
    """The body is the darkest ink on the page, whatever its level: a page printed in grey keeps its text."""
    pixels = page()
    pixels[10:20, 10:60] = 130
    pixels[40:50, 10:90] = 140
    assert (cleaned(pixels) == pixels).all()


def test_a_blank_page_stays_blank() -> None:
    assert (cleaned(page()) == 255).all()


def test_an_rgb_image_is_read_in_grey_levels() -> None:
    rgb = np.full((50, 50, 3), 255, dtype=np.uint8)
    rgb[10:20, 10:20] = (0, 0, 0)
    rgb[30:40, 30:40] = (240, 200, 200)  # pale red ink, grey ~212, far from the black
    out = np.asarray(body_ink(Image.fromarray(rgb), DPI))
    assert out.shape == (50, 50) and (out[10:20, 10:20] == 0).all() and (out[30:40, 30:40] == 255).all()


boxes = st.lists(
    st.tuples(st.integers(0, 110), st.integers(0, 190), st.integers(1, 12), st.integers(1, 30), st.integers(0, 254)),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(boxes, st.sampled_from([72.0, 150.0, 300.0]))
def test_ink_is_only_ever_kept_or_dropped_and_the_darkest_never_changes(
    drawn: list[tuple[int, int, int, int, int]], dpi: float
) -> None:
    """Every pixel is kept as scanned or painted as paper; ink within :data:`OTHER` levels of the darkest (the body's
    own) is always kept."""
    pixels = page()
    for top, left, height, width, level in drawn:
        box = pixels[top : top + height, left : left + width]
        box[...] = np.minimum(box, level)
    out = cleaned(pixels, dpi)
    assert ((out == pixels) | (out == 255)).all()
    ink = pixels[pixels < 235]
    if ink.size:
        darkest = float(np.percentile(ink, 1.0))
        assert (out[pixels < darkest + OTHER] == pixels[pixels < darkest + OTHER]).all()


def test_a_scanners_edge_shadow_is_no_frame() -> None:
    """A grey shadow along two edges of the scan is giant and inks little of its box, but it is no stamp's frame:
    the blue heading inside its box stays."""
    pixels = page(320, 200)
    pixels[:, :6] = 90  # the shadow down the left edge
    pixels[194:, :] = 90  # and along the bottom
    words(pixels, 20, 60, 12, 80)  # a heading in Word's blue, a margin's width in from the shadow
    words(pixels, 50, 60, 20, 0)
    out = cleaned(pixels)
    assert (out[20:30, 60:200] == pixels[20:30, 60:200]).all()
