"""Ruled grids: drawn rules (display-space rectangles) -> touching sets of rules -> grid slots and merged cells.

Pure functions; :mod:`kruschnexus.layout.tables` places text in the cells and decides what is a table.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kruschnexus.model import Rect

#: A drawn shape at most this thick (points) and three times as long is a rule.
RULE_MAX = 3.0
#: Shorter rules are ignored (tick marks, bullets).
MIN_RULE = 6.0
#: Rules whose ends lie this close (points) touch.
TOL = 2.0
#: Grid lines closer than this (points) are one boundary (a double rule).
MIN_SLOT = 4.0
#: Grids with the same columns this close (points) one above the other are one table drawn row by row.
MAX_STACK_GAP = 8.0
#: A page drawing more rules than this one way is a drawing (a chart, a hatched plan), not a table.
MAX_RULES = 600


@dataclass(frozen=True)
class Rule:
    """A horizontal rule (``pos`` = y, from ``lo`` to ``hi`` in x) or a vertical one (``pos`` = x, ``lo..hi`` in y)."""

    pos: float
    lo: float
    hi: float


@dataclass
class Grid:
    """A set of touching rules and the slot boundaries they make (``xs`` left to right, ``ys`` top to bottom)."""

    hs: list[Rule]
    vs: list[Rule]
    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)

    @property
    def rect(self) -> Rect:
        """The grid's outline."""
        return (self.xs[0], self.ys[0], self.xs[-1], self.ys[-1])

    def divides_row(self, k: int, r: int) -> bool:
        """A rule runs along column boundary ``k`` through the middle of row ``r``."""
        if k in (0, len(self.xs) - 1):
            return True
        y = (self.ys[r] + self.ys[r + 1]) / 2
        return any(abs(v.pos - self.xs[k]) <= MIN_SLOT and v.lo - TOL <= y <= v.hi + TOL for v in self.vs)

    def divides_col(self, k: int, c: int) -> bool:
        """A rule runs along row boundary ``k`` through the middle of column ``c``."""
        if k in (0, len(self.ys) - 1):
            return True
        x = (self.xs[c] + self.xs[c + 1]) / 2
        return any(abs(h.pos - self.ys[k]) <= MIN_SLOT and h.lo - TOL <= x <= h.hi + TOL for h in self.hs)


def rules_of(rulings: Sequence[Rect]) -> tuple[list[Rule], list[Rule]]:
    """Horizontal and vertical rules among drawn rectangles, collinear touching pieces merged."""
    hs: list[Rule] = []
    vs: list[Rule] = []
    for x0, y0, x1, y1 in rulings:
        w, h = x1 - x0, y1 - y0
        if h <= RULE_MAX and w >= max(MIN_RULE, 3 * h):
            hs.append(Rule((y0 + y1) / 2, x0, x1))
        elif w <= RULE_MAX and h >= max(MIN_RULE, 3 * w):
            vs.append(Rule((x0 + x1) / 2, y0, y1))
    if len(hs) > MAX_RULES or len(vs) > MAX_RULES:
        return [], []
    return _merge(hs), _merge(vs)


def _merge(rules: list[Rule]) -> list[Rule]:
    """Rules on one line (positions within 1 pt) that touch or overlap become one."""
    out: list[Rule] = []
    ordered = sorted(rules, key=lambda r: r.pos)
    k = 0
    while k < len(ordered):
        j = k
        while j < len(ordered) and ordered[j].pos - ordered[k].pos <= 1.0:
            j += 1
        line = sorted(ordered[k:j], key=lambda r: r.lo)
        pos = statistics.fmean(r.pos for r in line)
        lo, hi = line[0].lo, line[0].hi
        for rule in line[1:]:
            if rule.lo > hi + TOL:
                out.append(Rule(pos, lo, hi))
                lo = rule.lo
            hi = max(hi, rule.hi)
        out.append(Rule(pos, lo, hi))
        k = j
    return out


