"""Generate the table fixtures: ``tests/fixtures/table_rent_schedule.pdf`` and its ``.truth.json``.

Usage: ``python scripts/make_table_fixtures.py [--out DIR]``. Deterministic (reportlab ``invariant=1``, fixed
metadata): two runs write byte-identical files.

``table_rent_schedule.pdf`` (US Letter, 3 pages):

* page 1: a heading, a paragraph, a caption, a **ruled rent schedule** (stroked grid; header row + 5 rows: period,
  monthly rent, annual rent; amounts right-aligned in their cells; a grey fill behind the header row), then more
  prose under a second heading;
* page 2: prose, an **unruled aligned pricing grid** (4 columns, bold header + 4 rows), prose, a numbered list and
  a two-party **signature block** side by side (which must not be taken for a table);
* page 3: a **ruled table drawn with thin filled rectangles** (no stroked lines), whose first row is one cell
  spanning all three columns and one of whose cells wraps onto two lines.

The truth file lists every table cell: page, 1-based table (counted per page, top to bottom), row, column, text (a
cell's printed lines joined by one space), ``box`` (the union of its printed strings, from the font metrics:
x from the advance widths, y from the font's bounding box) and, for ruled tables, ``cell_box`` (the ruled
rectangle). Boxes are ``[x, y, w, h]`` in display points, origin top-left. ``not_tables`` lists printed lines that
must stay outside every table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

PAGE_W, PAGE_H = letter
MARGIN = 72.0
BODY = ("Times-Roman", 11.0)
HEAD = ("Helvetica-Bold", 12.0)
CELL = ("Helvetica", 10.0)
CELL_BOLD = ("Helvetica-Bold", 10.0)
LEAD = 14.0
PAD = 6.0
#: FontBBox (bottom, top) per 1000 units, from the Adobe AFM files of the standard fonts.
FONT_BBOX = {"Helvetica": (-225, 931), "Helvetica-Bold": (-228, 962), "Times-Roman": (-218, 898)}

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in display space


def text_box(text: str, font: tuple[str, float], x: float, baseline: float) -> Box:
    """Display-space box of a string drawn left-aligned at ``x`` on ``baseline`` (PDF y, upwards)."""
    name, size = font
    bottom, top = FONT_BBOX[name]
    return (
        x,
        PAGE_H - (baseline + top * size / 1000),
        x + stringWidth(text, name, size),
        PAGE_H - (baseline + bottom * size / 1000),
    )


def xywh(box: Box) -> list[float]:
    """A box as the wire's ``[x, y, w, h]``, rounded to 0.01 pt."""
    return [round(box[0], 2), round(box[1], 2), round(box[2] - box[0], 2), round(box[3] - box[1], 2)]


def union(boxes: list[Box]) -> Box:
    """The smallest box holding all of ``boxes``."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


@dataclass
class Page:
    """One page being drawn: a baseline cursor, the tables' truth and the lines that must not be tables."""

    c: Canvas
    number: int
    y: float = PAGE_H - MARGIN
    tables: list[dict[str, object]] = field(default_factory=list)
    not_tables: list[dict[str, object]] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.c.setFont(*HEAD)
        self.c.drawString(MARGIN, self.y, text)
        self.y -= 18

    def paragraph(self, text: str) -> None:
        self.c.setFont(*BODY)
        for line in simpleSplit(text, *BODY, PAGE_W - 2 * MARGIN):
            self.c.drawString(MARGIN, self.y, line)
            self.y -= LEAD
        self.y -= 8

    def cell_text(
        self, lines: list[str], font: tuple[str, float], x0: float, x1: float, top: float, right: bool
    ) -> dict[str, object]:
        """Draw a cell's lines from the cell's top edge (PDF y) down; return its truth entry (no row/col yet)."""
        self.c.setFont(*font)
        boxes: list[Box] = []
        for k, line in enumerate(lines):
            baseline = top - 14 - 12 * k
            width = stringWidth(line, *font)
            x = x1 - PAD - width if right else x0 + PAD
            self.c.drawString(x, baseline, line)
            boxes.append(text_box(line, font, x, baseline))
        return {"text": " ".join(lines), "box": xywh(union(boxes))}


