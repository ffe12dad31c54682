"""Financial tables: the PDF table reader scored cell by cell against the HTML the PDF was printed from.

The ground truth is the HTML itself, printed by headless Chromium. Before printing, the text of every table cell is
wrapped in a link (``<a href="https://cell.invalid/T/R/C">``, colour and decoration inherited, so nothing on the
page moves); Chromium writes each link into the PDF as an annotation whose rectangle is the laid-out text of that
cell on its printed page, in PDF points. Reading the annotations back gives every cell's page and box with nobody
typing anything; the HTML gives its text, row, column and spans. The reader then reads the same PDF (links are
annotations; the text layer is untouched) and its :attr:`Page.cells` are scored:

- **truth cells**: non-empty ``td``/``th`` of content tables (at least two rows of two non-empty cells; a cell
  holding a table, and hidden cells, are left out; an EDGAR hanging-indent row, a marker and its text, is layout).
  Columns count earlier ``colspan`` and ``rowspan``. Cells of one row printed touching one another (a gap under
  1.5 pt: ``(1,234`` and its ``)`` in two ``td``) are one printed cell, since nothing on the page separates them;
- **detection**: truth and read cells on one page paired one to one, best box IoU first, a pair counting at IoU
  >= 0.5: precision (over every cell the reader found in the document), recall, F1, median IoU of the pairs;
- **text exact**: paired cells whose text is equal (whitespace runs as one space);
- **row / column agreement**: paired cells whose row-mates (paired cells of the same truth row) are exactly those
  of the reader's row, and the same for columns (truth cells spanning columns are left to the next score);
- **spanning headers**: header cells spanning columns (``colspan`` > 1 above a table's first figure) whose read
  cell covers the read columns of the paired figures below them (currency signs printed apart excluded).

Targets (issue #17): cell F1 >= 0.90, text exact >= 0.98, median IoU >= 0.80.

    python bench/tables.py                       # ../shared/corpus/financial/galaxy_gaming_10k_2021.htm
    python bench/tables.py --html statement.htm --tables 20 --json
    python bench/tables.py --sample              # a generated statement (balance sheet, equity statement)

``--sample`` writes its own small filing (two statements with two-level column headers, indented labels,
currency signs, negative figures in parentheses, totals): it needs no corpus, and is the smoke mode.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import lxml.html
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from lxml import etree

from kruschnexus.extract import open_source
from kruschnexus.model import Rect
from kruschnexus.parse.html import normalise

REPO = Path(__file__).resolve().parents[1]
TEN_K = REPO.parent / "shared" / "corpus" / "financial" / "galaxy_gaming_10k_2021.htm"
LINK = "https://cell.invalid/"
#: Cells of one row printed closer than this (points) are one printed cell.
TOUCH = 1.5
#: A pair counts at this box IoU or more.
MIN_IOU = 0.5
_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)")
_FIGURE = re.compile(r"^\(?[$€£]?\s*[\d,]+(?:\.\d+)?\)?%?$|^[—–-]$")
_SIGN = re.compile(r"^[$€£¥%)]$")
_MARKER = re.compile(r"^(?:\(?[0-9A-Za-z]{1,3}[.)]|[•·▪◦–-]|\d+(?:\.\d+)*\.?)$")


@dataclass
class TruthCell:
    """One cell of the HTML: its table (document order), row, column and spans, text, and printed boxes."""

    table: int
    row: int
    col: int
    row_span: int
    col_span: int
    text: str
    spanning_header: bool = False
    page: int = 0
    rect: Rect = (0.0, 0.0, 0.0, 0.0)


@dataclass
class ReadCell:
    """One cell the reader found: page, table on the page, row, column, spans, text, box."""

    page: int
    table: int
    row: int
    col: int
    row_span: int
    col_span: int
    text: str
    rect: Rect


@dataclass
class TableScore:
    """The scores of one truth table."""

    table: int
    pages: list[int]
    title: str
    cells: int
    paired: int
    recall: float
    text_exact: float
    median_iou: float
    row_agreement: float
    col_agreement: float


@dataclass
class Report:
    """The whole run."""

    source: str
    pages: int
    tables: int
    truth_cells: int
    read_cells: int
    paired: int
    precision: float
    recall: float
    f1: float
    text_exact: float
    median_iou: float
    row_agreement: float
    col_agreement: float
    spanning_headers: int
    spanning_headers_assigned: float
    seconds: dict[str, float] = field(default_factory=dict)
    per_table: list[TableScore] = field(default_factory=list)
    text_mismatches: list[tuple[str, str]] = field(default_factory=list)
    spanning_misses: list[str] = field(default_factory=list)


# --- ground truth -----------------------------------------------------------------------------------------------


def _hidden(element: Any) -> bool:
    return any("hidden" in e.attrib or _HIDDEN.search(e.get("style", "")) for e in element.iterancestors()) or bool(
        _HIDDEN.search(element.get("style", ""))
    )


def _cells(tr: Any) -> list[Any]:
    return [c for c in tr if isinstance(c.tag, str) and c.tag in ("td", "th")]


def _span(cell: Any, name: str) -> int:
    value = re.match(r"\s*(\d+)", cell.get(name, "1") or "1")
    return max(1, int(value.group(1))) if value else 1


def _visible_text(cell: Any) -> str:
    pieces: list[str | None] = []

    def walk(element: Any) -> None:
        if element.tag == "br":
            pieces.append(None)
        elif element is cell or not _hidden(element):
            pieces.append(element.text or "")
            for child in element:
                if isinstance(child.tag, str):
                    walk(child)
                pieces.append(child.tail or "")

    walk(cell)
    return normalise(pieces)


def _is_layout_row(texts: Sequence[str]) -> bool:
    filled = [t for t in texts if t]
    return len(filled) < 2 or (len(filled) == 2 and _MARKER.match(filled[0]) is not None)


def mark(html: bytes) -> tuple[bytes, dict[str, TruthCell]]:
    """The HTML with each truth cell's text wrapped in a link named ``T/R/C``, and the truth cells by that name."""
    tree = lxml.html.fromstring(html)
    truth: dict[str, TruthCell] = {}
    for t, table in enumerate(tree.iter("table"), start=1):
        if _hidden(table) or table.xpath(".//table"):
            continue
        rows = table.xpath("./tr|./thead/tr|./tbody/tr|./tfoot/tr")
        found = _table_cells(t, rows)
        grid = defaultdict(list)
        for cell, _ in found:
            grid[cell.row].append(cell.text)
        if sum(1 for texts in grid.values() if not _is_layout_row(texts)) < 2:
            continue
        first_figure = min((c.row for c, _ in found if _FIGURE.match(c.text)), default=0)
        for cell, element in found:
            cell.spanning_header = cell.col_span > 1 and 0 < first_figure and cell.row < first_figure
            key = f"{t}/{cell.row}/{cell.col}"
            truth[key] = cell
            _wrap(element, LINK + key)
    return lxml.html.tostring(tree, doctype="<!DOCTYPE html>"), truth


