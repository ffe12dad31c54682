"""Page furniture (``layout.furniture``): repeated band lines, page numbers, pleading-paper line numbers."""

from __future__ import annotations

import pytest

from kruschnexus.layout.fragments import Fragment
from kruschnexus.layout.furniture import MIN_LINE_NUMBERS, Furniture, classify
from kruschnexus.model import BlockKind, Rect

HEADER = "Commercial Lease Agreement — Acme Properties LLC"
PAGE_H = 792.0
BAND = 0.1  # top band: y1 <= 79.2; bottom band: y0 >= 712.8


def bands(n: int, header: str | None = HEADER) -> list[str]:
    """Band text of ``n`` pages: the running header (on every page) and a page number."""
    return [(f"{header}\n" if header else "") + f"Page {k} of {n}" for k in range(1, n + 1)]


def frag(text: str, rect: Rect) -> Fragment:
    return Fragment(text=text, rects=[None] * len(text), rect=rect, size=rect[3] - rect[1], bold=False)


def test_header_on_every_page_is_repeated() -> None:
    furniture = Furniture(bands(6))
    assert furniture.is_repeated(HEADER)
    assert furniture.is_repeated(f"  {HEADER}  ")  # spaces are folded


def test_header_on_most_pages_is_repeated() -> None:
    texts = bands(10)
    texts[3] = "Page 4 of 10"
    texts[7] = "Page 8 of 10"
    assert Furniture(texts).is_repeated(HEADER)


def test_line_on_one_page_of_many_is_not_repeated() -> None:
    texts = bands(10, header=None)
    texts[0] = "EXHIBIT A\n" + texts[0]
    assert not Furniture(texts).is_repeated("EXHIBIT A")


def test_case_variant_prefix_of_the_header_is_not_repeated() -> None:
    furniture = Furniture(bands(6))
    assert not furniture.is_repeated("COMMERCIAL LEASE AGREEMENT")


def test_one_end_of_a_band_line_is_repeated() -> None:
    """A band line split at a wide gap gives two fragments; each end counts as the repeated line."""
    furniture = Furniture(bands(6))
    assert furniture.is_repeated("Commercial Lease Agreement")
    assert furniture.is_repeated("Acme Properties LLC")
    assert not furniture.is_repeated("Lease Agreement — Acme")  # the middle is not an end
    assert not furniture.is_repeated("Commercial Lease Agr")  # not at a word boundary


def test_page_numbers_with_varying_digits_fold_together() -> None:
    furniture = Furniture(bands(12))
    assert furniture.is_repeated("Page 7 of 12")
    assert furniture.is_repeated("Page 123 of 999")
    assert not furniture.is_repeated("Page seven of twelve")


def test_one_page_document_has_no_repetition() -> None:
    furniture = Furniture([f"{HEADER}\nPage 1 of 1"])
    assert not furniture.is_repeated(HEADER)
    assert not furniture.is_repeated("Page 1 of 1")
    assert not Furniture([]).is_repeated(HEADER)


def test_short_text_is_never_repeated() -> None:
    assert not Furniture(["ab\n7", "ab\n8", "ab\n9"]).is_repeated("ab")


@pytest.mark.parametrize("text", ["7", "- 7 -", "Page 7", "page 12 of 40", "7 / 40", "iv", "— 3 —"])
@pytest.mark.parametrize("where", ["top", "bottom"])
def test_page_number_in_a_band(text: str, where: str) -> None:
    y = 40.0 if where == "top" else 750.0
    kinds = classify([frag(text, (300, y, 320, y + 10))], PAGE_H, BAND, Furniture([]))
    assert kinds == [BlockKind.PAGE_NUMBER]


def test_page_number_shape_in_the_body_is_body_text() -> None:
    kinds = classify([frag("7", (300, 400, 306, 410))], PAGE_H, BAND, Furniture([]))
    assert kinds == [None]


def test_repeated_band_lines_are_header_and_footer() -> None:
    furniture = Furniture(bands(6) + ["Confidential — do not copy"] * 6)
    frags = [
        frag(HEADER, (72, 30, 400, 40)),
        frag("Tenant shall pay rent.", (72, 300, 300, 310)),
        frag("Confidential — do not copy", (72, 750, 300, 760)),
        frag("A line in the top band that never repeats", (72, 50, 400, 60)),
    ]
    kinds = classify(frags, PAGE_H, BAND, furniture)
    assert kinds == [BlockKind.HEADER, None, BlockKind.FOOTER, None]


def test_repeated_text_outside_the_bands_is_body() -> None:
    """Repeated, but with text above it and far from both edges: the band measured from the text ends before it."""
    furniture = Furniture(bands(6))
    frags = [frag("Tenant shall pay rent.", (72, 72, 300, 82)), frag(HEADER, (72, 300, 400, 310))]
    frags.append(frag("Landlord shall repair the roof.", (72, 700, 300, 710)))
    assert classify(frags, PAGE_H, BAND, furniture) == [None, None, None]


