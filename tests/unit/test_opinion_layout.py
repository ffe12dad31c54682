"""A double-spaced opinion with paragraph numbers in the margin (``tests.pdfgen.numbered_opinion``): each ``¶ N``
is read on its line, just before the paragraph it numbers, a paragraph is one block, and its span is section
``N`` inside the roman-numbered part it stands in."""

from __future__ import annotations

import pytest

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.extract import open_source
from kruschnexus.model import BlockKind, Chunk, Page
from tests.pdfgen import numbered_opinion


@pytest.fixture(scope="module")
def opinion(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Page], list[Chunk], dict[int, tuple[str, ...]]]:
    path, paragraphs = numbered_opinion(tmp_path_factory.mktemp("opinion") / "opinion.pdf")
    tracker = SectionTracker()
    pages: list[Page] = []
    chunks: list[Chunk] = []
    with open_source(path) as source:
        for page in source.pages():
            pages.append(page)
            chunks += chunk_page(page, tracker, 900)
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
