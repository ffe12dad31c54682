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

from kruschnexus.layout.overlays import body_colour, laid_on, last_body_paint, overlaid
from kruschnexus.model import Rect, union
from kruschnexus.parse.glyphs import Glyph, assemble

#: A gap wider than this many glyph heights splits a line into two fragments.
GAP_HEIGHTS = 1.2
#: A currency sign alone (at a line start or after a wide gap) this many glyph heights before a figure is printed
#: apart from it (a statement's ``$`` column; prose writes ``$5,000``).
SIGN_BEFORE_GAP = 0.25
#: A currency sign after a figure and a space starts the next figure (no one writes ``1,234 $`` in English).
SIGN_AFTER_GAP = 0.15
_SIGNS = frozenset("$€£¥")
#: Glyphs before a sign read to find the word or two it follows (a figure, an enumerator).
SIGN_CONTEXT = 40
_FIGURE_END = re.compile(r"[($€£]*\d[\d,.]*\)?%?|[—–]")
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
    #: x positions inside the run where a table reader may cut it: wide gaps kept because the text before them is
    #: only a marker (``3.1``, ``(a)``: an exhibit number in its own column), and the gaps around a currency sign
    #: printed apart from its figure (``1,234   $   5,678``: a statement's ``$`` column).
    joins: tuple[float, ...] = ()


def split_fragments(glyphs: Sequence[Glyph]) -> list[Fragment]:
    """Body fragments in text-layer order followed by stamp fragments."""
    heights = [
        g.height for g in glyphs if g.rect is not None and g.is_upright and not g.translucent and not g.ch.isspace()
    ]
    median = statistics.median(heights) if heights else 0.0
    body: list[list[Glyph]] = []
    stamps: list[list[Glyph]] = []
    current: list[Glyph] = []
    joins: dict[int, list[float]] = {}
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
        prev = _last_rect(current)
        if g.rect is not None and current and _breaks(prev, g.rect, current):
            _flush(current, body)
            current = []
        elif g.rect is not None and prev is not None and (_wide(prev, g.rect) or _sign_apart(current, g)):
            joins.setdefault(len(body), []).append((prev[2] + g.rect[0]) / 2)
        current.append(g)
    _flush(current, body)
    laid: set[int] = set()
    if any(g.framed for g in glyphs):  # only a form XObject lays a stamp on the page: most pages have none
        ink = body_colour(glyphs)
        painted = last_body_paint(glyphs, ink)
        laid = {k for k, run in enumerate(body) if laid_on(run, ink, painted)}
    out = [
        f
        for f in (_make(run, False, tuple(joins.get(k, ()))) for k, run in enumerate(body) if k not in laid)
        if f is not None
    ]
    out.extend(f for f in (_make(run, True) for run in [*(body[k] for k in sorted(laid)), *stamps]) if f is not None)
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
    if not _wide(prev, nxt):
        return False
    return _MARKER.match("".join(g.ch for g in run).strip()) is None


def _sign_apart(run: Sequence[Glyph], g: Glyph) -> bool:
    """A currency sign printed apart from the figure before or after it, as statements print their ``$`` column
    (``1,234   $   5,678``): a join (prose keeps it, a table cuts there)."""
    last = next((x for x in reversed(run) if x.rect is not None and not x.ch.isspace()), None)
    if last is None or last.rect is None or g.rect is None or (g.ch not in _SIGNS and last.ch not in _SIGNS):
        return False  # no sign at this gap (most glyphs stop here: this runs for every glyph of the page)
    gap = (g.rect[0] - last.rect[2]) / max(last.height, g.height, 1.0)
    words = "".join(x.ch for x in run[-SIGN_CONTEXT:]).split()
    token = "".join(words[-2:]) if len(words) > 1 and words[-1] in (")", "%") else words[-1] if words else ""
    enumerator = "(" in token and sum(1 for c in token if c.isdigit()) < 3  # (1), (12): not (1,204)
    ends_figure = _FIGURE_END.fullmatch(token) is not None and not enumerator
    after_figure = g.ch in _SIGNS and ends_figure and gap > SIGN_AFTER_GAP
    alone = (words[-1] if words else "") == last.ch  # the sign is a word of its own
    before_figure = last.ch in _SIGNS and alone and (g.ch.isdigit() or g.ch == "(") and gap > SIGN_BEFORE_GAP
    return after_figure or before_figure


def _wide(prev: Rect, nxt: Rect) -> bool:
    """The gap between two glyphs on one line is wide enough to be a gutter or a cell gap."""
    return nxt[0] - prev[2] > GAP_HEIGHTS * max(prev[3] - prev[1], nxt[3] - nxt[1], 1.0)


def _flush(run: list[Glyph], out: list[list[Glyph]]) -> None:
    if run:
        out.append(run)


def _make(run: Sequence[Glyph], is_stamp: bool, joins: tuple[float, ...] = ()) -> Fragment | None:
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
    return Fragment(text, rects, box, size, bold_count * 2 > visible, is_stamp, joins)
