"""Hostile files (issue #7): decompression bombs, deep nesting, absurd pages, mutated documents and a mixed batch.

Every hostile input is generated here. Each is read (or refused with a ParseError naming the file), never raises
anything else, never hangs past the reader's time limit, and in a batch fails alone: the good file beside it is
stored and a document stored before is untouched.
"""

from __future__ import annotations

import dataclasses
import io
import random
import struct
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from kruschnexus import Corpus
from kruschnexus.blobs import blob_path, sha256_file
from kruschnexus.config import OcrMode, Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ParseError
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.parse import docx as docx_reader
from kruschnexus.parse.ocr import tesseract_version
from kruschnexus.parse.pdf import MAX_RENDER_PIXELS, PdfFile
from kruschnexus.worker import ReadLimits, ReadWorker
from tests.conftest import FIXTURES
from tests.fuzzing import SUFFIXES, mutate, read_case

LEASE_DOCX = FIXTURES / "office_lease.docx"
NO_OCR = ReadOptions(ocr=OcrMode.NEVER)
needs_tesseract = pytest.mark.skipif(tesseract_version() is None, reason="needs Tesseract")


def refusal(path: Path, options: ReadOptions = NO_OCR) -> ParseError:
    """The ParseError reading ``path`` in-process raises (it must raise one, naming the file)."""
    with pytest.raises(ParseError) as caught, open_source(path, options=options) as source:
        list(source.pages())
    assert caught.value.path == str(path) and caught.value.reason
    return caught.value


def handmade_pdf(path: Path, objects: list[bytes]) -> Path:
    """A PDF of these numbered objects (1 is the catalog) with a correct cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    path.write_bytes(out.getvalue())
    return path


def one_page_pdf(path: Path, page: bytes) -> Path:
    """A one-page PDF whose page dictionary holds ``page`` (plus its type and parent)."""
    return handmade_pdf(
        path,
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R " + page + b" >>",
        ],
    )


def docx_with(path: Path, parts: dict[str, bytes], drop: frozenset[str] = frozenset()) -> Path:
    """The fixture lease with some parts replaced or added (and the parts named in ``drop`` left out)."""
    with zipfile.ZipFile(LEASE_DOCX) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename not in parts and info.filename not in drop:
                out.writestr(info, source.read(info))
        for name, body in parts.items():
            out.writestr(name, body)
    return path


def zero_part_docx(path: Path, name: str, size: int) -> Path:
    """The fixture lease plus a part of ``size`` zero bytes, written in pieces (the test never holds it whole)."""
    docx_with(path, {}, drop=frozenset({name}))
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as out, out.open(name, "w", force_zip64=True) as part:
        block = bytes(1 << 20)
        for _ in range(size // len(block)):
            part.write(block)
    return path


# DOCX: decompression bombs are refused from the ZIP directory, before anything is inflated.


def test_a_zip_bomb_docx_is_refused_by_its_compression_ratio(tmp_path: Path) -> None:
    error = refusal(zero_part_docx(tmp_path / "bomb.docx", "word/media/zeros.bin", 20 << 20))
    assert "word/media/zeros.bin inflates" in error.reason and "decompression bomb" in error.reason


def test_a_docx_part_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    error = refusal(zero_part_docx(tmp_path / "huge.docx", "word/document.xml", docx_reader.MAX_PART_BYTES + (1 << 20)))
    assert f"over {docx_reader.MAX_PART_BYTES}" in error.reason


def test_a_docx_with_too_many_entries_is_refused(tmp_path: Path) -> None:
    extra = {f"customXml/item{k}.xml": b"<a/>" for k in range(docx_reader.MAX_ENTRIES + 1)}
    error = refusal(docx_with(tmp_path / "many.docx", extra))
    assert f"over the limit of {docx_reader.MAX_ENTRIES}" in error.reason


def test_a_deeply_nested_docx_body_is_a_clean_error(tmp_path: Path) -> None:
    body = b"<w:tbl><w:tr><w:tc>" * 3000 + b"<w:p/>" + b"</w:tc></w:tr></w:tbl>" * 3000
    xml = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
        + body
        + b"</w:body></w:document>"
    )
    error = refusal(docx_with(tmp_path / "deep.docx", {"word/document.xml": xml}))
    assert "malformed XML" in error.reason


def test_a_docx_whose_directory_points_before_the_file_is_damaged(tmp_path: Path) -> None:
    """Fuzz finding: a central directory offset larger than the real one made zipfile seek to a negative offset
    (OSError: Invalid argument) inside python-docx."""
    data = bytearray(docx_with(tmp_path / "ok.docx", {}).read_bytes())
    end = data.rindex(b"PK\x05\x06")
    (offset,) = struct.unpack_from("<I", data, end + 16)
    struct.pack_into("<I", data, end + 16, offset + 4096)
    path = tmp_path / "shifted.docx"
    path.write_bytes(bytes(data))
    assert "damaged" in refusal(path).reason


def test_a_docx_part_with_a_corrupt_deflate_stream_is_damaged(tmp_path: Path) -> None:
    """Fuzz finding: zlib.error escaped python-docx when a part's compressed bytes were garbled."""
    data = bytearray(LEASE_DOCX.read_bytes())
    with zipfile.ZipFile(LEASE_DOCX) as package:
        info = package.getinfo("word/document.xml")
    name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
    middle = info.header_offset + 30 + name_length + extra_length + info.compress_size // 2
    data[middle : middle + 64] = b"\xff" * 64
    path = tmp_path / "garbled.docx"
    path.write_bytes(bytes(data))
    assert "damaged" in refusal(path).reason


