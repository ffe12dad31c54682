"""Fuzzing the readers: byte-level mutations of real documents, and one case read as the ingester reads it.

Used by ``bench/fuzz.py`` (10,000+ cases) and ``tests/security/test_hostile_files.py`` (a few hundred in CI).

A case is a seed document changed by one to four stacked mutations: bit flips, interesting bytes, truncation,
chunk deletion and duplication, splicing with another seed, numbers made huge or negative, and insertion of
tokens of the seed's format (PDF ``<<``, ``obj``, ``stream``, deep ``[[[[``; XML/HTML ``<div>`` x N, entities,
CDATA). A DOCX is mutated inside its ZIP (one XML part changed, then re-zipped) more often than as raw bytes, so
the XML readers are reached rather than stopped at the ZIP's CRC check. Deterministic for a given
``random.Random``.
"""

from __future__ import annotations

import io
import random
import re
import time
import traceback
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kruschnexus.errors import ParseError
from kruschnexus.extract import ReadOptions
from kruschnexus.ingest import embedding_text
from kruschnexus.worker import ReaderBugError, ReadWorker

#: Formats a seed can be: a file's suffix picks the token list.
SUFFIXES = (".pdf", ".docx", ".html", ".htm", ".xhtml", ".csv", ".tsv", ".md", ".txt")

PDF_TOKENS = [
    b"<<",
    b">>",
    b" obj ",
    b"endobj",
    b"stream\n",
    b"endstream",
    b"[" * 64,
    b"[" * 5000,
    b"<<" * 2000,
    b"(" * 3000,
    b"/Length 999999999",
    b"/Length -1",
    b" 0 R ",
    b"99999 0 R",
    b"/Type /Pages /Kids [1 0 R 1 0 R] /Count 999999",
    b"/MediaBox [0 0 14400 14400]",
    b"/MediaBox [0 0 1e38 -1e38]",
    b"/Rotate 45",
    b"/Filter /FlateDecode",
    b"/Filter [/FlateDecode /ASCIIHexDecode /LZWDecode]",
    b"/DecodeParms << /Predictor 15 /Columns 99999 >>",
    b"xref\n0 99999\n",
    b"trailer\n<< /Root 1 0 R /Size 0 >>",
    b"startxref\n0\n%%EOF",
    b"/Encrypt << /Filter /Standard /V 5 >>",
    b"BT /F1 1e30 Tf (x) Tj ET",
    b"q " * 2000,
    b"/Subtype /Form /Resources << /XObject << /X 5 0 R >> >>",
    b"\x00\xff" * 64,
]
MARKUP_TOKENS = [
    b"<div>" * 300,
    b"<div>" * 3000,
    b"<font>" * 2500,
    b"<table><tr><td colspan=99999 rowspan=99999>x</td></tr>",
    b"<tr><td>",
    b"</td></tr></table>",
    b"<p style='display:none'>",
    b"<PAGE>",
    b"<hr>",
    b"<pre>\n\n\n",
    b"&#0;",
    b"&#x110000;",
    b"&#xD800;",
    b"&nbsp;" * 500,
    b"<![CDATA[",
    b"]]>",
    b"<!--",
    b"-->",
    b'<?xml version="1.0" encoding="utf-16"?>',
    b'<meta charset="utf-32">',
    b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
    b"&b;",
    b"<w:p><w:r><w:t>",
    b"</w:t></w:r></w:p>",
    b"<w:tbl><w:tr><w:tc>",
    b'<w:gridSpan w:val="99999"/>',
    b'<w:vMerge w:val="restart"/>',
    b'<w:outlineLvl w:val="-7"/>',
    b'<w:numPr><w:numId w:val="99999"/></w:numPr>',
    b'<w:pStyle w:val="Heading9999"/>',
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\x00",
]
TEXT_TOKENS = [b'"', b'""', b",", b"\t", b"\r", b"\n" * 200, b"\xff\xfe", b"\xef\xbb\xbf", b"\x00", b"#" * 300]
INTERESTING = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x20, 0x0A, 0x0D, 0x3C, 0x3E, 0x28, 0x5B, 0x2F]
_NUMBER = re.compile(rb"-?\d{1,12}")
_HUGE = [b"0", b"-1", b"999999999", b"2147483648", b"-2147483649", b"18446744073709551616", b"1e308", b"00000"]


