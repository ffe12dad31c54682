"""Internal types shared by the stages (parse -> layout -> chunk -> embed -> store).

Coordinates: PDF points, origin at the top-left of the page *as displayed* (rotation applied), y downwards.
A :data:`Rect` is ``(x0, y0, x1, y1)`` with ``x0 <= x1`` and ``y0 <= y1``. Offsets are 0-based, half-open
``[start, end)`` intervals of Unicode code points into a page's canonical text. Pages are numbered from 1.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Rect = tuple[float, float, float, float]

#: A structured position inside an unpaged document (or a table cell on a page), e.g. ``{"kind": "row", "row": 4}``.
Locator = dict[str, Any]


def locator_label(locator: Mapping[str, Any]) -> str:
    """How a citation names a locator: ``row 4``, ``para. 12``, ``table 1 row 2 col 3``, ``table 1 row 2``,
    ``lines 3-9``."""
    kind = locator.get("kind")
    if kind == "row":
        return f"row {locator['row']}"
    if kind == "paragraph":
        return f"para. {locator['index']}"
    if kind == "table_cell":
        return f"table {locator['table']} row {locator['row']} col {locator['col']}"
    if kind == "table_row":
        return f"table {locator['table']} row {locator['row']}"
    if kind == "lines":
        first, last = locator["start"], locator["end"]
        return f"line {first}" if first == last else f"lines {first}-{last}"
    if kind == "element":
        return f"block {locator['index']}"
    return str(kind)


def union(rects: Iterable[Rect]) -> Rect | None:
    """The smallest rectangle holding every rectangle given, or ``None`` for none."""
    items = list(rects)
    if not items:
        return None
    return (
        min(r[0] for r in items),
        min(r[1] for r in items),
        max(r[2] for r in items),
        max(r[3] for r in items),
    )


def to_xywh(rect: Rect) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` to the wire's ``[x, y, w, h]``, rounded to 0.01 pt."""
    return (round(rect[0], 2), round(rect[1], 2), round(rect[2] - rect[0], 2), round(rect[3] - rect[1], 2))


class BlockKind(enum.StrEnum):
    """What a block of a page is. Only body kinds may appear inside a span."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE = "table"
    FOOTNOTE = "footnote"
    HEADER = "header"
    FOOTER = "footer"
    PAGE_NUMBER = "page_number"
    STAMP = "stamp"
    LINE_NUMBER = "line_number"

    @property
    def is_body(self) -> bool:
        """True for kinds whose text may be chunked, embedded and returned."""
        return self in _BODY_KINDS


_BODY_KINDS = frozenset(
    {BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.LIST_ITEM, BlockKind.TABLE, BlockKind.FOOTNOTE}
)


@dataclass(frozen=True)
class Line:
    """One printed line of a page, as a half-open range of the page text."""

    start: int
    end: int
    rect: Rect


@dataclass(frozen=True)
class Block:
    """A typed run of whole lines, as a half-open range of the page text.

    Attributes:
        kind: what the block is.
        start, end: offsets into the page text.
        first_line, last_line: indices into :attr:`Page.lines` (inclusive).
        rect: union of the block's line rectangles.
        is_bold: most of the block's glyphs are in a bold font.
        size: median glyph height in points (a proxy for font size).
        level: outline level of a heading when the format states it (DOCX ``Heading 2`` is 2), else 0.
    """

    kind: BlockKind
    start: int
    end: int
    first_line: int
    last_line: int
    rect: Rect
    is_bold: bool = False
    size: float = 0.0
    level: int = 0


@dataclass(frozen=True)
class Cell:
    """One non-empty cell of a table on a page, as a half-open range of the page text.

    Attributes:
        table: 1-based number of the table on its page, in reading order.
        row, col: 1-based position of the cell's top-left grid slot.
        start, end: offsets of the cell's text in the page text.
        rect: the cell's area: its ruled rectangle, or for a table found by alignment alone the union of its text.
        row_span, col_span: grid slots the cell covers (a merged cell covers more than one).
        is_header: the cell is in the table's header row.
    """

    table: int
    row: int
    col: int
    start: int
    end: int
    rect: Rect
    row_span: int = 1
    col_span: int = 1
    is_header: bool = False


@dataclass
class Page:
    """One physical page (or one unit of an unpaged format): canonical text, a box per character, lines and
    typed blocks.

    ``char_rects[i]`` is the printed box of ``text[i]``, or ``None`` for whitespace and for separators the
    extractor inserted. ``len(char_rects) == len(text)`` always.

    Unpaged formats (DOCX, CSV, HTML, text) have no physical pages: each unit (a paragraph, a table cell, a row,
    an element, a run of lines) is a ``Page`` whose ``locator`` says where it is, whose ``number`` is only its
    ordinal in the document, and whose characters have no boxes.
    """

    number: int
    width: float
    height: float
    rotation: int
    text: str
    char_rects: list[Rect | None]
    lines: list[Line] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    label: str | None = None
    used_ocr: bool = False
    needs_ocr: bool = False
    locator: Locator | None = None
    #: Cells of the page's TABLE blocks, table by table, row by row (see :class:`Cell`).
    cells: list[Cell] = field(default_factory=list)

    @property
    def place(self) -> str:
        """The first element of a span's heading path: ``Page 3``, or the unit's locator label (``Row 4``)."""
        if self.locator is None:
            return f"Page {self.number}"
        label = locator_label(self.locator)
        return label[:1].upper() + label[1:]

    def line_rects(self, start: int, end: int) -> list[Rect]:
        """One rectangle per printed line for the text range ``[start, end)``.

        This is the only place where a span's boxes are computed: each rectangle is the union of the
        printed boxes of the range's characters on one line, in line order.
        """
        rects: list[Rect] = []
        for line in self.lines:
            lo, hi = max(start, line.start), min(end, line.end)
            if lo >= hi:
                continue
            box = union(r for r in self.char_rects[lo:hi] if r is not None)
            if box is not None:
                rects.append(box)
        return rects


@dataclass(frozen=True)
class Chunk:
    """A span: one section's text on one page, with its provenance.

    Invariant: ``text == page.text[start:end]`` for the page it was cut from.
    """

    page_number: int
    start: int
    end: int
    text: str
    rects: Sequence[Rect]
    section: str | None
    section_path: tuple[str, ...]
    heading_path: tuple[str, ...]
    header: str
    block_kinds: tuple[str, ...]
    used_ocr: bool = False
    locator: Locator | None = None
    #: Text that helps read the span but is not part of it (a table's header row above a span of later rows); it
    #: may be given to the embedder, never returned as span text.
    context: str = ""

    @property
    def bbox(self) -> Rect | None:
        """Union of :attr:`rects`."""
        return union(self.rects)