def test_a_docx_with_an_encrypted_part_is_refused(tmp_path: Path) -> None:
    data = bytearray(docx_with(tmp_path / "plain.docx", {"word/secret.xml": b"<a/>"}).read_bytes())
    at = data.index(b"PK\x01\x02")  # central directory entries: flags at +8, name length at +28, name at +46
    while data[at + 46 : at + 46 + struct.unpack_from("<H", data, at + 28)[0]] != b"word/secret.xml":
        at = data.index(b"PK\x01\x02", at + 4)
    data[at + 8] |= 0x1
    path = tmp_path / "locked.docx"
    path.write_bytes(bytes(data))
    assert "word/secret.xml is encrypted" in refusal(path).reason


def test_a_docx_whose_main_part_is_not_a_word_document_is_refused(tmp_path: Path) -> None:
    """Fuzz finding: a changed namespace made the root a plain element (AttributeError: no attribute 'body')."""
    with zipfile.ZipFile(LEASE_DOCX) as package:
        xml = package.read("word/document.xml")
    wrong = xml.replace(b"wordprocessingml/2006/main", b"wordprocessingml/0/main")
    error = refusal(docx_with(tmp_path / "alien.docx", {"word/document.xml": wrong}))
    assert "not a Word document" in error.reason


def test_a_docx_style_of_an_unknown_type_is_a_clean_error(tmp_path: Path) -> None:
    """Fuzz finding: python-docx's ValueError for a style type it has no name for escaped while reading a
    paragraph's style."""
    with zipfile.ZipFile(LEASE_DOCX) as package:
        styles = package.read("word/styles.xml")
    odd = styles.replace(b'w:type="character" w:default="1"', b'w:type="0" w:default="1"')
    assert odd != styles
    error = refusal(docx_with(tmp_path / "styles.docx", {"word/styles.xml": odd}))
    assert "damaged paragraph" in error.reason and "no XML mapping" in error.reason


# HTML: libxml2 stops at 2048 levels (refused), the walk is iterative, declared entities are never expanded.


def test_html_nesting_beyond_the_parser_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_bytes(b"<div>" * 100_000 + b"<p>deep</p>")
    assert "nests deeper" in refusal(path).reason


