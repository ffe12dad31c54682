"""One page's glyphs -> a :class:`~kruschnexus.model.Page`: canonical text, lines and typed blocks.

The canonical text is built here and only here: body blocks in reading order, furniture at the top or the
bottom, margin line numbers and stamps last. Lines are joined by ``\\n`` and blocks by ``\\n\\n``; every
offset and every character box comes from this one concatenation.

A table (see :mod:`kruschnexus.layout.tables`) is one TABLE block written row by row: rows joined by ``\\n``,
the cells of a row by a tab (``\\t``; an empty cell is an empty string between tabs, trailing empty cells are
left out, and a row with no text at all is left out), a cell's printed runs by one space. Each cell is thus one
contiguous range of the page text, recorded in :attr:`Page.cells`; each printed run is a :class:`Line`, so a
span's boxes are the boxes of its cells' runs.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from kruschnexus.chunk.grammar import starts_with_section_marker
from kruschnexus.layout.cells import Table
from kruschnexus.layout.fragments import Fragment, split_fragments
from kruschnexus.layout.furniture import Furniture, classify
from kruschnexus.layout.order import reading_order
from kruschnexus.layout.tables import find_tables
from kruschnexus.model import Block, BlockKind, Cell, Line, Page, Rect, union
from kruschnexus.parse.pdf import BAND, RawPage

#: Text smaller than this fraction of the body size, low on the page, is a footnote.
FOOTNOTE_SIZE = 0.85
#: Lines of a paragraph more than this many line heights apart (the median gap) are double-spaced.
DOUBLE_SPACED = 0.6
#: In double-spaced text a line ending this many line heights short of the body's right edge ends a paragraph.
SHORT_LINE_HEIGHTS = 3.0
#: A line starting at most this many line heights right of the body's left edge is body text (a first-line indent).
INDENT_HEIGHTS = 4.0
_LIST_START = re.compile(r"^(?:\(?(?:[a-z]{1,3}|[A-Z]|\d{1,2})\)|[a-zA-Z]\.\s|\d{1,2}\.\s|[•·▪◦–-]\s)")
_ENDS_CLAUSE = re.compile(r"[.:;!?)\"”]\s*$")
#: Dot leaders or a fill-in line (``Section 1.1 ......... 4``, ``Name: ________``).
_LEADER = re.compile(r"\.{4,}|_{4,}|(?:\. ){4,}")


@dataclass
class _Group:
    kind: BlockKind | None
    frags: list[Fragment]
    table: Table | None = None


def build_page(raw: RawPage, furniture: Furniture) -> Page:
    """Lay out one page."""
    frags = split_fragments(raw.glyphs)
    body_frags = [f for f in frags if not f.is_stamp]
    stamp_frags = [f for f in frags if f.is_stamp]
    kinds = classify(body_frags, raw.geometry.height, BAND, furniture)
    body = [f for f, k in zip(body_frags, kinds, strict=True) if k is None]
    furniture_items = [(f, k) for f, k in zip(body_frags, kinds, strict=True) if k is not None]
    tables, rest = find_tables(body, raw.rulings)
    items: list[Fragment | Table] = [*rest, *tables]
    ordered = [items[i] for i in reading_order([item.rect for item in items])]
    size = _body_size(body)
    mid = raw.geometry.height / 2
    groups: list[_Group] = []
    groups += [_Group(k, [f]) for f, k in furniture_items if f.rect[1] < mid and k != BlockKind.LINE_NUMBER]
    groups += _body_groups(ordered, size, mid)
    groups += [_Group(k, [f]) for f, k in furniture_items if f.rect[1] >= mid and k != BlockKind.LINE_NUMBER]
    groups += [_Group(k, [f]) for f, k in furniture_items if k == BlockKind.LINE_NUMBER]
    groups += [_Group(BlockKind.STAMP, [f]) for f in stamp_frags]
    page = Page(
        number=raw.number,
        width=raw.geometry.width,
        height=raw.geometry.height,
        rotation=raw.geometry.rotation,
        text="",
        char_rects=[],
        label=raw.label,
        needs_ocr=not body and not furniture_items,
    )
    _assemble(page, groups, size)
    return page


def _body_size(frags: Sequence[Fragment]) -> float:
    sizes = [f.size for f in frags for _ in range(max(1, len(f.text) // 20))]
    return statistics.median(sizes) if sizes else 10.0


@dataclass(frozen=True)
class _Spacing:
    """How the page's body is set: its left edge, its right edge, and the usual gap between two lines of a
    paragraph (``pitch``; double-spaced text has a gap of about a line's height)."""

    left: float
    right: float
    pitch: float

    @property
    def double(self) -> bool:
        """Lines are set about a line apart (court opinions, pleadings): paragraphs are told by their ends."""
        return self.pitch > 0.0


def _spacing(ordered: Sequence[Fragment | Table], size: float) -> _Spacing:
    """The page's :class:`_Spacing`; double-spaced only when lines after full lines are set far apart and some
    line at the left edge stops short (a paragraph ends: a contents list or a form of leader lines has none)."""
    frags = [
        f
        for f in ordered
        if isinstance(f, Fragment) and f.size >= FOOTNOTE_SIZE * size and f.text.strip() and not _LEADER.search(f.text)
    ]
    if len(frags) < 4:
        return _Spacing(0.0, float("inf"), 0.0)
    lefts = sorted(f.rect[0] for f in frags)
    rights = sorted(f.rect[2] for f in frags)
    left, right = lefts[len(lefts) // 10], rights[len(rights) * 9 // 10]
    if not any(_at_left(f, left) and f.rect[2] < right - SHORT_LINE_HEIGHTS * _height(f) for f in frags):
        return _Spacing(left, right, 0.0)
    gaps = []  # after a line that runs to the right edge, so the next one continues its paragraph
    for prev, cur in itertools.pairwise(frags):
        height = max(prev.rect[3] - prev.rect[1], 1.0)
        gap = cur.rect[1] - prev.rect[3]
        full = prev.rect[2] >= right - SHORT_LINE_HEIGHTS * height and _at_left(prev, left)
        if full and 0 < gap < 3 * height and cur.rect[0] < prev.rect[2] and prev.rect[0] < cur.rect[2]:
            gaps.append(gap / height)
    pitch = statistics.median(gaps) if len(gaps) >= 4 else 0.0
    return _Spacing(left, right, pitch if pitch > DOUBLE_SPACED else 0.0)


def _height(frag: Fragment) -> float:
    return max(frag.rect[3] - frag.rect[1], 1.0)


def _stops_short(prev: Fragment, cur: Fragment, right: float) -> bool:
    """``prev`` ends its paragraph: ``cur``'s first word would have fitted after it (ragged or justified text
    alike: a line breaks early only where a paragraph ends)."""
    text = cur.text
    start = len(text) - len(text.lstrip())
    end = start
    while end < len(text) and not text[end].isspace():
        end += 1
    boxes = [r for r in cur.rects[start:end] if r is not None]
    word = boxes[-1][2] - boxes[0][0] if boxes else (end - start) * 0.5 * _height(cur)
    return prev.rect[2] + 0.3 * _height(prev) + word < right


def _at_left(frag: Fragment, left: float) -> bool:
    """The line starts at the body's left edge or a paragraph indent from it (not in a column further right)."""
    return frag.rect[0] <= left + INDENT_HEIGHTS * max(frag.rect[3] - frag.rect[1], 1.0)


def _body_groups(ordered: Sequence[Fragment | Table], size: float, mid: float) -> list[_Group]:
    """Consecutive fragments that continue one another make a block; a table is a block of its own."""
    spacing = _spacing(ordered, size)
    groups: list[_Group] = []
    run: list[Fragment] = []
    for item in ordered:
        if isinstance(item, Table):
            if run:
                groups.append(_Group(_footnote(run, size, mid, spacing), run))
                run = []
            groups.append(_Group(BlockKind.TABLE, [], item))
        elif run and _continues(run[-1], item, size, spacing):
            run.append(item)
        else:
            if run:
                groups.append(_Group(_footnote(run, size, mid, spacing), run))
            run = [item]
    if run:
        groups.append(_Group(_footnote(run, size, mid, spacing), run))
    return groups


def _continues(prev: Fragment, cur: Fragment, size: float, spacing: _Spacing) -> bool:
    height = max(prev.rect[3] - prev.rect[1], 1.0)
    gap = cur.rect[1] - prev.rect[3]
    double = spacing.double and _at_left(prev, spacing.left) and _at_left(cur, spacing.left)
    most = (1.0 + DOUBLE_SPACED) * spacing.pitch * height if double else 0.6 * height
    if gap < -0.5 * height or gap > most:
        return False
    if cur.rect[0] >= prev.rect[2] or cur.rect[2] <= prev.rect[0]:
        return False
    if prev.bold != cur.bold or abs(prev.size - cur.size) > 0.15 * max(prev.size, cur.size):
        return False
    if double and gap > DOUBLE_SPACED * height:
        # No blank line tells where a paragraph ends: a line that stops short ends it, and a line indented past the
        # one above starts one (a paragraph's first line, a block quote).
        if _stops_short(prev, cur, spacing.right) or cur.rect[0] > prev.rect[0] + height:
            return False
    text = cur.text.lstrip()
    if (_LIST_START.match(text) or starts_with_section_marker(text)) and _ENDS_CLAUSE.search(prev.text):
        return False
    return _looks_like_heading(prev, size) == _looks_like_heading(cur, size)


def _looks_like_heading(frag: Fragment, size: float) -> bool:
    text = frag.text.strip()
    letters = [c for c in text if c.isalpha()]
    caps = len(letters) >= 3 and all(c.isupper() for c in letters)
    return len(text) <= 120 and (frag.bold or frag.size > 1.15 * size or caps)


def _footnote(run: Sequence[Fragment], size: float, mid: float, spacing: _Spacing) -> BlockKind | None:
    """Small print in the lower half of the page is a footnote, unless it stands in the margin left of the body
    (an opinion's ``¶ 7``); anything else is typed later."""
    small = all(f.size < FOOTNOTE_SIZE * size for f in run)
    margin = max(f.rect[2] for f in run) < spacing.left
    return BlockKind.FOOTNOTE if small and run[0].rect[1] > mid and not margin else None


def _body_kind(frags: Sequence[Fragment], size: float) -> BlockKind:
    text = " ".join(f.text.strip() for f in frags)
    if len(frags) <= 3 and len(text) <= 200 and all(_looks_like_heading(f, size) for f in frags):
        return BlockKind.HEADING
    if _LIST_START.match(text):
        return BlockKind.LIST_ITEM
    return BlockKind.PARAGRAPH


class _Writer:
    """The one concatenation: text, a box per character, lines, blocks and cells of a page."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.parts: list[str] = []
        self.rects: list[Rect | None] = []
        self.offset = 0
        self.tables = 0

    def gap(self, sep: str) -> None:
        """A separator the extractor inserts (no box)."""
        self.parts.append(sep)
        self.rects.extend([None] * len(sep))
        self.offset += len(sep)

    def run(self, frag: Fragment) -> None:
        """One printed run, as a line of the page."""
        self.parts.append(frag.text)
        self.rects.extend(frag.rects)
        self.page.lines.append(Line(self.offset, self.offset + len(frag.text), frag.rect))
        self.offset += len(frag.text)

    def block(self, group: _Group, size: float) -> None:
        """A block, after a blank line when it is not the first."""
        if self.parts:
            self.gap("\n\n")
        first_line = len(self.page.lines)
        start = self.offset
        if group.table is not None:
            frags = self.table(group.table)
            kind, box = BlockKind.TABLE, group.table.rect
        else:
            frags = group.frags
            for k, frag in enumerate(frags):
                if k:
                    self.gap("\n")
                self.run(frag)
            kind = group.kind if group.kind is not None else _body_kind(frags, size)
            joined = union(f.rect for f in frags)
            assert joined is not None
            box = joined
        self.page.blocks.append(
            Block(
                kind=kind,
                start=start,
                end=self.offset,
                first_line=first_line,
                last_line=len(self.page.lines) - 1,
                rect=box,
                is_bold=all(f.bold for f in frags),
                size=statistics.median(f.size for f in frags),
            )
        )

    def table(self, table: Table) -> list[Fragment]:
        """Rows joined by newlines, cells by tabs, a cell's runs by spaces; returns the runs written."""
        self.tables += 1
        written: list[Fragment] = []
        for row in range(1, table.rows + 1):
            cells = [c for c in table.cells if c.row == row]
            while cells and not cells[-1].frags:
                cells.pop()
            if not cells:
                continue
            if written:
                self.gap("\n")
            for k, cell in enumerate(cells):
                if k:
                    self.gap("\t")
                start = self.offset
                for n, frag in enumerate(cell.frags):
                    if n:
                        self.gap(" ")
                    self.run(frag)
                    written.append(frag)
                if cell.frags:
                    header = row <= table.header_rows
                    self.page.cells.append(
                        Cell(
                            self.tables,
                            row,
                            cell.col,
                            start,
                            self.offset,
                            cell.rect,
                            cell.row_span,
                            cell.col_span,
                            header,
                        )
                    )
        return written


def _assemble(page: Page, groups: Sequence[_Group], size: float) -> None:
    writer = _Writer(page)
    for group in groups:
        writer.block(group, size)
    page.text = "".join(writer.parts)
    page.char_rects = writer.rects
