"""Layout of the project's own fixtures: furniture, stamps, columns, wrapped headings, page breaks, ligatures.

These read PDFs with pdfium through the library and check the result against what the fixture script
drew; the independent pdfminer check of boxes is in test_provenance.py.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.config import OcrMode
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.model import BlockKind, Chunk, Page
from tests.conftest import FIXTURES, needs_corpus
from tests.integration.test_bench_smoke import load as load_bench

CONTRACT = FIXTURES / "sample_contract.pdf"
BODY_SENTENCE = (
    "Premises shall be used exclusively for commercial office space and professional services. "
    "No retail or hazardous materials storage is permitted without Landlord's prior consent."
)


def _fold(text: str) -> str:
    return " ".join(text.split())


def laid_out(path: Path, ocr: OcrMode = OcrMode.NEVER) -> Iterator[tuple[Page, list[Chunk]]]:
    tracker = SectionTracker()
    with open_source(path, options=ReadOptions(ocr=ocr)) as source:
        for page in source.pages():
            yield page, chunk_page(page, tracker, 900)


@pytest.fixture(scope="module")
def contract() -> list[tuple[Page, list[Chunk]]]:
    return list(laid_out(CONTRACT))


def block_texts(page: Page, kind: BlockKind) -> list[str]:
    return [page.text[b.start : b.end] for b in page.blocks if b.kind == kind]


def test_running_header_footer_and_page_numbers_are_typed(contract: list[tuple[Page, list[Chunk]]]) -> None:
    for page, _ in contract:
        assert block_texts(page, BlockKind.HEADER) == ["Commercial Lease Agreement — Acme Properties LLC"]
        assert block_texts(page, BlockKind.FOOTER) == ["Confidential"]
        assert block_texts(page, BlockKind.PAGE_NUMBER) == [f"Page {page.number} of 5"]


def test_furniture_and_stamp_never_inside_a_span(contract: list[tuple[Page, list[Chunk]]]) -> None:
    for page, chunks in contract:
        assert chunks, f"page {page.number} has no spans"
        for chunk in chunks:
            assert chunk.text == page.text[chunk.start : chunk.end]
            for banned in ("Acme Properties", "Confidential", "of 5", "DRAFT"):
                assert banned not in chunk.text, (page.number, chunk.text[:80])
            for block in page.blocks:
                if not block.kind.is_body:
                    assert chunk.end <= block.start or chunk.start >= block.end


def test_diagonal_stamp_is_a_stamp_block(contract: list[tuple[Page, list[Chunk]]]) -> None:
    page4 = contract[3][0]
    assert block_texts(page4, BlockKind.STAMP) == ["DRAFT"]
    body = " ".join(c.text for c in contract[3][1])
    assert "Upon the occurrence of an Event of Default" in _fold(body)


def test_first_span_carries_the_story(contract: list[tuple[Page, list[Chunk]]]) -> None:
    first = contract[0][1][0]
    assert first.section == "8.22"
    assert first.header == "Section 8.22 Permitted Use of Premises"
    assert first.heading_path == (
        "Page 1",
        "COMMERCIAL LEASE AGREEMENT",
        "Section 8.22 Permitted Use of Premises",
    )
    assert BODY_SENTENCE in _fold(first.text)
    assert first.page_number == 1


def test_two_columns_read_column_by_column(contract: list[tuple[Page, list[Chunk]]]) -> None:
    page, chunks = contract[4]
    order = [page.text.index(h) for h in ("Section 7.1", "Section 7.2", "Section 7.3", "Section 7.4")]
    assert order == sorted(order)
    notices = next(c for c in chunks if c.section == "7.1")
    assert "All notices under this Lease shall be in writing" in _fold(notices.text)
    assert "Notices shall be deemed given upon delivery or refusal of delivery." in _fold(notices.text)
    assert "Governing" not in notices.text and "invalid" not in notices.text
    left_edge = max(r[2] for r in notices.rects)
    assert left_edge < 300, "a left-column span must stay in the left column"


def test_wrapped_heading_is_one_heading(contract: list[tuple[Page, list[Chunk]]]) -> None:
    page, chunks = contract[2]
    headings = [_fold(t) for t in block_texts(page, BlockKind.HEADING)]
    expected = (
        "Section 5.1 Assignment, Subletting and Transfer of Tenant's Interest in the Premises Without the Prior"
        " Written Consent of Landlord"
    )
    assert expected in headings
    chunk = next(c for c in chunks if c.section == "5.1")
    assert chunk.header == expected


def test_section_continues_across_page_break(contract: list[tuple[Page, list[Chunk]]]) -> None:
    page3_first = contract[2][1][0]
    assert page3_first.section == "4.3"
    assert page3_first.header == "Section 4.3 Insurance"
    assert page3_first.heading_path[0] == "Page 3"
    assert page3_first.text.startswith("A.M. Best.")
    page2_last = contract[1][1][-1]
    assert page2_last.section == "4.3" and page2_last.page_number == 2


def test_sub_items_get_nested_ids(contract: list[tuple[Page, list[Chunk]]]) -> None:
    sections = [c.section for _, chunks in contract for c in chunks]
    for expected in ("8.24(a)", "8.24(b)", "4.2(a)", "4.2(b)(i)", "4.2(b)(ii)", "4.2(c)"):
        assert expected in sections
    chunk = next(c for _, chunks in contract for c in chunks if c.section == "4.2(b)(ii)")
    assert chunk.section_path == ("Article IV", "4.2", "4.2(b)", "4.2(b)(ii)")


def test_ligatures_and_line_end_hyphens() -> None:
    [(page, chunks)] = list(laid_out(FIXTURES / "ligatures.pdf"))
    assert "The office shall be floor space." in page.text
    assert "commer-\ncial premises" in page.text
    assert "well-\nknown landmark in the financial district." in page.text
    assert len(page.char_rects) == len(page.text)
    at = page.text.index("office") + 2
    f_box, i_box = page.char_rects[at], page.char_rects[at + 1]
    assert f_box is not None and i_box is not None
    assert f_box[2] == pytest.approx(i_box[0]), "the two halves of one ligature glyph must touch"
    assert [c.section for c in chunks] == ["1"]


def test_page_without_text_layer_needs_ocr() -> None:
    pages = [p for p, _ in laid_out(FIXTURES / "two_page_scan_like.pdf")]
    assert [p.needs_ocr for p in pages] == [False, True]
    assert pages[1].text == "" and pages[1].blocks == []


def test_blank_page_needs_nothing_and_an_image_page_is_ocrd_in_auto_mode() -> None:
    [(blank, _)] = list(laid_out(FIXTURES / "empty.pdf", OcrMode.AUTO))
    assert not blank.needs_ocr and not blank.used_ocr and blank.text == ""
    pages = [p for p, _ in laid_out(FIXTURES / "two_page_scan_like.pdf", OcrMode.AUTO)]
    assert [(p.used_ocr, p.needs_ocr) for p in pages] == [(False, False), (True, False)]


def test_stamps_over_the_fixture_contract_corrupt_no_character() -> None:
    """bench/stamps.py on the fixture contract (its first two pages): rotated, giant, translucent and opaque
    coloured stamps laid over the text leave every span as on the unstamped page, and are read as stamps.

    The same pages as 200 dpi grey scans read by Tesseract: the stamps' lighter ink is dropped before OCR
    (parse/ink.py). Before: character error rate 0.097 (0.024 unstamped), one stamp word in a span; after: 0.028,
    none."""
    stamps = load_bench("stamps")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        target = folder / "contract.pdf"
        assert stamps.stamped_copy(stamps.FIXTURE, target, 2, folder) == 2
        pages = stamps.score("contract", folder / "contract_plain.pdf", target, True, folder)
    report = stamps.summary(pages, 0.0)
    assert (report["corrupted"], report["stamp_words_in_spans"], report["boxes_moved"]) == (0, 0, 0), report
    assert report["stamp_recall"] == 1.0, report
    assert report["ocr_cer_mean"] <= 0.04 and report["ocr_stamp_words"] == 0, report
    assert report["ocr_cer_unstamped_mean"] <= 0.03, report


@needs_corpus
def test_stamps_over_real_pdfs_keep_their_floor() -> None:
    """bench/stamps.py over the first two pages of its eight corpus PDFs. First run with see-through and
    laid-over ink read as stamps: 34 corrupted characters of 31,706 on 4 of 14 pages (an opaque PAID landing
    mostly on white space between centred title lines), stamp recall 0.94; before: 97 on 14 pages, 0.80. With a
    stamp letter lying on body letters half inside its height making its run an overlay (pdf-9): 12 on 2 pages,
    0.97 (an opaque PAID on white space). With a run of hued ink drawn from a form XObject painted after the body
    read as laid on (pdf-10): 0, 1.0.

    Through OCR (each page a 200 dpi grey scan): before the body's ink was kept apart, a mean character error rate
    of 0.148 (max 0.43; 0.032 on the unstamped scans) and 20 stamp words in spans; after, 0.015 (max 0.059; 0.011
    unstamped) and 7 (the translucent blue initials, as dark in grey as the body's ink allows). Keeping lighter ink
    that is a level line of text of its own (a scan's blue heading, pdf-10): 0.016 (max 0.059) and 8 (the
    initials, and one PAID on white space). Dropping lines of another ink that keep to no grid of the page (pdf-11):
    0.013 (max 0.050) and 0."""
    stamps = load_bench("stamps")
    pages: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for relative in stamps.CORPUS_PDFS:
            target = folder / f"{Path(relative).stem}.pdf"
            if stamps.stamped_copy(stamps.CORPUS / relative, target, 2, folder):
                pages += stamps.score(relative, target.with_name(target.stem + "_plain.pdf"), target, True, folder)
    report = stamps.summary(pages, 0.0)
    totals = {k: v for k, v in report.items() if k != "per_page"}
    assert report["pages"] == 14 and report["boxes_moved"] == 0, report
    assert report["corrupted"] == 0 and report["stamp_recall"] >= 0.99, totals
    assert report["ocr_cer_mean"] <= 0.015 and report["ocr_cer_max"] <= 0.06, totals
    assert report["ocr_cer_unstamped_mean"] <= 0.015 and report["ocr_stamp_words"] == 0, totals