def test_html_nested_two_thousand_deep_is_read_without_recursion(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_bytes(b"<div>" * 2000 + b"<p>deep text</p>" + b"</div>" * 2000)
    with open_source(path) as source:
        assert [page.text for page in source.pages()] == ["deep text"]


@pytest.mark.parametrize("suffix", [".html", ".xhtml"])
def test_html_entity_declarations_are_not_expanded(tmp_path: Path, suffix: str) -> None:
    levels = [b'<!ENTITY a0 "' + b"ha" * 50 + b'">']
    levels += [b'<!ENTITY a%d "%s">' % (k, b"&a%d;" % (k - 1) * 10) for k in range(1, 10)]
    external = b'<!ENTITY leak SYSTEM "file:///etc/passwd">'
    doctype = b"<!DOCTYPE html [" + b"".join(levels) + external + b"]>"
    path = tmp_path / f"laughs{suffix}"
    path.write_bytes(b'<?xml version="1.0"?>' + doctype + b"<html><body><p>x &a9; &leak; y</p></body></html>")
    with open_source(path) as source:
        text = " ".join(page.text for page in source.pages())
    assert len(text) < 2000 and "root:" not in text


# PDF: page count, absurd page sizes (rendering capped), hostile structure.


def test_a_giant_page_is_rendered_within_the_pixel_cap(tmp_path: Path) -> None:
    path = one_page_pdf(tmp_path / "giant.pdf", b"/MediaBox [0 0 14400 14400]")
    with PdfFile(path) as pdf:
        dpi = pdf.fit_dpi(1, 300)
        assert dpi < 40 and (14400 * dpi / 72) ** 2 <= MAX_RENDER_PIXELS
        with pytest.raises(ParseError, match="too large to render at 300 dpi"):
            pdf.render(1, 300)
        image = pdf.render(1, 30)
        assert image.size == (6000, 6000)


@needs_tesseract
def test_ocr_of_a_giant_page_stays_under_the_memory_cap(tmp_path: Path) -> None:
    """At 300 dpi this page would be 3.6 billion pixels; the reader renders it at the cap and reads it."""
    path = one_page_pdf(tmp_path / "giant.pdf", b"/MediaBox [0 0 14400 14400]")
    with ReadWorker(ReadLimits(timeout=60, memory_mb=1024)) as worker:
        with worker.open(path, options=ReadOptions(ocr=OcrMode.ALWAYS, ocr_workers=1)) as source:
            [page] = list(source.pages())
    assert page.used_ocr and page.width == 14400


def test_a_page_tree_with_a_broken_kid_is_a_clean_error(tmp_path: Path) -> None:
    """Fuzz finding: pdfium counted two pages but could not load the second (PdfiumError escaped)."""
    path = handmade_pdf(
        tmp_path / "badkid.pdf",
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            b"<< /Type /Font >>",
        ],
    )
    error = refusal(path)
    assert "cannot load the page" in error.reason and error.page is not None


def test_deeply_nested_pdf_objects_are_read_or_refused_in_time(tmp_path: Path) -> None:
    contents = b"<< /Length 0 /Deep " + b"[" * 100_000 + b"]" * 100_000 + b" >>\nstream\n\nendstream"
    path = handmade_pdf(
        tmp_path / "deep.pdf",
        [
            b"<< /Type /Catalog /Pages 2 0 R /Nest " + b"<< /A " * 5000 + b"1" + b" >>" * 5000 + b" >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            contents,
        ],
    )
    with ReadWorker(ReadLimits(timeout=30)) as worker:
        outcome = read_case(worker, path, NO_OCR)
    assert outcome.status in ("ok", "parse_error") and not outcome.hung_past_limit, outcome


# CI fuzz: mutated fixtures through the reader process, fixed seed.

FUZZ_CASES = 300
FUZZ_SEED = 20261202


