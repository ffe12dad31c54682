"""OCR of scanned pages with the real Tesseract: text, line boxes, rotation, ingest, verify, missing Tesseract."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pytesseract
import pytest
from reportlab.lib.colors import Color

from kruschnexus import Corpus
from kruschnexus.config import OcrMode, Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.extract import PdfSource, ReadOptions
from kruschnexus.model import Page, Rect
from tests.conftest import CORPUS, FIXTURES, needs_corpus

pytestmark = pytest.mark.integration

SCANNED = FIXTURES / "scanned_lease.pdf"
TRUTH = json.loads((FIXTURES / "scanned_lease.truth.json").read_text(encoding="utf-8"))["pages"]
#: Line-box centres of OCR'd lines may be this far (points) from where the line was printed.
CENTRE_TOLERANCE = 3.0


def words(text: str) -> Counter[str]:
    return Counter(re.findall(r"[a-z0-9]+", text.lower()))


def word_recall(found: str, expected: str) -> float:
    want = words(expected)
    return sum((words(found) & want).values()) / sum(want.values())


def centre(rect: Rect | list[float]) -> tuple[float, float]:
    return (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2


def line_offsets(page: Page, lines: list[tuple[str, Rect]]) -> Iterator[tuple[str, float]]:
    """For each expected line: the distance between its centre and the centre of the OCR line that reads most
    like it (among equally good readings, the nearest)."""
    ocr = [(page.text[ln.start : ln.end], ln.rect) for ln in page.lines]
    for text, rect in lines:
        scored = [(difflib.SequenceMatcher(None, text, t).ratio(), r) for t, r in ocr]
        best = max(s for s, _ in scored)
        assert best >= 0.85, f"no OCR line reads like {text!r}"
        (cx, cy) = centre(rect)
        yield text, min(max(abs(cx - centre(r)[0]), abs(cy - centre(r)[1])) for s, r in scored if s >= best - 0.05)


@pytest.fixture(scope="module")
def scanned_pages() -> list[Page]:
    with PdfSource(SCANNED) as source:
        return list(source.pages())


def test_scanned_fixture_reads_back_its_printed_text(scanned_pages: list[Page]) -> None:
    assert [p.used_ocr for p in scanned_pages] == [True, True]
    assert [p.rotation for p in scanned_pages] == [0, 90]
    for page, truth in zip(scanned_pages, TRUTH, strict=True):
        expected = "\n".join(line["text"] for line in truth["lines"])
        assert word_recall(page.text, expected) >= 0.97
        assert (page.width, page.height) == (612.0, 792.0)  # the rotated page is shown upright


def test_ocr_line_boxes_lie_where_the_lines_were_printed(scanned_pages: list[Page]) -> None:
    for page, truth in zip(scanned_pages, TRUTH, strict=True):
        lines = [(line["text"], tuple(line["box"])) for line in truth["lines"]]
        far = [(t, d) for t, d in line_offsets(page, lines) if d > CENTRE_TOLERANCE]
        assert not far, f"page {page.number}: {far}"


def test_text_inside_each_box_is_the_span_text_on_a_fresh_render(settings: Settings, embedder: Embedder) -> None:
    """Independent of how words became glyphs: crop the rendered page at each span line box, read the crop with
    Tesseract as a single line, compare with the span's text on that line."""
    with Corpus(workspace="ocr-boxes", settings=settings, embedder=embedder) as corpus:
        corpus.store.delete_workspace(corpus.workspace)
        [result] = corpus.ingest([SCANNED])
        hits = list(corpus.export())
    assert result.ocr_pages == [1, 2] and not result.needs_ocr
    doc = pdfium.PdfDocument(str(SCANNED))
    checked = 0
    for hit in hits:
        assert hit.used_ocr and hit.boxes
        assert hit.page_number is not None
        page = doc[hit.page_number - 1]
        image = page.render(scale=300 / 72, grayscale=True).to_pil()
        line_texts = [t for t in hit.text.split("\n") if t.strip()]
        assert len(line_texts) == len(hit.boxes)
        for text, (x, y, w, h) in zip(line_texts, hit.boxes, strict=True):
            pad = 3
            crop = image.crop(
                (
                    round((x - pad) * 300 / 72),
                    round((y - pad) * 300 / 72),
                    round((x + w + pad) * 300 / 72),
                    round((y + h + pad) * 300 / 72),
                )
            )
            read = pytesseract.image_to_string(crop, config="--psm 7").strip()
            assert difflib.SequenceMatcher(None, read, text).ratio() >= 0.9, (read, text)
            checked += 1
        page.close()
    doc.close()
    assert checked >= 15


