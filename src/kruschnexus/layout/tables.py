"""Tables on a PDF page: ruled grids found from drawn rules, aligned grids found from text positions alone.

Pure functions over the page's body fragments and ruling rectangles (display space, points, y downwards).

- **Ruled** (see :mod:`kruschnexus.layout.grid`): rules that touch make a grid; slots with no rule between them
  are one (spanning) cell. Fragments that cross an inner column rule are cut at it; each piece goes to the slot
  holding its centre. A spanning cell whose printed lines each fall in a different slot row is split back into
  those rows (rules drawn in some columns only). A grid of at most two rows (a header and a body ruled only
  around and between columns) gets one row per printed line that fills two or more cells, the lines filling one
  cell continuing the row above.
- **Aligned**: three or more consecutive printed lines, each cut by wide gaps into two or more fragments, whose
  fragments fall into shared columns (x ranges that no fragment crosses, each filled in at least half the lines, or
  holding only currency signs). Fragments are read cut at their joins (a ``3.1`` or a year kept joined to the text
  after it, a ``$`` printed apart from its figure), and a run printed into the next column at a space is cut
  there. A line of one run inside a column (a wrapped cell) or before the figures (a row label such as ``Current
  assets:``) stays in the table. The lines of words above the first figures are the column header
  (:func:`_header_cells`: stacked lines are one cell, a cell covers the columns its underline spans, a header over
  headers is a row above them); a line centred over the table is its title, left out.

Both are conservative. Not a table: cells that read like prose (a two- or three-column page), a signature block
(``By: ____``, ``Name:``, ``/s/``, ``LANDLORD | TENANT``), fewer than two rows with two filled cells; and for an
aligned grid: a table of contents (dot leaders, a last column of page numbers), a numbered list (a first column of
markers only), contact lines (``Phone:``, ``Fax:``), two columns of words with no column of figures (side-by-side
address or signature blocks), or long runs of words with no column of figures (a multi-column page whose lines
happen to line up). A ruled frame around a table of its own (a cell with several lines of three or more runs) is
left to the aligned search.
"""

from __future__ import annotations

import bisect
import itertools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from kruschnexus.layout.cells import (
    Table,
    TableCell,
    centre,
    checked,
    cut_at,
    is_figure,
    is_prose,
    mid_y,
    reading,
    text_lines,
    unjoined,
)
from kruschnexus.layout.fragments import Fragment
from kruschnexus.layout.grid import Grid, Rule, grids_of, merged_slots, rules_of
from kruschnexus.model import Rect, union

#: A currency sign or a closing parenthesis printed apart from its figure (``$   1,234``): a column of these may be
#: filled in few rows (a statement prints ``$`` on its first and total rows only).
_SIGN = re.compile(r"^[$€£¥%)]$")
#: Most printed lines of a column header above an aligned table's rows.
MAX_HEADER_LINES = 8
#: A header line lies within the table's columns, give or take this many points.
HEADER_SLACK = 12.0
#: A header run stacks on the cell below when its top is at most this many line heights above the cell's top.
STACK_PITCH = 1.6
#: A lone line above a table centred on it within this share of its width is its title, not a header.
TITLE_CENTRE = 0.05
#: Rules at most this many line heights above a table's first row widen its header (see :func:`_header_start`).
UNDERLINE_BAND = 2.0
#: A rule at most this many line heights below a header's text underlines it.
UNDERLINE_GAP = 0.8
#: Fewest printed lines in an aligned table.
MIN_ALIGNED_ROWS = 3
#: Consecutive rows of an aligned table are at most this many line heights apart (middle to middle).
MAX_ROW_PITCH = 2.6
#: A line of an aligned table with an empty first column, at most this share of the usual row pitch below the
#: line above, continues the row above.
CONTINUATION_PITCH = 0.9
#: A ruled cell with this many printed lines of three or more runs holds a table of its own (the grid is a frame).
NESTED_LINES = 3


