"""Re-prove stored spans from the kept original bytes: same page text, same offsets, same boxes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kruschnexus import blobs
from kruschnexus.config import OcrMode, Settings
from kruschnexus.errors import ParseError
from kruschnexus.extract import PdfSource, ReadOptions, Source, open_source
from kruschnexus.model import Page, to_xywh
from kruschnexus.store.postgres import PgStore
from kruschnexus.store.records import DocumentRow, PageTextRow, SpanTextRow

#: Stored and re-derived box coordinates may differ by this much (points) — rounding only.
BOX_TOLERANCE = 0.011


@dataclass
class Mismatch:
    """One thing that did not re-prove."""

    source: str
    doc_id: str
    page_number: int | None
    what: str


@dataclass
class VerifyReport:
    """Outcome of ``nexus verify``."""

    documents: int = 0
    pages: int = 0
    spans: int = 0
    needs_ocr: list[tuple[str, int]] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every span re-proved."""
        return not self.mismatches


def verify_workspace(
    store: PgStore, settings: Settings, workspace: str, tick: Callable[[str], None] | None = None
) -> VerifyReport:
    """Re-derive every stored page and span of a workspace and compare."""
    report = VerifyReport()
    for doc in store.documents(workspace):
        report.documents += 1
        _verify_document(store, settings, workspace, doc, report)
        if tick is not None:
            tick(doc.source)
    return report


def _verify_document(
    store: PgStore, settings: Settings, workspace: str, doc: DocumentRow, report: VerifyReport
) -> None:
    doc_id, source_name = doc.doc_id, doc.source

    def miss(page: int | None, what: str) -> None:
        report.mismatches.append(Mismatch(source_name, doc_id, page, what))

    path = blobs.blob_path(settings.blob_dir, doc_id)
    if not path.is_file():
        miss(None, f"original bytes missing at {path}")
        return
    if blobs.sha256_file(path) != doc_id:
        miss(None, "kept bytes no longer match the document's sha256")
        return
    stored_pages = {p.page_number: p for p in store.pages(workspace, doc_id)}
    spans_by_page: dict[int, list[SpanTextRow]] = {}
    for row in store.document_spans(workspace, doc_id):
        spans_by_page.setdefault(row.page_number, []).append(row)
    meta: Mapping[str, Any] = doc.meta
    options = ReadOptions(ocr=OcrMode(meta.get("ocr", "never")), ocr_workers=1, ocr_lang=settings.ocr_lang)
    try:
        with open_source(path, doc.kind, options) as source:
            if source.page_count != len(stored_pages):
                miss(None, f"{source.page_count} pages in the file, {len(stored_pages)} stored")
            engine = source.meta.get("ocr_engine")
            ocr_differs = any(p.used_ocr for p in stored_pages.values()) and engine != meta.get("ocr_engine")
            if ocr_differs:
                miss(None, f"OCR'd with {meta.get('ocr_engine')}, cannot re-run it here ({engine or 'no Tesseract'})")
            for number, stored in sorted(stored_pages.items()):
                report.pages += 1
                if stored.needs_ocr:
                    report.needs_ocr.append((source_name, number))
                if not (stored.used_ocr and ocr_differs):
                    fresh = _fresh_page(source, number, stored.used_ocr)
                    _verify_page(fresh, stored, spans_by_page.get(number, []), miss, report)
    except ParseError as exc:
        miss(exc.page, f"cannot re-read the original: {exc.reason}")


def _fresh_page(source: Source, number: int, used_ocr: bool) -> Page:
    """The page as it was read at ingest: a page stored without OCR is re-read without OCR (Tesseract may have
    been installed since)."""
    if isinstance(source, PdfSource):
        return source.page(number, ocr=used_ocr)
    return source.page(number)


def _verify_page(
    page: Page,
    stored: PageTextRow,
    spans: Sequence[SpanTextRow],
    miss: Callable[[int | None, str], None],
    report: VerifyReport,
) -> None:
    if page.text != stored.text:
        miss(page.number, "page text differs from a fresh extraction")
        return
    if page.locator != stored.locator:
        miss(page.number, f"unit locator differs: stored {stored.locator}, fresh {page.locator}")
        return
    for span in spans:
        report.spans += 1
        problem = _check_span(page, span)
        if problem is not None:
            miss(page.number, problem)


def _check_span(page: Page, span: SpanTextRow) -> str | None:
    start, end = span.char_start, span.char_end
    return check_span(page, start, end, span.text, span.boxes, f"span {span.ordinal} [{start}:{end}]")


def check_span(
    page: Page, start: int, end: int, text: str, boxes: Sequence[Sequence[float]] | None, label: str = "span"
) -> str | None:
    """What is wrong with a span (its offsets, text and ``[x, y, w, h]`` boxes) against a freshly extracted page,
    or ``None`` when it re-proves."""
    if page.text[start:end] != text:
        return f"{label}: text is not page_text[{start}:{end}]"
    expected = [list(to_xywh(r)) for r in page.line_rects(start, end)]
    stored = boxes or []
    if len(expected) != len(stored) or any(
        abs(a - b) > BOX_TOLERANCE for e, s in zip(expected, stored, strict=False) for a, b in zip(e, s, strict=True)
    ):
        return f"{label}: boxes differ from the re-derived line boxes"
    return None