def test_ingest_ocr_modes_and_verify(settings: Settings, embedder: Embedder, workspace: str) -> None:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as corpus:
        [never] = corpus.ingest([SCANNED], ocr="never")
        assert never.needs_ocr == [1, 2] and never.spans == 0 and "OCR is off" in never.reason
        corpus.store.delete_workspace(workspace)
        [auto] = corpus.ingest([SCANNED, FIXTURES / "ligatures.pdf"])[:1]
        assert auto.ocr_pages == [1, 2] and auto.meta["ocr_engine"].startswith("tesseract")
        hits = corpus.search("how much is the security deposit", k=3)
        assert hits and hits[0].used_ocr and hits[0].page_number == 1 and "12,000.00" in hits[0].text
        assert hits[0].section is not None and hits[0].section.startswith("4")
        report = corpus.verify()
        assert report.ok, report.mismatches
        assert report.spans == sum(1 for _ in corpus.export())


def test_ocr_always_reads_a_born_digital_page(settings: Settings, embedder: Embedder, workspace: str) -> None:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as corpus:
        [result] = corpus.ingest([FIXTURES / "ligatures.pdf"], ocr="always")
        hits = list(corpus.export())
    assert result.ocr_pages == [1] and hits and all(h.used_ocr for h in hits)
    with PdfSource(FIXTURES / "ligatures.pdf", ReadOptions(ocr=OcrMode.NEVER)) as source:
        layer = source.page(1).text
    assert word_recall(" ".join(h.text for h in hits), layer) >= 0.9


def _nexus(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kruschnexus", *args], env=env, capture_output=True, text=True, timeout=600
    )


def test_without_tesseract_doctor_and_ingest_say_what_is_missing(settings: Settings, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {
        **os.environ,
        "PATH": str(bin_dir),  # no tesseract on this PATH
        "NEXUS_HOME": str(settings.home),
        "NEXUS_DATABASE_URL": settings.database_url or "",
    }
    doctor = _nexus(env, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout.strip().splitlines()[-1])["checks"]}
    assert doctor.returncode == 1 and not checks["tesseract"]["ok"]
    assert "apt install tesseract-ocr" in checks["tesseract"]["detail"]
    auto = _nexus(env, "ingest", str(SCANNED), "-w", "no-tesseract", "--create", "--json")
    [file] = json.loads(auto.stdout.strip().splitlines()[-1])["files"]
    assert file["status"] == "ingested" and "Tesseract is not installed" in file["reason"]
    always = _nexus(env, "ingest", str(SCANNED), "-w", "no-tesseract-always", "--create", "--ocr", "always", "--json")
    [file] = json.loads(always.stdout.strip().splitlines()[-1])["files"]
    assert always.returncode == 1 and file["status"] == "failed" and "tesseract-ocr" in file["reason"]


@needs_corpus
def test_scotus_scan_matches_its_born_digital_twin() -> None:
    court = CORPUS / "court"
    with PdfSource(court / "scotus_tarrant_v_herrmann_2013_pp1-2_SCANNED.pdf") as source:
        scanned = list(source.pages())
    with PdfSource(court / "scotus_tarrant_v_herrmann_2013_slip.pdf", ReadOptions(ocr=OcrMode.NEVER)) as source:
        born = [source.page(1), source.page(2)]
    for ocr_page, twin in zip(scanned, born, strict=True):
        assert ocr_page.used_ocr and not twin.used_ocr
        assert word_recall(ocr_page.text, twin.text) >= 0.97
        lines = [(twin.text[ln.start : ln.end], ln.rect) for ln in twin.lines]
        matched = list(line_offsets(ocr_page, lines))
        assert len(matched) == len(lines)
        far = [(t, round(d, 2)) for t, d in matched if d > CENTRE_TOLERANCE]
        assert not far, f"page {twin.number}: {far}"


@needs_corpus
def test_rotated_ccitt_scan_has_upright_boxes() -> None:
    with PdfSource(CORPUS / "municipal" / "oakland_resolution_scan_page.pdf") as source:
        [page] = list(source.pages())
    assert page.used_ocr and page.rotation == 270 and (page.width, page.height) == (612.0, 792.0)
    assert "Capital Contracts Division" in page.text
    long_lines = [ln.rect for ln in page.lines if ln.end - ln.start > 40]
    assert len(long_lines) > 20
    for x0, y0, x1, y1 in long_lines:
        assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792
        assert x1 - x0 > 5 * (y1 - y0)  # a line of text runs across the upright page, not down it