def find_tables(frags: Sequence[Fragment], rulings: Sequence[Rect]) -> tuple[list[Table], list[Fragment]]:
    """Tables among a page's body fragments, and the fragments left outside every table (in their given order).

    Args:
        frags: body fragments of one page (no furniture, no stamps).
        rulings: the page's drawn rules as rectangles (a stroked segment is a zero-thickness rectangle).
    """
    ruled, rest = _ruled_tables(frags, rulings)
    aligned, rest = _aligned_tables(rest, rules_of(rulings)[0])
    return ruled + aligned, rest


# --- ruled tables -----------------------------------------------------------------------------------------------


def _ruled_tables(frags: Sequence[Fragment], rulings: Sequence[Rect]) -> tuple[list[Table], list[Fragment]]:
    hs, vs = rules_of(rulings)
    tables: list[Table] = []
    pool = list(frags)
    for grid in grids_of(hs, vs):
        table, rest = _fill(grid, pool)
        if table is not None:
            tables.append(table)
            pool = rest
    return tables, pool


def _slot_of(grid: Grid, frag: Fragment) -> tuple[int, int]:
    """The (row, col) slot holding a fragment's centre (clamped into the grid)."""
    cx, cy = centre(frag.rect)
    col = min(max(bisect.bisect_right(grid.xs, cx) - 1, 0), len(grid.xs) - 2)
    row = min(max(bisect.bisect_right(grid.ys, cy) - 1, 0), len(grid.ys) - 2)
    return row, col


def _fill(grid: Grid, pool: Sequence[Fragment]) -> tuple[Table | None, list[Fragment]]:
    """The grid with the fragments inside it placed in its cells, or ``None`` when it does not read as a table."""
    slots = merged_slots(grid)
    if slots is None:
        return None, list(pool)
    x0, y0, x1, y1 = grid.rect
    owner = {
        (r, c): k for k, (r0, c0, r1, c1) in enumerate(slots) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)
    }
    placed: list[list[Fragment]] = [[] for _ in slots]
    outside: list[Fragment] = []
    for frag in pool:
        cx, cy = centre(frag.rect)
        if not (x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1):
            outside.append(frag)
            continue
        row = _slot_of(grid, frag)[0]
        for piece in cut_at(
            frag, [x for k, x in enumerate(grid.xs) if 0 < k < len(grid.xs) - 1 and grid.divides_row(k, row)]
        ):
            placed[owner[_slot_of(grid, piece)]].append(piece)
    cells = [cell for slot, frags in zip(slots, placed, strict=True) for cell in _unmerged(grid, slot, frags)]
    if any(sum(1 for line in text_lines(c.frags) if len(line) >= 3) >= NESTED_LINES for c in cells):
        return None, list(pool)
    table = checked(Table(grid.rect, _numbered(cells, len(grid.ys) - 1), is_ruled=True))
    return (table, outside) if table is not None else (None, list(pool))


def _unmerged(grid: Grid, slot: tuple[int, int, int, int], frags: list[Fragment]) -> list[TableCell]:
    """The cell of a slot range; a one-column cell spanning rows whose lines each sit in their own row is split.

    Rows are 0-based grid rows here (renumbered by :func:`_numbered`).
    """
    r0, c0, r1, c1 = slot
    lines = text_lines(frags)
    rows = [_slot_of(grid, line[0])[0] for line in lines]
    if r1 > r0 and c0 == c1 and len(lines) >= 2 and len(set(rows)) == len(rows):
        return [
            TableCell(
                r,
                c0 + 1,
                (grid.xs[c0], grid.ys[r], grid.xs[c0 + 1], grid.ys[r + 1]),
                reading(f for line, lr in zip(lines, rows, strict=True) if lr == r for f in line),
            )
            for r in range(r0, r1 + 1)
        ]
    rect = (grid.xs[c0], grid.ys[r0], grid.xs[c1 + 1], grid.ys[r1 + 1])
    return [TableCell(r0, c0 + 1, rect, reading(frags), r1 - r0 + 1, c1 - c0 + 1)]