def ruled_rent_schedule(page: Page) -> None:
    """A stroked grid: header row + 5 rows; amounts right-aligned; grey fill behind the header."""
    xs = [MARGIN, 232.0, 392.0, 540.0]
    rows = [
        ("Period", "Monthly Rent", "Annual Rent"),
        ("Months 1\u201312", "$4,500.00", "$54,000.00"),
        ("Months 13\u201324", "$4,635.00", "$55,620.00"),
        ("Months 25\u201336", "$4,774.05", "$57,288.60"),
        ("Months 37\u201348", "$4,917.27", "$59,007.24"),
        ("Months 49\u201360", "$5,064.79", "$60,777.48"),
    ]
    top = page.y + 8
    ys = [top - 20 * k for k in range(len(rows) + 1)]
    page.c.setFillGray(0.88)
    page.c.rect(xs[0], ys[1], xs[-1] - xs[0], 20, stroke=0, fill=1)
    page.c.setFillGray(0)
    page.c.setLineWidth(0.5)
    page.c.grid(xs, ys)
    cells: list[dict[str, object]] = []
    for r, row in enumerate(rows):
        for col, text in enumerate(row):
            font = CELL_BOLD if r == 0 else CELL
            entry = page.cell_text([text], font, xs[col], xs[col + 1], ys[r], right=col > 0 and r > 0)
            entry.update(
                row=r + 1, col=col + 1, cell_box=xywh((xs[col], PAGE_H - ys[r], xs[col + 1], PAGE_H - ys[r + 1]))
            )
            cells.append(entry)
    page.tables.append(
        {"page": page.number, "table": len(page.tables) + 1, "kind": "ruled", "rows": 6, "cols": 3, "cells": cells}
    )
    page.y = ys[-1] - 22


def aligned_pricing_grid(page: Page) -> None:
    """No rules: four columns set by position only (text left, amounts right-aligned), bold header."""
    rows = [
        ("Service Tier", "Monthly Fee", "Setup Fee", "Term"),
        ("Basic Support", "$250.00", "$100.00", "12 months"),
        ("Standard Support", "$475.00", "$150.00", "12 months"),
        ("Premium Support", "$900.00", "$250.00", "24 months"),
        ("Enterprise Support", "$1,750.00", "Waived", "36 months"),
    ]
    anchors = [(MARGIN, False), (330.0, True), (430.0, True), (460.0, False)]
    cells: list[dict[str, object]] = []
    for r, row in enumerate(rows):
        font = CELL_BOLD if r == 0 else CELL
        page.c.setFont(*font)
        for col, text in enumerate(row):
            x, right = anchors[col]
            x = x - stringWidth(text, *font) if right else x
            page.c.drawString(x, page.y, text)
            cells.append({"row": r + 1, "col": col + 1, "text": text, "box": xywh(text_box(text, font, x, page.y))})
        page.y -= 16
    page.tables.append(
        {"page": page.number, "table": len(page.tables) + 1, "kind": "aligned", "rows": 5, "cols": 4, "cells": cells}
    )
    page.y -= 10


def numbered_list(page: Page) -> None:
    """Short numbered items with the number well left of the text (a hanging indent)."""
    items = [
        "Invoices are issued monthly in arrears.",
        "Fees are due within thirty (30) days.",
        "Late fees accrue at one percent per month.",
    ]
    page.c.setFont(*BODY)
    for k, item in enumerate(items, start=1):
        page.c.drawString(MARGIN + 18, page.y, f"{k}.")
        page.c.drawString(MARGIN + 54, page.y, item)
        page.not_tables.append({"page": page.number, "text": item})
        page.y -= LEAD
    page.y -= 12


def signature_block(page: Page) -> None:
    """Two parties' signature blocks side by side: five lines of two short runs each."""
    left = [
        "LANDLORD:",
        "ACME PROPERTIES LLC",
        "By: ______________________",
        "Name: Jane Smith",
        "Title: Managing Member",
    ]
    right = ["TENANT:", "BETA CONSULTING INC.", "By: ______________________", "Name: John Doe", "Title: President"]
    page.c.setFont(*BODY)
    for a, b in zip(left, right, strict=True):
        page.c.drawString(MARGIN, page.y, a)
        page.c.drawString(324, page.y, b)
        page.not_tables += [{"page": page.number, "text": a}, {"page": page.number, "text": b}]
        page.y -= 18


