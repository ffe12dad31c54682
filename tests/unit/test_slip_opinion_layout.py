"""A slip opinion set with wide margins (``tests.pdfgen.slip_opinion``): its running header, 15% down the page and
different on odd and even pages, is furniture with its page number, and the part ``II`` at the top of a page's text
is not taken for a page number."""

from __future__ import annotations

import pytest

from kruschnexus.model import BlockKind, Chunk, Page
from tests.pdfgen import slip_opinion
from tests.reading import read_and_chunk

PAGES = 6


@pytest.fixture(scope="module")
def opinion(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Page], list[Chunk]]:
    return read_and_chunk(slip_opinion(tmp_path_factory.mktemp("slip") / "slip.pdf", PAGES))


def _texts(page: Page, *kinds: BlockKind) -> list[str]:
    return [page.text[b.start : b.end] for b in page.blocks if b.kind in kinds]


def test_a_running_header_below_the_edge_band_is_furniture(opinion: tuple[list[Page], list[Chunk]]) -> None:
    pages, _ = opinion
    for page in pages:
        header = "Cite as: 569 U. S. ____ (2013)" if page.number % 2 else "TARRANT REGIONAL WATER DIST. v. HERRMANN"
        furniture = _texts(page, BlockKind.HEADER, BlockKind.PAGE_NUMBER)
        assert any(t.endswith(header) for t in furniture) and "Opinion of the Court" in furniture, page.number
        assert str(page.number) in furniture or f"{page.number} {header}" in furniture, page.number
        body = _texts(page, BlockKind.PARAGRAPH, BlockKind.HEADING)
        assert body and not any(header in t or "Opinion of the Court" in t for t in body), page.number
        assert str(page.number) not in body
        assert len("\n".join(body)) > 1500, "the body stays body: none of its lines repeats"


def test_a_part_number_at_the_top_of_the_text_stays_body(opinion: tuple[list[Page], list[Chunk]]) -> None:
    pages, chunks = opinion
    body = _texts(pages[2], BlockKind.PARAGRAPH, BlockKind.HEADING)
    assert body[:2] == ["II", "A"] or body[0].startswith("II\nA"), body[:3]
    for chunk in chunks:
        assert "Cite as" not in chunk.text and "Opinion of the Court" not in chunk.text, chunk.text[:80]
        assert pages[chunk.page_number - 1].text[chunk.start : chunk.end] == chunk.text
