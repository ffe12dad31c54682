"""The body's ink, kept apart from a stamp's before a page image is OCR'd.

A scanned filing carries more than its printed text: stamps in red or blue ink (``RECEIVED``, ``FILED``, a date,
initials), a translucent ``CONFIDENTIAL`` across the body, a seal's ring, grey shading behind tables. In a grey scan
that ink is lighter than the body's black, and Tesseract reads it as letters of its own or lets it break the body's
lines into blocks read out of order. But lighter ink is also text: a heading in Word's blue, a hyperlink, a note
printed in grey. So lighter ink is read piece by piece (its marks joined into lines, as a line of text joins its
letters) and a piece is dropped (painted as paper) only when it is not a line of text of its own:

- it comes within :data:`TOUCH_PT` of the rims of the body's ink (a stamp laid over the text, shading behind it);
  where it crosses the body's letters those letters keep their ink, and the rims of the body's strokes (the grey of
  antialiasing, within a fraction of a point of the darkest ink) are the body's;
- it is giant (a line of text is not several times taller than the body's letters: a ``CONFIDENTIAL`` across the
  page, a seal's ring, a stamp's frame);
- it is tilted (text lines run level: a rotated ``RECEIVED``, a ``FILED`` date struck askew);
- it is pale (shading, rules, a watermark, a service's grey running footer);
- it lies inside a dropped frame (the words inside a seal's ring or a stamp's box: a giant piece that inks little of
  its box, is not pale, stays clear of the page's edges and covers a small part of the page; a scanner's edge
  shadow or a grey table grid is no frame).

Ink of another hue can also be as dark in grey as a heading's: translucent blue initials (grey 68) against a navy or
red heading (52, 57). What tells them apart is where they stand. Typeset text keeps to the page's grid (a heading
starts at the margin or an indent, a title is centred, a date is set flush right in the text's size, a link
continues its sentence on its baseline); a stamp is struck wherever the clerk's hand lands. So a line with no pixel
of the body's ink (none within :data:`OTHER` levels of the ink most of the text's lines reach) that keeps to no grid
is dropped too, unless such lines hold a third of the ink of the page's lines (:func:`_strays`).

Everything else is left as scanned, and nothing of the body is thinned.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

#: Grey levels (0 black to 255 white) lighter than this are paper.
PAPER = 235
#: The body's ink level: this percentile of the page's ink pixels (its darkest ink, robust to a few specks).
BODY_PERCENTILE = 1.0
#: Ink at least this many grey levels lighter than the body's is another ink (a stamp, shading, coloured text) ...
LIGHTER = 70
#: ... unless it lies within this distance (points) of the body's ink: the rim of a body stroke.
RIM_PT = 0.75
#: Ink at least this many grey levels lighter than the body's (a 57% grey on black) is pale: shading, rules, a
#: watermark, a service's grey running footer; never kept apart from the body's ink, even as a line of text.
PALE = 110
#: A piece's ink level: this percentile of its pixels (the cores of its strokes, not their rims).
INKED_PERCENTILE = 5.0
#: Lighter ink this close (points) to the body's ink (beyond its rim) touches it: it is laid over the body's text.
TOUCH_PT = 0.75
#: Marks of lighter ink this close (in heights of the body's letters) side by side are one line, as the letters and
#: words of a line are.
JOIN_HEIGHTS = 0.7
#: A piece of lighter ink taller than this many heights of the body's letters is not a line of text.
GIANT_HEIGHTS = 4.0
#: A piece this many times wider than tall whose marks run at more than this slope (degrees) is tilted.
LONG = 3.0
TILT_DEGREES = 2.5
#: A dropped piece that inks less than this share of its box is a frame (a ring, a box): what lies inside it goes too
#: (unless it is pale, touches the page's edge or its box covers more than :data:`FRAME_MAX_SHARE` of the page).
FRAME_FILL = 0.35
FRAME_MAX_SHARE = 0.1
#: A line whose darkest pixel is at least this many grey levels lighter than the ink most of the text's lines reach (a
#: navy or red heading, initials in a blue stamp pad's ink) is of another ink, and must keep to the page's grid to be
#: read as text ...
OTHER = 40
#: ... unless lines of another ink hold this share of the ink of the page's lines or more: then they are its text (a
#: page set in two colours), not a stamp's.
FOREIGN_SHARE = 1.0 / 3.0
#: A line keeps to the grid when it shares a baseline with another line within this many heights of the body's
#: letters (a link in a sentence, a red figure in a table's row) ...
BASELINE_HEIGHTS = 0.2
#: ... or starts or ends within this many heights of another line's start or end (a heading at the margin or an
#: indent, a date set flush right) ...
ALIGN_HEIGHTS = 0.25
#: ... or is centred, within this many heights, on the page or on the body's full lines (a title over its column) ...
CENTRE_HEIGHTS = 1.0
#: ... lines that start where this many lines (themselves included) start and end where as many end.
SHARED = 3
#: A line ending where another ends, or on its baseline, must be set in the text's size: no taller above its baseline
#: than this many times the median of the body's lines.
SAME_SIZE = 1.1
#: Marks shorter than this many heights of the body's letters (dots, commas, specks) are never tested against the
#: grid.
MARK_HEIGHTS = 0.5


def body_ink(image: Image.Image, dpi: float) -> Image.Image:
    """``image`` in grey levels with the lighter ink that is not a line of text of its own, and the lines of another
    ink that keep to no grid of the page, painted as paper."""
    grey = image.convert("L")
    pixels = np.asarray(grey)
    ink = pixels < PAPER
    if not ink.any():
        return grey
    darkest = float(np.percentile(pixels[ink], BODY_PERCENTILE))
    if not (ink & (pixels >= darkest + OTHER)).any():  # one ink (a bilevel scan): nothing to keep apart
        return grey
    dark = pixels < darkest + LIGHTER
    near = _grown(dark, max(1, round(RIM_PT * dpi / 72.0)))
    light = ink & ~near
    letter = max(_letter_height(near), 4.0 * dpi / 72.0)  # a page whose darkest marks are specks: letters of 4 pt
    kept = near | _text_lines(pixels, light, near, darkest + PALE, letter, dpi) if light.any() else near
    kept &= ~_strays(pixels, kept, darkest, letter)
    return Image.fromarray(np.where(kept, pixels, np.uint8(255)).astype(np.uint8))


def _letter_height(body: NDArray[np.bool_]) -> float:
    """The median height (pixels) of the body's marks (its ink with the rims of its strokes: whole letters, or the
    words and lines they touch in)."""
    from scipy import ndimage  # imported on the first scan, not with the package: 140 ms and 116 MB of address space

    labels, count = ndimage.label(body)
    if count == 0:
        return 0.0
    heights = [s[0].stop - s[0].start for s in ndimage.find_objects(labels) if s is not None]
    return float(np.median(heights))


def _text_lines(
    pixels: NDArray[np.uint8], light: NDArray[np.bool_], near: NDArray[np.bool_], pale: float, letter: float, dpi: float
) -> NDArray[np.bool_]:
    """The pixels of ``light`` that belong to pieces read as lines of text of their own (inked darker than
    ``pale``; ``letter``: the body's letter height in pixels)."""
    from scipy import ndimage

    labels = _line_labels(light, letter)
    touching = set(np.unique(labels[light & _grown(near, max(1, round(TOUCH_PT * dpi / 72.0)))]).tolist()) - {0}
    dropped: list[int] = []
    frames: list[tuple[slice, ...]] = []
    for index, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        mine = labels[box] == index
        rows, cols = np.nonzero(mine)
        if rows.size == 0:
            continue
        height = float(rows.max() - rows.min() + 1)
        width = float(cols.max() - cols.min() + 1)
        giant = height > GIANT_HEIGHTS * letter
        faint = float(np.percentile(pixels[box][mine], INKED_PERCENTILE)) >= pale
        if faint or index in touching or giant or _tilted(rows, cols, width, height):
            dropped.append(index)
            if giant and not faint and rows.size < FRAME_FILL * height * width and _inside(box, light.shape):
                frames.append(box)
    keep = light & ~np.isin(labels, dropped)
    for frame in frames:
        keep[frame] = False
    return keep


def _strays(pixels: NDArray[np.uint8], kept: NDArray[np.bool_], darkest: float, letter: float) -> NDArray[np.bool_]:
    """The pixels of lines of another ink that keep to no grid of the page: initials struck in the margin, a ``PAID``
    laid on white space.

    A line is of another ink when even its darkest pixel is :data:`OTHER` levels lighter than the ink most of the
    text's lines reach (the body's; never darker than the page's ``darkest``): a grey body beside a black rule or
    redaction bar is the body still. When such lines hold :data:`FOREIGN_SHARE` of the ink of the page's lines or
    more, they are its text, and none is dropped.

    Typeset text keeps to the grid: a heading starts at the margin or at an indent, a title is centred on the page
    or on a column (on the body's full lines), a date or a page number is set flush right, a link continues its
    sentence. A line that ends where other lines end, or shares a baseline with one, keeps to it only when it is set
    in the text's size (no taller above its baseline than :data:`SAME_SIZE` times the body's median line): a stamp's
    larger letters that happen to end at the margin, or to sit on a line of text, are still struck on."""
    labels, indices, table = _lines(pixels, kept, letter)
    if len(table) == 0:
        return np.zeros_like(kept)
    top, bottom, left, right, base, level, area = (table[:, k] for k in range(7))
    order = np.argsort(level)
    weights = np.cumsum(area[order])
    body_level = max(darkest, float(level[order][np.searchsorted(weights, weights[-1] / 2.0)]))
    foreign = level >= body_level + OTHER  # not a pixel of the body's ink in the line: the body is never thinned
    if not foreign.any() or area[foreign].sum() >= FOREIGN_SHARE * area.sum():
        return np.zeros_like(kept)
    body = ~foreign
    ascent = base - top + 1
    text_size = float(np.median(ascent[body]))
    text_right = float(np.percentile(right[body], 98.0))
    align = max(2.0, ALIGN_HEIGHTS * letter)
    centres = np.append(_column_centres(left[body], right[body], align), kept.shape[1] / 2.0)
    strays: list[int] = []
    for i in np.nonzero(foreign)[0]:
        others = np.arange(len(table)) != i
        if (np.abs(left[others] - left[i]) <= align).any():
            continue
        if (np.abs(centres - (left[i] + right[i]) / 2.0) <= CENTRE_HEIGHTS * letter).any():
            continue
        if ascent[i] <= SAME_SIZE * text_size:
            same_row = others & (top < bottom[i]) & (bottom > top[i])
            if (np.abs(base[same_row] - base[i]) <= max(2.0, BASELINE_HEIGHTS * letter)).any():
                continue
            ends = np.append(right[others], text_right)
            if (np.abs(ends - right[i]) <= align).any():
                continue
        strays.append(indices[i])
    return np.isin(labels, strays)


def _column_centres(left: NDArray[np.int64], right: NDArray[np.int64], align: float) -> NDArray[np.float64]:
    """The centres of the body's full lines: lines that start where :data:`SHARED` lines start and end where as many
    end (a justified line of a column, whatever the page's columns), not a paragraph's last line, whose centre is
    anywhere."""
    starts = (np.abs(left[:, None] - left[None, :]) <= align).sum(axis=1) >= SHARED
    ends = (np.abs(right[:, None] - right[None, :]) <= align).sum(axis=1) >= SHARED
    full = starts & ends
    return np.asarray((left[full] + right[full]) / 2.0, dtype=np.float64)


def _lines(
    pixels: NDArray[np.uint8], kept: NDArray[np.bool_], letter: float
) -> tuple[NDArray[np.signedinteger[Any]], list[int], NDArray[np.int64]]:
    """The page's lines of ink (marks joined side by side, as :func:`_text_lines` joins them) taller than a mark:
    their labels, the label of each line, and a row per line: top, bottom, left, right (pixels, bottom and right
    exclusive), baseline (the lowest row holding 40% of the line's busiest row: below it only descenders), its
    darkest pixel's level, and its pixels."""
    from scipy import ndimage

    labels = _line_labels(kept & (pixels < PAPER), letter)  # the ink: the rims of the body's strokes join lines
    rows_of: list[tuple[int, int, int, int, int, int, int]] = []
    indices: list[int] = []
    for index, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        mine = labels[box] == index
        rows, cols = np.nonzero(mine)
        if rows.size == 0 or rows.max() - rows.min() + 1 < MARK_HEIGHTS * letter:
            continue
        y, x = int(box[0].start), int(box[1].start)
        counts = np.bincount(rows)
        baseline = y + int(np.nonzero(counts >= 0.4 * counts.max())[0].max())
        top, bottom = y + int(rows.min()), y + int(rows.max()) + 1
        darkest = int(pixels[box][mine].min())
        rows_of.append((top, bottom, x + int(cols.min()), x + int(cols.max()) + 1, baseline, darkest, int(rows.size)))
        indices.append(index)
    return labels, indices, np.array(rows_of, dtype=np.int64).reshape(-1, 7)


def _inside(box: tuple[slice, ...], shape: tuple[int, ...]) -> bool:
    """The box stays clear of the image's edges and covers at most :data:`FRAME_MAX_SHARE` of it."""
    top, bottom, left, right = int(box[0].start), int(box[0].stop), int(box[1].start), int(box[1].stop)
    clear = top > 0 and left > 0 and bottom < shape[0] and right < shape[1]
    return clear and (bottom - top) * (right - left) <= FRAME_MAX_SHARE * shape[0] * shape[1]


def _tilted(rows: NDArray[np.intp], cols: NDArray[np.intp], width: float, height: float) -> bool:
    """A long piece whose marks run at a slope: the principal axis of its pixels, away from level."""
    if width < LONG * height:
        return False
    x = cols - cols.mean()
    y = rows - rows.mean()
    angle = 0.5 * math.atan2(2.0 * float((x * y).mean()), float((x * x).mean() - (y * y).mean()))
    return abs(math.degrees(angle)) > TILT_DEGREES


def _line_labels(mask: NDArray[np.bool_], letter: float) -> NDArray[np.signedinteger[Any]]:
    """``mask``'s pixels labelled by line: marks within :data:`JOIN_HEIGHTS` letters of each other side by side are
    one line, as the letters and words of a line are (0: not in ``mask``)."""
    from scipy import ndimage

    labels, _ = ndimage.label(_widened(mask, max(1, round(JOIN_HEIGHTS * letter))))
    return np.where(mask, labels, 0)


def _widened(mask: NDArray[np.bool_], radius: int) -> NDArray[np.bool_]:
    """``mask`` grown by ``radius`` pixels to the left and right (a running maximum along each row: its time does not
    grow with ``radius``: 19 ms against 126 ms for a binary dilation by a row of 47 pixels on a 300 dpi page)."""
    from scipy import ndimage

    return ndimage.maximum_filter1d(mask.view(np.uint8), size=2 * radius + 1, axis=1).view(bool)


def _grown(mask: NDArray[np.bool_], radius: int) -> NDArray[np.bool_]:
    """``mask`` grown by ``radius`` pixels in each direction (a square neighbourhood), rows then columns.

    The same as Pillow's ``MinFilter(2 * radius + 1)`` on the grey image thresholded after, and 20 times faster
    (0.05 s against 1.0 s on a 300 dpi letter page)."""
    out = mask.copy()
    for step in range(1, radius + 1):
        out[step:, :] |= mask[:-step, :]
        out[:-step, :] |= mask[step:, :]
    rows = out.copy()
    for step in range(1, radius + 1):
        out[:, step:] |= rows[:, :-step]
        out[:, :-step] |= rows[:, step:]
    return out