def _numbered(cells: list[TableCell], grid_rows: int) -> list[TableCell]:
    """Rows renumbered from 1; in a grid of at most two rows, a row is split by printed lines (see the module)."""
    crossed = {r for c in cells if c.row_span > 1 for r in range(c.row + 1, c.row + c.row_span)}
    out: list[TableCell] = []
    next_row = 1
    for r in range(grid_rows):
        row = [c for c in cells if c.row == r]
        parts = _line_rows(row) if grid_rows <= 2 and r not in crossed and all(c.row_span == 1 for c in row) else None
        if parts is None:
            out.extend(TableCell(next_row, c.col, c.rect, c.frags, c.row_span, c.col_span) for c in row)
            next_row += 1
            continue
        for k, part in enumerate(parts):
            out.extend(TableCell(next_row + k, c.col, c.rect, c.frags, 1, c.col_span) for c in part)
        next_row += len(parts)
    return sorted(out, key=lambda c: (c.row, c.col))


def _line_rows(row: Sequence[TableCell]) -> list[list[TableCell]] | None:
    """A row's cells split into one row per printed line filling two or more cells, or ``None``."""
    groups: list[list[Fragment]] = []
    for line in text_lines(f for c in row for f in c.frags):
        ids = {id(f) for f in line}
        if sum(1 for c in row if any(id(f) in ids for f in c.frags)) >= 2:
            groups.append(list(line))
        elif groups:
            groups[-1].extend(line)
        else:
            return None
    lines = [f for g in groups for f in g]
    if len(groups) < 2 or sum(1 for f in lines if is_prose(f.text)) * 2 > len(lines):
        return None
    edges = [row[0].rect[1]]
    edges += [(max(f.rect[3] for f in a) + min(f.rect[1] for f in b)) / 2 for a, b in itertools.pairwise(groups)]
    edges.append(row[0].rect[3])
    out: list[list[TableCell]] = []
    for k, group in enumerate(groups):
        ids = {id(f) for f in group}
        out.append(
            [
                TableCell(
                    0,
                    c.col,
                    (c.rect[0], edges[k], c.rect[2], edges[k + 1]),
                    reading(f for f in c.frags if id(f) in ids),
                    1,
                    c.col_span,
                )
                for c in row
            ]
        )
    return out


# --- aligned tables ---------------------------------------------------------------------------------------------


def _aligned_tables(frags: Sequence[Fragment], underlines: Sequence[Rule] = ()) -> tuple[list[Table], list[Fragment]]:
    """Aligned tables, read from the fragments cut at their joins (a marker column); a fragment outside every
    table is given back whole."""
    pieces = [(p, f) for f in frags for p in unjoined(f)]
    owner = {id(p): f for p, f in pieces}  # a piece -> the fragment it was cut from
    lines = text_lines(p for p, _ in pieces)
    tables: list[Table] = []
    taken: set[int] = set()
    i = 0
    floor = 0
    while i < len(lines):
        i, end, columns = _best_run(lines, i, owner)
        if end - i >= MIN_ALIGNED_ROWS:
            body = _label_start(lines, i, columns, floor)
            if body < i:
                wider = columns_of(lines[body:end])
                body, columns = (body, wider) if wider else (i, columns)
            top = _header_start(lines, body, columns, floor)
            table = _aligned_table(lines[body:end], columns, lines[top:body], underlines)
            if table is None and top < i:
                top, table = i, _aligned_table(lines[i:end], columns, [], underlines)
        else:
            top, table = _short_table(lines, i, end, columns, floor, underlines)
        if table is None:
            i += 1
            continue
        tables.append(table)
        taken.update(id(f) for line in lines[top:end] for f in line)
        i = floor = end
    kept = {id(owner[k]) for k in taken}
    return tables, [f for f in frags if id(f) not in kept]


