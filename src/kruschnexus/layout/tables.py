"""Tables on a PDF page: ruled grids found from drawn rules, aligned grids found from text positions alone.

Pure functions over the page's body fragments and ruling rectangles (display space, points, y downwards).

- **Ruled** (see :mod:`kruschnexus.layout.grid`): rules that touch make a grid; slots with no rule between them
  are one (spanning) cell. Fragments that cross an inner column rule are cut at it; each piece goes to the slot
  holding its centre. A spanning cell whose printed lines each fall in a different slot row is split back into
  those rows (rules drawn in some columns only). A grid of at most two rows (a header and a body ruled only
  around and between columns) gets one row per printed line that fills two or more cells, the lines filling one
  cell continuing the row above.
- **Aligned**: three or more consecutive printed lines, each cut by wide gaps into two or more fragments, whose
  fragments fall into shared columns (x ranges that no fragment crosses, each filled in at least half the lines).

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
import statistics
from collections.abc import Sequence

from kruschnexus.layout.cells import (
    Table,
    TableCell,
    centre,
    checked,
    cut_at,
    is_prose,
    mid_y,
    reading,
    text_lines,
)
from kruschnexus.layout.fragments import Fragment
from kruschnexus.layout.grid import Grid, grids_of, merged_slots, rules_of
from kruschnexus.model import Rect, union

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
    aligned, rest = _aligned_tables(rest)
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


def _aligned_tables(frags: Sequence[Fragment]) -> tuple[list[Table], list[Fragment]]:
    lines = text_lines(frags)
    tables: list[Table] = []
    taken: set[int] = set()
    i = 0
    while i < len(lines):
        end, columns = _longest_run(lines, i)
        table = _aligned_table(lines[i:end], columns) if end - i >= MIN_ALIGNED_ROWS else None
        if table is None:
            i += 1
            continue
        tables.append(table)
        taken.update(id(f) for line in lines[i:end] for f in line)
        i = end
    return tables, [f for f in frags if id(f) not in taken]


def _longest_run(lines: Sequence[Sequence[Fragment]], start: int) -> tuple[int, list[tuple[float, float]]]:
    """End (exclusive) of the longest run of lines from ``start`` that share columns, and those columns."""
    if len(lines[start]) < 2:
        return start, []
    columns = columns_of(lines[start : start + 1])
    end = start + 1
    while end < len(lines) and len(lines[end]) >= 2 and _close(lines[end - 1], lines[end]):
        wider = columns_of(lines[start : end + 1])
        if not wider:
            break
        columns = wider
        end += 1
    return end, columns


def _close(upper: Sequence[Fragment], lower: Sequence[Fragment]) -> bool:
    height = max(max(f.rect[3] - f.rect[1] for f in upper), 1.0)
    return mid_y(lower[0].rect) - mid_y(upper[0].rect) <= MAX_ROW_PITCH * height


def columns_of(lines: Sequence[Sequence[Fragment]]) -> list[tuple[float, float]]:
    """Column x ranges shared by ``lines``: their fragments' x ranges merged; empty when a line puts two fragments
    in one column, a column is filled in fewer than half of the lines, or there are fewer than two columns."""
    columns: list[tuple[float, float]] = []
    for lo, hi in sorted((f.rect[0], f.rect[2]) for line in lines for f in line):
        if columns and lo <= columns[-1][1]:
            columns[-1] = (columns[-1][0], max(columns[-1][1], hi))
        else:
            columns.append((lo, hi))
    filled = [0] * len(columns)
    for line in lines:
        used = [_column_of(f, columns) for f in line]
        if len(set(used)) != len(used):
            return []
        for k in used:
            filled[k] += 1
    if len(columns) < 2 or any(n * 2 < len(lines) for n in filled):
        return []
    return columns


def _column_of(frag: Fragment, columns: Sequence[tuple[float, float]]) -> int:
    return next(k for k, (lo, hi) in enumerate(columns) if lo <= frag.rect[0] <= hi)


def _aligned_table(lines: Sequence[Sequence[Fragment]], columns: Sequence[tuple[float, float]]) -> Table | None:
    cells: list[TableCell] = []
    for r, group in enumerate(_row_groups(lines, columns), start=1):
        for k, (lo, hi) in enumerate(columns):
            frags = [f for line in group for f in line if _column_of(f, columns) == k]
            rect = union(f.rect for f in frags) or (lo, group[0][0].rect[1], hi, group[-1][0].rect[3])
            cells.append(TableCell(r, k + 1, rect, frags))
    box = union(f.rect for line in lines for f in line)
    assert box is not None
    return checked(Table(box, cells, is_ruled=False))


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