@dataclass(frozen=True)
class Case:
    """One mutated document: its bytes, the suffix it is written with, and how it was made."""

    data: bytes
    suffix: str
    steps: tuple[str, ...]


def tokens_for(suffix: str) -> list[bytes]:
    """Tokens worth inserting into a document with this suffix."""
    if suffix == ".pdf":
        return PDF_TOKENS
    if suffix in (".docx", ".html", ".htm", ".xhtml"):
        return MARKUP_TOKENS
    return TEXT_TOKENS


def mutate(rng: random.Random, seed: Path, data: bytes, others: Sequence[bytes]) -> Case:
    """One case from ``seed`` (whose bytes are ``data``); ``others`` are bytes of other seeds, for splicing."""
    suffix = seed.suffix.lower()
    if suffix == ".docx" and rng.random() < 0.7:
        return _mutate_docx(rng, data, others)
    out, steps = _stack(rng, data, others, tokens_for(suffix))
    return Case(out, suffix, tuple(steps))


def _stack(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> tuple[bytes, list[str]]:
    steps: list[str] = []
    out = data
    for _ in range(rng.randint(1, 4)):
        name, op = rng.choice(_OPERATIONS)
        out = op(rng, out, others, tokens)
        steps.append(name)
    return out, steps


def _mutate_docx(rng: random.Random, data: bytes, others: Sequence[bytes]) -> Case:
    """Change one XML part of the package and zip it again (the other parts unchanged)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            parts = {info.filename: package.read(info) for info in package.infolist()}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, KeyError):
        out, steps = _stack(rng, data, others, MARKUP_TOKENS)
        return Case(out, ".docx", tuple(steps))
    xml_parts = sorted(name for name in parts if name.endswith((".xml", ".rels")))
    target = "word/document.xml" if "word/document.xml" in parts and rng.random() < 0.6 else rng.choice(xml_parts)
    if rng.random() < 0.5:  # keep the XML well-formed, so python-docx's own walk is reached
        changed, steps = _well_formed(rng, parts[target])
    else:
        changed, steps = _stack(rng, parts[target], [parts[n] for n in xml_parts], MARKUP_TOKENS)
    parts[target] = changed
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for name, body in parts.items():
            package.writestr(name, body)
    return Case(buffer.getvalue(), ".docx", (f"part {target}", *steps))


_ELEMENT = re.compile(rb"<(w:(?:p|r|tbl|tr|tc|sdt|ins|hyperlink))\b[^>]*>.*?</\1>", re.S)
_ATTRIBUTE = re.compile(rb'(w:(?:val|gridSpan|numId|ilvl|w|type))="[^"]*"')
_VALUES = [b"0", b"-1", b"99999", b"restart", b"continue", b"", b"Heading1", b"Title", b"none"]


def _well_formed(rng: random.Random, xml: bytes) -> tuple[bytes, list[str]]:
    """Mutations that keep XML well-formed: an element repeated or moved, attribute values changed."""
    steps: list[str] = []
    for _ in range(rng.randint(1, 4)):
        elements = list(_ELEMENT.finditer(xml))
        if elements and rng.random() < 0.5:
            chosen = rng.choice(elements)
            copies = chosen.group(0) * rng.choice([2, 8, 200])
            xml = xml[: chosen.start()] + copies + xml[chosen.end() :]
            steps.append("repeat element")
            continue
        attributes = list(_ATTRIBUTE.finditer(xml))
        if attributes:
            chosen = rng.choice(attributes)
            xml = xml[: chosen.start()] + chosen.group(1) + b'="' + rng.choice(_VALUES) + b'"' + xml[chosen.end() :]
            steps.append("attribute value")
    return xml, steps


def _span(rng: random.Random, data: bytes, most: int = 4096) -> tuple[int, int]:
    if not data:
        return 0, 0
    start = rng.randrange(len(data))
    return start, min(len(data), start + rng.randint(1, most))


def _flip(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        if out:
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def _interesting(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] = rng.choice(INTERESTING)
    return bytes(out)


def _truncate(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    return data[: rng.randrange(len(data))] if len(data) > 1 else data


def _delete(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    start, end = _span(rng, data)
    return data[:start] + data[end:]


def _duplicate(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    start, end = _span(rng, data)
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[start:end] * rng.choice([1, 2, 8, 64]) + data[at:]


def _splice(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    other = rng.choice(others) if others else data
    return data[: rng.randrange(len(data) + 1)] + other[rng.randrange(len(other) + 1) :]


def _insert_token(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(tokens) + data[at:]


def _numbers(rng: random.Random, data: bytes, others: Sequence[bytes], tokens: list[bytes]) -> bytes:
    matches = list(_NUMBER.finditer(data))
    if not matches:
        return data
    out = data
    for match in sorted(rng.sample(matches, min(len(matches), rng.randint(1, 4))), key=lambda m: -m.start()):
        out = out[: match.start()] + rng.choice(_HUGE) + out[match.end() :]
    return out


_Operation = Callable[[random.Random, bytes, Sequence[bytes], list[bytes]], bytes]
_OPERATIONS: list[tuple[str, _Operation]] = [
    ("flip", _flip),
    ("interesting", _interesting),
    ("truncate", _truncate),
    ("delete", _delete),
    ("duplicate", _duplicate),
    ("splice", _splice),
    ("token", _insert_token),
    ("token", _insert_token),
    ("numbers", _numbers),
]


@dataclass(frozen=True)
class Outcome:
    """How reading one case ended.

    Attributes:
        status: ``ok`` (read whole), ``parse_error`` (a clean per-file error) or ``bug`` (any other exception, in
            the reader or in this process).
        category: for a ``parse_error``, the reason without its details (see :func:`category`).
        limit: seconds the worker's limits allowed this file (``timeout`` + ``page_timeout`` x pages).
    """

    status: str
    reason: str
    category: str
    seconds: float
    pages: int
    limit: float
    error_path: str = ""
    trace: str = ""

    @property
    def hung_past_limit(self) -> bool:
        """True when the case ran longer than its limit plus :data:`SLACK_SECONDS` (a hang nobody stopped)."""
        return self.seconds > self.limit + SLACK_SECONDS


#: Seconds a case may run over its limit (killing the reader and reaping it) before it counts as a hang.
SLACK_SECONDS = 5.0
_DETAIL = re.compile(r" \(|: |; stopped")


def category(reason: str) -> str:
    """A reason without its details: ``took longer than N s to read``, ``not a readable PDF``, ..."""
    head = _DETAIL.split(reason, maxsplit=1)[0]
    return re.sub(r"\d+(?:\.\d+)?", "N", head)[:80]


def read_case(worker: ReadWorker, path: Path, options: ReadOptions, max_chars: int = 900) -> Outcome:
    """Read ``path`` as the ingester does (in the reader process, spans cut there), without embedding or storing:
    every span's embedding text is built, so the ingester's own per-page work runs too."""
    started = time.monotonic()
    pages = 0
    limits = worker.limits
    limit = limits.timeout
    try:
        with worker.open(path, options=options, chunk_max_chars=max_chars) as source:
            if source.paged:
                limit += limits.page_timeout * source.page_count
            for _page, chunks in source.chunked_pages():
                pages += 1
                for chunk in chunks:
                    embedding_text(chunk)
    except ParseError as exc:
        seconds = time.monotonic() - started
        return Outcome("parse_error", exc.reason, category(exc.reason), seconds, pages, limit, exc.path)
    except ReaderBugError as exc:
        seconds = time.monotonic() - started
        return Outcome("bug", str(exc), exc.type_name, seconds, pages, limit, exc.path, exc.remote_traceback)
    except Exception as exc:  # noqa: BLE001 - anything else escaping is a bug of this process: recorded, not raised
        seconds = time.monotonic() - started
        trace = traceback.format_exc()
        return Outcome("bug", f"{type(exc).__name__}: {exc}", type(exc).__name__, seconds, pages, limit, "", trace)
    return Outcome("ok", "", "", time.monotonic() - started, pages, limit)
