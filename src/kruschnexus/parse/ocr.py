"""OCR for pages without a usable text layer: render with pypdfium2, read with Tesseract, words -> glyphs.

Tesseract's words (``image_to_data``) become :class:`~kruschnexus.parse.glyphs.Glyph` records in display
space, so an OCR'd page goes through the same layout as a born-digital one: each word's box is split evenly
among its letters (horizontally) and spans its line's height (vertically); generated spaces separate words
and generated line breaks end lines, as pdfium reports them for a text layer.

Tesseract is run with one thread per process (``OMP_THREAD_LIMIT=1``): on small machines its own threading
is slower than running several pages side by side, which :class:`OcrPool` does.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytesseract
from PIL import Image

from kruschnexus.errors import ParseError
from kruschnexus.model import Rect
from kruschnexus.parse.glyphs import Glyph
from kruschnexus.parse.ink import body_ink

#: Resolution pages are rendered at for OCR.
OCR_DPI = 300
#: A text layer is unusable when fewer than this share of its printed characters are real letters, digits or
#: punctuation (the rest: U+FFFD, private-use and control code points from fonts without a Unicode map).
MIN_READABLE_SHARE = 0.5
#: A page whose recognised words have a median confidence below this is a picture (a map, a photo, a seal), not
#: text: Tesseract's words there are noise, so none are kept. Scanned text scores a median of 95-96 here; the
#: maps of the SCOTUS slip opinion's appendix score 29-35.
MIN_PAGE_CONFIDENCE = 60.0
#: Seconds one page may take in Tesseract before it is given up.
PAGE_TIMEOUT = 300


class OcrUnavailableError(RuntimeError):
    """Tesseract cannot run here."""


@functools.cache
def tesseract_version() -> str | None:
    """The installed Tesseract's version, or ``None`` when it is missing (asked once per process)."""
    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        return None
    try:
        return str(pytesseract.get_tesseract_version())
    except (OSError, pytesseract.TesseractNotFoundError):
        return None


@functools.cache
def tesseract_languages() -> frozenset[str]:
    """Languages the installed Tesseract has data for (asked once per process)."""
    return frozenset(pytesseract.get_languages(config=""))


MISSING_HINT = "Tesseract is not installed (Debian/Ubuntu: apt install tesseract-ocr)"


def usable_text_layer(glyphs: Sequence[Glyph]) -> bool:
    """True when a page's text layer has printed text, and most of it is readable."""
    printed = [g.ch for g in glyphs if g.rect is not None and not g.ch.isspace()]
    if not printed:
        return False
    readable = sum(1 for ch in printed if ch.isprintable() and ch != "\ufffd" and not 0xE000 <= ord(ch) <= 0xF8FF)
    return readable / len(printed) >= MIN_READABLE_SHARE


@dataclass(frozen=True)
class OcrWord:
    """One recognised word, in image pixels."""

    text: str
    left: int
    top: int
    width: int
    height: int
    conf: float


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: its words in order and its box, in image pixels."""

    top: int
    bottom: int
    words: tuple[OcrWord, ...]


class Tesseract:
    """Reads a rendered page image.

    Raises:
        OcrUnavailableError: the ``tesseract`` program or the language's data is missing.
    """

    def __init__(self, lang: str = "eng") -> None:
        version = tesseract_version()
        if version is None:
            raise OcrUnavailableError(MISSING_HINT)
        langs = tesseract_languages()
        if lang not in langs:
            raise OcrUnavailableError(
                f"Tesseract has no {lang!r} language data (installed: {', '.join(sorted(langs)) or 'none'};"
                f" apt install tesseract-ocr-{lang})"
            )
        self.lang = lang
        self.version = version
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")

    @property
    def description(self) -> str:
        """Engine, version, language and resolution, as recorded with an OCR'd document."""
        return f"tesseract {self.version} {self.lang} {OCR_DPI}dpi body-ink-2"

    def read(self, image: Image.Image, dpi: float = OCR_DPI) -> list[OcrLine]:
        """The lines Tesseract finds in the body's ink of ``image`` (rendered at ``dpi``; ink lighter than the
        body's and away from it is dropped first: :func:`~kruschnexus.parse.ink.body_ink`), in its reading order."""
        cleaned = body_ink(image, dpi)
        data: dict[str, list[Any]] = pytesseract.image_to_data(
            cleaned, lang=self.lang, config="--psm 3", output_type=pytesseract.Output.DICT, timeout=PAGE_TIMEOUT
        )
        lines = lines_from_data(data)
        return lines if is_text(lines) else []


def lines_from_data(data: dict[str, list[Any]]) -> list[OcrLine]:
    """Group ``image_to_data`` rows (level 4 = line, level 5 = word) into lines of non-empty words."""
    lines: dict[tuple[int, int, int], tuple[tuple[int, int], list[OcrWord]]] = {}
    for i, level in enumerate(data["level"]):
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        top, height = int(data["top"][i]), int(data["height"][i])
        if level == 4:
            lines[key] = ((top, top + height), [])
        elif level == 5 and str(data["text"][i]).strip() and key in lines:
            word = OcrWord(
                str(data["text"][i]).strip(),
                int(data["left"][i]),
                top,
                int(data["width"][i]),
                height,
                float(data["conf"][i]),
            )
            lines[key][1].append(word)
    return [OcrLine(top, bottom, tuple(words)) for (top, bottom), words in lines.values() if words]


def is_text(lines: Sequence[OcrLine]) -> bool:
    """True when the recognised words read as text (median confidence at least :data:`MIN_PAGE_CONFIDENCE`)."""
    confidences = sorted(w.conf for line in lines for w in line.words)
    if not confidences:
        return False
    mid = len(confidences) // 2
    median = confidences[mid] if len(confidences) % 2 else (confidences[mid - 1] + confidences[mid]) / 2
    return median >= MIN_PAGE_CONFIDENCE


def glyphs_from_lines(lines: Sequence[OcrLine], dpi: float = OCR_DPI) -> list[Glyph]:
    """OCR lines (pixels of an image rendered at ``dpi``) as text-layer glyphs (points, display space)."""
    scale = 72.0 / dpi
    glyphs: list[Glyph] = []
    for line in lines:
        top = min([line.top, *(w.top for w in line.words)]) * scale
        bottom = max([line.bottom, *(w.top + w.height for w in line.words)]) * scale
        for n, word in enumerate(line.words):
            if n:
                glyphs.append(Glyph(" ", None))
            step = word.width / len(word.text)
            for k, ch in enumerate(word.text):
                x0 = (word.left + k * step) * scale
                x1 = (word.left + (k + 1) * step) * scale
                rect: Rect = (x0, top, x1, bottom)
                glyphs.append(Glyph(ch, rect))
        glyphs.append(Glyph("\r", None))
        glyphs.append(Glyph("\n", None))
    return glyphs


def ocr_failed(path: str, page: int, exc: BaseException) -> ParseError:
    """The error for a page Tesseract could not read."""
    return ParseError(path, f"OCR failed: {exc}", page=page)
