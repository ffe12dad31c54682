"""PDF text layer through pypdfium2: glyphs with display-space boxes, page geometry and labels.

pdfium reports boxes in PDF user space (origin bottom-left of the unrotated page). Every box leaves this
module in display space: points, origin top-left of the page as shown (``/Rotate`` and the crop box
applied), y downwards.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from kruschnexus.errors import ParseError
from kruschnexus.model import Rect
from kruschnexus.parse.glyphs import Glyph

#: Fraction of the page height at the top and at the bottom searched for running headers and footers.
BAND = 0.1
#: Most pixels a page is rendered to (OCR, page images): 40 million, an A2 sheet at 300 dpi; a grey image of this
#: size takes 40 MB, an RGB one 120 MB.
MAX_RENDER_PIXELS = 40_000_000


@dataclass(frozen=True)
class PageGeometry:
    """Displayed size (points) and rotation (degrees clockwise) of a page."""

    width: float
    height: float
    rotation: int


@dataclass(frozen=True)
class RawPage:
    """What the text layer holds for one page."""

    number: int
    geometry: PageGeometry
    glyphs: list[Glyph]
    label: str | None
    #: Ruling lines and thin bars drawn on the page (see :func:`rulings`), display space.
    rulings: tuple[Rect, ...] = ()


@dataclass(frozen=True)
class BandTexts:
    """Per page, the text of its edge bands and of its wide bands (empty where the edge band holds text)."""

    edge: list[str]
    wide: list[str]


class _Transform:
    """Maps PDF user space to display space for one page."""

    def __init__(self, crop: tuple[float, float, float, float], rotation: int) -> None:
        self.cx0, self.cy0, self.cx1, self.cy1 = crop
        self.w0 = self.cx1 - self.cx0
        self.h0 = self.cy1 - self.cy0
        self.rotation = rotation % 360

    def point(self, x: float, y: float) -> tuple[float, float]:
        u, v = x - self.cx0, self.cy1 - y
        if self.rotation == 90:
            return self.h0 - v, u
        if self.rotation == 180:
            return self.w0 - u, self.h0 - v
        if self.rotation == 270:
            return v, self.w0 - u
        return u, v

    def rect(self, left: float, bottom: float, right: float, top: float) -> Rect:
        xa, ya = self.point(left, top)
        xb, yb = self.point(right, bottom)
        return (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))


class PdfFile:
    """An open PDF. Use as a context manager; pages are read one at a time.

    Raises:
        ParseError: the file is not a PDF, is damaged, or is encrypted with a password.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            raise ParseError(path, _explain_open_error(str(exc))) from exc
        self.page_count = len(self._doc)
        if self.page_count == 0:
            self._doc.close()
            raise ParseError(path, "the PDF has no pages")

    def __enter__(self) -> PdfFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release pdfium's handles."""
        self._doc.close()

    def _load(self, number: int) -> pdfium.PdfPage:
        """Page ``number`` (1-based), opened (the caller closes it)."""
        try:
            return self._doc[number - 1]
        except pdfium.PdfiumError as exc:
            raise ParseError(self.path, f"cannot load the page, the PDF is damaged ({exc})", page=number) from exc

    def read_page(self, number: int) -> RawPage:
        """Glyphs of page ``number`` (1-based), in text-layer order."""
        page = self._load(number)
        try:
            rotation = int(page.get_rotation())
            width, height = page.get_size()
            transform = _Transform(tuple(page.get_cropbox()), rotation)
            textpage = page.get_textpage()
            try:
                glyphs = list(_glyphs(textpage, transform, _painters(page)))
            finally:
                textpage.close()
            label = self._label(number - 1)
            lines = tuple(rulings(page, transform))
        except pdfium.PdfiumError as exc:
            raise ParseError(self.path, f"cannot read the text layer ({exc})", page=number) from exc
        finally:
            page.close()
        return RawPage(number, PageGeometry(float(width), float(height), rotation), glyphs, label, lines)

    def has_images(self, number: int) -> bool:
        """True when page ``number`` (1-based) draws at least one image (a scan, a photo, a logo)."""
        page = self._load(number)
        try:
            return any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2))
        finally:
            page.close()

    def fit_dpi(self, number: int, dpi: float) -> float:
        """The highest resolution up to ``dpi`` at which page ``number`` (1-based) renders within
        :data:`MAX_RENDER_PIXELS` (a poster-sized or absurd page is read at a lower resolution).

        Raises:
            ParseError: the page has no area (a zero, negative or non-finite size).
        """
        width, height = self._size(number)
        fitting = 72.0 * math.sqrt(MAX_RENDER_PIXELS / (width * height))
        return min(float(dpi), fitting)

    def render(self, number: int, dpi: float, grayscale: bool = True) -> Image.Image:
        """Page ``number`` (1-based) as displayed, in grey levels (or RGB), at ``dpi``.

        Raises:
            ParseError: the page cannot be rendered, or would be more than :data:`MAX_RENDER_PIXELS` pixels at
                ``dpi`` (see :meth:`fit_dpi`).
        """
        width, height = self._size(number)
        pixels = width * height * (dpi / 72.0) ** 2
        if not pixels <= MAX_RENDER_PIXELS:
            raise ParseError(
                self.path,
                f"the page ({width:.0f} x {height:.0f} pt) is too large to render at {dpi:g} dpi"
                f" ({pixels / 1e6:.0f} million pixels, over {MAX_RENDER_PIXELS // 1_000_000} million)",
                page=number,
            )
        page = self._load(number)
        try:
            bitmap = page.render(scale=dpi / 72.0, grayscale=grayscale)
            try:
                image: Image.Image = bitmap.to_pil().convert("L" if grayscale else "RGB")
                return image
            finally:
                bitmap.close()
        except pdfium.PdfiumError as exc:
            raise ParseError(self.path, f"cannot render the page ({exc})", page=number) from exc
        finally:
            page.close()

    def _size(self, number: int) -> tuple[float, float]:
        """Displayed width and height of page ``number`` (1-based) in points; refused when it has no area."""
        page = self._load(number)
        try:
            width, height = (float(v) for v in page.get_size())
        finally:
            page.close()
        if not (math.isfinite(width) and math.isfinite(height) and width > 0 and height > 0):
            raise ParseError(self.path, f"the page has no area ({width:g} x {height:g} pt)", page=number)
        return width, height

    def pages(self) -> Iterator[RawPage]:
        """Every page in order, one at a time."""
        for number in range(1, self.page_count + 1):
            yield self.read_page(number)

    def band_texts(self) -> BandTexts:
        """Text of the top and bottom bands of every page (cheap; used to find running headers): :data:`BAND` of
        the page's height from each edge, and, where that holds no text (a page set with wide margins: a court's
        slip opinion, its header 15% down), as much past the first (or last) line of text."""
        edge: list[str] = []
        wide: list[str] = []
        for index in range(self.page_count):
            page = self._load(index + 1)
            try:
                left, bottom, right, top = page.get_cropbox()
                band = (top - bottom) * BAND
                textpage = page.get_textpage()
                try:
                    low, high = _text_extent(textpage, bottom, top)
                    head = textpage.get_text_bounded(left, top - band, right, top)
                    foot = textpage.get_text_bounded(left, bottom, right, bottom + band)
                    wide_head = textpage.get_text_bounded(left, high - band, right, high) if high < top - band else ""
                    wide_foot = textpage.get_text_bounded(left, low, right, low + band) if low > bottom + band else ""
                finally:
                    textpage.close()
            finally:
                page.close()
            edge.append(f"{head}\n{foot}")
            wide.append(f"{wide_head}\n{wide_foot}")
        return BandTexts(edge, wide)

    def _label(self, index: int) -> str | None:
        label = self._doc.get_page_label(index)
        return str(label) if label else None