def _short_table(
    lines: Sequence[Sequence[Fragment]],
    start: int,
    end: int,
    columns: Sequence[tuple[float, float]],
    floor: int,
    underlines: Sequence[Rule],
) -> tuple[int, Table | None]:
    """A table of fewer than :data:`MIN_ALIGNED_ROWS` rows of figures under a ruled column header (``Fee Type |
    2021 | 2020`` underlined above one row of fees), and its first line. Two lines alone are not told from prose;
    the header's rule is what tells them."""
    rows = lines[start:end]
    if not rows or len(columns) < 2 or not all(any(is_figure(f.text) for f in line) for line in rows):
        return start, None
    top = _header_start(lines, start, columns, floor, underlines)
    if top == start or not _ruled(lines[top:start], rows[0], columns, underlines):
        return start, None
    return top, _aligned_table(rows, columns, lines[top:start], underlines)


def _ruled(
    heads: Sequence[Sequence[Fragment]],
    first: Sequence[Fragment],
    columns: Sequence[tuple[float, float]],
    underlines: Sequence[Rule],
) -> bool:
    """A rule lies under the header's first line and above the first row, within the table's width."""
    lo, hi = columns[0][0] - HEADER_SLACK, columns[-1][1] + HEADER_SLACK
    above, below = max(f.rect[3] for f in heads[0]), min(f.rect[1] for f in first)
    return any(above - 1 <= u.pos <= below + 1 and lo <= u.lo and u.hi <= hi for u in underlines)


def _best_run(
    lines: list[list[Fragment]], start: int, owner: dict[int, Fragment]
) -> tuple[int, int, list[tuple[float, float]]]:
    """The run from ``start``, or from one of the next few lines when that one reaches further and the lines
    before it hold no figure (they are then a column header, whose runs need not fall into the body's columns)."""
    end, columns = _longest_run(lines, start, owner)
    best = (start, end, columns)
    for later in range(start + 1, min(start + MAX_HEADER_LINES, len(lines))):
        if any(is_figure(f.text) for f in lines[later - 1]):
            break
        later_end, later_columns = _longest_run(lines, later, owner)
        if later_end > best[1]:
            best = (later, later_end, later_columns)
    return _below_words(lines, *best)


def _below_words(
    lines: Sequence[Sequence[Fragment]], start: int, end: int, columns: list[tuple[float, float]]
) -> tuple[int, int, list[tuple[float, float]]]:
    """A run whose first lines hold no figure above lines that do starts at its first figure: the lines of words
    above are its column header (read by :func:`_header_cells`), not rows."""
    first = next((k for k in range(start, end) if any(is_figure(f.text) for f in lines[k])), end)
    if first == start or end - first < MIN_ALIGNED_ROWS:
        return start, end, columns
    narrower = columns_of(lines[first:end])
    return (first, end, narrower) if narrower else (start, end, columns)


def _longest_run(
    lines: list[list[Fragment]], start: int, owner: dict[int, Fragment]
) -> tuple[int, list[tuple[float, float]]]:
    """End (exclusive) of the longest run of lines from ``start`` that share columns, and those columns.

    A line of one fragment lying inside a column (a wrapped cell) may sit between two lines of the run; the run
    never ends on one. A line whose run reaches into the next column at a space (``... Norman DesRosiers 10-Q``, a
    title printed up to the form column) is cut there (in ``lines``; ``owner`` learns the pieces).
    """
    if len(lines[start]) < 2:
        return start, []
    columns = columns_of(lines[start : start + 1])
    if not columns:
        return start, []
    end = start + 1
    probe = end
    while probe < len(lines) and _close(lines[probe - 1], lines[probe]):
        if len(lines[probe]) < 2 and not _inside(lines[probe][0], columns):
            break
        wider = columns_of(lines[start : probe + 1])
        if not wider and (cut := _cut_at_columns(lines[probe], columns)) is not None:
            wider = columns_of([*lines[start:probe], [piece for piece, _ in cut]])
            if wider:
                owner.update((id(piece), owner[id(source)]) for piece, source in cut)
                lines[probe] = [piece for piece, _ in cut]
        if not wider:
            break
        columns = wider
        probe += 1
        if len(lines[probe - 1]) >= 2:
            end = probe
    return end, columns_of(lines[start:end]) if end > start + 1 else columns


