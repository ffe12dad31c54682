"""Spans of the project's fixtures re-read with a different extractor (pdfminer.six).

The characters pdfminer finds printed inside a span's boxes must be exactly the span's text (whitespace
aside). Rotated copies of a page check the display-space transform: pdfminer applies ``/Rotate`` itself.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.extract import open_source
from kruschnexus.model import to_xywh, union
from tests.conftest import FIXTURES
from tests.independent import canonical, page_chars, text_in_boxes


def spans_match_pdfminer(path: Path) -> int:
    """Check every span of ``path``; returns how many were checked."""
    checked = 0
    tracker = SectionTracker()
    with open_source(path) as source:
        chars = page_chars(path)
        for page in source.pages():
            for chunk in chunk_page(page, tracker, 900):
                boxes = [list(to_xywh(r)) for r in chunk.rects]
                assert union(chunk.rects) == chunk.bbox
                found = text_in_boxes(chars[page.number], boxes)
                assert canonical(found) == canonical(chunk.text), (path.name, page.number, chunk.text[:60])
                checked += 1
    return checked


@pytest.mark.parametrize("name", ["sample_contract.pdf", "ligatures.pdf", "two_page_scan_like.pdf"])
def test_fixture_spans_match_an_independent_extractor(name: str) -> None:
    assert spans_match_pdfminer(FIXTURES / name) > 0


def counter_rotated(path: Path, rotation: int) -> Path:
    """A page whose content is drawn turned by ``rotation`` and whose ``/Rotate`` turns it back upright."""
    from reportlab.pdfgen import canvas

    portrait = (612.0, 792.0)
    size = portrait if rotation == 180 else (792.0, 612.0)
    c = canvas.Canvas(str(path), pagesize=size, invariant=1)
    c.rotate(rotation)
    c.translate(*{90: (0.0, -792.0), 180: (-612.0, -792.0), 270: (-612.0, 0.0)}[rotation])
    c.setFont("Helvetica-Bold", 12)
    c.drawString(72, 720, "Section 3.1 Rotated Pages")
    c.setFont("Times-Roman", 11)
    lines = [
        "Tenant shall keep the Premises in good repair at its own expense.",
        "Landlord shall deliver possession on the Commencement Date.",
        "Each party shall bear its own costs under this Section.",
    ]
    for k, line in enumerate(lines):
        c.drawString(72, 700 - 14 * k, line)
    c.drawString(90, 500, "Short line at a different height.")
    c.save()
    pdf = pdfium.PdfDocument(str(path))
    pdf[0].set_rotation(rotation)
    out = path.with_name(f"turned-{path.name}")
    pdf.save(str(out))
    pdf.close()
    return out


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rotated_pages_keep_boxes_on_the_displayed_words(tmp_path: Path, rotation: int) -> None:
    target = counter_rotated(tmp_path / f"r{rotation}.pdf", rotation)
    with open_source(target) as source:
        page = source.page(1)
    assert page.rotation == rotation
    assert (page.width, page.height) == (612.0, 792.0)
    assert "Section 3.1 Rotated Pages" in page.text
    heading = next(b for b in page.blocks if page.text[b.start : b.end].startswith("Section 3.1"))
    assert heading.rect[0] == pytest.approx(72, abs=1) and heading.rect[1] == pytest.approx(60, abs=4)
    assert spans_match_pdfminer(target) > 0


def test_a_tampered_box_is_caught(tmp_path: Path) -> None:
    """The checker itself can fail: shift one span's boxes by a line and the texts differ."""
    path = FIXTURES / "sample_contract.pdf"
    with open_source(path) as source:
        page = source.page(1)
    chunk = chunk_page(page, SectionTracker(), 900)[1]
    chars = page_chars(path, [1])[1]
    shifted = [[x, y + 14.0, w, h] for x, y, w, h in (to_xywh(r) for r in chunk.rects)]
    assert canonical(text_in_boxes(chars, shifted)) != canonical(chunk.text)