def _table_cells(t: int, rows: Sequence[Any]) -> list[tuple[TruthCell, Any]]:
    taken: set[tuple[int, int]] = set()
    out: list[tuple[TruthCell, Any]] = []
    for r, tr in enumerate(rows, start=1):
        c = 1
        for element in _cells(tr):
            while (r, c) in taken:
                c += 1
            rs, cs = _span(element, "rowspan"), _span(element, "colspan")
            taken.update((r + dr, c + dc) for dr in range(rs) for dc in range(cs))
            text = "" if _hidden(element) else _visible_text(element)
            if text:
                out.append((TruthCell(t, r, c, rs, cs, text), element))
            c += cs
    return out


def _wrap(cell: Any, href: str) -> None:
    """Every visible text node of a cell wrapped in an inline link (the layout does not change)."""
    for element in list(cell.iter()):
        if not isinstance(element.tag, str) or (element is not cell and _hidden(element)):
            continue
        if element.text and element.text.strip():
            link = etree.Element("a", href=href, style="color:inherit;text-decoration:none")
            link.text, element.text = element.text, None
            element.insert(0, link)
        if element is not cell and element.tail and element.tail.strip():
            link = etree.Element("a", href=href, style="color:inherit;text-decoration:none")
            link.text, element.tail = element.tail, None
            element.addnext(link)