def _cut_at_columns(
    line: Sequence[Fragment], columns: Sequence[tuple[float, float]]
) -> list[tuple[Fragment, Fragment]] | None:
    """The line with each run that reaches into a later column at a space cut there, as ``(piece, the run it was
    cut from)``; ``None`` when no run is cut."""
    out: list[tuple[Fragment, Fragment]] = []
    for frag in line:
        starts = [lo for lo, _ in columns[1:] if frag.rect[0] < lo - 1 < frag.rect[2] - 1]
        pieces = cut_at(frag, [lo - 0.5 for lo in starts]) if starts else [frag]
        if len(pieces) > 1 and all(_after_space(frag, piece) for piece in pieces[1:]):
            out.extend((piece, frag) for piece in pieces)
        else:
            out.append((frag, frag))
    return out if len(out) > len(line) else None


def _after_space(frag: Fragment, piece: Fragment) -> bool:
    """The piece of ``frag`` starts right after a space of it (a word boundary, not inside a word)."""
    first = next((k for k, r in enumerate(frag.rects) if r is not None and r == piece.rects[0]), 0)
    return first > 0 and frag.text[first - 1].isspace()


def _inside(frag: Fragment, columns: Sequence[tuple[float, float]]) -> bool:
    """A lone run fits the table: inside one column, or a row label ending before the second column."""
    return frag.rect[2] < columns[1][0] or any(lo - 1 <= frag.rect[0] and frag.rect[2] <= hi + 1 for lo, hi in columns)


def _is_title(line: Sequence[Fragment], columns: Sequence[tuple[float, float]]) -> bool:
    """A lone run reaching from the row labels' column into the figures', or centred on the table (a statement's
    title: ``CONSOLIDATED BALANCE SHEETS``)."""
    if len(line) != 1:
        return False
    x0, x1 = line[0].rect[0], line[0].rect[2]
    middle, width = (columns[0][0] + columns[-1][1]) / 2, columns[-1][1] - columns[0][0]
    return (x0 < columns[0][1] and x1 > columns[1][0]) or abs((x0 + x1) / 2 - middle) <= TITLE_CENTRE * width


def _label_start(
    lines: Sequence[Sequence[Fragment]], start: int, columns: Sequence[tuple[float, float]], floor: int
) -> int:
    """First line of the rows above ``start`` that hold only a row label (``Cash flows from operating
    activities:`` above the first figures)."""
    k = start
    while (
        k > floor
        and len(lines[k - 1]) == 1
        and lines[k - 1][0].rect[2] < columns[1][0]
        and _close(lines[k - 1], lines[k])
        and not _is_title(lines[k - 1], columns)
    ):
        k -= 1
    return k


def _close(upper: Sequence[Fragment], lower: Sequence[Fragment]) -> bool:
    height = max(max(f.rect[3] - f.rect[1] for f in upper), 1.0)
    return mid_y(lower[0].rect) - mid_y(upper[0].rect) <= MAX_ROW_PITCH * height


def columns_of(lines: Sequence[Sequence[Fragment]]) -> list[tuple[float, float]]:
    """Column x ranges shared by ``lines``: their fragments' x ranges merged; empty when a line puts two fragments
    in one column, a column is filled in fewer than half of the lines of two or more fragments (unless it holds
    only currency signs), or there are fewer than two columns."""
    columns: list[tuple[float, float]] = []
    for lo, hi in sorted((f.rect[0], f.rect[2]) for line in lines for f in line):
        if columns and lo <= columns[-1][1]:
            columns[-1] = (columns[-1][0], max(columns[-1][1], hi))
        else:
            columns.append((lo, hi))
    filled = [0] * len(columns)
    marks = [True] * len(columns)
    full = sum(1 for line in lines if len(line) >= 2)
    for line in lines:
        used = [_column_of(f, columns) for f in line]
        if len(set(used)) != len(used):
            return []
        for k, f in zip(used, line, strict=True):
            filled[k] += 1
            marks[k] = marks[k] and _SIGN.match(f.text.strip()) is not None
    if len(columns) < 2 or any(n * 2 < full and not mark for n, mark in zip(filled, marks, strict=True)):
        return []
    return columns


