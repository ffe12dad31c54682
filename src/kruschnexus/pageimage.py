"""A physical PDF page as a PNG, optionally with span boxes drawn over it (what the web page and API show)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw

from kruschnexus.parse.pdf import PdfFile

MIN_DPI = 36
MAX_DPI = 300
_FILL = (255, 200, 0, 90)
_EDGE = (230, 120, 0, 255)


def page_png(path: Path, page_number: int, dpi: int = 100, boxes: Sequence[Sequence[float]] = ()) -> bytes:
    """Render page ``page_number`` (1-based) of the PDF at ``path`` as displayed, at ``dpi``, and draw ``boxes``.

    Boxes are ``[x, y, w, h]`` in points from the top-left of the page as displayed (the hit schema's
    coordinates), so a pixel is ``point * dpi / 72``.

    Raises:
        ParseError: the PDF cannot be opened or the page cannot be rendered.
    """
    with PdfFile(path) as pdf:
        image = pdf.render(page_number, dpi, grayscale=False)
    if boxes:
        image = _highlight(image, boxes, dpi / 72.0)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _highlight(image: Image.Image, boxes: Sequence[Sequence[float]], scale: float) -> Image.Image:
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for x, y, w, h in boxes:
        rect = (x * scale, y * scale, (x + w) * scale, (y + h) * scale)
        draw.rectangle(rect, fill=_FILL, outline=_EDGE, width=2)
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