def _text_extent(textpage: pdfium.PdfTextPage, bottom: float, top: float) -> tuple[float, float]:
    """The lowest and the highest edge (user space) of the page's text, within ``bottom`` .. ``top``; those two
    when the page has no text."""
    rects = [textpage.get_rect(i) for i in range(textpage.count_rects())]
    if not rects:
        return bottom, top
    return max(bottom, min(r[1] for r in rects)), min(top, max(r[3] for r in rects))


def _explain_open_error(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered:
        return "the PDF is encrypted and needs a password"
    if "format" in lowered or "file" in lowered:
        return "not a readable PDF (damaged or not a PDF at all)"
    return f"cannot open the PDF ({message})"


#: Fill alpha (0-255) from which a glyph counts as opaque (below it: a see-through stamp).
OPAQUE = 250


def _painters(page: pdfium.PdfPage) -> dict[int, tuple[int, bool]]:
    """Each text object's place in the page's paint order (its own, or that of the form XObject holding it) and
    whether a form XObject holds it, keyed by the object's address."""
    out: dict[int, tuple[int, bool]] = {}
    for k in range(pdfium_c.FPDFPage_CountObjects(page.raw)):
        obj = pdfium_c.FPDFPage_GetObject(page.raw, k)
        if pdfium_c.FPDFPageObj_GetType(obj) == pdfium_c.FPDF_PAGEOBJ_FORM:
            _painted_in(obj, k, out, 0)
        elif pdfium_c.FPDFPageObj_GetType(obj) == pdfium_c.FPDF_PAGEOBJ_TEXT:
            out[_address(obj)] = (k, False)
    return out


def _painted_in(form: object, order: int, out: dict[int, tuple[int, bool]], depth: int) -> None:
    for k in range(pdfium_c.FPDFFormObj_CountObjects(form)):
        obj = pdfium_c.FPDFFormObj_GetObject(form, k)
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_TEXT:
            out[_address(obj)] = (order, True)
        elif kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth < 4:
            _painted_in(obj, order, out, depth + 1)


def _address(obj: Any) -> int:
    """A pdfium object handle's address (what tells two handles to one object apart from two objects)."""
    return ctypes.cast(obj, ctypes.c_void_p).value or 0


def _glyphs(
    textpage: pdfium.PdfTextPage, transform: _Transform, painters: dict[int, tuple[int, bool]]
) -> Iterator[Glyph]:
    handle = textpage.raw
    box = pdfium_c.FS_RECTF()
    rgba = [ctypes.c_uint() for _ in range(4)]
    rotation = math.radians(transform.rotation)
    for i in range(textpage.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(handle, i)
        ch = chr(code) if 0 < code < 0x110000 else "\ufffd"
        if pdfium_c.FPDFText_IsGenerated(handle, i):
            yield Glyph(ch, None)
            continue
        rect: Rect | None = None
        if pdfium_c.FPDFText_GetLooseCharBox(handle, i, ctypes.byref(box)):
            rect = transform.rect(box.left, box.bottom, box.right, box.top)
        angle = pdfium_c.FPDFText_GetCharAngle(handle, i)
        weight = pdfium_c.FPDFText_GetFontWeight(handle, i)
        known = pdfium_c.FPDFText_GetFillColor(handle, i, *(ctypes.byref(v) for v in rgba))
        r, g, b, a = (v.value for v in rgba)
        color = (r << 16 | g << 8 | b) if known else None
        # pdfium measures clockwise in page space; the display turns the page clockwise by /Rotate.
        angle = (angle + rotation) if angle >= 0 else 0.0
        paint, framed = painters.get(_address(pdfium_c.FPDFText_GetTextObject(handle, i)), (0, False))
        yield Glyph(ch, rect, angle, weight >= 600, bool(known) and a < OPAQUE, color, paint, framed)


#: A filled shape thinner than this (points) is a rule; stroked line segments always are.
RULE_THICKNESS = 3.0
#: Line segments drawn on one page are read up to this many (a map or a chart is not a table).
MAX_SEGMENTS = 20000
_Matrix = tuple[float, float, float, float, float, float]


def rulings(page: pdfium.PdfPage, transform: _Transform) -> list[Rect]:
    """Axis-aligned line segments and thin filled bars drawn on a page, in display space.

    A stroked straight segment becomes a zero-thickness rectangle; a filled shape whose box is at most
    :data:`RULE_THICKNESS` thick becomes its box. Curves, invisible paths and white ink are left out. Paths inside
    form XObjects are read too. Used to find ruled tables.
    """
    out: list[Rect] = []
    identity: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    for k in range(pdfium_c.FPDFPage_CountObjects(page.raw)):
        _collect(pdfium_c.FPDFPage_GetObject(page.raw, k), identity, transform, out, 0)
        if len(out) > MAX_SEGMENTS:
            return []
    return out


def _collect(obj: object, parent: _Matrix, transform: _Transform, out: list[Rect], depth: int) -> None:
    kind = pdfium_c.FPDFPageObj_GetType(obj)
    if kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth < 4:
        matrix = _compose(_matrix(obj), parent)
        for k in range(pdfium_c.FPDFFormObj_CountObjects(obj)):
            _collect(pdfium_c.FPDFFormObj_GetObject(obj, k), matrix, transform, out, depth + 1)
    elif kind == pdfium_c.FPDF_PAGEOBJ_PATH:
        out.extend(_path_rulings(obj, _compose(_matrix(obj), parent), transform))


def _matrix(obj: object) -> _Matrix:
    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
        return (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _compose(inner: _Matrix, outer: _Matrix) -> _Matrix:
    """The matrix applying ``inner`` first, then ``outer`` (PDF row-vector convention)."""
    a, b, c, d, e, f = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def _path_rulings(obj: object, m: _Matrix, transform: _Transform) -> list[Rect]:
    fill, stroke = ctypes.c_int(0), pdfium_c.FPDF_BOOL(0)
    if not pdfium_c.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke)):
        return []
    is_stroked = bool(stroke.value) and _is_inked(obj, pdfium_c.FPDFPageObj_GetStrokeColor)
    is_filled = fill.value != pdfium_c.FPDF_FILLMODE_NONE and _is_inked(obj, pdfium_c.FPDFPageObj_GetFillColor)
    if not (is_stroked or is_filled):
        return []
    segments, points = _segments(obj, m)
    out: list[Rect] = []
    if is_stroked:
        out += [
            transform.rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
            for (x0, y0), (x1, y1) in segments
            if abs(x0 - x1) < 0.5 or abs(y0 - y1) < 0.5
        ]
    if is_filled and points:
        left, right = min(p[0] for p in points), max(p[0] for p in points)
        bottom, top = min(p[1] for p in points), max(p[1] for p in points)
        if min(right - left, top - bottom) <= RULE_THICKNESS:
            out.append(transform.rect(left, bottom, right, top))
    return out


def _segments(
    obj: object, m: _Matrix
) -> tuple[list[tuple[tuple[float, float], tuple[float, float]]], list[tuple[float, float]]]:
    """Straight segments of a path (closing segments included) and all its points, in page space."""
    segments: list[tuple[tuple[float, float], tuple[float, float]]] = []
    points: list[tuple[float, float]] = []
    start = current = (0.0, 0.0)
    x, y = ctypes.c_float(), ctypes.c_float()
    for k in range(pdfium_c.FPDFPath_CountSegments(obj)):
        seg = pdfium_c.FPDFPath_GetPathSegment(obj, k)
        if not pdfium_c.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y)):
            continue
        a, b, c, d, e, f = m
        point = (a * x.value + c * y.value + e, b * x.value + d * y.value + f)
        points.append(point)
        kind = pdfium_c.FPDFPathSegment_GetType(seg)
        if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
            start = point
        elif kind == pdfium_c.FPDF_SEGMENT_LINETO:
            segments.append((current, point))
        current = point
        if pdfium_c.FPDFPathSegment_GetClose(seg):
            segments.append((current, start))
            current = start
    return segments, points


def _is_inked(obj: object, get_color: Callable[..., int]) -> bool:
    """The path's stroke or fill colour is visible: not fully transparent and not white."""
    r, g, b, a = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    if not get_color(obj, ctypes.byref(r), ctypes.byref(g), ctypes.byref(b), ctypes.byref(a)):
        return True
    return a.value > 0 and min(r.value, g.value, b.value) < 245