def chromium() -> str | None:
    """The headless browser that prints the HTML, if installed."""
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def render(html_path: Path, pdf_path: Path, browser: str) -> None:
    """Print an HTML file to PDF (US Letter, Chromium's default margins, no header or footer)."""
    command = [
        browser,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-pdf-header-footer",
        f"--print-to-pdf={pdf_path}",
        html_path.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0 or not pdf_path.is_file():
        raise RuntimeError(f"{browser} could not print {html_path}: {done.stderr.strip()[-500:]}")


def links(pdf_path: Path) -> Iterator[tuple[int, str, Rect]]:
    """``(page, uri, rect)`` of every link annotation, the rectangle in display space (points, y downwards)."""
    pdf = pdfium.PdfDocument(pdf_path)
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            height = page.get_height()
            pos = ctypes.c_int(0)
            link = pdfium_c.FPDF_LINK()
            while pdfium_c.FPDFLink_Enumerate(page.raw, ctypes.byref(pos), ctypes.byref(link)):
                box = pdfium_c.FS_RECTF()
                if not pdfium_c.FPDFLink_GetAnnotRect(link, ctypes.byref(box)):
                    continue
                action = pdfium_c.FPDFLink_GetAction(link)
                size = pdfium_c.FPDFAction_GetURIPath(pdf.raw, action, None, 0)
                buffer = ctypes.create_string_buffer(size)
                pdfium_c.FPDFAction_GetURIPath(pdf.raw, action, buffer, size)
                yield (
                    index + 1,
                    buffer.value.decode("ascii", "replace"),
                    (
                        box.left,
                        height - box.top,
                        box.right,
                        height - box.bottom,
                    ),
                )
    finally:
        pdf.close()


def printed(truth: dict[str, TruthCell], pdf_path: Path) -> list[TruthCell]:
    """Truth cells with their printed page and box; touching cells of one row merged (see the module)."""
    boxes: dict[tuple[int, str], list[Rect]] = defaultdict(list)
    for page, uri, rect in links(pdf_path):
        if uri.startswith(LINK) and uri[len(LINK) :] in truth:
            boxes[(page, uri[len(LINK) :])].append(rect)
    placed = [replace(truth[key], page=page, rect=_union(rects)) for (page, key), rects in boxes.items()]
    rows: dict[tuple[int, int, int], list[TruthCell]] = defaultdict(list)
    for cell in placed:
        rows[(cell.page, cell.table, cell.row)].append(cell)
    out: list[TruthCell] = []
    for row in rows.values():
        row.sort(key=lambda c: c.rect[0])
        merged = [row[0]]
        for cell in row[1:]:
            last = merged[-1]
            if cell.rect[0] - last.rect[2] < TOUCH and _overlap_y(last.rect, cell.rect):
                merged[-1] = replace(
                    last,
                    row_span=max(last.row_span, cell.row_span),
                    col_span=cell.col + cell.col_span - last.col,
                    text=last.text + cell.text,
                    rect=_union([last.rect, cell.rect]),
                )
            else:
                merged.append(cell)
        out.extend(merged)
    return sorted(out, key=lambda c: (c.page, c.table, c.row, c.col))


def _union(rects: Iterable[Rect]) -> Rect:
    rs = list(rects)
    return (min(r[0] for r in rs), min(r[1] for r in rs), max(r[2] for r in rs), max(r[3] for r in rs))


def _overlap_y(a: Rect, b: Rect) -> bool:
    return min(a[3], b[3]) > max(a[1], b[1])


# --- the reader and the scores ----------------------------------------------------------------------------------


def read(pdf_path: Path) -> tuple[int, list[ReadCell]]:
    """The page count and every cell the reader finds (:attr:`Page.cells`)."""
    out: list[ReadCell] = []
    pages = 0
    with open_source(pdf_path) as source:
        for page in source.pages():
            pages += 1
            out.extend(
                ReadCell(page.number, c.table, c.row, c.col, c.row_span, c.col_span, page.text[c.start : c.end], c.rect)
                for c in page.cells
            )
    return pages, out


def iou(a: Rect, b: Rect) -> float:
    """Intersection over union of two boxes."""
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def pair(truth: Sequence[TruthCell], found: Sequence[ReadCell]) -> dict[int, tuple[int, float]]:
    """Truth index -> (read index, IoU): one to one per page, best IoU first, IoU >= :data:`MIN_IOU`."""
    by_page: dict[int, list[int]] = defaultdict(list)
    for j, cell in enumerate(found):
        by_page[cell.page].append(j)
    candidates = [
        (score, i, j)
        for i, t in enumerate(truth)
        for j in by_page.get(t.page, [])
        if (score := iou(t.rect, found[j].rect)) >= MIN_IOU
    ]
    out: dict[int, tuple[int, float]] = {}
    used: set[int] = set()
    for score, i, j in sorted(candidates, key=lambda c: -c[0]):
        if i not in out and j not in used:
            out[i] = (j, score)
            used.add(j)
    return out


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _mates(keys: dict[int, tuple[Any, Any]]) -> float:
    """Share of items whose truth group-mates are exactly their read group-mates (``keys``: item -> (truth, read))."""
    truth_groups: dict[Any, set[int]] = defaultdict(set)
    read_groups: dict[Any, set[int]] = defaultdict(set)
    for item, (t, r) in keys.items():
        truth_groups[t].add(item)
        read_groups[r].add(item)
    agree = sum(1 for item, (t, r) in keys.items() if truth_groups[t] == read_groups[r])
    return agree / len(keys) if keys else 1.0


def _spanning_ok(
    header: int, truth: Sequence[TruthCell], found: Sequence[ReadCell], pairs: dict[int, tuple[int, float]]
) -> bool | None:
    """The header's read cell covers the read columns of the paired figures below it; ``None`` if none is paired."""
    head = truth[header]
    if header not in pairs:
        return False
    read_head = found[pairs[header][0]]
    below = [
        found[pairs[i][0]]
        for i, t in enumerate(truth)
        if i in pairs
        and t.table == head.table
        and t.page == head.page
        and t.row > head.row
        and head.col <= t.col < head.col + head.col_span
        and _FIGURE.match(t.text)
        and not _SIGN.match(t.text)
    ]
    if not below:
        return None
    return all(
        r.table == read_head.table and read_head.col <= r.col < read_head.col + read_head.col_span for r in below
    )


def score(source: str, pages: int, truth: Sequence[TruthCell], found: Sequence[ReadCell]) -> Report:
    """Every score of the module docstring, overall and per truth table."""
    pairs = pair(truth, found)
    paired = len(pairs)
    precision = paired / len(found) if found else 0.0
    recall = paired / len(truth) if truth else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    exact = [i for i, (j, _) in pairs.items() if _same(truth[i].text, found[j].text)]
    mismatches = [(truth[i].text, found[j].text) for i, (j, _) in pairs.items() if i not in set(exact)]
    rows = {i: ((truth[i].table, truth[i].row), _read_row(found[j])) for i, (j, _) in pairs.items()}
    cols = {
        i: ((truth[i].table, truth[i].col), _read_col(found[j]))
        for i, (j, _) in pairs.items()
        if truth[i].col_span == 1
    }
    headers = [i for i, t in enumerate(truth) if t.spanning_header]
    judged = [(i, _spanning_ok(i, truth, found, pairs)) for i in headers]
    verdicts = [v for _, v in judged if v is not None]
    return Report(
        source=source,
        pages=pages,
        tables=len({t.table for t in truth}),
        truth_cells=len(truth),
        read_cells=len(found),
        paired=paired,
        precision=round(precision, 4),
        recall=round(recall, 4),
        f1=round(f1, 4),
        text_exact=round(len(exact) / paired, 4) if paired else 0.0,
        median_iou=round(statistics.median(s for _, s in pairs.values()), 4) if pairs else 0.0,
        row_agreement=round(_mates(rows), 4),
        col_agreement=round(_mates(cols), 4),
        spanning_headers=len(verdicts),
        spanning_headers_assigned=round(sum(verdicts) / len(verdicts), 4) if verdicts else 1.0,
        per_table=_per_table(truth, found, pairs, set(exact)),
        text_mismatches=mismatches,
        spanning_misses=[f"p{truth[i].page} table {truth[i].table}: {truth[i].text}" for i, v in judged if v is False],
    )


def _read_row(cell: ReadCell) -> tuple[int, int, int]:
    return (cell.page, cell.table, cell.row)


def _read_col(cell: ReadCell) -> tuple[int, int, int]:
    return (cell.page, cell.table, cell.col)


def _per_table(
    truth: Sequence[TruthCell], found: Sequence[ReadCell], pairs: dict[int, tuple[int, float]], exact: set[int]
) -> list[TableScore]:
    members: dict[int, list[int]] = defaultdict(list)
    for i, t in enumerate(truth):
        members[t.table].append(i)
    out: list[TableScore] = []
    for table, items in sorted(members.items()):
        mine = [i for i in items if i in pairs]
        out.append(
            TableScore(
                table=table,
                pages=sorted({truth[i].page for i in items}),
                title=" | ".join(truth[i].text for i in items[:3])[:60],
                cells=len(items),
                paired=len(mine),
                recall=round(len(mine) / len(items), 4),
                text_exact=round(sum(1 for i in mine if i in exact) / len(mine), 4) if mine else 0.0,
                median_iou=round(statistics.median(pairs[i][1] for i in mine), 4) if mine else 0.0,
                row_agreement=round(_mates({i: ((truth[i].row,), _read_row(found[pairs[i][0]])) for i in mine}), 4),
                col_agreement=round(
                    _mates(
                        {i: ((truth[i].col,), _read_col(found[pairs[i][0]])) for i in mine if truth[i].col_span == 1}
                    ),
                    4,
                ),
            )
        )
    return out


# --- the generated sample ---------------------------------------------------------------------------------------

_CELL = 'style="padding:0 2pt;font:10pt Times New Roman, serif;vertical-align:bottom;{}"'


def sample_html() -> str:
    """A small filing: a balance sheet and a statement of stockholders' equity with two-level column headers."""
    balance = [
        ("Current assets:", None, None, 0),
        ("Cash and cash equivalents", "$ 16,058,714", "$ 5,993,388", 1),
        ("Accounts receivable, net", "4,377,165", "2,493,254", 1),
        ("Inventory", "770,248", "668,525", 1),
        ("Total current assets", "21,206,127", "9,155,167", 0),
        ("Property and equipment, net", "98,594", "116,724", 0),
        ("Accumulated deficit", "(33,543,351)", "(35,655,163)", 0),
        ("Total assets", "$ 40,452,705", "$ 30,574,594", 0),
    ]
    under = "text-align:center;font-weight:bold;border-bottom:solid 0.75pt #000"
    gap = '<td style="width:1%"></td>'
    head = (
        f"<tr><td {_CELL.format('')}></td><td colspan=2 {_CELL.format(under)}>2021</td>{gap}"
        f"<td colspan=2 {_CELL.format(under)}>2020</td>{gap}</tr>"
    )
    body = "".join(_money_row(label, a, b, indent) for label, a, b, indent in balance)
    equity_head = (
        f"<tr><td {_CELL.format('')}></td>"
        f"<td colspan=5 {_CELL.format(under)}>Common Stock</td>{gap}<td colspan=6></td></tr>"
        f"<tr><td {_CELL.format('')}></td>"
        + "".join(
            f"<td colspan=2 {_CELL.format(under)}>{name}</td>{gap}"
            for name in ("Shares", "Amount", "Accumulated<br>Deficit", "Total<br>Equity")
        )
        + "</tr>"
    )
    equity = [
        ("Balance, December 31, 2019", "18,215,069", "$ 18,215", "$ (32,512,449)", "$ (24,113,922)"),
        ("Stock issued for services", "406,568", "407", "—", "1,009,593"),
        ("Net loss", "—", "—", "(3,142,714)", "(3,142,714)"),
        ("Balance, December 31, 2020", "21,970,638", "$ 21,971", "$ (35,655,163)", "$ (24,796,965)"),
    ]
    equity_body = "".join(
        f"<tr><td {_CELL.format('')}>{label}</td>" + "".join(_figure_cells(v) for v in values) + "</tr>"
        for label, *values in equity
    )
    table = '<table style="border-collapse:collapse;width:100%">{}</table>'
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Sample statements</title></head><body>'
        '<p style="text-align:center;font-weight:bold">SAMPLE CORP.<br>CONSOLIDATED BALANCE SHEETS</p>'
        + table.format(head + body)
        + '<p style="text-align:center;font-weight:bold">STATEMENTS OF STOCKHOLDERS\u2019 DEFICIT</p>'
        + table.format(equity_head + equity_body)
        + "<p>The accompanying notes are an integral part of these statements.</p></body></html>"
    )


