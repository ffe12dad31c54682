"""Table types and the pure rules shared by ruled and aligned table detection: printed lines, cutting a run at a
rule, what reads like prose or like a figure, and the checks that keep lookalikes (prose columns, signature blocks,
tables of contents, numbered lists) from becoming tables. See :mod:`kruschnexus.layout.tables`.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kruschnexus.layout.fragments import Fragment
from kruschnexus.model import Rect, union

#: A printed run with at least this many words and characters, most words lower-case, reads like prose.
PROSE_WORDS = 4
PROSE_CHARS = 24
#: Largest share of prose-like printed runs in an aligned table and in a ruled one.
MAX_PROSE_ALIGNED = 0.25
MAX_PROSE_RULED = 0.5
#: An aligned table needs a column of figures, or runs this short (characters, median): long runs of words in
#: columns with no figures are a multi-column page.
SHORT_CELL = 22
_SIGNATURE = re.compile(
    r"_{4,}|/s/|\bsignature\b|^signed\b|\bwitness\b|^(?:by|name|title|its|date|dated|print(?:ed)? name)\s*[:.]",
    re.IGNORECASE,
)
_PARTY = re.compile(
    r"^[\"“']?(?:landlord|tenant|lessor|lessee|licensor|licensee|borrower|lender|buyer|seller|purchaser|company|"
    r"employer|employee|executive|guarantor|sponsor|contractor|consultant|customer|supplier|distributor|reseller)"
    r"[\"”']?\s*:?$",
    re.IGNORECASE,
)
_MARKER = re.compile(
    r"^(?:\(?[0-9A-Za-z]{1,4}[.)]|\d+(?:\.\d+)*\.?|§+\s*[\d.]+|(?:section|article)\s+[\w.]+|[•·▪◦*\-–])$",
    re.IGNORECASE,
)
_CONTACT = re.compile(r"^(?:phone|tel|telephone|fax|facsimile|e-?mail|attn|attention)\s*[:.]", re.IGNORECASE)
_LEADER = re.compile(r"(?:\.\s?){5,}")
_LIST_MARKER = re.compile(r"^(?:\(?[0-9A-Za-z]{1,4}[.)]|[•·\-–])$")
_PAGE_REF = re.compile(r"^(?:\d{1,3}|[ivxlc]{1,6})$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_FIGURE_CHARS = frozenset("0123456789$€£%.,:;/-–()[]*#<>=+x×")


@dataclass
class TableCell:
    """One cell: its 1-based grid position and span, its area, and its fragments in reading order."""

    row: int
    col: int
    rect: Rect
    frags: list[Fragment]
    row_span: int = 1
    col_span: int = 1


@dataclass
class Table:
    """A table found on a page. ``cells`` are ordered by row, then column; empty cells are kept."""

    rect: Rect
    cells: list[TableCell]
    is_ruled: bool
    header_rows: int = 0

    @property
    def rows(self) -> int:
        """Number of rows."""
        return max(c.row + c.row_span - 1 for c in self.cells)

    @property
    def cols(self) -> int:
        """Number of columns."""
        return max(c.col + c.col_span - 1 for c in self.cells)


def mid_y(rect: Rect) -> float:
    """Vertical middle of a rectangle."""
    return (rect[1] + rect[3]) / 2


def centre(rect: Rect) -> tuple[float, float]:
    """Centre ``(x, y)`` of a rectangle."""
    return (rect[0] + rect[2]) / 2, mid_y(rect)


def text_lines(frags: Iterable[Fragment]) -> list[list[Fragment]]:
    """Fragments grouped into printed lines (middles within half a height), top to bottom, each left to right."""
    lines: list[list[Fragment]] = []
    for frag in sorted(frags, key=lambda f: mid_y(f.rect)):
        if lines:
            ref = lines[-1][0].rect
            if abs(mid_y(frag.rect) - mid_y(ref)) <= 0.5 * max(ref[3] - ref[1], 1.0):
                lines[-1].append(frag)
                continue
        lines.append([frag])
    return [sorted(line, key=lambda f: f.rect[0]) for line in lines]


def reading(frags: Iterable[Fragment]) -> list[Fragment]:
    """Fragments in reading order: printed lines top to bottom, each left to right."""
    return [f for line in text_lines(frags) for f in line]


def is_prose(text: str) -> bool:
    """The text reads like a line of running prose: long, several words, most of them lower-case (``shall``,
    ``the``), unlike a cell of names, amounts or titles."""
    words = [w for w in text.split() if w[0].isalpha()]
    if len(text) < PROSE_CHARS or len(words) < PROSE_WORDS:
        return False
    return sum(1 for w in words if w[0].islower()) * 2 > len(words)


def is_figure(text: str) -> bool:
    """The text is mostly a number, an amount, a date, a ratio or a redaction (``$4,500.00``, ``9/30/2026``)."""
    chars = [c for c in text if not c.isspace()]
    if not chars or not (_DIGIT.search(text) or "*" in text):
        return False
    return sum(1 for c in chars if c in _FIGURE_CHARS) * 2 >= len(chars)


def _slice(frag: Fragment, lo: int, hi: int) -> Fragment | None:
    """The part ``[lo, hi)`` of a fragment, trimmed of unprinted characters at both ends."""
    while lo < hi and (frag.rects[lo] is None or frag.text[lo].isspace()):
        lo += 1
    while hi > lo and (frag.rects[hi - 1] is None or frag.text[hi - 1].isspace()):
        hi -= 1
    inked = [r for r in frag.rects[lo:hi] if r is not None]
    box = union(inked)
    if box is None:
        return None
    joins = tuple(x for x in frag.joins if box[0] < x < box[2])
    size = statistics.median(r[3] - r[1] for r in inked)
    return Fragment(frag.text[lo:hi], frag.rects[lo:hi], box, size, frag.bold, frag.is_stamp, joins)


def unjoined(frag: Fragment) -> list[Fragment]:
    """A fragment cut at its joins (``3.1    Amended Articles``, ``2021    2020``, ``1,234   $   5,678``: an
    exhibit or section number, a year, a currency sign, perhaps each a column of its own); a list marker (``(a)``,
    ``1.``, a bullet) stays joined to its text."""
    if not frag.joins:
        return [frag]
    cuts = list(frag.joins)
    head = cut_at(frag, cuts[:1])
    if len(head) == 2 and _LIST_MARKER.match(head[0].text):
        cuts = cuts[1:]
    return cut_at(frag, cuts) if cuts else [frag]


def cut_at(frag: Fragment, xs: Sequence[float]) -> list[Fragment]:
    """A fragment cut wherever an x in ``xs`` falls between the centres of two consecutive printed characters."""
    cuts: list[int] = []
    prev: float | None = None
    for i, r in enumerate(frag.rects):
        if r is None or frag.text[i].isspace():
            continue
        centre = (r[0] + r[2]) / 2
        if prev is not None and any(prev < x < centre for x in xs):
            cuts.append(i)
        prev = centre
    if not cuts:
        return [frag]
    bounds = [0, *cuts, len(frag.text)]
    pieces = (_slice(frag, a, b) for a, b in itertools.pairwise(bounds))
    return [p for p in pieces if p is not None]


def _cell_text(cell: TableCell) -> str:
    return " ".join(f.text.strip() for f in cell.frags)


def checked(table: Table) -> Table | None:
    """The table with its header rows marked, or ``None`` when it does not read as a table (see
    :mod:`kruschnexus.layout.tables`)."""
    texts = [_cell_text(c) for c in table.cells]
    rows = [[t for c, t in zip(table.cells, texts, strict=True) if c.row == r and t] for r in range(1, table.rows + 1)]
    if sum(1 for row in rows if len(row) >= 2) < 2 or sum(len(row) for row in rows) < 4:
        return None
    if sum(1 for row in rows for t in row if _SIGNATURE.search(t)) >= 2:
        return None
    if any(sum(1 for t in row if _PARTY.match(t)) >= 2 for row in rows):
        return None
    bold = [all(f.bold for c in table.cells if c.row == r for f in c.frags) for r in range(1, table.rows + 1)]
    table.header_rows = table.header_rows or header_rows(rows, bold)
    if table.is_ruled:
        lines = [f.text for c in table.cells for f in c.frags]
        return None if sum(1 for t in lines if is_prose(t)) > MAX_PROSE_RULED * len(lines) else table
    return None if _is_aligned_lookalike(table, texts) else table


def _is_aligned_lookalike(table: Table, texts: Sequence[str]) -> bool:
    """Prose columns, a table of contents, a numbered list or side-by-side blocks of words."""
    filled = [t for t in texts if t]
    runs = [f.text for c in table.cells for f in c.frags]
    if sum(1 for t in runs if is_prose(t)) > MAX_PROSE_ALIGNED * len(runs):
        return True
    if sum(1 for t in filled if _LEADER.search(t)) * 3 >= table.rows:
        return True
    if sum(1 for t in filled if _CONTACT.match(t)) >= 2:
        return True
    body = [
        [t for c, t in zip(table.cells, texts, strict=True) if c.col == k and t and c.row > table.header_rows]
        for k in range(1, table.cols + 1)
    ]
    has_figures = any(column and sum(1 for t in column if is_figure(t)) >= 0.6 * len(column) for column in body)
    if not has_figures and statistics.median(len(t) for t in runs) > SHORT_CELL:
        return True
    if _is_contents(body):
        return True
    if table.cols != 2:
        return False
    if body[0] and all(_MARKER.match(t) for t in body[0]):
        return True
    if body[1] and sum(1 for t in body[1] if _PAGE_REF.match(t)) >= 0.8 * len(body[1]):
        return True
    return not has_figures


def _is_contents(body: Sequence[Sequence[str]]) -> bool:
    """A table of contents whose section numbers were cut into a column of their own (``1.1 | Defined Terms |
    1``): as the two-column one (``1.1 Defined Terms | 1``), not a table."""
    if len(body) != 3 or not body[0] or not all(_MARKER.match(t) for t in body[0]):
        return False
    return bool(body[2]) and sum(1 for t in body[2] if _PAGE_REF.match(t)) >= 0.8 * len(body[2])


def header_rows(rows: Sequence[Sequence[str]], bold: Sequence[bool]) -> int:
    """Leading header rows (at most 3): the bold rows above plain ones, else the rows of words above rows most of
    which hold figures; else 0."""
    if len(rows) < 2 or not rows[0]:
        return 0
    leading = next((k for k, is_bold in enumerate(bold) if not is_bold), len(bold))
    if 0 < leading < len(rows):
        return min(leading, 3)
    words = next((k for k, row in enumerate(rows) if any(_DIGIT.search(t) for t in row)), len(rows))
    later = [any(_DIGIT.search(t) for t in row) for row in rows[words:]]
    return min(words, 3) if 0 < words < len(rows) and sum(later) * 2 >= len(later) else 0
