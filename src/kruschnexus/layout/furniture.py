"""Page furniture: running headers and footers, page numbers, margin line numbers.

Running headers and footers are found by repetition: a fragment in the top or bottom band whose text
(digits folded) recurs in the bands of enough pages of the same document. Page numbers are found by their
shape in those bands (one that says so, ``Page 2 of 12``, in the outer fifth of the page); pleading-paper line
numbers by a stack of small integers left of the body.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from kruschnexus.layout.fragments import Fragment
from kruschnexus.model import BlockKind

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s*(?:of|/)\s*\d{1,4})?$",
    re.IGNORECASE,
)
#: A page number that says so (``Page 2 of 12``, ``2 of 12``, ``- 2 -``): furniture in the outer
#: :data:`WORDED_BAND` of the page, not only in the running-header band (word processors set it above the footer).
_WORDED_PAGE_NUMBER = re.compile(
    r"^(?:page\s+\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|\d{1,4}\s*of\s*\d{1,4}|[-–—]\s*\d{1,4}\s*[-–—])$", re.I
)
WORDED_BAND = 0.2
_LINE_NUMBER = re.compile(r"^\d{1,2}$")
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
#: Fewest margin integers on a page before they are taken for pleading-paper line numbers.
MIN_LINE_NUMBERS = 5


def _fold(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", text)).strip()


class Furniture:
    """What repeats in the top and bottom bands of one document's pages."""

    def __init__(self, band_texts: Sequence[str], wide_texts: Sequence[str] = ()) -> None:
        """``band_texts``: each page's edge bands; ``wide_texts``: each page's wide bands (see
        :meth:`~kruschnexus.parse.pdf.PdfFile.band_texts`), looked at only for lines of :data:`WIDE_KEY_CHARS` or
        more repeated whole."""
        self._bands = [[_fold(line) for line in t.splitlines() if line.strip()] for t in band_texts]
        self._wide = [[_fold(line) for line in t.splitlines() if line.strip()] for t in wide_texts]
        self._need = max(2, math.ceil(0.3 * len(band_texts)))
        self._cache: dict[tuple[str, bool, bool], bool] = {}

    def is_repeated(self, text: str, middle: bool = False, whole: bool = False) -> bool:
        """True when ``text`` (digits and spaces folded) is a band line, or one end of one, on enough pages
        (``middle``: or a part between two others, for a fragment beside furniture on its line; ``whole``: only a
        whole line, or one beside a page number, in the edge or the wide bands, on :data:`WIDE_MIN_PAGES` or
        more)."""
        key = _fold(text)
        if len(key) < 3 or len(self._bands) < 2:
            return False
        if (key, middle, whole) not in self._cache:
            if whole:
                forms = (key, f"# {key}", f"{key} #")
                pages = zip(self._bands, self._wide or [[]] * len(self._bands), strict=True)
                hits = sum(1 for edge, wide in pages if any(line in forms for line in (*edge, *wide)))
                self._cache[key, middle, whole] = hits >= max(self._need, WIDE_MIN_PAGES)
            else:
                hits = sum(1 for band in self._bands if any(_part_of(key, line, middle) for line in band))
                self._cache[key, middle, whole] = hits >= self._need
        return self._cache[key, middle, whole]


#: Shortest key (folded) that may repeat in the middle of a band line: ``PDF page #`` between a filing's name and
#: ``Powered by BamSEC.com``, not a word such as ``the``.
MIDDLE_KEY_CHARS = 8


def _part_of(key: str, line: str, middle: bool = False) -> bool:
    """``key`` is the whole line, or its start or end (a line split at a wide gap), or with ``middle`` (and long
    enough) a part between two others (a line split at two gaps)."""
    if line == key or line.startswith(key + " ") or line.endswith(" " + key):
        return True
    return middle and len(key) >= MIDDLE_KEY_CHARS and f" {key} " in line


def classify(fragments: Sequence[Fragment], height: float, band: float, furniture: Furniture) -> list[BlockKind | None]:
    """A furniture kind per fragment, or ``None`` for body text.

    The bands are ``band`` of the page's height from its top and bottom edges. When one holds no text (a page set
    with wide margins: a court's slip opinion, its header 15% down), it runs as far past the first (or last) line of
    text instead, as in :meth:`~kruschnexus.parse.pdf.PdfFile.band_texts`; there only a whole band line of
    :data:`WIDE_KEY_CHARS` or more repeated on enough pages is furniture, with a page number on its line (a number
    alone there may be a part's ``II`` at the top of the text, a word alone the end of a justified line)."""
    if not fragments:
        return []
    first = min(f.rect[1] for f in fragments)
    last = max(f.rect[3] for f in fragments)
    edges = (band * height, (1 - band) * height)
    wide = (
        first + band * height if first > edges[0] else edges[0],
        last - band * height if last < edges[1] else edges[1],
    )
    kinds = [_band_kind(frag, height, edges, wide, furniture) for frag in fragments]
    _mark_page_numbers(fragments, kinds)
    _mark_between(fragments, kinds, furniture)
    _mark_line_numbers(fragments, kinds)
    return kinds


