"""PDF text layer through pypdfium2: glyphs with display-space boxes, page geometry and labels.

pdfium reports boxes in PDF user space (origin bottom-left of the unrotated page). Every box leaves this
module in display space: points, origin top-left of the page as shown (``/Rotate`` and the crop box
applied), y downwards.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from kruschnexus.errors import ParseError
from kruschnexus.model import Rect
from kruschnexus.parse.glyphs import Glyph

#: Fraction of the page height at the top and at the bottom searched for running headers and footers.
BAND = 0.1


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

    def read_page(self, number: int) -> RawPage:
        """Glyphs of page ``number`` (1-based), in text-layer order."""
        page = self._doc[number - 1]
        try:
            rotation = int(page.get_rotation())
            width, height = page.get_size()
            transform = _Transform(tuple(page.get_cropbox()), rotation)
            textpage = page.get_textpage()
            try:
                glyphs = list(_glyphs(textpage, transform))
            finally:
                textpage.close()
            label = self._label(number - 1)
        except pdfium.PdfiumError as exc:
            raise ParseError(self.path, f"cannot read the text layer ({exc})", page=number) from exc
        finally:
            page.close()
        return RawPage(number, PageGeometry(float(width), float(height), rotation), glyphs, label)

    def has_images(self, number: int) -> bool:
        """True when page ``number`` (1-based) draws at least one image (a scan, a photo, a logo)."""
        page = self._doc[number - 1]
        try:
            return any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2))
        finally:
            page.close()

    def render(self, number: int, dpi: int) -> Image.Image:
        """Page ``number`` (1-based) as displayed, in grey levels, at ``dpi``."""
        page = self._doc[number - 1]
        try:
            bitmap = page.render(scale=dpi / 72.0, grayscale=True)
            try:
                image: Image.Image = bitmap.to_pil().convert("L")
                return image
            finally:
                bitmap.close()
        except pdfium.PdfiumError as exc:
            raise ParseError(self.path, f"cannot render the page for OCR ({exc})", page=number) from exc
        finally:
            page.close()

    def pages(self) -> Iterator[RawPage]:
        """Every page in order, one at a time."""
        for number in range(1, self.page_count + 1):
            yield self.read_page(number)

    def band_texts(self) -> list[str]:
        """Text of the top and bottom bands of every page (cheap; used to find running headers)."""
        out: list[str] = []
        for index in range(self.page_count):
            page = self._doc[index]
            try:
                left, bottom, right, top = page.get_cropbox()
                band = (top - bottom) * BAND
                textpage = page.get_textpage()
                try:
                    head = textpage.get_text_bounded(left, top - band, right, top)
                    foot = textpage.get_text_bounded(left, bottom, right, bottom + band)
                finally:
                    textpage.close()
            finally:
                page.close()
            out.append(f"{head}\n{foot}")
        return out

    def _label(self, index: int) -> str | None:
        label = self._doc.get_page_label(index)
        return str(label) if label else None


def _explain_open_error(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered:
        return "the PDF is encrypted and needs a password"
    if "format" in lowered or "file" in lowered:
        return "not a readable PDF (damaged or not a PDF at all)"
    return f"cannot open the PDF ({message})"


def _glyphs(textpage: pdfium.PdfTextPage, transform: _Transform) -> Iterator[Glyph]:
    handle = textpage.raw
    box = pdfium_c.FS_RECTF()
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
        # pdfium measures clockwise in page space; the display turns the page clockwise by /Rotate.
        yield Glyph(ch, rect, (angle + rotation) if angle >= 0 else 0.0, weight >= 600)
