"""File -> laid-out pages (or units): choose a parser by content and suffix, stream pages one at a time.

The registry below is the single list of supported kinds; its suffixes build the error message for anything
else. PDF is paged; DOCX, CSV/TSV, HTML, Markdown and plain text are read as units (see
:mod:`kruschnexus.parse.units`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import pytesseract

from kruschnexus.config import OcrMode
from kruschnexus.errors import ParseError, UnsupportedFormatError
from kruschnexus.layout.furniture import Furniture
from kruschnexus.layout.page import build_page
from kruschnexus.model import Page
from kruschnexus.parse.delimited import open_csv, open_tsv
from kruschnexus.parse.docx import open_docx
from kruschnexus.parse.html import open_html
from kruschnexus.parse.ocr import (
    OCR_DPI,
    OcrLine,
    OcrUnavailableError,
    Tesseract,
    glyphs_from_lines,
    ocr_failed,
    usable_text_layer,
)
from kruschnexus.parse.pdf import PdfFile, RawPage
from kruschnexus.parse.text import open_markdown, open_text

#: Bumped whenever a change to parsing, layout or chunking can change stored text, offsets or boxes.
EXTRACTOR_VERSION = "pdf-11+units-4"


class Source(Protocol):
    """An opened document: pages (or units) streamed in order."""

    kind: str
    page_count: int
    #: True for physical pages (PDF), False for units of an unpaged format.
    paged: bool
    #: What the reader detected and a user may want to know (encoding, CSV dialect, …).
    meta: dict[str, Any]

    def __enter__(self) -> Source: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def page(self, number: int) -> Page:
        """Page or unit ``number`` (1-based)."""

    def pages(self) -> Iterator[Page]:
        """Every page or unit in order."""


@dataclass(frozen=True)
class ReadOptions:
    """How files are read.

    Attributes:
        ocr: when PDF pages are OCR'd (``auto``: pages whose text layer is missing or unreadable and that draw
            an image).
        ocr_workers: pages OCR'd side by side (one single-threaded Tesseract process each).
        ocr_lang: Tesseract language.
    """

    ocr: OcrMode = OcrMode.AUTO
    ocr_workers: int = 2
    ocr_lang: str = "eng"


class PdfSource:
    """A PDF opened for layout: page count up front, pages streamed in order, OCR where needed.

    Raises:
        ParseError: the PDF cannot be opened, or ``ocr`` is ``always`` and Tesseract cannot run.
    """

    kind = "pdf"
    paged = True

    def __init__(self, path: Path, options: ReadOptions | None = None) -> None:
        self.path = path
        self.options = options or ReadOptions()
        self._pdf = PdfFile(path)
        self.page_count = self._pdf.page_count
        self._furniture: Furniture | None = None
        self._scanned_pages: dict[int, bool] = {}
        self._engine: Tesseract | None = None
        #: Why pages that need OCR could not get it (Tesseract missing), or ``None``.
        self.ocr_missing: str | None = None
        if self.options.ocr != OcrMode.NEVER:
            try:
                self._engine = Tesseract(self.options.ocr_lang)
            except OcrUnavailableError as exc:
                if self.options.ocr == OcrMode.ALWAYS:
                    self._pdf.close()
                    raise ParseError(path, f"OCR was asked for (--ocr always) but {exc}") from exc
                self.ocr_missing = str(exc)
        self.meta: dict[str, Any] = {
            "ocr": self.options.ocr.value,
            "ocr_engine": None if self._engine is None else self._engine.description,
        }

    def __enter__(self) -> PdfSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._pdf.close()

    @property
    def furniture(self) -> Furniture:
        """Running header and footer evidence for the whole document (computed once, cheaply)."""
        if self._furniture is None:
            bands = self._pdf.band_texts()
            self._furniture = Furniture(bands.edge, bands.wide)
        return self._furniture

    def page(self, number: int, ocr: bool = True) -> Page:
        """Page ``number`` (1-based), laid out (OCR'd first when the options say so and ``ocr`` allows it)."""
        raw = self._pdf.read_page(number)
        if not ocr or not self._wants_ocr(raw):
            return self._laid_out(raw, None)
        assert self._engine is not None
        dpi = self._pdf.fit_dpi(number, OCR_DPI)
        try:
            lines = self._engine.read(self._pdf.render(number, dpi), dpi)
        except (RuntimeError, OSError, pytesseract.TesseractError) as exc:
            raise ocr_failed(str(self.path), number, exc) from exc
        return self._laid_out(raw, lines, dpi)

    def pages(self) -> Iterator[Page]:
        """Every page in order; pages needing OCR are read by ``ocr_workers`` Tesseract processes at once."""
        workers = max(1, self.options.ocr_workers)
        pending: deque[tuple[RawPage, Future[list[OcrLine]] | None, float]] = deque()
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ocr")
        try:
            for number in range(1, self.page_count + 1):
                raw = self._pdf.read_page(number)
                job, dpi = None, float(OCR_DPI)
                if self._wants_ocr(raw):
                    assert self._engine is not None
                    dpi = self._pdf.fit_dpi(number, OCR_DPI)
                    job = pool.submit(self._engine.read, self._pdf.render(number, dpi), dpi)
                pending.append((raw, job, dpi))
                while pending and (len(pending) > 2 * workers or pending[0][1] is None):
                    yield self._finish(*pending.popleft())
            while pending:
                yield self._finish(*pending.popleft())
        finally:
            # Stopped early (a failed page, a store error, a closed generator): queued pages are not OCR'd.
            pool.shutdown(wait=True, cancel_futures=True)

    def _wants_ocr(self, raw: RawPage) -> bool:
        if self._engine is None:
            return False
        return self.options.ocr == OcrMode.ALWAYS or self._scanned(raw)

    def _scanned(self, raw: RawPage) -> bool:
        """The page has no usable text layer but draws an image (cached: asked before OCR and after layout)."""
        if raw.number not in self._scanned_pages:
            self._scanned_pages[raw.number] = not usable_text_layer(raw.glyphs) and self._pdf.has_images(raw.number)
        return self._scanned_pages[raw.number]

    def _finish(self, raw: RawPage, job: Future[list[OcrLine]] | None, dpi: float) -> Page:
        if job is None:
            return self._laid_out(raw, None)
        try:
            lines = job.result()
        except (RuntimeError, OSError, pytesseract.TesseractError) as exc:
            raise ocr_failed(str(self.path), raw.number, exc) from exc
        return self._laid_out(raw, lines, dpi)

    def _laid_out(self, raw: RawPage, lines: list[OcrLine] | None, dpi: float = OCR_DPI) -> Page:
        if lines is None:
            page = build_page(raw, self.furniture)
            page.needs_ocr = self._scanned(raw)
            return page
        ocr_raw = RawPage(raw.number, raw.geometry, glyphs_from_lines(lines, dpi), raw.label, raw.rulings)
        page = build_page(ocr_raw, self.furniture)
        page.used_ocr = True
        page.needs_ocr = False
        return page


#: Supported kinds: name -> (file suffixes, opener). The first suffix names the kind in messages.
REGISTRY: dict[str, tuple[tuple[str, ...], Callable[[Path], Source]]] = {
    "pdf": ((".pdf",), PdfSource),
    "markdown": ((".md", ".markdown"), open_markdown),
    "text": ((".txt", ".text"), open_text),
    "docx": ((".docx",), open_docx),
    "csv": ((".csv",), open_csv),
    "tsv": ((".tsv", ".tab"), open_tsv),
    "html": ((".html", ".htm", ".xhtml"), open_html),
}
#: Kinds whose opener takes :class:`ReadOptions` as well.
_WITH_OPTIONS: dict[str, Callable[[Path, ReadOptions], Source]] = {"pdf": PdfSource}

#: Leading bytes that identify a kind regardless of the file's name.
_MAGIC: tuple[tuple[bytes, str], ...] = ((b"%PDF-", "pdf"),)
#: Leading bytes a kind must have (a ``.pdf`` that is not a PDF is an error, not plain text).
#: (An OLE file named .docx goes to the DOCX reader, which tells an encrypted document from an old .doc.)
_REQUIRED_MAGIC: dict[str, tuple[bytes, ...]] = {"pdf": (b"%PDF-",), "docx": (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")}


def sniff(path: Path) -> str:
    """The kind of a file, from its first bytes and its suffix.

    Raises:
        ParseError: the file is empty, unreadable, or its content contradicts its suffix.
        UnsupportedFormatError: no parser reads this kind of file.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise ParseError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    if not head:
        raise ParseError(path, "the file is empty (0 bytes)")
    suffix = path.suffix.lower()
    named = next((kind for kind, (suffixes, _) in REGISTRY.items() if suffix in suffixes), None)
    if named is None or named in _REQUIRED_MAGIC:
        for magic, kind in _MAGIC:
            if magic in head:
                return kind
    if named is not None:
        required = _REQUIRED_MAGIC.get(named)
        if required is not None and not head.startswith(required):
            label = named.upper()
            raise ParseError(path, f"the name says {label} but the content is not (no {label} header)")
        return named
    supported = ", ".join(s for suffixes, _ in REGISTRY.values() for s in suffixes)
    raise UnsupportedFormatError(path, f"unsupported file type {suffix or '(no suffix)'!r}; supported: {supported}")


def open_source(path: Path, kind: str | None = None, options: ReadOptions | None = None) -> Source:
    """Open a file for extraction, as ``kind`` when the caller knows it (a kept original has no suffix), else as
    :func:`sniff` says (see it for the errors)."""
    if kind is None:
        kind = sniff(path)
    elif kind not in REGISTRY:
        raise UnsupportedFormatError(path, f"no reader for kind {kind!r}")
    if kind in _WITH_OPTIONS:
        return _WITH_OPTIONS[kind](path, options or ReadOptions())
    return REGISTRY[kind][1](path)