def _column_of(frag: Fragment, columns: Sequence[tuple[float, float]]) -> int:
    return next(k for k, (lo, hi) in enumerate(columns) if lo <= frag.rect[0] <= hi)


def _aligned_table(
    lines: Sequence[Sequence[Fragment]],
    columns: Sequence[tuple[float, float]],
    heads: Sequence[Sequence[Fragment]],
    underlines: Sequence[Rule] = (),
) -> Table | None:
    cells, first = _header_cells(heads, columns, underlines)
    for r, group in enumerate(_row_groups(lines, columns), start=first + 1):
        for k, (lo, hi) in enumerate(columns):
            frags = [f for line in group for f in line if _column_of(f, columns) == k]
            rect = union(f.rect for f in frags) or (lo, group[0][0].rect[1], hi, group[-1][0].rect[3])
            cells.append(TableCell(r, k + 1, rect, frags))
    box = union(f.rect for line in [*heads, *lines] for f in line)
    assert box is not None
    return checked(Table(box, cells, is_ruled=False, header_rows=first))


# --- the header of an aligned table -----------------------------------------------------------------------------


def _header_start(
    lines: Sequence[Sequence[Fragment]],
    start: int,
    columns: Sequence[tuple[float, float]],
    floor: int,
    underlines: Sequence[Rule] = (),
) -> int:
    """First line of the column header above an aligned table's rows (``start`` when there is none): up to
    :data:`MAX_HEADER_LINES` close lines above it, none of them prose, lying within the table's width (widened to
    the header's underlines, when given: a heading centred over a right-aligned figure reaches past it)."""
    lo, hi = columns[0][0], columns[-1][1]
    top = min(f.rect[1] for f in lines[start])
    band = UNDERLINE_BAND * max(f.rect[3] - f.rect[1] for f in lines[start])
    for rule in underlines:
        if top - band <= rule.pos <= top + 1 and rule.lo < hi and lo < rule.hi:
            lo, hi = min(lo, rule.lo), max(hi, rule.hi)
    lo, hi = lo - HEADER_SLACK, hi + HEADER_SLACK
    k = start
    while (
        k > floor
        and start - k < MAX_HEADER_LINES
        and _close(lines[k - 1], lines[k])
        and not _is_title(lines[k - 1], columns)
        and all(lo <= f.rect[0] and f.rect[2] <= hi and not is_prose(f.text) for f in lines[k - 1])
        and not _ends_paragraph(lines, k - 1, floor)
    ):
        k -= 1
    return k


def _ends_paragraph(lines: Sequence[Sequence[Fragment]], k: int, floor: int) -> bool:
    """Line ``k`` is the last line of the paragraph above it (``Lease as follows:`` under a line of prose): one run
    starting where the line of prose (one run) just above it starts."""
    return (
        k > floor
        and len(lines[k]) == len(lines[k - 1]) == 1
        and is_prose(lines[k - 1][0].text)
        and abs(lines[k][0].rect[0] - lines[k - 1][0].rect[0]) <= 1
        and _close(lines[k - 1], lines[k])
    )


@dataclass
class _Head:
    """A header cell being built bottom-up: its fragments (top first) and the columns it covers."""

    frags: list[Fragment]
    first: int
    last: int
    level: int = 1

    @property
    def rect(self) -> Rect:
        box = union(f.rect for f in self.frags)
        assert box is not None
        return box