def test_mutated_fixtures_are_read_or_refused_never_anything_else(tmp_path: Path) -> None:
    seeds = [p for p in sorted(FIXTURES.iterdir()) if p.suffix in SUFFIXES]
    blobs = {p: p.read_bytes() for p in seeds}
    rng = random.Random(FUZZ_SEED)
    statuses: Counter[str] = Counter()
    problems = []
    with ReadWorker(ReadLimits(timeout=20.0, page_timeout=2.0)) as worker:
        for index in range(FUZZ_CASES):
            seed = rng.choice(seeds)
            case = mutate(rng, seed, blobs[seed], [blobs[p] for p in seeds if p.suffix == seed.suffix])
            path = tmp_path / f"case-{index:04d}{case.suffix}"
            path.write_bytes(case.data)
            outcome = read_case(worker, path, NO_OCR)
            statuses[outcome.status] += 1
            named = outcome.status != "parse_error" or outcome.error_path == str(path)
            if outcome.status == "bug" or outcome.hung_past_limit or not named:
                problems.append((path.name, seed.name, case.steps, outcome.reason, outcome.trace))
            else:
                path.unlink()
    assert not problems, problems
    assert statuses["ok"] and statuses["parse_error"], statuses


# A batch: hostile files fail one by one; the good file is stored; what was stored before is untouched.


def hostile_batch(folder: Path) -> dict[str, tuple[Path, str]]:
    """Hostile files -> (path, a piece of the reason each must fail with)."""
    folder.mkdir()
    truncated = folder / "truncated.pdf"
    truncated.write_bytes((FIXTURES / "sample_contract.pdf").read_bytes()[:700])
    deep = folder / "deep.html"
    deep.write_bytes(b"<div>" * 100_000)
    fake = folder / "fake.docx"
    fake.write_bytes(b"PK\x03\x04 not a zip at all")
    broken = handmade_pdf(
        folder / "badkid.pdf",
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            b"<< /Type /Font >>",
        ],
    )
    many = handmade_pdf(
        folder / "many.pdf",
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % (3 + k) for k in range(5001)) + b"] /Count 5001 >>",
            *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>" for _ in range(5001)],
        ],
    )
    return {
        "many": (many, "5001 pages is over the limit of 5000"),
        "bomb": (zero_part_docx(folder / "bomb.docx", "word/media/zeros.bin", 20 << 20), "decompression bomb"),
        "truncated": (truncated, "not a readable PDF"),
        "deep": (deep, "nests deeper"),
        "fake": (fake, "damaged or truncated"),
        "badkid": (broken, "cannot load the page"),
    }


@pytest.mark.integration
def test_a_batch_with_hostile_files_stores_the_good_one_and_fails_each_hostile_one(
    settings: Settings, embedder: Embedder, workspace: str, tmp_path: Path
) -> None:
    hostile = hostile_batch(tmp_path / "hostile")
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as corpus:
        [before] = corpus.ingest([FIXTURES / "sample_contract.pdf"])
        assert before.status == "ingested"
        stored = [(h.page_number, h.char_start, h.char_end, h.text) for h in corpus.export()]
        good = FIXTURES / "html_filing.html"
        results = corpus.ingest([good, *(path for path, _ in hostile.values())])
        by_path = {r.path: r for r in results}
        assert by_path[str(good)].status == "ingested"
        for path, why in hostile.values():
            result = by_path[str(path)]
            assert result.status == "failed" and why in result.reason, (path.name, result.reason)
            assert not blob_path(settings.blob_dir, sha256_file(path)).exists(), "nothing kept of a failed file"
        documents, _, _ = corpus.counts()
        assert documents == 2
        after = [
            (h.page_number, h.char_start, h.char_end, h.text) for h in corpus.export() if h.doc_id == before.doc_id
        ]
        assert after == stored, "the document stored before is untouched"
        assert corpus.verify().ok


@pytest.mark.integration
@needs_tesseract
def test_a_file_over_the_time_limit_fails_alone(
    settings: Settings, embedder: Embedder, workspace: str, tmp_path: Path
) -> None:
    quick = dataclasses.replace(settings, parse_timeout=0.5, parse_page_timeout=0.1)
    with Corpus(workspace=workspace, settings=quick, embedder=embedder) as corpus:
        results = corpus.ingest([FIXTURES / "scanned_lease.pdf", FIXTURES / "office_rent_roll.csv"], ocr="always")
        slow, good = results
        assert slow.status == "failed" and "took longer than 0.5 s to read; stopped" in slow.reason
        assert good.status == "ingested"
        assert corpus.counts()[0] == 1
