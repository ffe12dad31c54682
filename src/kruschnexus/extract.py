"""File -> laid-out pages: choose a parser by content and suffix, stream pages one at a time.

Only PDF is read so far; the registry below is the single list of supported kinds, and its keys build
the error message for anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

from kruschnexus.errors import ParseError, UnsupportedFormatError
from kruschnexus.layout.furniture import Furniture
from kruschnexus.layout.page import build_page
from kruschnexus.model import Page
from kruschnexus.parse.pdf import PdfFile

#: Bumped whenever a change to parsing, layout or chunking can change stored text, offsets or boxes.
EXTRACTOR_VERSION = "pdf-1"


class PdfSource:
    """A PDF opened for layout: page count up front, pages streamed in order."""

    kind = "pdf"

    def __init__(self, path: Path) -> None:
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


Source = PdfSource

#: Supported kinds: name -> (file suffixes, opener).
REGISTRY: dict[str, tuple[tuple[str, ...], Callable[[Path], Source]]] = {
    "pdf": ((".pdf",), PdfSource),
}


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
    if b"%PDF-" in head:
        return "pdf"
    suffix = path.suffix.lower()
    for kind, (suffixes, _) in REGISTRY.items():
        if suffix in suffixes:
            raise ParseError(path, f"the name says {kind.upper()} but the content is not (no {kind.upper()} header)")
    supported = ", ".join(s for suffixes, _ in REGISTRY.values() for s in suffixes)
    raise UnsupportedFormatError(path, f"unsupported file type {suffix or '(no suffix)'!r}; supported: {supported}")


def open_source(path: Path) -> Source:
    """Open a file for extraction (see :func:`sniff` for the errors)."""
    kind = sniff(path)
    return REGISTRY[kind][1](path)
