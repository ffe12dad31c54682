"""Stamps across body text, measured against the unstamped page.

Real filings carry RECEIVED / FILED / CONFIDENTIAL / date stamps and initials over their text. This script puts
such stamps on pages of real PDFs (``../shared/corpus``; the project's fixture contract when the corpus is absent)
and reads each page twice, without and with its stamps; the unstamped page is the ground truth:

- vector stamps (reportlab, overlaid with pdfium): a rotated red ``RECEIVED`` in a box, a large translucent red
  ``CONFIDENTIAL`` across the body, a small tilted blue ``FILED DEC 04 2026``, translucent upright blue initials
  ``JKM``, an opaque upright red ``PAID`` of body size over a line of text, and an image stamp (a round
  ``APPROVED`` bitmap, no text);
- ``corrupted``: characters of the page's spans that differ from the unstamped page's (an edit count over the
  spans' text, in reading order): stamp letters inside a span, or body letters lost; target 0;
- ``stamp_words_in_spans``: stamp words found in a span of the stamped page and in none of the unstamped one;
- ``stamp_recall``: of the vector stamps, those read as ``stamp`` blocks (their words in a stamp block);
- ``boxes_moved``: spans with the same text on both pages whose boxes differ (more than 0.05 pt);
- with ``--ocr``: each stamped page rendered to a 200 dpi bitmap and read by Tesseract: the character error rate of
  its spans against the unstamped text layer's (an edit count over the spans joined in reading order, so a
  different reading order counts too), beside the same for the unstamped page's scan, and stamp words in OCR'd
  spans (target CER <= 2%).

    python bench/stamps.py [--pdfs 6] [--pages 2] [--ocr] [--json]
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw
from reportlab.lib.colors import Color
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.config import OcrMode
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.model import BlockKind, Chunk, Page
from kruschnexus.parse.ocr import tesseract_version

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
#: Real PDFs stamped by default (text layers of several producers; the first pages of each).
CORPUS_PDFS = (
    "lease/edgar_lease_01_office_karyopharm.pdf",
    "lease/georgia_gba_specimen_property_lease.pdf",
    "debt/ribbon_credit_agreement_2024.pdf",
    "municipal/oakland_omc_8.22_art1_excerpt.pdf",
    "governance/cncf_charter.pdf",
    "court/nc_supreme_court_2022-NCSC-1.pdf",
    "cuad/PapaJohnsInternationalInc_20190617_8-K_EX-10.1_11707365_EX-10.1_Endorsement Agreement.pdf",
)
FIXTURE = REPO / "tests" / "fixtures" / "sample_contract.pdf"
#: The words of the vector stamps (what must stay out of spans and be read as stamps).
STAMP_WORDS = ("RECEIVED", "CONFIDENTIAL", "FILED", "JKM", "PAID")


@dataclass
class PageScore:
    """One stamped page against its unstamped self."""

    pdf: str
    page: int
    chars: int
    corrupted: int
    stamp_words_in_spans: list[str]
    stamps_found: list[str]
    boxes_moved: int
    ocr_cer: float | None = None
    ocr_cer_unstamped: float | None = None
    ocr_stamp_words: list[str] = field(default_factory=list)


def stamp_overlay(path: Path, sizes: Sequence[tuple[float, float]]) -> None:
    """A PDF of transparent pages of these sizes holding only the stamps."""
    c = canvas.Canvas(str(path), invariant=1)
    for width, height in sizes:
        c.setPageSize((width, height))
        _received(c, width * 0.55, height * 0.62)
        _confidential(c, width, height * 0.45)
        _filed(c, width * 0.62, height * 0.86)
        _initials(c, width * 0.80, height * 0.30)
        _paid(c, width * 0.30, height * 0.72)
        c.drawImage(ImageReader(_approved_bitmap()), width * 0.12, height * 0.18, 90, 90, mask="auto")
        c.showPage()
    c.save()


def _received(c: canvas.Canvas, x: float, y: float) -> None:
    c.saveState()
    c.translate(x, y)
    c.rotate(18)
    c.setStrokeColor(Color(0.8, 0.05, 0.05, alpha=0.8))
    c.setFillColor(Color(0.8, 0.05, 0.05, alpha=0.8))
    c.setLineWidth(2)
    c.rect(-8, -8, 150, 36)
    c.setFont("Helvetica-Bold", 22)
    c.drawString(0, 0, "RECEIVED")
    c.restoreState()


def _confidential(c: canvas.Canvas, width: float, y: float) -> None:
    c.saveState()
    c.setFillColor(Color(0.9, 0.1, 0.1, alpha=0.3))
    c.setFont("Helvetica-Bold", 48)
    c.drawCentredString(width / 2, y, "CONFIDENTIAL")
    c.restoreState()


def _filed(c: canvas.Canvas, x: float, y: float) -> None:
    c.saveState()
    c.translate(x, y)
    c.rotate(-7)
    c.setFillColor(Color(0.1, 0.2, 0.75, alpha=0.85))
    c.setFont("Courier-Bold", 11)
    c.drawString(0, 0, "FILED DEC 04 2026")
    c.restoreState()


def _initials(c: canvas.Canvas, x: float, y: float) -> None:
    c.saveState()
    c.setFillColor(Color(0.1, 0.15, 0.6, alpha=0.9))
    c.setFont("Times-BoldItalic", 15)
    c.drawString(x, y, "JKM")
    c.restoreState()


def _paid(c: canvas.Canvas, x: float, y: float) -> None:
    """An opaque, upright, body-sized stamp: only its colour and its place over other text tell it apart."""
    c.saveState()
    c.setFillColorRGB(0.85, 0.05, 0.05)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(x, y, "PAID")
    c.restoreState()


def _approved_bitmap() -> Image.Image:
    image = Image.new("RGBA", (180, 180), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse((6, 6, 174, 174), outline=(20, 120, 40, 200), width=8)
    draw.text((52, 82), "APPROVED", fill=(20, 120, 40, 220))
    return image


def stamped_copy(source: Path, target: Path, pages: int, folder: Path) -> int:
    """``source``'s first ``pages`` upright pages with the stamps over them; returns how many were written."""
    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(str(source))
    try:
        keep = [i for i in range(min(pages, len(src))) if src[i].get_rotation() == 0]
        out = pdfium.PdfDocument.new()
        out.import_pages(src, keep)
    finally:
        src.close()
    overlay_path = folder / f"overlay_{target.stem}.pdf"
    stamp_overlay(overlay_path, [out[i].get_size() for i in range(len(out))])
    overlay = pdfium.PdfDocument(str(overlay_path))
    plain_path = target.with_name(target.stem + "_plain.pdf")
    out.save(str(plain_path))
    try:
        for i in range(len(out)):
            page = out[i]
            left, bottom, _, _ = page.get_cropbox()
            obj = overlay.page_as_xobject(i, out).as_pageobject()
            obj.transform(pdfium.PdfMatrix().translate(left, bottom))
            page.insert_obj(obj)
            page.gen_content()
        out.save(str(target))
    finally:
        overlay.close()
        out.close()
    return len(keep)