def _header_cells(
    heads: Sequence[Sequence[Fragment]], columns: Sequence[tuple[float, float]], underlines: Sequence[Rule] = ()
) -> tuple[list[TableCell], int]:
    """Header cells and the number of header rows.

    Read bottom-up: a run stacks on the cell just below it when each one's middle lies within the other's width
    (``Number of`` / ``Securities`` / ``Underlying``, centred over one column); any other run starts a cell covering
    the columns its underline overlaps (a rule drawn just below it, as statements underline ``Common Stock`` over
    ``Shares`` and ``Amount``), else those its width overlaps (``OPTION AWARDS`` over six). A cell's level is one
    more than the highest cell below it in the columns it covers; level 1 is the header row next to the body.
    """
    built: list[_Head] = []
    for line in reversed(heads):
        for frag in line:
            below = next((h for h in built if _stacks(frag.rect, h)), None)
            if below is not None:
                below.frags.insert(0, frag)
                below.first, below.last = _covered(union([frag.rect, below.rect]) or frag.rect, columns, underlines)
            else:
                built.append(_Head([frag], *_covered(frag.rect, columns, underlines)))
    for head in sorted(built, key=lambda h: -h.rect[3]):
        lower = [
            h.level
            for h in built
            if h is not head and h.rect[1] >= head.rect[3] - 0.5 and h.first <= head.last and head.first <= h.last
        ]
        head.level = 1 + max(lower, default=0)
    rows = max((h.level for h in built), default=0)
    cells: list[TableCell] = []
    for r in range(1, rows + 1):
        row = sorted((h for h in built if rows - h.level + 1 == r), key=lambda h: h.first)
        covered = {k for h in row for k in range(h.first, h.last + 1)}
        cells += [TableCell(r, h.first + 1, h.rect, h.frags, 1, h.last - h.first + 1) for h in row]
        top = min(h.rect[1] for h in row)
        bottom = max(h.rect[3] for h in row)
        cells += [
            TableCell(r, k + 1, (lo, top, hi, bottom), []) for k, (lo, hi) in enumerate(columns) if k not in covered
        ]
    return sorted(cells, key=lambda c: (c.row, c.col)), rows


def _stacks(rect: Rect, head: _Head) -> bool:
    """A run sits on the header cell below it: just above it, each one's middle within the other's width."""
    below = head.rect
    height = max(rect[3] - rect[1], 1.0)
    return (
        0 <= below[1] - rect[1] <= STACK_PITCH * height
        and below[0] <= centre(rect)[0] <= below[2]
        and rect[0] <= centre(below)[0] <= rect[2]
    )


def _covered(rect: Rect, columns: Sequence[tuple[float, float]], underlines: Sequence[Rule] = ()) -> tuple[int, int]:
    """First and last column a header covers: those its underline overlaps by more than a point, else those its
    width overlaps, else the nearest one."""
    middle = centre(rect)[0]
    height = max(rect[3] - rect[1], 1.0)
    rule = next(
        (u for u in underlines if u.lo - 1 <= middle <= u.hi + 1 and 0 <= u.pos - rect[3] <= UNDERLINE_GAP * height),
        None,
    )
    lo, hi = (rule.lo + 1, rule.hi - 1) if rule is not None else (rect[0], rect[2])
    hit = [k for k, (a, b) in enumerate(columns) if a < hi and lo < b]
    if hit:
        return hit[0], hit[-1]
    k = min(range(len(columns)), key=lambda k: abs((columns[k][0] + columns[k][1]) / 2 - middle))
    return k, k


def _row_groups(
    lines: Sequence[Sequence[Fragment]], columns: Sequence[tuple[float, float]]
) -> list[list[Sequence[Fragment]]]:
    """Printed lines grouped into rows: a line with an empty first column, closer to the line above than rows
    usually are to one another (a wrapped cell), continues the row above."""
    mids = [mid_y(line[0].rect) for line in lines]
    starts = [any(_column_of(f, columns) == 0 for f in line) for line in lines]
    pitches = [mids[k] - mids[k - 1] for k in range(1, len(lines)) if starts[k]]
    typical = statistics.median(pitches) if pitches else 0.0
    groups: list[list[Sequence[Fragment]]] = []
    for k, line in enumerate(lines):
        if groups and not starts[k] and mids[k] - mids[k - 1] <= CONTINUATION_PITCH * typical:
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups
