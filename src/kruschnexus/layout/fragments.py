"""Glyph stream -> fragments: runs of glyphs printed on one line of one column.

A fragment ends at a line break of the text layer, where the next glyph starts a new line (a vertical
jump or a step back to the left), or at a horizontal gap wide enough to be a column gutter or a table
cell gap. Glyphs that are not upright, are giant (a diagonal ``DRAFT`` or ``SAMPLE`` watermark) or are painted
see-through (a translucent ``CONFIDENTIAL`` or a reviewer's initials laid over the text), or are ink of another
colour laid over the body's letters (:mod:`~kruschnexus.layout.overlays`: an opaque red ``PAID``) go to stamp
fragments instead.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from kruschnexus.layout.overlays import overlaid
from kruschnexus.model import Rect, union
from kruschnexus.parse.glyphs import Glyph, assemble

#: A gap wider than this many glyph heights splits a line into two fragments.
GAP_HEIGHTS = 1.2
#: Glyphs taller than this many times the page's median height are stamps.
GIANT_FACTOR = 3.0
#: A run that is only a list or section marker stays joined to the text after a wide gap.
_MARKER = re.compile(
    r"^(?:\(?[0-9A-Za-z]{1,4}[.)]|§+\s*[\d.]+|\d+(?:\.\d+)*\.?|(?:section|sec\.|article)\s+[\w.]+|[•·\-–])$",
    re.IGNORECASE,
)


@dataclass
class Fragment:
    """Text of one run, with a box per character and the run's rectangle."""

    text: str
    rects: list[Rect | None]
    rect: Rect
    size: float
    bold: bool
    is_stamp: bool = False


def split_fragments(glyphs: Sequence[Glyph]) -> list[Fragment]:
    """Body fragments in text-layer order followed by stamp fragments."""
    heights = [
        g.height for g in glyphs if g.rect is not None and g.is_upright and not g.translucent and not g.ch.isspace()
    ]
    median = statistics.median(heights) if heights else 0.0
    body: list[list[Glyph]] = []
    stamps: list[list[Glyph]] = []
    current: list[Glyph] = []
    laid_over = overlaid(glyphs)
    for index, g in enumerate(glyphs):
        if g.rect is not None and (index in laid_over or _is_stamp(g, median)):
            if not g.ch.isspace():
                if stamps and _continues_stamp(stamps[-1][-1], g):
                    stamps[-1].append(g)
                else:
                    stamps.append([g])
            continue
        if g.ch in "\r\n":
            _flush(current, body)
            current = []
            continue
        if g.rect is not None and current and _breaks(_last_rect(current), g.rect, current):
            _flush(current, body)
            current = []
        current.append(g)
    _flush(current, body)
    out = [f for f in (_make(run, False) for run in body) if f is not None]
    out.extend(f for f in (_make(run, True) for run in stamps) if f is not None)
    return out


def _is_stamp(g: Glyph, median: float) -> bool:
    return g.translucent or not g.is_upright or (median > 0 and g.height > GIANT_FACTOR * median)


def _continues_stamp(prev: Glyph, g: Glyph) -> bool:
    return abs(prev.angle - g.angle) < 0.05


def _last_rect(run: Sequence[Glyph]) -> Rect | None:
    for g in reversed(run):
        if g.rect is not None and not g.ch.isspace():
            return g.rect
    return None


def _breaks(prev: Rect | None, nxt: Rect, run: Sequence[Glyph]) -> bool:
    if prev is None:
        return False
    height = max(prev[3] - prev[1], nxt[3] - nxt[1], 1.0)
    prev_mid = (prev[1] + prev[3]) / 2
    next_mid = (nxt[1] + nxt[3]) / 2
    if abs(next_mid - prev_mid) > 0.5 * height:
        return True
    if nxt[0] < prev[0] - 0.5 * height:
        return True
    if nxt[0] - prev[2] <= GAP_HEIGHTS * height:
        return False
    return _MARKER.match("".join(g.ch for g in run).strip()) is None


def _flush(run: list[Glyph], out: list[list[Glyph]]) -> None:
    if run:
        out.append(run)


def _make(run: Sequence[Glyph], is_stamp: bool) -> Fragment | None:
    lo, hi = 0, len(run)
    while lo < hi and (run[lo].rect is None or run[lo].ch.isspace()):
        lo += 1
    while hi > lo and (run[hi - 1].rect is None or run[hi - 1].ch.isspace()):
        hi -= 1
    if lo == hi:
        return None
    text, rects = assemble(run[lo:hi])
    inked = [r for r in rects if r is not None]
    box = union(inked)
    if not text.strip() or box is None:
        return None
    size = statistics.median(r[3] - r[1] for r in inked)
    bold_count = sum(1 for g in run[lo:hi] if g.bold and not g.ch.isspace())
    visible = sum(1 for g in run[lo:hi] if not g.ch.isspace()) or 1
    return Fragment(text, rects, box, size, bold_count * 2 > visible, is_stamp)
