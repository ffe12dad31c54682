"""A generated closing binder (reportlab, deterministic): the long documents legal teams hold, for memory and speed
benches. A cover, a table of contents, an agreement of numbered articles and sections, schedules of tables, and
exhibits with signature blocks; every page carries the same running header, a confidentiality line and a page
number. No two sections share their text, so nothing is embedded once for many spans."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen import canvas
from reportlab.platypus import Table, TableStyle

TITLE = "AMENDED AND RESTATED CREDIT AGREEMENT"
HEADER = "Execution Version - Amended and Restated Credit Agreement"
CONFIDENTIAL = "CONFIDENTIAL - SUBJECT TO FRE 408"

_SUBJECTS = (
    "the Borrower",
    "each Guarantor",
    "the Administrative Agent",
    "the Required Lenders",
    "any Loan Party",
    "the Collateral Agent",
    "each Issuing Bank",
    "the Swingline Lender",
)
_DUTIES = (
    "shall deliver a certificate of a Financial Officer",
    "shall maintain insurance with financially sound carriers",
    "shall not create any Lien on its property",
    "shall keep proper books of record and account",
    "may request an increase of the Revolving Commitments",
    "shall give notice of any Default within five Business Days",
    "shall not sell, transfer or dispose of any material asset",
    "may designate any Subsidiary as an Unrestricted Subsidiary",
    "shall pay all taxes before they become delinquent",
    "shall permit inspections of its properties on reasonable notice",
)
_CONDITIONS = (
    "within forty-five days after the end of each fiscal quarter",
    "unless the Required Lenders otherwise consent in writing",
    "except for Permitted Liens and Permitted Dispositions",
    "so long as no Event of Default has occurred and is continuing",
    "in accordance with GAAP consistently applied",
    "subject to the limitations of Section 9.5(b)",
    "to the extent permitted by applicable law",
    "on or before the Maturity Date",
)
_NOUNS = ("Commitment", "Letter of Credit", "Term Loan", "Hedge Agreement", "Security Document", "Real Property")


def _sentence(rng: random.Random, n: int) -> str:
    amount = rng.randrange(1, 500) * 250_000
    subject = rng.choice(_SUBJECTS)
    return (
        f"{subject[0].upper()}{subject[1:]} {rng.choice(_DUTIES)} {rng.choice(_CONDITIONS)},"
        f" and no {rng.choice(_NOUNS)} in excess of ${amount:,} shall be made under clause ({chr(97 + n % 26)})."
    )


def _paragraph(rng: random.Random, article: int, section: int) -> str:
    return " ".join(_sentence(rng, article * 100 + section + k) for k in range(rng.randint(2, 5)))


class _Full(Exception):
    """The binder has all its pages."""


class _Pages:
    """Draws the running header, the confidentiality line and the page number, and counts pages."""

    def __init__(self, c: canvas.Canvas, total: int) -> None:
        self.c, self.total, self.number = c, total, 1
        self.width, self.height = letter

    def turn(self) -> None:
        """Finish the page; raises :class:`_Full` once the binder has all its pages."""
        c = self.c
        c.setFont("Helvetica", 8)
        c.drawString(72, self.height - 36, HEADER)
        c.drawRightString(self.width - 72, self.height - 36, CONFIDENTIAL)
        c.drawCentredString(self.width / 2, 36, f"- {self.number} -")
        c.showPage()
        self.number += 1
        if self.number > self.total:
            raise _Full

    def text(self, y: float, text: str, font: str = "Times-Roman", size: float = 11) -> float:
        """Draw ``text`` wrapped at the margins from ``y`` down; the ``y`` below it."""
        self.c.setFont(font, size)
        for line in simpleSplit(text, font, size, self.width - 144):
            self.c.drawString(72, y, line)
            y -= size + 3
        return y


def binder(path: Path, pages: int) -> Path:
    """A ``pages``-page binder: a cover, contents, then about 60% agreement, 20% schedules (tables) and 20%
    exhibits (the parts a tiny binder has no room for are left out)."""
    rng = random.Random(pages)
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    doc = _Pages(c, pages)
    body = max(1, int(pages * 0.6))
    try:
        _cover(doc, pages)
        _contents(doc, articles=max(1, body // 6))
        _agreement(doc, rng, last_page=3 + body)
        for number in range(1, int(pages * 0.2) + 1):
            _schedule(doc, rng, number)
        for exhibit in itertools.count(1):
            _exhibit(doc, rng, exhibit)
    except _Full:
        pass
    c.save()
    return path


def _cover(doc: _Pages, pages: int) -> None:
    doc.text(doc.height - 200, TITLE, "Helvetica-Bold", 16)
    doc.text(doc.height - 240, f"dated as of March {pages % 28 + 1}, 2024, among the Borrower and the Lenders")
    doc.turn()


def _contents(doc: _Pages, articles: int) -> None:
    y = doc.text(doc.height - 72, "TABLE OF CONTENTS", "Helvetica-Bold", 12) - 6
    for article in range(1, articles + 1):
        y = doc.text(y, f"ARTICLE {article}  Covenants and Agreements, Part {article} {'.' * 40} {article * 6}")
        if y < 72:
            doc.turn()
            y = doc.height - 72
    doc.turn()


def _agreement(doc: _Pages, rng: random.Random, last_page: int) -> None:
    article = 0
    while doc.number <= last_page:
        article += 1
        y = doc.text(doc.height - 72, f"ARTICLE {article}", "Helvetica-Bold", 12) - 6
        for section in range(1, rng.randint(5, 10)):
            if y < 200:
                doc.turn()
                y = doc.height - 72
            y = doc.text(y, f"Section {article}.{section:02d} {rng.choice(_NOUNS)}.", "Times-Bold") - 2
            y = doc.text(y, _paragraph(rng, article, section)) - 10
        doc.turn()


def _schedule(doc: _Pages, rng: random.Random, number: int) -> None:
    doc.text(doc.height - 72, f"SCHEDULE {number}.1 - COMMITMENTS AND APPLICABLE PERCENTAGES", "Helvetica-Bold")
    rows = [["Lender", "Revolving Commitment", "Term Commitment", "Applicable Percentage"]]
    for k in range(1, 26):
        revolving, term = rng.randrange(5, 400) * 125_000, rng.randrange(5, 400) * 125_000
        rows.append([f"Lender {number}-{k} Bank, N.A.", f"${revolving:,}", f"${term:,}", f"{rng.random() * 9:.6f}%"])
    table = Table(rows, colWidths=[170, 110, 110, 100])
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 9),
                ("FONT", (0, 1), (-1, -1), "Helvetica", 9),
                ("ALIGN", (1, 1), (-1, -1), "RIGHT"),
                ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
                ("LINEABOVE", (0, -1), (-1, -1), 0.4, colors.black),
            ]
        )
    )
    _, height = table.wrapOn(doc.c, doc.width - 144, doc.height)
    table.drawOn(doc.c, 72, doc.height - 96 - height)
    doc.turn()


def _exhibit(doc: _Pages, rng: random.Random, exhibit: int) -> None:
    name = chr(ord("A") + (exhibit - 1) % 26) + ("" if exhibit <= 26 else str((exhibit - 1) // 26))
    y = doc.text(doc.height - 72, f"EXHIBIT {name} - FORM OF COMPLIANCE CERTIFICATE", "Helvetica-Bold") - 6
    y = doc.text(y, _paragraph(rng, 90 + exhibit, 1)) - 10
    y = doc.text(y, f"1. {_sentence(rng, exhibit)} 2. {_sentence(rng, exhibit + 1)}") - 30
    for signer in ("BORROWER", "ADMINISTRATIVE AGENT"):
        y = doc.text(y, f"{signer}: By: ______________________ Name: Officer {exhibit} Title: Financial Officer") - 16
    doc.turn()
