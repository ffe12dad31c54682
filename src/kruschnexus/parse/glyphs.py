"""Glyphs: what a text layer gives per character, and the pure rules that turn them into text.

The text layer is read once into :class:`Glyph` records (one per extractor character). Everything after
that (lines, blocks, page text, boxes) is derived from these records by pure functions, so the offset
and box mapping can be property-tested without a PDF.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kruschnexus.model import Rect

#: Code points the text layer uses for a printed hyphen at a line end (soft hyphen, pdfium's U+FFFE, STX).
HYPHEN_MARKS = frozenset({"\u00ad", "\ufffe", "\u0002"})

#: Ligature code points and the letters they stand for.
LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}


@dataclass(frozen=True, slots=True)
class Glyph:
    """One character of a text layer.

    Attributes:
        ch: the character as the text layer reports it (one code point).
        rect: its box in display coordinates, or ``None`` when the extractor generated it (a space or a
            line break that is not printed).
        angle: text direction in radians, clockwise, relative to the displayed page (0 = upright).
        bold: the glyph's font is bold.
        translucent: the glyph is painted see-through (fill opacity below 98%): a stamp laid over the page, never
            the body's ink.
        color: its fill colour as ``0xRRGGBB`` (``None`` when the reader does not know it, as for OCR).
        paint: the place in the page's paint order of what draws it (the page content's object, or the form XObject
            holding it): later is drawn over earlier.
        framed: it is drawn from a form XObject (a page laid over the page, as stamping tools and flattened
            stamp annotations add one), not from the page's own content.
    """

    ch: str
    rect: Rect | None
    angle: float = 0.0
    bold: bool = False
    translucent: bool = False
    color: int | None = None
    paint: int = 0
    framed: bool = False

    @property
    def is_upright(self) -> bool:
        """The glyph reads left to right on the displayed page."""
        a = self.angle % (2 * math.pi)
        return a < 0.05 or a > 2 * math.pi - 0.05

    @property
    def height(self) -> float:
        """Box height in points (0 for generated glyphs)."""
        return 0.0 if self.rect is None else self.rect[3] - self.rect[1]


def assemble(glyphs: Sequence[Glyph]) -> tuple[str, list[Rect | None]]:
    """Text and one box per output character for a run of glyphs on one line.

    Rules (each keeps ``len(text) == len(rects)``):
    - a ligature glyph becomes its letters; its box is split evenly between them;
    - a hyphen mark (soft hyphen, U+FFFE, STX) that is printed becomes ``-``; one that is not is dropped;
    - CR, LF and other control characters are dropped (line breaks are the caller's); tab becomes a space;
    - whitespace keeps no box (it is not ink);
    - consecutive glyphs sharing one box (an extractor that already expanded a ligature into letters)
      get equal slices of it, left to right.
    """
    out: list[str] = []
    rects: list[Rect | None] = []
    for g in _split_shared_boxes(glyphs):
        ch = g.ch
        if ch in LIGATURES:
            _split_ligature(LIGATURES[ch], g.rect, out, rects)
            continue
        if ch in HYPHEN_MARKS:
            if g.rect is not None and g.rect[2] > g.rect[0]:
                out.append("-")
                rects.append(g.rect)
            continue
        if ch == "\t":
            ch = " "
        if ch != " " and (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0):
            continue
        out.append(ch)
        rects.append(None if ch.isspace() else g.rect)
    return "".join(out), rects


def _split_shared_boxes(glyphs: Sequence[Glyph]) -> list[Glyph]:
    out: list[Glyph] = []
    k = 0
    while k < len(glyphs):
        rect = glyphs[k].rect
        j = k + 1
        while rect is not None and j < len(glyphs) and glyphs[j].rect == rect:
            j += 1
        if j - k == 1 or rect is None:
            out.append(glyphs[k])
        else:
            step = (rect[2] - rect[0]) / (j - k)
            for n, g in enumerate(glyphs[k:j]):
                part = (rect[0] + n * step, rect[1], rect[0] + (n + 1) * step, rect[3])
                out.append(Glyph(g.ch, part, g.angle, g.bold, g.translucent, g.color, g.paint, g.framed))
        k = j
    return out


def _split_ligature(letters: str, rect: Rect | None, out: list[str], rects: list[Rect | None]) -> None:
    for k, letter in enumerate(letters):
        out.append(letter)
        if rect is None:
            rects.append(None)
            continue
        step = (rect[2] - rect[0]) / len(letters)
        rects.append((rect[0] + k * step, rect[1], rect[0] + (k + 1) * step, rect[3]))