def laid_out(path: Path, ocr: OcrMode = OcrMode.NEVER) -> Iterator[tuple[Page, list[Chunk]]]:
    """Each page of ``path`` and its spans, as the ingester cuts them."""
    tracker = SectionTracker()
    with open_source(path, options=ReadOptions(ocr=ocr)) as source:
        for page in source.pages():
            yield page, chunk_page(page, tracker, 900)


def _edits(a: str, b: str) -> int:
    """Characters inserted, deleted or replaced to turn ``a`` into ``b``."""
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def _boxes_moved(plain: list[Chunk], stamped: list[Chunk]) -> int:
    """Spans of the same text on both pages whose line boxes differ by more than 0.05 pt."""
    moved = 0
    by_text = {c.text: c for c in plain}
    for chunk in stamped:
        twin = by_text.get(chunk.text)
        if twin is None:
            continue
        before = list(twin.rects)
        after = list(chunk.rects)
        if len(before) != len(after) or any(
            not math.isclose(u, v, abs_tol=0.05)
            for a, b in zip(before, after, strict=True)
            for u, v in zip(a, b, strict=True)
        ):
            moved += 1
    return moved


def score(name: str, plain: Path, stamped: Path, ocr: bool, folder: Path) -> list[PageScore]:
    """Every page of ``stamped`` against the same page of ``plain``."""
    scores = []
    clean = list(laid_out(plain))
    dirty = list(laid_out(stamped))
    scanned: list[tuple[Page, list[Chunk]]] = []
    plain_scanned: list[tuple[Page, list[Chunk]]] = []
    if ocr:
        sys.path.insert(0, str(REPO))
        from tests.pdfgen import scanned_copy

        scan = scanned_copy(stamped, folder / f"{stamped.stem}_scan.pdf")
        scanned = list(laid_out(scan, OcrMode.ALWAYS))
        plain_scan = scanned_copy(plain, folder / f"{plain.stem}_scan.pdf")
        plain_scanned = list(laid_out(plain_scan, OcrMode.ALWAYS))
    for index, ((page, spans), (stamped_page, stamped_spans)) in enumerate(zip(clean, dirty, strict=True)):
        before = "\n".join(c.text for c in spans)
        after = "\n".join(c.text for c in stamped_spans)
        stamp_blocks = " ".join(
            stamped_page.text[b.start : b.end] for b in stamped_page.blocks if b.kind == BlockKind.STAMP
        )
        result = PageScore(
            pdf=name,
            page=page.number,
            chars=len(before),
            corrupted=_edits(before, after),
            stamp_words_in_spans=[w for w in STAMP_WORDS if w in after and w not in before],
            stamps_found=[w for w in STAMP_WORDS if w in stamp_blocks],
            boxes_moved=_boxes_moved(spans, stamped_spans),
        )
        if scanned:
            read = " ".join(" ".join(c.text for c in scanned[index][1]).split())
            unstamped = " ".join(" ".join(c.text for c in plain_scanned[index][1]).split())
            truth = " ".join(before.split())
            result.ocr_cer = round(_edits(truth, read) / max(len(truth), 1), 4)
            result.ocr_cer_unstamped = round(_edits(truth, unstamped) / max(len(truth), 1), 4)
            result.ocr_stamp_words = [w for w in STAMP_WORDS if w in read and w not in truth]
        scores.append(result)
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    """Stamp, read, compare; print the table (or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdfs", type=int, default=len(CORPUS_PDFS), help="corpus PDFs to stamp (default: all)")
    parser.add_argument("--pages", type=int, default=2, help="first pages of each PDF (default 2)")
    parser.add_argument("--ocr", action="store_true", help="also read each stamped page as a scan (Tesseract)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    if args.ocr and tesseract_version() is None:
        parser.error("--ocr needs Tesseract (apt install tesseract-ocr)")
    sources = [CORPUS / p for p in CORPUS_PDFS[: args.pdfs] if (CORPUS / p).is_file()] or [FIXTURE]
    started = time.monotonic()
    pages: list[PageScore] = []
    with tempfile.TemporaryDirectory(prefix="nexus-stamps-") as tmp:
        folder = Path(tmp)
        for source in sources:
            target = folder / f"{source.stem}.pdf"
            if stamped_copy(source, target, args.pages, folder):
                pages += score(source.name, target.with_name(target.stem + "_plain.pdf"), target, args.ocr, folder)
    report = summary(pages, round(time.monotonic() - started, 2))
    if args.json:
        print(json.dumps(report))
    else:
        render(report)
    return 0


def summary(pages: list[PageScore], seconds: float) -> dict[str, Any]:
    """Totals over the pages, and every page."""
    chars = sum(p.chars for p in pages)
    corrupted = sum(p.corrupted for p in pages)
    found = sum(len(p.stamps_found) for p in pages)
    cers = [p.ocr_cer for p in pages if p.ocr_cer is not None]
    plain_cers = [p.ocr_cer_unstamped for p in pages if p.ocr_cer_unstamped is not None]
    return {
        "pages": len(pages),
        "chars": chars,
        "corrupted": corrupted,
        "corrupted_pages": sum(p.corrupted > 0 for p in pages),
        "stamp_words_in_spans": sum(len(p.stamp_words_in_spans) for p in pages),
        "stamp_recall": round(found / (len(pages) * len(STAMP_WORDS)), 4) if pages else 0.0,
        "boxes_moved": sum(p.boxes_moved for p in pages),
        "ocr_cer_mean": round(sum(cers) / len(cers), 4) if cers else None,
        "ocr_cer_max": max(cers) if cers else None,
        "ocr_cer_unstamped_mean": round(sum(plain_cers) / len(plain_cers), 4) if plain_cers else None,
        "ocr_stamp_words": sum(len(p.ocr_stamp_words) for p in pages),
        "seconds": seconds,
        "per_page": [vars(p) for p in pages],
    }


def render(report: dict[str, Any]) -> None:
    """The report as a table."""
    print(f"{report['pages']} stamped pages, {report['chars']} span characters ({report['seconds']} s)")
    print(f"  corrupted characters        {report['corrupted']} on {report['corrupted_pages']} page(s)")
    print(f"  stamp words inside spans    {report['stamp_words_in_spans']}")
    print(f"  stamp recall (stamp blocks) {report['stamp_recall']:.2f}")
    print(f"  spans whose boxes moved     {report['boxes_moved']}")
    if report["ocr_cer_mean"] is not None:
        print(f"  OCR CER mean / max          {report['ocr_cer_mean']:.4f} / {report['ocr_cer_max']:.4f}")
        print(f"  OCR CER of unstamped scans  {report['ocr_cer_unstamped_mean']:.4f}")
        print(f"  stamp words in OCR'd spans  {report['ocr_stamp_words']}")
    for p in report["per_page"]:
        print(
            f"  {p['pdf'][:40]:40} p.{p['page']:<3} corrupted {p['corrupted']:4d}  in spans {p['stamp_words_in_spans']}"
            f"  found {p['stamps_found']}" + (f"  cer {p['ocr_cer']}" if p["ocr_cer"] is not None else "")
        )


if __name__ == "__main__":
    raise SystemExit(main())