def filled_rule_table(page: Page) -> None:
    """Rules drawn as thin filled rectangles; a title row spanning all columns; one cell on two lines."""
    xs = [MARGIN, 252.0, 372.0, 540.0]
    heights = [20.0, 20.0, 20.0, 32.0, 20.0]
    top = page.y + 8
    ys = [top]
    for h in heights:
        ys.append(ys[-1] - h)
    rule = 0.75
    for y in ys:
        page.c.rect(xs[0], y - rule / 2, xs[-1] - xs[0], rule, stroke=0, fill=1)
    for k, x in enumerate(xs):
        low, high = ys[-1], ys[0] if k in (0, len(xs) - 1) else ys[1]  # inner rules start below the title row
        page.c.rect(x - rule / 2, low, rule, high - low, stroke=0, fill=1)
    body = [
        (["Category"], ["Annual Estimate"], ["Tenant Share"]),
        (["Real estate taxes"], ["$42,000.00"], ["$6,300.00"]),
        (["Insurance premiums for the", "Building and Common Areas"], ["$18,500.00"], ["$2,775.00"]),
        (["Common area maintenance"], ["$27,250.00"], ["$4,087.50"]),
    ]
    title = page.cell_text(
        ["Operating Expense Estimates for the First Lease Year"], CELL_BOLD, xs[0], xs[-1], ys[0], right=False
    )
    title.update(row=1, col=1, cell_box=xywh((xs[0], PAGE_H - ys[0], xs[-1], PAGE_H - ys[1])))
    cells = [title]
    for r, row in enumerate(body, start=1):
        for col, lines in enumerate(row):
            font = CELL_BOLD if r == 1 else CELL
            entry = page.cell_text(lines, font, xs[col], xs[col + 1], ys[r], right=col == 1 and r > 1)
            entry.update(
                row=r + 1, col=col + 1, cell_box=xywh((xs[col], PAGE_H - ys[r], xs[col + 1], PAGE_H - ys[r + 1]))
            )
            cells.append(entry)
    page.tables.append(
        {"page": page.number, "table": len(page.tables) + 1, "kind": "ruled", "rows": 5, "cols": 3, "cells": cells}
    )
    page.y = ys[-1] - 22


def make_rent_schedule(path: Path) -> dict[str, object]:
    """Write the PDF; return its truth."""
    c = Canvas(str(path), pagesize=letter, invariant=1)
    c.setTitle("Rent Schedule")
    c.setAuthor("KruschNexus Test Suite")
    c.setCreator("KruschNexus scripts/make_table_fixtures.py")
    c.setSubject("KruschNexus fixture: ruled and aligned tables between prose")
    pages = [Page(c, n) for n in (1, 2, 3)]
    one, two, three = pages
    one.heading("Section 3.1 Base Rent")
    one.paragraph(
        "Tenant shall pay Base Rent to Landlord in equal monthly installments, in advance, on the "
        "first day of each calendar month during the Term, without demand, deduction or set-off. Base"
        " Rent for each period of the Term is set out in the schedule below."
    )
    one.heading("Schedule of Base Rent")
    ruled_rent_schedule(one)
    one.paragraph(
        "Base Rent for any partial month shall be prorated on a daily basis. All Rent shall be paid "
        "in lawful money of the United States at the address that Landlord designates in writing from"
        " time to time."
    )
    one.heading("Section 3.2 Additional Rent")
    one.paragraph(
        "All sums payable by Tenant under this Lease other than Base Rent are Additional Rent. "
        "Landlord has the same remedies for a failure to pay Additional Rent as for a failure to pay "
        "Base Rent."
    )
    c.showPage()
    two.heading("Section 4.1 Service Fees")
    two.paragraph(
        "In addition to Rent, Tenant shall pay Landlord the monthly fee for the building services "
        "tier that Tenant selects, together with the one-time setup fee, as follows:"
    )
    aligned_pricing_grid(two)
    two.paragraph(
        "Tenant may change its service tier once in each Lease Year by written notice given at least "
        "thirty (30) days before the change takes effect."
    )
    numbered_list(two)
    signature_block(two)
    c.showPage()
    three.heading("Section 5.1 Operating Expenses")
    three.paragraph(
        "Tenant shall pay its share of Operating Expenses in monthly installments based on Landlord's"
        " estimate for each Lease Year. The estimate for the first Lease Year is:"
    )
    filled_rule_table(three)
    three.paragraph(
        "Within ninety (90) days after the end of each Lease Year, Landlord shall deliver a statement"
        " of the actual Operating Expenses, and the parties shall settle any difference within thirty"
        " (30) days."
    )
    c.showPage()
    c.save()
    return {
        "file": path.name,
        "tables": [t for p in pages for t in p.tables],
        "not_tables": [n for p in pages for n in p.not_tables],
    }


def default_out() -> Path:
    """tests/fixtures relative to the repository root (parent of scripts/)."""
    return Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def main(argv: list[str] | None = None) -> int:
    """Write the fixtures and print a one-line summary per file."""
    parser = argparse.ArgumentParser(description="Generate the KruschNexus table fixtures.")
    parser.add_argument("--out", type=Path, default=default_out(), help="output directory")
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    pdf = out / "table_rent_schedule.pdf"
    truth = make_rent_schedule(pdf)
    pdf.with_suffix(".truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for target in (pdf, pdf.with_suffix(".truth.json")):
        data = target.read_bytes()
        print(f"{target.name}: {len(data)} bytes sha256:{hashlib.sha256(data).hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
