"""Reading order by recursive XY-cut.

At each region: cut at a vertical gutter when one runs through the whole region (columns, read left to
right); otherwise cut at wide horizontal gaps (bands, read top to bottom); otherwise order the region's
items by line (top to bottom, then left to right). Pure: takes rectangles, returns an order.

A narrow left "column" whose every item sits on a line of the column beside it is a margin, not a column: the
paragraph numbers of an opinion (``¶ 7`` left of the paragraph it numbers) are read just before the text of
their line, not all together before the page's text.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

from kruschnexus.model import Rect

#: A gutter narrower than this many median line heights is not a column break.
GUTTER_HEIGHTS = 0.5
#: A horizontal gap taller than this many median line heights separates bands.
BAND_GAP_HEIGHTS = 0.9
#: A left column at most this many median line heights wide and as far from the text, each item on a line beside
#: it, is a margin.
MARGIN_HEIGHTS = 3.0


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
    margin = _margin(columns[0], columns[1], rects, unit) if len(columns) > 1 else []
    if margin:
        ordered = _order([i for part in columns[1:] for i in part], rects, unit, depth + 1)
        return _place(ordered, margin, columns[1], rects, unit)
    if len(columns) > 1:
        return [i for part in columns for i in _order(part, rects, unit, depth + 1)]
    bands = _split(items, rects, axis=1, min_gap=BAND_GAP_HEIGHTS * unit)
    if len(bands) > 1:
        return [i for part in bands for i in _order(part, rects, unit, depth + 1)]
    spanned = _columns_under_spanning_items(items, rects, unit, depth)
    return spanned if spanned is not None else _by_line(items, rects)


def _columns_under_spanning_items(items: list[int], rects: Sequence[Rect], unit: float, depth: int) -> list[int] | None:
    """Columns whose gutter is crossed by a few wide items (a full-width heading or table row).

    The wide items cut the region into slabs; each slab is read column by column, the wide items in between.
    ``None`` when the narrow items show no gutter either.
    """
    left = min(rects[i][0] for i in items)
    right = max(rects[i][2] for i in items)
    narrow = [i for i in items if rects[i][2] - rects[i][0] < 0.6 * (right - left)]
    if len(narrow) == len(items) or len(narrow) < 4:
        return None
    columns = _split(narrow, rects, axis=0, min_gap=GUTTER_HEIGHTS * unit)
    if len(columns) < 2:
        return None
    gutters = [(max(rects[i][2] for i in a), min(rects[i][0] for i in b)) for a, b in itertools.pairwise(columns)]
    wide = sorted(
        (i for i in items if any(rects[i][0] < g1 and rects[i][2] > g0 for g0, g1 in gutters)),
        key=lambda i: rects[i][1],
    )
    if not wide or len(wide) * 3 > len(items):
        return None
    out: list[int] = []
    rest = [i for i in items if i not in set(wide)]
    top = float("-inf")
    for cut in [*wide, None]:
        bottom = float("inf") if cut is None else rects[cut][1]
        slab = [i for i in rest if top <= (rects[i][1] + rects[i][3]) / 2 < bottom]
        for part in _split(slab, rects, axis=0, min_gap=GUTTER_HEIGHTS * unit) if slab else []:
            out.extend(_order(part, rects, unit, depth + 1))
        if cut is not None:
            out.append(cut)
            top = rects[cut][3]
    placed = set(out)
    out.extend(i for i in _by_line(items, rects) if i not in placed)
    return out


def _margin(column: list[int], beside: list[int], rects: Sequence[Rect], unit: float) -> list[int]:
    """``column`` when it is a margin of ``beside``: narrow, close to it (a number labels the text beside it, not a
    column across the page), and each of its items on one of ``beside``'s lines."""
    width = max(rects[i][2] for i in column) - min(rects[i][0] for i in column)
    gap = min(rects[i][0] for i in beside) - max(rects[i][2] for i in column)
    if width > MARGIN_HEIGHTS * unit or gap > MARGIN_HEIGHTS * unit or len(column) * 2 > len(beside):
        return []
    if all(any(_same_line(rects[i], rects[j]) for j in beside) for i in column):
        return column
    return []


def _same_line(a: Rect, b: Rect) -> bool:
    """The vertical middles are within half the taller height."""
    half = 0.5 * max(a[3] - a[1], b[3] - b[1], 1.0)
    return abs((a[1] + a[3]) / 2 - (b[1] + b[3]) / 2) <= half


def _place(ordered: list[int], notes: list[int], beside: list[int], rects: Sequence[Rect], unit: float) -> list[int]:
    """``ordered`` with each margin note just before the text of its line in ``beside`` (the column next to the
    margin). A note alone beside a band of text (lines without a blank line between them) comes before the first
    line of its paragraph in that band: a label set level with the middle of its paragraph still labels the whole
    paragraph. Double-spaced text is a band per line; several notes beside one band (an agenda's item numbers)
    each go before their own line."""
    bands = _split(beside, rects, axis=1, min_gap=BAND_GAP_HEIGHTS * unit)
    lines = {note: next(i for i in beside if _same_line(rects[note], rects[i])) for note in notes}  # see _margin
    band_of = {note: next(k for k, b in enumerate(bands) if lines[note] in b) for note in notes}
    out = list(ordered)
    for note in sorted(notes, key=lambda i: rects[i][1]):
        alone = sum(1 for n in notes if band_of[n] == band_of[note]) == 1
        band = bands[band_of[note]]
        anchor = _paragraph_start(band, lines[note], rects, unit) if alone else lines[note]
        line = {i for i in band if _same_line(rects[anchor], rects[i])}
        out.insert(next(k for k, i in enumerate(out) if i in line), note)
    return out


def _paragraph_start(band: list[int], item: int, rects: Sequence[Rect], unit: float) -> int:
    """The first line (an item of it) of the paragraph ``item``'s line is in, within ``band``: going up while the
    line above runs to the band's right edge and this line is not indented."""
    rows: list[list[int]] = []
    for i in sorted(band, key=lambda i: (rects[i][1] + rects[i][3]) / 2):
        if rows and _same_line(rects[rows[-1][0]], rects[i]):
            rows[-1].append(i)
        else:
            rows.append([i])
    left = min(rects[i][0] for i in band)
    right = max(rects[i][2] for i in band)
    k = next(n for n, row in enumerate(rows) if item in row)
    while k > 0:
        indented = min(rects[i][0] for i in rows[k]) > left + unit
        full = max(rects[i][2] for i in rows[k - 1]) >= right - 3 * unit
        if indented or not full:
            break
        k -= 1
    return rows[k][0]


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