#: Fewest pages a line must be repeated on to be furniture of the wide bands (two signature blocks are not).
WIDE_MIN_PAGES = 3
#: Shortest text (digits and spaces folded) that the wide bands of a page with wide margins take for furniture.
WIDE_KEY_CHARS = 8


def _mark_between(fragments: Sequence[Fragment], kinds: list[BlockKind | None], furniture: Furniture) -> None:
    """A band fragment between two running header or footer fragments on its line, repeated as the middle of a band
    line on enough pages (``PDF page 115`` between a filing's name and ``Powered by BamSEC.com``), is furniture
    too."""
    running = [(f.rect, k) for f, k in zip(fragments, kinds, strict=True) if k in (BlockKind.HEADER, BlockKind.FOOTER)]
    if not running:
        return
    for i, frag in enumerate(fragments):
        if kinds[i] is not None:
            continue
        mid = (frag.rect[1] + frag.rect[3]) / 2
        line = [(rect, k) for rect, k in running if rect[1] <= mid <= rect[3]]
        left = [k for rect, k in line if rect[2] <= frag.rect[0]]
        right = [k for rect, k in line if rect[0] >= frag.rect[2]]
        if left and right and furniture.is_repeated(frag.text.strip(), middle=True):
            kinds[i] = left[0]


def _band_kind(
    frag: Fragment, height: float, edges: tuple[float, float], wide: tuple[float, float], furniture: Furniture
) -> BlockKind | None:
    """``edges``: where the edge bands end (display space, from the top); ``wide``: where the bands end when
    measured from the text of a page with wide margins (the same values otherwise)."""
    text = frag.text.strip()
    outer = frag.rect[3] <= WORDED_BAND * height or frag.rect[1] >= (1 - WORDED_BAND) * height
    if outer and _WORDED_PAGE_NUMBER.match(text):
        return BlockKind.PAGE_NUMBER
    top = frag.rect[3] <= wide[0]
    bottom = frag.rect[1] >= wide[1]
    if not (top or bottom):
        return None
    if frag.rect[3] <= edges[0] or frag.rect[1] >= edges[1]:
        if _PAGE_NUMBER.match(text):
            return BlockKind.PAGE_NUMBER
        if furniture.is_repeated(text):
            return BlockKind.HEADER if top else BlockKind.FOOTER
        return None
    if len(_fold(text)) >= WIDE_KEY_CHARS and furniture.is_repeated(text, whole=True):
        return BlockKind.HEADER if top else BlockKind.FOOTER
    return None


def _mark_page_numbers(fragments: Sequence[Fragment], kinds: list[BlockKind | None]) -> None:
    """A page number on the line of a running header or footer (``3`` right of ``Cite as: 569 U. S. ____ (2013)``)
    is one wherever the line is."""
    running = [f.rect for f, k in zip(fragments, kinds, strict=True) if k in (BlockKind.HEADER, BlockKind.FOOTER)]
    for i, frag in enumerate(fragments):
        if kinds[i] is None and _PAGE_NUMBER.match(frag.text.strip()):
            mid = (frag.rect[1] + frag.rect[3]) / 2
            if any(rect[1] <= mid <= rect[3] for rect in running):
                kinds[i] = BlockKind.PAGE_NUMBER


def _mark_line_numbers(fragments: Sequence[Fragment], kinds: list[BlockKind | None]) -> None:
    numeric = [i for i, f in enumerate(fragments) if kinds[i] is None and _LINE_NUMBER.match(f.text.strip())]
    if len(numeric) < MIN_LINE_NUMBERS:
        return
    text_left = [f.rect[0] for i, f in enumerate(fragments) if kinds[i] is None and len(f.text.strip()) >= 10]
    if not text_left:
        return
    body_left = min(text_left)
    margin = [i for i in numeric if fragments[i].rect[2] < body_left - 2.0]
    if len(margin) >= MIN_LINE_NUMBERS:
        for i in margin:
            kinds[i] = BlockKind.LINE_NUMBER
