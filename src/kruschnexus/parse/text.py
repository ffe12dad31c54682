"""Plain text and Markdown -> units with line locators.

Plain text: a unit is a run of non-blank lines (a paragraph); a short line in capitals is a heading; a paragraph
that is only a page number (text saved from a PDF) is page furniture, kept in the text and never in a span.
Markdown: block structure from markdown-it-py (headings with their level, paragraphs, list items, tables,
code); a unit covers the source lines of one block, ``#`` marks of a heading outside its body.
Locators are 1-based inclusive line numbers of the decoded file, ``{"kind": "lines", "start": 3, "end": 9}``;
a unit's text is exactly those lines joined by ``\\n``.
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from kruschnexus.model import BlockKind
from kruschnexus.parse.units import Unit, UnitSource, decode

_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+")
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
#: A paragraph that is only a printed page number (text saved from a paged document): ``7``, ``- 7 -``,
#: ``Page 7``, ``Page 7 of 12``, ``7/12``, ``vii`` (lower-case roman). Kept in the unit's text, never in a span.
_PAGE_NUMBER = re.compile(
    r"^[ \t]*(?:-[ \t]*)?(?:page[ \t]+)?(?:\d{1,4}|(?-i:(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})))"
    r"(?:[ \t]*(?:of|/)[ \t]*\d{1,4})?(?:[ \t]*-)?[ \t]*$",
    re.IGNORECASE,
)


def open_text(path: Path) -> UnitSource:
    """A ``.txt`` file as paragraphs."""
    decoded = decode(path, path.read_bytes())
    lines = decoded.text.split("\n")
    units: list[Unit] = []
    first: int | None = None
    for index, line in enumerate([*lines, ""]):
        if line.strip() and first is None:
            first = index
        elif not line.strip() and first is not None:
            units.append(_lines_unit(lines, first, index, _text_kind(lines[first:index])))
            first = None
    return UnitSource(path, "text", units, {"encoding": decoded.encoding, "encoding_detected": decoded.detected})


def open_markdown(path: Path) -> UnitSource:
    """A Markdown file as its blocks."""
    decoded = decode(path, path.read_bytes())
    lines = decoded.text.split("\n")
    tokens = MarkdownIt("commonmark").enable("table").parse(decoded.text)
    units: list[Unit] = []
    for token in tokens:
        top = token.level == 0 and token.type not in _LISTS
        item = token.type == "list_item_open" and token.level == 1
        if token.nesting >= 0 and token.map is not None and (top or item):
            unit = _markdown_unit(lines, token)
            if unit is not None:
                units.append(unit)
    return UnitSource(path, "markdown", units, {"encoding": decoded.encoding, "encoding_detected": decoded.detected})


_LISTS = frozenset({"bullet_list_open", "ordered_list_open"})


def _markdown_unit(lines: list[str], token: Token) -> Unit | None:
    assert token.map is not None
    start, end = token.map
    while end > start and not lines[end - 1].strip():
        end -= 1
    if end <= start:
        return None
    if token.type == "heading_open":
        unit = _lines_unit(lines, start, end, BlockKind.HEADING, level=int(token.tag[1:]))
        text = unit.text
        lo = m.end() if (m := _ATX.match(text)) else 0
        hi = len(text)
        if lo and (c := _CLOSING_HASHES.search(text)):
            hi = c.start()
        if not lo and "\n" in text:  # a setext heading: the underline is markup
            hi = text.index("\n")
        return Unit(text, BlockKind.HEADING, unit.locator, unit.level, (lo, hi))
    if token.type == "list_item_open" and token.markup in "-*+":
        unit = _lines_unit(lines, start, end, BlockKind.LIST_ITEM)
        bullet = _BULLET.match(unit.text)
        return Unit(unit.text, unit.kind, unit.locator, body=(bullet.end() if bullet else 0, len(unit.text)))
    kind = {
        "list_item_open": BlockKind.LIST_ITEM,
        "table_open": BlockKind.TABLE,
    }.get(token.type, BlockKind.PARAGRAPH)
    if token.type == "hr":
        return None
    return _lines_unit(lines, start, end, kind)


def _lines_unit(lines: list[str], start: int, end: int, kind: BlockKind, level: int = 0) -> Unit:
    """Lines ``[start, end)`` (0-based) as a unit located by 1-based inclusive line numbers."""
    return Unit("\n".join(lines[start:end]), kind, {"kind": "lines", "start": start + 1, "end": end}, level)


def _text_kind(lines: list[str]) -> BlockKind:
    if len(lines) == 1 and _PAGE_NUMBER.match(lines[0]):
        return BlockKind.PAGE_NUMBER
    if len(lines) == 1:
        line = lines[0].strip()
        letters = [c for c in line if c.isalpha()]
        if letters and len(line) <= 80 and all(c.isupper() for c in letters) and not line.endswith((".", ",", ";")):
            return BlockKind.HEADING
    return BlockKind.PARAGRAPH