def _money_row(label: str, a: str | None, b: str | None, indent: int) -> str:
    style = f"padding-left:{2 + 10 * indent}pt" + (";font-weight:bold" if indent == 0 and a is None else "")
    cells = f"<td {_CELL.format(style)}>{label}</td>"
    cells += _figure_cells(a) + _figure_cells(b) if a is not None and b is not None else "<td colspan=6></td>"
    return f"<tr>{cells}</tr>"


def _figure_cells(value: str) -> str:
    sign, _, figure = value.rpartition(" ") if value.startswith("$ ") else ("", "", value)
    return (
        f"<td {_CELL.format('width:2%')}>{sign}</td>"
        f"<td {_CELL.format('width:12%;text-align:right')}>{figure}</td>"
        '<td style="width:1%"></td>'
    )


# --- the command ------------------------------------------------------------------------------------------------


def measure(html_path: Path, work: Path, browser: str, max_tables: int | None = None) -> Report:
    """Mark, print, read and score one HTML file (in the folder ``work``)."""
    clock: dict[str, float] = {}
    start = time.perf_counter()
    marked, truth = mark(html_path.read_bytes())
    if max_tables is not None:
        keep = sorted({c.table for c in truth.values()})[:max_tables]
        truth = {k: c for k, c in truth.items() if c.table in keep}
    marked_path = work / "marked.html"
    marked_path.write_bytes(marked)
    clock["mark"] = time.perf_counter() - start
    pdf_path = work / "marked.pdf"
    start = time.perf_counter()
    render(marked_path, pdf_path, browser)
    clock["print"] = time.perf_counter() - start
    start = time.perf_counter()
    cells = printed(truth, pdf_path)
    pages, found = read(pdf_path)
    clock["read"] = time.perf_counter() - start
    if max_tables is not None:
        pages_kept = {c.page for c in cells}
        found = [c for c in found if c.page in pages_kept]
    report = score(str(html_path), pages, cells, found)
    report.seconds = {k: round(v, 2) for k, v in clock.items()}
    return report