def _touch(h: Rule, v: Rule) -> bool:
    return h.lo - TOL <= v.pos <= h.hi + TOL and v.lo - TOL <= h.pos <= v.hi + TOL


def grids_of(hs: Sequence[Rule], vs: Sequence[Rule]) -> list[Grid]:
    """Sets of touching rules with at least two rules across and one down (or one across and two down)."""
    parent = list(range(len(hs) + len(vs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, h in enumerate(hs):
        for j, v in enumerate(vs):
            if _touch(h, v):
                parent[root(i)] = root(len(hs) + j)
    groups: dict[int, Grid] = {}
    for i, h in enumerate(hs):
        groups.setdefault(root(i), Grid([], [])).hs.append(h)
    for j, v in enumerate(vs):
        groups.setdefault(root(len(hs) + j), Grid([], [])).vs.append(v)
    grids: list[Grid] = []
    for grid in groups.values():
        if not grid.hs or not grid.vs or len(grid.hs) + len(grid.vs) < 4:
            continue
        grid.xs = _boundaries([v.pos for v in grid.vs] + [min(h.lo for h in grid.hs), max(h.hi for h in grid.hs)])
        grid.ys = _boundaries([h.pos for h in grid.hs] + [min(v.lo for v in grid.vs), max(v.hi for v in grid.vs)])
        if len(grid.xs) >= 3 and len(grid.ys) >= 2:
            grids.append(grid)
    return _stacked(sorted(grids, key=lambda g: (g.ys[0], g.xs[0])))


def _stacked(grids: list[Grid]) -> list[Grid]:
    """Grids drawn one row each, just below one another with the same columns, become one grid."""
    out: list[Grid] = []
    for grid in grids:
        above = next((g for g in reversed(out) if _continues(g, grid)), None)
        if above is None:
            out.append(grid)
            continue
        above.hs += grid.hs
        above.vs += grid.vs
        above.ys = [*above.ys[:-1], (above.ys[-1] + grid.ys[0]) / 2, *grid.ys[1:]]
    return out


def _continues(upper: Grid, lower: Grid) -> bool:
    return (
        len(upper.xs) == len(lower.xs)
        and all(abs(a - b) <= MIN_SLOT for a, b in zip(upper.xs, lower.xs, strict=True))
        and 0 <= lower.ys[0] - upper.ys[-1] <= MAX_STACK_GAP
    )


def _boundaries(values: Iterable[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if out and v - out[-1] < MIN_SLOT:
            continue
        out.append(v)
    return out


def merged_slots(grid: Grid) -> list[tuple[int, int, int, int]] | None:
    """Cells of a grid as ``(row0, col0, row1, col1)`` slot ranges (inclusive, 0-based), row by row.

    Slots with no rule between them are one cell. ``None`` when a merged cell is not a rectangle.
    """
    nrows, ncols = len(grid.ys) - 1, len(grid.xs) - 1
    owner = {(r, c): (r, c) for r in range(nrows) for c in range(ncols)}

    def find(slot: tuple[int, int]) -> tuple[int, int]:
        while owner[slot] != slot:
            slot = owner[slot]
        return slot

    for r in range(nrows):
        for c in range(ncols):
            if c + 1 < ncols and not grid.divides_row(c + 1, r):
                owner[find((r, c + 1))] = find((r, c))
            if r + 1 < nrows and not grid.divides_col(r + 1, c):
                owner[find((r + 1, c))] = find((r, c))
    members: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for slot in owner:
        members.setdefault(find(slot), []).append(slot)
    out: list[tuple[int, int, int, int]] = []
    for slots in members.values():
        r0, c0 = min(s[0] for s in slots), min(s[1] for s in slots)
        r1, c1 = max(s[0] for s in slots), max(s[1] for s in slots)
        if len(slots) != (r1 - r0 + 1) * (c1 - c0 + 1):
            return None
        out.append((r0, c0, r1, c1))
    return sorted(out)