def test_a_scans_coloured_headings_and_links_are_read(tmp_path: Path) -> None:
    """A page printed with a heading in Word's blue, a dark-blue and a red heading and a hyperlink, scanned in grey:
    the lighter ink is text in lines of its own, and OCR reads it (before, ink 70 grey levels lighter than the
    body's was all dropped as a stamp's, and the blue heading and the link with it). A note in 50% grey is pale ink
    (a service's footer is printed so) and is still dropped."""
    from reportlab.pdfgen import canvas

    from tests.pdfgen import scanned_copy

    path = tmp_path / "coloured.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    lines = [
        ("ARTICLE 4. RENT AND SECURITY DEPOSIT", 0x2F5496, "Helvetica-Bold", 14),
        ("The Tenant shall pay the monthly rent on the first day of each month without demand.", 0, "Times-Roman", 11),
        ("Section 4.2 Late Charges", 0x1F3864, "Helvetica-Bold", 12),
        ("A late charge of five percent applies to any payment received after the tenth day.", 0, "Times-Roman", 11),
        ("Section 4.3 Holdover Rent", 0xC00000, "Helvetica-Bold", 12),
        ("Holdover rent equals one hundred fifty percent of the last monthly rent.", 0, "Times-Roman", 11),
        ("Visit https://example.com/lease for the schedule of charges.", 0x0563C1, "Times-Roman", 11),
        ("Note: this summary is printed in grey.", 0x7F7F7F, "Times-Roman", 11),
    ]
    y = 720.0
    for text, rgb, font, size in lines:
        c.setFillColorRGB((rgb >> 16) / 255, (rgb >> 8 & 255) / 255, (rgb & 255) / 255)
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= size * 2
    c.showPage()
    c.save()
    with PdfSource(scanned_copy(path, tmp_path / "coloured_scan.pdf"), ReadOptions(ocr=OcrMode.ALWAYS)) as source:
        text = " ".join(source.page(1).text.split())
    for printed, *_ in lines[:-1]:
        assert printed in text, (printed, text)
    assert "grey" not in text


def test_a_scans_initials_and_paid_off_the_grid_are_not_read(tmp_path: Path) -> None:
    """Translucent blue initials in a stamp's larger letters, ending where the first line ends, and a red ``PAID`` on
    the white space between paragraphs, scanned in grey: as dark as the navy heading (grey 68 and 74 against 52),
    but the heading starts at the margin and they keep to no grid of the page, so OCR does not read them (before,
    both reached the page's text). The heading and every line of the body are read."""
    from reportlab.pdfgen import canvas

    from tests.pdfgen import scanned_copy

    path = tmp_path / "stamped.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFillColorRGB(0x1F / 255, 0x38 / 255, 0x64 / 255)
    c.setFont("Helvetica-Bold", 12)
    c.drawString(72, 720, "Section 4.2 Late Charges")
    body = [
        "A late charge of five percent applies to any payment received after the tenth day of the month.",
        "The Landlord may apply the security deposit to any rent that remains unpaid after notice.",
        "Holdover rent equals one hundred fifty percent of the monthly rent last in effect.",
        "The Tenant shall pay the monthly rent on the first day of each month without demand.",
    ]
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Times-Roman", 11)
    for k, line in enumerate(body):
        c.drawString(72, 696 - 16 * k - (40 if k >= 2 else 0), line)
    margin = 72 + c.stringWidth(body[0], "Times-Roman", 11)
    c.setFillColor(Color(0.1, 0.15, 0.6, alpha=0.9))
    c.setFont("Times-BoldItalic", 15)
    c.drawRightString(margin, 660, "JKM")  # ends where the first line ends, between the paragraphs
    c.setFillColorRGB(0.85, 0.05, 0.05)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(230, 640, "PAID")
    c.showPage()
    c.save()
    with PdfSource(scanned_copy(path, tmp_path / "stamped_scan.pdf"), ReadOptions(ocr=OcrMode.ALWAYS)) as source:
        text = " ".join(source.page(1).text.split())
    assert "JKM" not in text and "PAID" not in text, text
    for printed in ["Section 4.2 Late Charges", *body]:
        assert printed in text, (printed, text)
