"""Ink laid over the body's text: glyphs of another colour printed on top of other text (a ``PAID`` or
``RECEIVED`` stamp, a clerk's date, initials), found before lines are assembled so that their letters never join
the body.

Colour alone is not enough (a heading or a hyperlink may be coloured) and neither is overlap alone (loose glyph
boxes of tightly leaded lines touch): a run of glyphs of one colour that is not the body's is an overlay when a
good part of its letters lie on the body's letters, or when one of them lies on body letters that sit half inside
its height (ink on ink: a tall stamp letter over a line of small text).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from kruschnexus.model import Rect
from kruschnexus.parse.glyphs import Glyph

#: A glyph lies on the body when the body's glyph boxes cover at least this share of its box.
COVERED = 0.4
#: ... or when body letters at least this share inside its height lie under that share of its width: ink on ink,
#: which typesetting never makes (loose boxes of tight lines never put a letter half inside another's height), so one
#: such letter makes its run an overlay.
INSIDE = 0.5
#: A run of one colour is an overlay when at least this share of its letters lie on the body (and one at least).
RUN_SHARE = 0.3
#: Colours closer than this (Euclidean distance in 0-255 RGB) are the same ink.
SAME_INK = 60.0
#: A colour whose channels differ by this much (0-255) is a hue (a stamp's red, blue or green), not a grey.
HUED = 60

_CELL = 12.0


def body_colour(glyphs: Sequence[Glyph]) -> int | None:
    """The colour most of the page's printed glyphs have (``None`` when the reader gives none)."""
    counts = Counter(g.color for g in glyphs if g.rect is not None and g.color is not None and not g.ch.isspace())
    return counts.most_common(1)[0][0] if counts else None


def other_ink(colour: int | None, body: int | None) -> bool:
    """``colour`` is known and not the body's ink."""
    return colour is not None and body is not None and _distance(colour, body) > SAME_INK


def overlaid(glyphs: Sequence[Glyph]) -> set[int]:
    """Indices of the glyphs (spaces of their runs included) that are ink laid over the body's text."""
    body_ink = body_colour(glyphs)
    if body_ink is None:
        return set()
    inked = [i for i, g in enumerate(glyphs) if g.rect is not None and g.color is not None and not g.ch.isspace()]
    other = [i for i in inked if other_ink(glyphs[i].color, body_ink)]
    if not other:
        return set()
    grid = _Grid([glyphs[i].rect for i in inked if i not in set(other)])
    on_body = {i for i in other if grid.covered(glyphs[i].rect) >= COVERED}
    on_letters = {i for i in other if grid.beneath(glyphs[i].rect) >= COVERED}
    out: set[int] = set()
    for run in _runs(glyphs, other):
        lying = sum(1 for i in run if i in on_body)
        if any(i in on_letters for i in run) or (lying and lying >= RUN_SHARE * len(run)):
            out.update(range(run[0], run[-1] + 1))
    return out


def last_body_paint(glyphs: Sequence[Glyph], body: int | None) -> int:
    """The last place in the page's paint order that draws a glyph of the body's ink (-1 when none does)."""
    return max(
        (g.paint for g in glyphs if g.rect is not None and not g.ch.isspace() and not other_ink(g.color, body)),
        default=-1,
    )


def laid_on(run: Sequence[Glyph], body: int | None, body_paint: int) -> bool:
    """``run`` is a stamp laid on the finished page: every glyph of one hued ink that is not the body's, drawn from
    a form XObject painted after every glyph of the body's ink (``body_paint``, from :func:`last_body_paint`), as
    stamping tools and flattened stamp annotations add one; however upright, opaque and clear of the text it stands.

    Text a producer typesets is drawn in the page's flow (a coloured heading before the paragraph under it), and a
    page that is a form XObject as a whole holds the body's ink too; grey ink laid on (a service's ``Source:``
    line) is left to the running footers."""
    printed = [g for g in run if g.rect is not None and not g.ch.isspace()]
    colours = {g.color for g in printed}
    colour = next(iter(colours)) if len(colours) == 1 else None
    if not printed or not hued(colour) or not other_ink(colour, body) or not all(g.framed for g in printed):
        return False
    return min(g.paint for g in printed) > body_paint


def hued(colour: int | None) -> bool:
    """``colour`` is a hue, not black or a grey."""
    if colour is None:
        return False
    channels = (colour >> 16 & 255, colour >> 8 & 255, colour & 255)
    return max(channels) - min(channels) >= HUED


def _runs(glyphs: Sequence[Glyph], other: list[int]) -> list[list[int]]:
    """Glyphs of one colour that follow each other in the text layer (spaces and generated glyphs between them
    allowed) grouped into runs."""
    runs: list[list[int]] = []
    for i in other:
        if runs:
            last = runs[-1][-1]
            between = glyphs[last + 1 : i]
            if glyphs[last].color == glyphs[i].color and all(g.rect is None or g.ch.isspace() for g in between):
                runs[-1].append(i)
                continue
        runs.append([i])
    return runs


def _distance(a: int | None, b: int) -> float:
    if a is None:
        return 0.0
    return float(sum(((a >> s & 255) - (b >> s & 255)) ** 2 for s in (16, 8, 0)) ** 0.5)


class _Grid:
    """Body glyph boxes bucketed by cells, for the share of a box they cover."""

    def __init__(self, rects: Sequence[Rect | None]) -> None:
        self.cells: dict[tuple[int, int], list[Rect]] = defaultdict(list)
        for rect in rects:
            if rect is not None:
                for cell in _cells(rect):
                    self.cells[cell].append(rect)

    def covered(self, rect: Rect | None) -> float:
        if rect is None:
            return 0.0
        area = (rect[2] - rect[0]) * (rect[3] - rect[1])
        if area <= 0:
            return 0.0
        overlap = sum(
            max(0.0, min(rect[2], r[2]) - max(rect[0], r[0])) * max(0.0, min(rect[3], r[3]) - max(rect[1], r[1]))
            for r in self._near(rect)
        )
        return overlap / area

    def beneath(self, rect: Rect | None) -> float:
        """The share of the box's width under which body letters lie (each at least half within its height): a
        stamp letter taller than the body's lies on them even where its box covers little of theirs."""
        if rect is None or rect[2] <= rect[0]:
            return 0.0
        spans = sorted(
            (max(rect[0], r[0]), min(rect[2], r[2]))
            for r in self._near(rect)
            if min(rect[2], r[2]) > max(rect[0], r[0])
            and min(rect[3], r[3]) - max(rect[1], r[1]) >= INSIDE * (r[3] - r[1])
        )
        covered, reach = 0.0, rect[0]
        for lo, hi in spans:
            covered += max(0.0, hi - max(lo, reach))
            reach = max(reach, hi)
        return covered / (rect[2] - rect[0])

    def _near(self, rect: Rect) -> set[Rect]:
        """Body boxes sharing a bucket with ``rect``."""
        return {r for cell in _cells(rect) for r in self.cells.get(cell, [])}


def _cells(rect: Rect) -> list[tuple[int, int]]:
    x0, y0, x1, y1 = (int(v // _CELL) for v in rect)
    return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
