"""Unpaged formats as units: a paragraph, a table cell, a row, an element or a run of lines is one ``Page``.

A unit has no physical page and no boxes: its text is exactly the source's text for that unit (as the format's
own library reads it), its ``locator`` says where it is, and offsets of spans are offsets into that text.
Extractors for DOCX, CSV, HTML and plain text only produce :class:`Unit` values; everything downstream
(chunking, storage, verification) treats a unit like a page.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from charset_normalizer import CharsetMatch, from_bytes

from kruschnexus.errors import ParseError
from kruschnexus.model import Block, BlockKind, Line, Locator, Page

#: The single-byte code page preferred when several read the bytes equally well.
WESTERN = "cp1252"
#: How much less language coherence (charset_normalizer's 0-1 score) Windows-1252 may have and still be chosen.
COHERENCE_SLACK = 0.1

_NO_BOX = (0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Unit:
    """One addressable piece of an unpaged document.

    Attributes:
        text: the unit's text, exactly as the format's library reads it (line ends as ``\\n``).
        kind: heading, paragraph, list item or table.
        locator: where the unit is, e.g. ``{"kind": "paragraph", "index": 12}``.
        level: outline level of a heading (1 = top), 0 when unknown.
        body: ``(start, end)`` of the part that is content, when the unit carries markup around it (the ``## ``
            of a Markdown heading); the whole text when ``None``.
    """

    text: str
    kind: BlockKind
    locator: Locator
    level: int = 0
    body: tuple[int, int] | None = None


def unit_page(number: int, unit: Unit) -> Page:
    """A unit as a page: one line per text line, one block, no boxes."""
    text = unit.text
    lines: list[Line] = []
    start = 0
    for part in text.split("\n"):
        lines.append(Line(start, start + len(part), _NO_BOX))
        start += len(part) + 1
    lo, hi = unit.body if unit.body is not None else (0, len(text))
    first = next(i for i, line in enumerate(lines) if line.end >= lo)
    last = max(first, next(i for i, line in enumerate(lines) if line.end >= hi))
    block = Block(unit.kind, lo, hi, first, last, _NO_BOX, level=unit.level)
    return Page(
        number=number,
        width=0.0,
        height=0.0,
        rotation=0,
        text=text,
        char_rects=[None] * len(text),
        lines=lines,
        blocks=[block],
        locator=dict(unit.locator),
    )


class UnitSource:
    """An unpaged document read whole into units (files are bounded by ``NEXUS_MAX_FILE_BYTES``).

    Units with no visible text are left out; the rest are numbered 1, 2, … in document order.
    """

    paged = False

    def __init__(self, path: Path, kind: str, units: Sequence[Unit], meta: dict[str, Any] | None = None) -> None:
        self.path = path
        self.kind = kind
        self._units = [u for u in units if u.text.strip() and _body_text(u).strip()]
        if not self._units:
            raise ParseError(path, f"the {kind.upper()} file has no text")
        self.page_count = len(self._units)
        self.meta: dict[str, Any] = meta or {}

    def __enter__(self) -> UnitSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def page(self, number: int) -> Page:
        """Unit ``number`` (1-based) as a page."""
        return unit_page(number, self._units[number - 1])

    def pages(self) -> Iterator[Page]:
        """Every unit in order."""
        for number in range(1, self.page_count + 1):
            yield self.page(number)


def _body_text(unit: Unit) -> str:
    lo, hi = unit.body if unit.body is not None else (0, len(unit.text))
    return unit.text[lo:hi]


@dataclass(frozen=True)
class Decoded:
    """A text file's characters and the encoding they were read with."""

    text: str
    encoding: str
    detected: bool = field(default=False)


def decode(path: Path, data: bytes) -> Decoded:
    """Bytes to text: a BOM or valid UTF-8 decides; otherwise the encoding is detected, and said so.

    Line ends (``\\r\\n``, ``\\r``) become ``\\n``.

    Raises:
        ParseError: the bytes are binary, or no encoding reads them.
    """
    if b"\x00" in data[:8192] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ParseError(path, "the file is binary (NUL bytes), not text")
    for bom, name in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return Decoded(_newlines(data.decode(name)), name)
            except UnicodeDecodeError as exc:
                raise ParseError(
                    path, f"the byte-order mark says {name}, but the bytes are not ({exc.reason})"
                ) from exc
    try:
        return Decoded(_newlines(data.decode("utf-8")), "utf-8")
    except UnicodeDecodeError:
        pass
    matches = from_bytes(data)
    best = matches.best()
    if best is None or best.encoding is None:
        raise ParseError(path, "cannot tell the text encoding (not UTF-8, and no other encoding fits)")
    text, encoding = _western_if_tied(best, list(matches))
    return Decoded(_newlines(text), encoding, detected=True)


def _western_if_tied(best: CharsetMatch, matches: list[CharsetMatch]) -> tuple[str, str]:
    """The text and encoding to use: Windows-1252 (what browsers read for Latin-1) when it reads the bytes about as
    well as the detector's choice (no more mess, coherence within :data:`COHERENCE_SLACK`), else that choice.

    Short Western text ("Lefèvre,København") fits many single-byte code pages equally well, and the detector then
    picks one by name (cp1250, cp1257, cp1258: "Lefčvre", "Kųbenhavn"); text that only a Central or Eastern
    European code page reads (cp1252 lacks "ž" or "ů") keeps that code page.
    """
    for match in matches:
        same = WESTERN in match.could_be_from_charset  # the detector merges code pages that decode alike
        if (match.encoding == WESTERN or same) and match.chaos <= best.chaos:
            if match.coherence >= best.coherence - COHERENCE_SLACK:
                return str(match), WESTERN
    return str(best), str(best.encoding)


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
