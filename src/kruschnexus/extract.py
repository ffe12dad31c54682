"""File -> laid-out pages (or units): choose a parser by content and suffix, stream pages one at a time.

The registry below is the single list of supported kinds; its suffixes build the error message for anything
else. PDF is paged; DOCX, CSV/TSV, HTML, Markdown and plain text are read as units (see
:mod:`kruschnexus.parse.units`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from kruschnexus.errors import ParseError, UnsupportedFormatError
from kruschnexus.layout.furniture import Furniture
from kruschnexus.layout.page import build_page
from kruschnexus.model import Page
from kruschnexus.parse.pdf import PdfFile
from kruschnexus.parse.text import open_markdown, open_text

#: Bumped whenever a change to parsing, layout or chunking can change stored text, offsets or boxes.
EXTRACTOR_VERSION = "pdf-1+units-1"


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


class PdfSource:
    """A PDF opened for layout: page count up front, pages streamed in order."""

    kind = "pdf"
    paged = True

    def __init__(self, path: Path) -> None:
        self.meta: dict[str, Any] = {}
        self._pdf = PdfFile(path)
        self.page_count = self._pdf.page_count
        self._furniture: Furniture | None = None

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
            self._furniture = Furniture(self._pdf.band_texts())
        return self._furniture

    def page(self, number: int) -> Page:
        """Page ``number`` (1-based), laid out."""
        return build_page(self._pdf.read_page(number), self.furniture)

    def pages(self) -> Iterator[Page]:
        """Every page in order, laid out one at a time."""
        for number in range(1, self.page_count + 1):
            yield self.page(number)


#: Supported kinds: name -> (file suffixes, opener). The first suffix names the kind in messages.
REGISTRY: dict[str, tuple[tuple[str, ...], Callable[[Path], Source]]] = {
    "pdf": ((".pdf",), PdfSource),
    "markdown": ((".md", ".markdown"), open_markdown),
    "text": ((".txt", ".text"), open_text),
}

#: Leading bytes that identify a kind regardless of the file's name.
_MAGIC: tuple[tuple[bytes, str], ...] = ((b"%PDF-", "pdf"),)
#: Leading bytes a kind must have (a ``.pdf`` that is not a PDF is an error, not plain text).
_REQUIRED_MAGIC: dict[str, bytes] = {"pdf": b"%PDF-", "docx": b"PK\x03\x04"}


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


def open_source(path: Path, kind: str | None = None) -> Source:
    """Open a file for extraction, as ``kind`` when the caller knows it (a kept original has no suffix), else as
    :func:`sniff` says (see it for the errors)."""
    if kind is None:
        kind = sniff(path)
    elif kind not in REGISTRY:
        raise UnsupportedFormatError(path, f"no reader for kind {kind!r}")
    return REGISTRY[kind][1](path)
