"""A double-spaced opinion with paragraph numbers in the margin (``tests.pdfgen.numbered_opinion``): each ``¶ N``
is read on its line, just before the paragraph it numbers, a paragraph is one block, and its span is section
``N`` inside the roman-numbered part it stands in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from kruschnexus.extract import open_source
from kruschnexus.model import BlockKind, Chunk, Page
from tests.pdfgen import numbered_opinion
from tests.reading import read_and_chunk


@pytest.fixture(scope="module")
def opinion(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Page], list[Chunk], dict[int, tuple[str, ...]]]:
    path, paragraphs = numbered_opinion(tmp_path_factory.mktemp("opinion") / "opinion.pdf")
    pages, chunks = read_and_chunk(path)
    return pages, chunks, paragraphs


def test_each_paragraph_number_comes_right_before_its_paragraph(
    opinion: tuple[list[Page], list[Chunk], dict[int, tuple[str, ...]]],
) -> None:
    (page,), _, paragraphs = opinion
    for number, lines in paragraphs.items():
        mark = page.text.index(f"¶ {number}")
        assert page.text[mark:].split("\n\n", 2)[1].startswith(lines[0]), number


def test_a_double_spaced_paragraph_is_one_block_and_a_margin_number_is_no_footnote(
    opinion: tuple[list[Page], list[Chunk], dict[int, tuple[str, ...]]],
) -> None:
    (page,), _, paragraphs = opinion
    for number, lines in paragraphs.items():
        block = next(b for b in page.blocks if page.text[b.start : b.end].startswith(lines[0]))
        assert page.text[block.start : block.end] == "\n".join(lines), number
        mark = next(b for b in page.blocks if page.text[b.start : b.end] == f"¶ {number}")
        assert mark.kind != BlockKind.FOOTNOTE, number


def test_a_paragraph_is_cited_by_its_number_inside_its_part(
    opinion: tuple[list[Page], list[Chunk], dict[int, tuple[str, ...]]],
) -> None:
    pages, chunks, paragraphs = opinion
    parts = {1: "Part I", 2: "Part I", 3: "Part II", 4: "Part II", 5: "Part III"}
    for number, lines in paragraphs.items():
        (chunk,) = [c for c in chunks if lines[0] in c.text]
        assert (chunk.section, chunk.section_path) == (str(number), (parts[number], str(number)))
        assert all(line in chunk.text for line in lines)  # "v. Hardin" opens no item (v) inside paragraph 3
    for chunk in chunks:
        assert pages[chunk.page_number - 1].text[chunk.start : chunk.end] == chunk.text


def _page(path: Path, draw: Callable[[canvas.Canvas], None]) -> Page:
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    draw(c)
    c.showPage()
    c.save()
    with open_source(path) as source:
        return source.page(1)


def test_a_single_spaced_quote_in_double_spaced_text_stays_one_block(tmp_path: Path) -> None:
    """The short-line rule is for double-spaced lines only: a ragged, single-spaced block quote is one block."""
    body = "The statute reaches every game in which the player's choices do not decide the prize he can win today"
    quote = [
        "Any other video game not dependent on skill or dexterity",
        "that is played while revealing a prize as the result",
        "of an entry into a sweepstakes.",
        "N.C.G.S. § 14-306.4(a)(3)(i) (2021), which the",
        "General Assembly adopted in 2010.",
    ]

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Times-Roman", 12)
        y = 700.0
        for _ in range(4):
            c.drawString(72, y, body)
            y -= 28.8
        for line in quote:
            c.drawString(108, y, line)
            y -= 14
        y -= 14.8
        for _ in range(3):
            c.drawString(72, y, body)
            y -= 28.8

    page = _page(tmp_path / "quote.pdf", draw)
    block = next(b for b in page.blocks if page.text[b.start : b.end].startswith(quote[0]))
    assert page.text[block.start : block.end] == "\n".join(quote)


def test_a_spaced_out_contents_list_is_not_read_as_double_spaced_paragraphs(tmp_path: Path) -> None:
    """Leader lines 26 pt apart, none stopping short: each entry stays a block of its own."""
    entries = [f"Section {k}.1 Covenant number {k} " + "." * 60 + f" {k + 3}" for k in range(1, 12)]

    def draw(c: canvas.Canvas) -> None:
        c.setFont("Times-Roman", 12)
        for k, line in enumerate(entries):
            c.drawString(72, 700 - 26 * k, line)

    page = _page(tmp_path / "contents.pdf", draw)
    assert [page.text[b.start : b.end] for b in page.blocks if b.kind != BlockKind.PAGE_NUMBER] == entries
