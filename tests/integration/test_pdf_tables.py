"""Tables in PDFs: the rent schedule fixture against the truth computed from its drawing, the independent pdfminer
check of table spans, and pages that must produce no table (fixtures and, when present, the shared corpus).

Fixture: ``tests/fixtures/table_rent_schedule.pdf`` and ``.truth.json`` from ``scripts/make_table_fixtures.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.config import OcrMode
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.model import BlockKind, Chunk, Page, to_xywh, union
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from tests.independent import canonical, page_chars, text_in_boxes

RENT = FIXTURES / "table_rent_schedule.pdf"
TRUTH: dict[str, Any] = json.loads(RENT.with_suffix(".truth.json").read_text(encoding="utf-8"))
BOX_SLACK = 1.0


def laid_out(path: Path, max_chars: int = 900) -> Iterator[tuple[Page, list[Chunk]]]:
    tracker = SectionTracker()
    with open_source(path, options=ReadOptions(ocr=OcrMode.NEVER)) as source:
        for page in source.pages():
            yield page, chunk_page(page, tracker, max_chars)


@pytest.fixture(scope="module")
def rent() -> list[tuple[Page, list[Chunk]]]:
    return list(laid_out(RENT))


def table_blocks(page: Page) -> list[tuple[int, int]]:
    return [(b.start, b.end) for b in page.blocks if b.kind == BlockKind.TABLE]


def close(a: list[float], b: list[float]) -> bool:
    return all(abs(x - y) <= BOX_SLACK for x, y in zip(a, b, strict=True))


def test_the_fixture_has_the_tables_it_draws(rent: list[tuple[Page, list[Chunk]]]) -> None:
    found = [(page.number, len(table_blocks(page))) for page, _ in rent]
    assert found == [(1, 1), (2, 1), (3, 1)]
    assert [t["kind"] for t in TRUTH["tables"]] == ["ruled", "aligned", "ruled"]


@pytest.mark.parametrize("index", range(len(TRUTH["tables"])))
def test_every_cell_is_found_with_its_text_and_box(rent: list[tuple[Page, list[Chunk]]], index: int) -> None:
    truth = TRUTH["tables"][index]
    page = rent[truth["page"] - 1][0]
    cells = {(c.row, c.col): c for c in page.cells if c.table == truth["table"]}
    assert sorted(cells) == sorted((t["row"], t["col"]) for t in truth["cells"])
    for expected in truth["cells"]:
        cell = cells[expected["row"], expected["col"]]
        assert page.text[cell.start : cell.end] == expected["text"]
        box = union(page.line_rects(cell.start, cell.end))
        assert box is not None and close(list(to_xywh(box)), expected["box"]), (expected, box)
        if "cell_box" in expected:
            assert close(list(to_xywh(cell.rect)), expected["cell_box"]), (expected, cell.rect)


@pytest.mark.parametrize("index", range(len(TRUTH["tables"])))
def test_table_text_is_rows_of_tab_separated_cells(rent: list[tuple[Page, list[Chunk]]], index: int) -> None:
    truth = TRUTH["tables"][index]
    page = rent[truth["page"] - 1][0]
    rows: dict[int, list[str]] = {}
    for cell in sorted(truth["cells"], key=lambda c: (c["row"], c["col"])):
        rows.setdefault(cell["row"], []).append(cell["text"])
    [(start, end)] = table_blocks(page)
    assert page.text[start:end] == "\n".join("\t".join(row) for row in rows.values())


def test_a_table_that_fits_is_one_span_with_its_locator(rent: list[tuple[Page, list[Chunk]]]) -> None:
    page, chunks = rent[0]
    [span] = [c for c in chunks if "table" in c.block_kinds]
    assert span.block_kinds == ("table",)
    assert span.locator == {"kind": "table_cell", "table": 1, "row": 1, "col": 1, "row_end": 6, "col_end": 3}
    assert span.page_number == 1 and page.locator is None
    assert span.context == ""
    assert span.header == "Schedule of Base Rent"  # an unnumbered heading closes section 3.1
    assert span.text.startswith("Period\tMonthly Rent\tAnnual Rent\nMonths 1–12\t$4,500.00\t$54,000.00")


def test_small_spans_are_whole_rows_with_the_header_as_context() -> None:
    pages = list(laid_out(RENT, max_chars=80))
    page, chunks = pages[0]
    spans = [c for c in chunks if "table" in c.block_kinds]
    rows: dict[int, tuple[int, int]] = {}
    for c in page.cells:
        lo, hi = rows.get(c.row, (c.start, c.end))
        rows[c.row] = (min(lo, c.start), max(hi, c.end))
    for span in spans:
        assert span.locator is not None and span.locator["col"] == 1 and span.locator["col_end"] == 3
        first, last = span.locator["row"], span.locator["row_end"]
        assert (span.start, span.end) == (rows[first][0], rows[last][1])
        assert span.context == ("" if first == 1 else "Period\tMonthly Rent\tAnnual Rent")
        assert "Period" not in span.text or first == 1
    assert [(s.locator or {})["row"] for s in spans] == [1, 3, 5]
    _page3, chunks3 = pages[2]
    title = next(c for c in chunks3 if "table" in c.block_kinds)
    assert title.locator == {"kind": "table_cell", "table": 1, "row": 1, "col": 1, "row_end": 1, "col_end": 3}


@pytest.mark.parametrize("max_chars", [900, 80, 30])
def test_table_spans_match_an_independent_extractor(max_chars: int) -> None:
    chars = page_chars(RENT)
    checked = 0
    for page, chunks in laid_out(RENT, max_chars):
        for chunk in chunks:
            assert chunk.text == page.text[chunk.start : chunk.end]
            found = text_in_boxes(chars[page.number], [list(to_xywh(r)) for r in chunk.rects])
            assert canonical(found) == canonical(chunk.text), (page.number, chunk.text[:60])
            checked += "table" in chunk.block_kinds
    assert checked >= 3


def test_prose_never_shares_a_span_with_a_table(rent: list[tuple[Page, list[Chunk]]]) -> None:
    for page, chunks in rent:
        blocks = table_blocks(page)
        for chunk in chunks:
            inside = [s <= chunk.start and chunk.end <= e for s, e in blocks]
            overlaps = [s < chunk.end and chunk.start < e for s, e in blocks]
            if "table" in chunk.block_kinds:
                assert chunk.block_kinds == ("table",) and any(inside)
                assert chunk.locator is not None and chunk.locator["kind"] == "table_cell"
            else:
                assert not any(overlaps) and chunk.locator is None
    prose = [c.text for c in rent[0][1] if "table" not in c.block_kinds]
    assert any("Base Rent for any partial month" in t for t in prose)
    assert any("Schedule of Base Rent" in t for t in prose)


def test_lists_and_signature_blocks_stay_out_of_tables(rent: list[tuple[Page, list[Chunk]]]) -> None:
    for item in TRUTH["not_tables"]:
        page = rent[item["page"] - 1][0]
        at = page.text.index(item["text"])
        assert not any(s <= at < e for s, e in table_blocks(page)), item


@pytest.mark.parametrize("name", ["sample_contract.pdf", "ligatures.pdf"])
def test_fixtures_without_tables_have_none(name: str) -> None:
    for page, chunks in laid_out(FIXTURES / name):
        assert table_blocks(page) == [] and page.cells == []
        assert all(c.locator is None for c in chunks)


@needs_corpus
@pytest.mark.parametrize(
    ("name", "pages"),
    [("regulatory/federal_register_2020-17221.pdf", [1]), ("lease/chicago_city_lease_20221_sample.pdf", None)],
)
def test_corpus_pages_without_tables_have_none(name: str, pages: list[int] | None) -> None:
    with open_source(CORPUS / name, options=ReadOptions(ocr=OcrMode.NEVER)) as source:
        for number in pages or range(1, source.page_count + 1):
            page = source.page(number)
            assert table_blocks(page) == [], (name, number)


@needs_corpus
def test_a_real_rent_schedule_is_found() -> None:
    """The Karyopharm lease's rent table (page 3), found by alignment alone."""
    with open_source(
        CORPUS / "lease/edgar_lease_01_office_karyopharm.pdf", options=ReadOptions(ocr=OcrMode.NEVER)
    ) as src:
        page = src.page(3)
    [(start, end)] = table_blocks(page)
    rows = page.text[start:end].split("\n")
    assert rows[0] == "Period\tAnnual Rate Per SF\tAnnual Base Rent\tMonthly Base Rent"
    assert rows[1].split("\t") == ["10/1/2025 – 9/30/2026", "$35.75", "$1,867,008.00", "$155,584.00"]
