"""Reading order by recursive XY-cut.

At each region: cut at a vertical gutter when one runs through the whole region (columns, read left to
right); otherwise cut at wide horizontal gaps (bands, read top to bottom); otherwise order the region's
items by line (top to bottom, then left to right). Pure: takes rectangles, returns an order.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from kruschnexus.model import Rect

#: A gutter narrower than this many median line heights is not a column break.
GUTTER_HEIGHTS = 1.0
#: A horizontal gap taller than this many median line heights separates bands.
BAND_GAP_HEIGHTS = 0.9


def reading_order(rects: Sequence[Rect]) -> list[int]:
    """Indices of ``rects`` in reading order."""
    if not rects:
        return []
    heights = [r[3] - r[1] for r in rects]
    unit = max(statistics.median(heights), 1.0)
    return _order(list(range(len(rects))), rects, unit, depth=0)


def _order(items: list[int], rects: Sequence[Rect], unit: float, depth: int) -> list[int]:
    if len(items) <= 1 or depth > 60:
        return _by_line(items, rects)
    columns = _split(items, rects, axis=0, min_gap=GUTTER_HEIGHTS * unit)
    if len(columns) > 1:
        return [i for part in columns for i in _order(part, rects, unit, depth + 1)]
    bands = _split(items, rects, axis=1, min_gap=BAND_GAP_HEIGHTS * unit)
    if len(bands) > 1:
        return [i for part in bands for i in _order(part, rects, unit, depth + 1)]
    return _by_line(items, rects)


def _split(items: list[int], rects: Sequence[Rect], axis: int, min_gap: float) -> list[list[int]]:
    """Group items separated by empty gaps of at least ``min_gap`` along ``axis`` (0 = x, 1 = y)."""
    lo_i, hi_i = (0, 2) if axis == 0 else (1, 3)
    ordered = sorted(items, key=lambda i: rects[i][lo_i])
    groups: list[list[int]] = [[ordered[0]]]
    reach = rects[ordered[0]][hi_i]
    for i in ordered[1:]:
        if rects[i][lo_i] - reach >= min_gap:
            groups.append([i])
        else:
            groups[-1].append(i)
        reach = max(reach, rects[i][hi_i])
    return groups


def _by_line(items: list[int], rects: Sequence[Rect]) -> list[int]:
    """Top to bottom; items whose vertical middles are within half a height are one line, left to right."""
    ordered = sorted(items, key=lambda i: (rects[i][1] + rects[i][3]) / 2)
    lines: list[list[int]] = []
    for i in ordered:
        mid = (rects[i][1] + rects[i][3]) / 2
        if lines:
            ref = rects[lines[-1][0]]
            if abs(mid - (ref[1] + ref[3]) / 2) <= 0.5 * max(ref[3] - ref[1], 1.0):
                lines[-1].append(i)
                continue
        lines.append([i])
    return [i for line in lines for i in sorted(line, key=lambda i: rects[i][0])]
