"""Generate the small, deterministic PDF fixtures used by the KruschNexus tests.

Usage: ``python scripts/make_fixtures.py [--out DIR]``.  Writes into
``tests/fixtures`` (next to the repository root) unless ``--out`` is given.
Every canvas is created with ``invariant=1`` and fixed metadata, so
two runs produce byte-identical files.  Text is wrapped with reportlab's
``simpleSplit`` and drawn line by line with ``drawString`` (11pt body text on a
14pt line height) using only the standard Helvetica / Helvetica-Bold /
Times-Roman fonts, except in ``ligatures.pdf``.

Files written:

* ``sample_contract.pdf`` - 5-page US Letter lease with running header/footer,
  a section split across the page 2/3 break, a two-line heading, a rotated
  "DRAFT" stamp over the body of page 4 and a two-column page 5.
* ``ligatures.pdf`` - 1 page drawn with a TrueType font (DejaVuSans) that
  contains U+FB01/U+FB02.  reportlab does no shaping, so the ligature glyphs in
  the PDF are exactly the single code points written in the source text (no
  "fi"/"fl" pairs are ever substituted).  Also holds a soft hyphen (U+00AD) and
  a normal hyphen at line ends.  Falls back to Helvetica with plain text if no
  suitable font is found.  (pdfium's text page reports the ligatures as "fi"/"fl"
  and both line-end hyphens as U+FFFE; pdfminer returns the raw code points.)
* ``empty.pdf`` - one blank page without any text.
* ``two_page_scan_like.pdf`` - page 1 text, page 2 only a raster image (no text
  layer).  Pillow is used because it is a hard dependency of reportlab.
* ``scanned_lease.pdf`` - two image-only pages of lease text drawn with DejaVu
  Serif at 200 dpi (what a scanner gives); page 2 is stored landscape with
  ``/Rotate 90`` and its image turned so that it displays upright.  Beside it,
  ``scanned_lease.truth.json`` holds each printed line's text and box in display
  points (origin top-left), computed from the drawing, for the OCR tests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

PAGE_W, PAGE_H = letter
MARGIN = 72.0
TOP = PAGE_H - MARGIN
BOTTOM = MARGIN
BODY_W = PAGE_W - 2 * MARGIN
LEAD = 14.0
BODY = ("Times-Roman", 11.0)
HEAD = ("Helvetica-Bold", 12.0)
HEAD_LEAD = 16.0
CHROME = ("Helvetica", 9.0)
HEADER_TEXT = "Commercial Lease Agreement \u2014 Acme Properties LLC"
CONTRACT_PAGES = 5
AUTHOR = "KruschNexus Test Suite"
CREATOR = "KruschNexus scripts/make_fixtures.py"
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")  # searched for DejaVuSans.ttf

Block = tuple[str, str, float]  # (kind "h"/"p", text, left indent)


def h(text: str) -> Block:
    """A heading block."""
    return ("h", text, 0.0)


def p(text: str, indent: float = 0.0) -> Block:
    """A body paragraph block, optionally indented."""
    return ("p", text, indent)


PAGE1: list[Block] = [
    h("Section 8.22 Permitted Use of Premises"),
    p(
        "Premises shall be used exclusively for commercial office space and professional services. No retail or hazardous materials storage is permitted without Landlord's prior consent."
    ),
    h("Section 8.23 Term of Lease"),
    p(
        "The term of this Lease shall commence on the Commencement Date and shall expire at midnight on the last day of the sixtieth (60th) full calendar month thereafter, unless sooner terminated as provided herein. Tenant shall have one (1) option to renew the term for an additional period of five (5) years by written notice delivered to Landlord not less than nine (9) months prior to the expiration date. The renewal term shall be on the same terms and conditions set forth in this Lease, except that Base Rent shall be adjusted to the then prevailing market rate."
    ),
    h("Section 8.24 Rent"),
    p(
        "(a) Base Rent. Tenant shall pay to Landlord Base Rent in the amount of Twelve Thousand Five Hundred Dollars ($12,500.00) per month, in advance, on the first day of each calendar month during the term. Base Rent for any partial month shall be prorated on a daily basis. All payments shall be made by electronic funds transfer to the account designated by Landlord in writing.",
        18.0,
    ),
    p(
        "(b) Additional Rent. In addition to Base Rent, Tenant shall pay its proportionate share of Operating Expenses and Real Estate Taxes for the Building, as reasonably estimated by Landlord. Landlord shall deliver an annual reconciliation statement within one hundred twenty (120) days after the end of each calendar year. Any overpayment shall be credited against the next installment of Additional Rent, and any underpayment shall be paid by Tenant within thirty (30) days after receipt of the statement.",
        18.0,
    ),
    h("Section 8.25 Security Deposit"),
    p(
        "Upon execution of this Lease, Tenant shall deposit with Landlord the sum of Twenty-Five Thousand Dollars ($25,000.00) as security for the faithful performance of its obligations. Landlord may commingle the deposit with its general funds and shall not be required to pay interest thereon. Within sixty (60) days after the expiration of the term, Landlord shall return the deposit, less any amounts applied to cure a default by Tenant."
    ),
]

PAGES2_3: list[Block] = [
    h("Article IV Maintenance and Repairs"),
    h("Section 4.1 Landlord's Obligations"),
    p(
        "Landlord shall maintain in good order and repair the roof, foundation, exterior walls and structural elements of the Building, together with the base building mechanical, electrical and plumbing systems serving the Premises. Landlord shall also maintain the Common Areas, including the parking facilities, walkways and landscaping, in a clean and safe condition. The cost of such maintenance, other than the repair of structural defects, shall be included in Operating Expenses."
    ),
    p(
        "Landlord shall commence any repair for which it is responsible within a reasonable time after receipt of written notice from Tenant describing the condition. Landlord shall use commercially reasonable efforts to minimize interference with Tenant's business while performing such work. Landlord shall not be liable for any interruption of utilities or services caused by repairs, strikes, accidents or other events beyond its reasonable control."
    ),
    h("Section 4.2 Tenant's Obligations"),
    p(
        "Except as provided in Section 4.1, Tenant shall, at its sole cost and expense, keep the Premises in good, clean and safe condition throughout the term. Without limiting the generality of the foregoing, Tenant shall:"
    ),
    p(
        "(a) repair any damage to the Premises or the Building caused by the negligence or willful misconduct of Tenant or its employees, agents, contractors or invitees, and promptly replace any broken glass in the Premises with glass of the same quality;",
        18.0,
    ),
    p(
        "(b) maintain all interior partitions, doors, floor coverings and fixtures installed by or for Tenant, including:",
        18.0,
    ),
    p(
        "(i) the supplemental heating, ventilating and air conditioning equipment serving only the Premises, which Tenant shall service under a maintenance contract with a licensed contractor reasonably approved by Landlord; and",
        36.0,
    ),
    p(
        "(ii) any kitchen, plumbing or electrical equipment exclusively serving the Premises, which Tenant shall keep in good working order and repair and in compliance with all applicable codes.",
        36.0,
    ),
    p(
        "(c) keep the Premises free of insects, rodents and other pests, and arrange for the regular removal of trash and recyclable materials generated within the Premises in accordance with the rules and regulations of the Building.",
        18.0,
    ),
    p(
        "If Tenant fails to perform any repair required by this Section within fifteen (15) days after written notice from Landlord, Landlord may perform the repair on Tenant's behalf. Tenant shall reimburse Landlord for the reasonable cost thereof, plus an administrative fee equal to ten percent (10%) of such cost, within thirty (30) days after receipt of an invoice. Landlord's performance of any such repair shall not waive Tenant's default or limit Landlord's other remedies under this Lease."
    ),
    h("Section 4.3 Insurance"),
    p(
        "Tenant shall, at its own expense, procure and maintain throughout the term commercial general liability insurance with limits of not less than Two Million Dollars ($2,000,000.00) per occurrence, naming Landlord and its property manager as additional insureds. Tenant shall also carry property insurance covering its trade fixtures, equipment and leasehold improvements for their full replacement cost, together with business interruption insurance sufficient to cover twelve (12) months of Rent. All policies shall be issued by insurers licensed in the state where the Premises are located and rated A- or better by A.M. Best. Tenant shall deliver certificates of insurance to Landlord before taking possession of the Premises and thereafter not less than ten (10) days before the expiration of each policy. Each policy shall provide that it may not be cancelled or materially changed without at least thirty (30) days' prior written notice to Landlord. Landlord and Tenant each waive all rights of recovery against the other for any loss that is covered by the property insurance required under this Lease, and each party shall cause its insurers to waive any right of subrogation."
    ),
    h("Section 4.4 Alterations"),
    p(
        "Tenant shall not make any alterations, additions or improvements to the Premises costing in excess of Ten Thousand Dollars ($10,000.00) without Landlord's prior written consent, which shall not be unreasonably withheld. All alterations shall be performed by licensed contractors in a good and workmanlike manner and in accordance with plans approved by Landlord. Upon expiration of the term, Tenant shall remove any alterations designated by Landlord and restore the Premises to their original condition, reasonable wear and tear excepted."
    ),
    h("Article V Assignment and Subletting"),
    h(
        "Section 5.1 Assignment, Subletting and Transfer of Tenant's Interest in the Premises Without the Prior Written Consent of Landlord"
    ),
    p(
        "Tenant shall not assign this Lease, sublet all or any part of the Premises, or otherwise transfer any interest in this Lease without the prior written consent of Landlord. Any attempted transfer without such consent shall be void and shall constitute a default under this Lease. A change in control of Tenant shall be deemed an assignment for purposes of this Section. Landlord's consent to one transfer shall not be deemed a consent to any subsequent transfer."
    ),
]

PAGE4: list[Block] = [
    h("Article VI Default and Remedies"),
    h("Section 6.1 Events of Default"),
    p(
        "Each of the following shall constitute an Event of Default by Tenant: (a) failure to pay any installment of Rent within five (5) days after the date due; (b) failure to perform any other obligation under this Lease within thirty (30) days after written notice from Landlord; (c) the filing of a petition in bankruptcy by or against Tenant that is not dismissed within sixty (60) days; and (d) the abandonment of the Premises for a period of more than thirty (30) consecutive days."
    ),
    p(
        "If a non-monetary default cannot reasonably be cured within thirty (30) days, Tenant shall not be in default so long as it commences the cure within such period and diligently prosecutes the cure to completion. In no event shall such extended cure period exceed ninety (90) days in the aggregate."
    ),
    h("Section 6.2 Landlord's Remedies"),
    p(
        "Upon the occurrence of an Event of Default, Landlord may, at its option and without further notice, terminate this Lease by written notice to Tenant, re-enter the Premises and remove all persons and property therefrom. Alternatively, Landlord may continue this Lease in effect and recover Rent as it becomes due. In either case, Tenant shall remain liable for all damages incurred by Landlord, including reasonable attorneys' fees, brokerage commissions and the cost of preparing the Premises for reletting. Landlord shall use reasonable efforts to mitigate its damages."
    ),
    h("Section 6.3 Late Charges"),
    p(
        "Any installment of Rent not received by Landlord within five (5) days after its due date shall bear a late charge equal to five percent (5%) of the overdue amount. The parties agree that such late charge represents a fair and reasonable estimate of the costs Landlord will incur by reason of late payment. Acceptance of a late charge shall not constitute a waiver of Tenant's default with respect to the overdue amount."
    ),
]

LEFT_COLUMN: list[Block] = [
    h("Section 7.1 Notices"),
    p(
        "All notices under this Lease shall be in writing and delivered by hand, by certified mail or by a nationally recognized overnight courier to the addresses set forth on the signature page. Notices shall be deemed given upon delivery or refusal of delivery."
    ),
    h("Section 7.2 Governing Law"),
    p(
        "This Lease shall be governed by and construed in accordance with the laws of the State of Delaware, without regard to its conflict of laws principles. The parties submit to the exclusive jurisdiction of the state courts located in New Castle County."
    ),
]

RIGHT_COLUMN: list[Block] = [
    h("Section 7.3 Severability"),
    p(
        "If any provision of this Lease is held invalid or unenforceable, the remaining provisions shall continue in full force and effect. The invalid provision shall be reformed to the minimum extent necessary to make it enforceable."
    ),
    h("Section 7.4 Entire Agreement"),
    p(
        "This Lease, including its exhibits, contains the entire agreement between the parties and supersedes all prior negotiations and understandings. No amendment shall be binding unless it is in writing and signed by both Landlord and Tenant."
    ),
]


def new_canvas(path: Path, title: str, subject: str) -> Canvas:
    """Create an invariant (byte-reproducible) US Letter canvas with fixed metadata."""
    c = Canvas(str(path), pagesize=letter, invariant=1)
    c.setTitle(title)
    c.setAuthor(AUTHOR)
    c.setCreator(CREATOR)
    c.setSubject(subject)
    return c


class Flow:
    """Top-to-bottom text flow with automatic page breaks and running header/footer."""

    def __init__(self, c: Canvas, total_pages: int) -> None:
        self.c = c
        self.total = total_pages
        self.page = 1
        self.y = TOP
        self._begin_page()

    def _begin_page(self) -> None:
        self.y = TOP
        self.c.setFont(*CHROME)
        self.c.drawString(MARGIN, PAGE_H - 40, HEADER_TEXT)

    def end_page(self) -> None:
        """Draw the footer and emit the page."""
        self.c.setFont(*CHROME)
        self.c.drawString(MARGIN, 40, "Confidential")
        self.c.drawRightString(PAGE_W - MARGIN, 40, f"Page {self.page} of {self.total}")
        self.c.showPage()
        self.page += 1

    def new_page(self) -> None:
        """Finish the current page and start the next one."""
        self.end_page()
        self._begin_page()

    def gap(self, amount: float) -> None:
        """Vertical space, suppressed at the top of a page."""
        if self.y < TOP:
            self.y -= amount

    def line(self, text: str, font: tuple[str, float], x: float, lead: float) -> None:
        """Draw one line at the current baseline, breaking the page first if needed."""
        if self.y < BOTTOM:
            self.new_page()
        self.c.setFont(*font)
        self.c.drawString(x, self.y, text)
        self.y -= lead

    def blocks(self, items: list[Block]) -> None:
        """Lay out headings (kept with two body lines) and wrapped paragraphs."""
        for kind, text, indent in items:
            if kind == "h":
                lines = simpleSplit(text, HEAD[0], HEAD[1], BODY_W)
                self.gap(8)
                if self.y - len(lines) * HEAD_LEAD - LEAD < BOTTOM:
                    self.new_page()
                for ln in lines:
                    self.line(ln, HEAD, MARGIN, HEAD_LEAD)
            else:
                for ln in simpleSplit(text, BODY[0], BODY[1], BODY_W - indent):
                    self.line(ln, BODY, MARGIN + indent, LEAD)
                self.gap(6)

    def expect_page(self, page: int) -> None:
        """Fail loudly if the flow overflowed onto an unexpected page."""
        if self.page != page:
            raise RuntimeError(f"layout overflow: on page {self.page}, expected {page}")


def draw_column(c: Canvas, items: list[Block], x: float, width: float, y: float) -> None:
    """Draw blocks in a column on a strict 14pt baseline grid (no page breaks)."""
    for kind, text, _indent in items:
        font = HEAD if kind == "h" else BODY
        for ln in simpleSplit(text, font[0], font[1], width):
            if y < BOTTOM:
                raise RuntimeError("column overflow")
            c.setFont(*font)
            c.drawString(x, y, ln)
            y -= LEAD
        if kind == "p":
            y -= LEAD


def draw_stamp(c: Canvas, word: str) -> None:
    """Draw a light-gray word rotated 45 degrees across the page centre."""
    c.saveState()
    c.setFillGray(0.8)
    c.translate(PAGE_W / 2, PAGE_H / 2)
    c.rotate(45)
    c.setFont("Helvetica-Bold", 72)
    c.drawCentredString(0, 0, word)
    c.restoreState()


def make_contract(path: Path) -> None:
    """Write the 5-page sample_contract.pdf."""
    c = new_canvas(path, "Commercial Lease Agreement", "KruschNexus fixture: sample contract")
    flow = Flow(c, CONTRACT_PAGES)
    flow.line("COMMERCIAL LEASE AGREEMENT", ("Helvetica-Bold", 16.0), MARGIN, 24.0)
    flow.blocks(PAGE1)
    flow.expect_page(1)
    flow.new_page()
    flow.blocks(PAGES2_3)
    flow.expect_page(3)
    flow.new_page()
    flow.blocks(PAGE4)
    flow.expect_page(4)
    draw_stamp(c, "DRAFT")
    flow.new_page()
    flow.line("Article VII Miscellaneous", HEAD, MARGIN, HEAD_LEAD + 12)
    col_w = 216.0
    draw_column(c, LEFT_COLUMN, MARGIN, col_w, flow.y)
    draw_column(c, RIGHT_COLUMN, MARGIN + col_w + 36.0, col_w, flow.y)
    flow.end_page()
    if flow.page - 1 != CONTRACT_PAGES:
        raise RuntimeError("unexpected page count")
    c.save()


def find_ligature_font() -> Path | None:
    """Return a TrueType font file that maps U+FB01 and U+FB02, or None."""
    for root in map(Path, FONT_DIRS):
        for cand in sorted(root.rglob("DejaVuSans.ttf")) if root.is_dir() else []:
            cmap = TTFont("_probe", str(cand)).face.charToGlyph
            if 0xFB01 in cmap and 0xFB02 in cmap and 0xAD in cmap:
                return cand
    return None


def make_ligatures(path: Path) -> str:
    """Write ligatures.pdf; return the name of the font file used."""
    font_path = find_ligature_font()
    lines = [
        "The of\ufb01ce shall be \ufb02oor space.",
        "Tenant shall use the Premises solely as commer\u00ad",
        "cial premises for the business described in Exhibit B.",
        "The parties acknowledge that the Building is a well-",
        "known landmark in the \ufb01nancial district.",
    ]
    if font_path is None:
        body = head = "Helvetica"
        lines = [ln.replace("\ufb01", "fi").replace("\ufb02", "fl").replace("\u00ad", "-") for ln in lines]
        used = "Helvetica (fallback, plain text)"
    else:
        pdfmetrics.registerFont(TTFont("DejaVuSans", str(font_path)))
        body = head = "DejaVuSans"
        used = str(font_path)
    c = new_canvas(path, "Ligature and Hyphenation Sample", "KruschNexus fixture: ligatures")
    c.setFont(head, 14)
    c.drawString(MARGIN, TOP, "Section 1 Definitions")
    c.setFont(body, 11)
    for i, ln in enumerate(lines):
        c.drawString(MARGIN, TOP - 24 - i * LEAD, ln)
    c.showPage()
    c.save()
    return used


def make_empty(path: Path) -> None:
    """Write empty.pdf: a single blank page."""
    c = new_canvas(path, "Empty Page", "KruschNexus fixture: empty")
    c.showPage()
    c.save()


def scan_image() -> Image.Image:
    """Build a small grayscale 'scanned page' bitmap: gray paper with dark text bars."""
    img = Image.new("L", (153, 198), 236)
    draw = ImageDraw.Draw(img)
    for row in range(24):
        top = 20 + row * 7
        right = 135 - (row * 37) % 40
        draw.rectangle((18, top, right, top + 3), fill=60)
    return img


def make_scan_like(path: Path) -> None:
    """Write two_page_scan_like.pdf: text on page 1, an image only on page 2."""
    c = new_canvas(path, "Services Agreement", "KruschNexus fixture: scan-like")
    c.setFont(*HEAD)
    c.drawString(MARGIN, TOP, "Section 1 Scope of Services")
    text = (
        "Contractor shall provide the services described in Schedule A in a professional and workmanlike manner. "
        "All work shall comply with applicable laws, codes and industry standards. "
        "The signature page that follows was scanned and contains no text layer."
    )
    c.setFont(*BODY)
    for i, ln in enumerate(simpleSplit(text, BODY[0], BODY[1], BODY_W)):
        c.drawString(MARGIN, TOP - 20 - i * LEAD, ln)
    c.showPage()
    c.drawImage(ImageReader(scan_image()), 0, 0, width=PAGE_W, height=PAGE_H)
    c.showPage()
    c.save()


SCAN_DPI = 200
SCANNED_PAGES: list[list[Block]] = [
    [
        h("ARTICLE 4 SECURITY DEPOSIT"),
        p(
            "4.1 Amount. Upon execution of this Lease, Tenant shall deposit with Landlord the sum of Twelve Thousand Dollars ($12,000.00) as security for the faithful performance of every covenant of this Lease."
        ),
        p(
            "4.2 Application. If Tenant defaults in the payment of rent, Landlord may apply all or any part of the deposit to cure the default, and Tenant shall restore the deposit to its full amount within ten (10) days after written demand."
        ),
        p(
            "4.3 Return. Within thirty (30) days after the end of the term, Landlord shall return the balance of the deposit to Tenant, without interest, less any amounts properly applied under this Article."
        ),
    ],
    [
        h("ARTICLE 5 INSURANCE"),
        p(
            "5.1 Liability Insurance. Tenant shall keep in force commercial general liability insurance with limits of not less than Two Million Dollars ($2,000,000) per occurrence, naming Landlord as an additional insured."
        ),
        p(
            "5.2 Property Insurance. Landlord shall insure the Building against loss by fire and other casualty for its full replacement cost, and Tenant shall insure its own furniture, fixtures and equipment."
        ),
    ],
]


def wrap_px(text: str, font: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """Greedy word wrap of ``text`` to lines at most ``width`` pixels wide in ``font``."""
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def scan_page_image(blocks: list[Block]) -> tuple[Image.Image, list[dict[str, object]]]:
    """Draw blocks of text into a white US Letter bitmap at SCAN_DPI; return it and each line's text and box
    in points (display space, origin top-left)."""
    px = SCAN_DPI / 72.0
    img = Image.new("L", (round(PAGE_W * px), round(PAGE_H * px)), 255)
    draw = ImageDraw.Draw(img)
    fonts = Path("/usr/share/fonts/truetype/dejavu")
    body = ImageFont.truetype(str(fonts / "DejaVuSerif.ttf"), round(11 * px))
    bold = ImageFont.truetype(str(fonts / "DejaVuSerif-Bold.ttf"), round(12 * px))
    lines: list[dict[str, object]] = []
    y = MARGIN
    for kind, text, _ in blocks:
        font = bold if kind == "h" else body
        for ln in wrap_px(text, font, BODY_W * px):
            draw.text((MARGIN * px, y * px), ln, font=font, fill=0)
            x0, y0, x1, y1 = draw.textbbox((MARGIN * px, y * px), ln, font=font)
            lines.append({"text": ln, "box": [round(v / px, 2) for v in (x0, y0, x1, y1)]})
            y += 16.0
        y += 10.0
    return img, lines


def make_scanned(path: Path) -> None:
    """Write scanned_lease.pdf (image-only pages, page 2 rotated) and scanned_lease.truth.json."""
    c = Canvas(str(path), pagesize=letter, invariant=1)
    c.setTitle("Scanned Lease")
    c.setAuthor(AUTHOR)
    c.setCreator(CREATOR)
    c.setSubject("KruschNexus fixture: scanned pages for OCR")
    truth: list[dict[str, object]] = []
    for number, blocks in enumerate(SCANNED_PAGES, start=1):
        img, lines = scan_page_image(blocks)
        if number == 1:
            c.setPageSize(letter)
            c.drawImage(ImageReader(img), 0, 0, width=PAGE_W, height=PAGE_H)
            truth.append({"page": number, "rotate": 0, "lines": lines})
        else:
            # Stored landscape, shown after a 90 degree clockwise turn: draw the image turned counter-clockwise.
            # (reportlab writes the MediaBox of a page rotated by 90 as [0 0 height width] of the page size.)
            c.setPageSize(letter)
            c.setPageRotation(90)
            c.saveState()
            c.translate(PAGE_H, 0)
            c.rotate(90)
            c.drawImage(ImageReader(img), 0, 0, width=PAGE_W, height=PAGE_H)
            c.restoreState()
            truth.append({"page": number, "rotate": 90, "lines": lines})
        c.showPage()
    c.save()
    path.with_suffix(".truth.json").write_text(json.dumps({"pages": truth}, indent=1) + "\n", encoding="utf-8")


def default_out() -> Path:
    """tests/fixtures relative to the repository root (parent of scripts/)."""
    return Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def main(argv: list[str] | None = None) -> int:
    """Generate every fixture and print a one-line summary per file."""
    parser = argparse.ArgumentParser(description="Generate the KruschNexus PDF test fixtures.")
    parser.add_argument("--out", type=Path, default=default_out(), help="output directory")
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    notes: dict[str, str] = {}
    make_contract(out / "sample_contract.pdf")
    notes["ligatures.pdf"] = "font " + make_ligatures(out / "ligatures.pdf")
    make_empty(out / "empty.pdf")
    make_scan_like(out / "two_page_scan_like.pdf")
    make_scanned(out / "scanned_lease.pdf")
    for name in ("sample_contract.pdf", "ligatures.pdf", "empty.pdf", "two_page_scan_like.pdf", "scanned_lease.pdf"):
        data = (out / name).read_bytes()
        digest = hashlib.sha256(data).hexdigest()[:16]
        print(f"{name}: {len(data)} bytes sha256:{digest} {notes.get(name, '')}".rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