def test_the_bands_of_a_page_with_wide_margins_start_at_its_text() -> None:
    """A header 116 pt down (below the edge band) that repeats is furniture, and so is the page number on its line;
    a number alone at the top of the text is not (a part's ``II``), nor a line there that never repeats."""
    furniture = Furniture(["\n"] * 6, [f"{HEADER}   {n}\nand" for n in range(6)])
    frags = [
        frag(HEADER, (200, 116, 380, 125)),
        frag("3", (450, 116, 456, 125)),
        frag("II", (300, 160, 310, 170)),
        frag("A line at the top of the text", (156, 180, 400, 190)),
        frag("Body text far below.", (156, 400, 400, 410)),
    ]
    kinds = classify(frags, PAGE_H, BAND, furniture)
    assert kinds == [BlockKind.HEADER, BlockKind.PAGE_NUMBER, None, None, None]
    assert not furniture.is_repeated("and"), "the wide bands count only whole lines, and only long ones"
    assert classify([frag("and", (156, 116, 180, 125)), *frags[2:]], PAGE_H, BAND, furniture)[0] is None


def pleading_page(numbers: int, number_x: tuple[float, float] = (40, 52)) -> list[Fragment]:
    frags = [frag(str(k), (number_x[0], 100 + 24 * k, number_x[1], 110 + 24 * k)) for k in range(1, numbers + 1)]
    frags += [
        frag("Plaintiff alleges as follows:", (72, 124, 400, 134)),
        frag("The defendant breached the lease.", (72, 148, 420, 158)),
    ]
    return frags


def test_pleading_paper_line_numbers() -> None:
    frags = pleading_page(MIN_LINE_NUMBERS + 3)
    kinds = classify(frags, PAGE_H, BAND, Furniture([]))
    numbers = MIN_LINE_NUMBERS + 3
    assert kinds[:numbers] == [BlockKind.LINE_NUMBER] * numbers
    assert kinds[numbers:] == [None, None]


def test_too_few_margin_numbers_are_body() -> None:
    assert MIN_LINE_NUMBERS == 5
    frags = pleading_page(4)
    assert classify(frags, PAGE_H, BAND, Furniture([])) == [None] * len(frags)


def test_numbers_right_of_the_body_edge_are_not_line_numbers() -> None:
    """Small integers in a table column are data, not margin line numbers."""
    frags = pleading_page(8, number_x=(450, 460))
    assert classify(frags, PAGE_H, BAND, Furniture([])) == [None] * len(frags)


def test_margin_numbers_without_body_text_are_not_line_numbers() -> None:
    frags = pleading_page(8)[:8]
    assert classify(frags, PAGE_H, BAND, Furniture([])) == [None] * 8


@pytest.mark.parametrize("text", ["Page 2 of 12", "Page\u00a02\u00a0of\u00a012", "page 7", "2 of 12", "- 7 -"])
def test_a_page_number_that_says_so_is_furniture_above_the_footer_band(text: str) -> None:
    """Word processors set "Page 2 of 12" above the footer (the Georgia lease: at 87% of the page height)."""
    kinds = classify([frag(text, (278, 690, 333, 701))], PAGE_H, BAND, Furniture([]))
    assert kinds == [BlockKind.PAGE_NUMBER]
    assert classify([frag(text, (278, 400, 333, 410))], PAGE_H, BAND, Furniture([])) == [None]  # mid-page


@pytest.mark.parametrize("text", ["7", "iv", "12.", "Section 2 of 12 applies"])
def test_a_bare_number_above_the_footer_band_is_body_text(text: str) -> None:
    assert classify([frag(text, (278, 690, 333, 701))], PAGE_H, BAND, Furniture([])) == [None]


def test_the_middle_of_a_footer_line_beside_its_ends_is_furniture() -> None:
    """``PDF page 115`` between a filing's name and ``Powered by BamSEC.com`` on every page: a footer, as its two
    neighbours are; the same text alone in the body stays body text."""
    texts = [f"HEADING\nRibbon 8-K / June 24, 2024 PDF page {k} Powered by BamSEC.com" for k in range(1, 11)]
    furniture = Furniture(texts)
    assert not furniture.is_repeated("PDF page 7")
    assert furniture.is_repeated("PDF page 7", middle=True)
    y0, y1 = PAGE_H - 16, PAGE_H - 9
    line = [
        frag("Ribbon 8-K / June 24, 2024", (38, y0, 216, y1)),
        frag("PDF page 7", (284, y0, 328, y1)),
        frag("Powered by BamSEC.com", (495, y0, 574, y1)),
        frag("PDF page 7", (72, 400, 120, 410)),
    ]
    assert classify(line, PAGE_H, BAND, furniture) == [BlockKind.FOOTER, BlockKind.FOOTER, BlockKind.FOOTER, None]


def test_a_band_fragment_beside_one_running_end_only_stays_body() -> None:
    """``Section 5.02`` on the line of ``Execution Version`` (a top-band body line repeating the words mid-line on
    other pages) is not between two running ends: body text."""
    texts = [f"Execution Version\nthe Borrower pursuant to Section {k}.03 hereof shall" for k in range(1, 11)]
    furniture = Furniture(texts)
    line = [frag("Section 5.02", (72, 40, 140, 50)), frag("Execution Version", (450, 40, 540, 50))]
    assert classify(line, PAGE_H, BAND, furniture) == [None, BlockKind.HEADER]