def _print(report: Report, worst: int) -> None:
    print(f"source: {report.source} ({report.pages} printed pages, {report.tables} content tables)")
    print(
        f"cells: truth {report.truth_cells}, read {report.read_cells}, paired {report.paired} (IoU >= {MIN_IOU})\n"
        f"  precision {report.precision:.3f}  recall {report.recall:.3f}  F1 {report.f1:.3f}   (target F1 >= 0.90)\n"
        f"  text exact {report.text_exact:.3f}   (target >= 0.98)\n"
        f"  median IoU {report.median_iou:.3f}   (target >= 0.80)\n"
        f"  row agreement {report.row_agreement:.3f}  column agreement {report.col_agreement:.3f}\n"
        f"  spanning headers assigned {report.spanning_headers_assigned:.3f} of {report.spanning_headers}"
    )
    print(f"seconds: {report.seconds}")
    if worst:
        print(f"worst {worst} tables by recall (table, pages, cells, recall, text, rows, cols, title):")
        for t in sorted(report.per_table, key=lambda t: (t.recall, -t.cells))[:worst]:
            print(
                f"  {t.table:3d} p{','.join(map(str, t.pages)):8s} {t.cells:4d}  {t.recall:.2f}  {t.text_exact:.2f}"
                f"  {t.row_agreement:.2f}  {t.col_agreement:.2f}  {t.title}"
            )
    for want, got in report.text_mismatches[:10]:
        print(f"  text: {want!r} read as {got!r}")
    for miss in report.spanning_misses[:10]:
        print(f"  spanning header not over its columns: {miss}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bench; print the report (or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", type=Path, default=TEN_K, help="the HTML filing (default: the corpus 10-K)")
    parser.add_argument("--sample", action="store_true", help="score a generated two-statement filing instead")
    parser.add_argument("--tables", type=int, default=None, help="score only the first N content tables")
    parser.add_argument("--worst", type=int, default=10, help="list the N tables of lowest recall (default 10)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    browser = chromium()
    if browser is None:
        print("tables: Chromium is not installed (apt install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="nexus-tables-") as tmp:
        work = Path(tmp)
        html_path = args.html
        if args.sample:
            html_path = work / "sample.htm"
            html_path.write_text(sample_html(), encoding="utf-8")
        elif not html_path.is_file():
            print(f"tables: {html_path} not found (use --sample without the corpus)", file=sys.stderr)
            return 2
        try:
            report = measure(html_path, work, browser, args.tables)
        except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
            print(f"tables: {exc}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(asdict(report), indent=2))
    else:
        _print(report, args.worst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
