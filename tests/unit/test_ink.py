"""The body's ink kept apart from lighter ink before OCR (parse/ink.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from PIL import Image

from kruschnexus.parse.ink import LIGHTER, body_ink

DPI = 300.0  # the rim is round(0.75 pt * 300 / 72) = 3 pixels


def page(width: int = 200, height: int = 120) -> NDArray[np.uint8]:
    return np.full((height, width), 255, dtype=np.uint8)


def cleaned(pixels: NDArray[np.uint8], dpi: float = DPI) -> NDArray[np.uint8]:
    return np.asarray(body_ink(Image.fromarray(pixels), dpi))


def test_a_stamp_away_from_the_text_is_dropped_and_the_text_is_untouched() -> None:
    pixels = page()
    pixels[10:20, 10:60] = 0  # a black word
    pixels[9, 10:60] = 120  # its antialiased rim
    pixels[60:90, 100:180] = 90  # a red stamp, grey in the scan
    out = cleaned(pixels)
    assert (out[5:25, 5:65] == pixels[5:25, 5:65]).all()
    assert (out[60:90, 100:180] == 255).all()


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
    rgb[30:40, 30:40] = (200, 20, 20)  # red ink, grey ~75, far from the black
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
    """Every pixel is kept as scanned or painted as paper; ink within :data:`LIGHTER` levels of the darkest is
    always kept."""
    pixels = page()
    for top, left, height, width, level in drawn:
        box = pixels[top : top + height, left : left + width]
        box[...] = np.minimum(box, level)
    out = cleaned(pixels, dpi)
    assert ((out == pixels) | (out == 255)).all()
    ink = pixels[pixels < 235]
    if ink.size:
        darkest = float(np.percentile(ink, 1.0))
        assert (out[pixels < darkest + LIGHTER] == pixels[pixels < darkest + LIGHTER]).all()
