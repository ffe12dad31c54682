"""Long synthetic PDFs for crash and memory tests (reportlab, deterministic)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen import canvas

_PARAGRAPH = (
    "The Borrower shall deliver to the Administrative Agent, within forty-five days after the end of each fiscal"
    " quarter, a consolidated balance sheet and related statements of operations, certified by a Financial Officer."
    " Each such certificate shall state that no Default has occurred and is continuing, or, if a Default has"
    " occurred, specify the details thereof and any action taken or proposed to be taken with respect thereto."
)


def long_agreement(path: Path, pages: int) -> Path:
    """A ``pages``-page agreement: a running header, page numbers, and four numbered sections per page."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    width, height = letter
    for n in range(1, pages + 1):
        c.setFont("Helvetica", 9)
        c.drawString(72, height - 40, "Credit Agreement — Synthetic Test Borrower")
        c.drawRightString(width - 72, 40, f"Page {n} of {pages}")
        y = height - 80
        for k in range(1, 5):
            c.setFont("Helvetica-Bold", 11)
            c.drawString(72, y, f"Section {n}.{k} Covenant {n}-{k}")
            y -= 16
            c.setFont("Times-Roman", 11)
            for line in simpleSplit(f"{_PARAGRAPH} Clause {n}.{k}.", "Times-Roman", 11, width - 144):
                c.drawString(72, y, line)
                y -= 14
            y -= 10
        c.showPage()
    c.save()
    return path
