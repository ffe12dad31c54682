"""Synthetic PDFs (reportlab, deterministic): long ones for crash and memory tests, revisions of a lease and of a
code chapter for versions, a scanned copy of any PDF."""

from __future__ import annotations

import random
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader, simpleSplit
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


def casualty_lease(path: Path) -> Path:
    """Two sections: a casualty clause in plain words, and a clause that is mostly section symbols."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    y = letter[1] - 72
    sections = [
        (
            "Section 10.1 Damage by Casualty",
            "If the Premises are damaged by fire, flood or other casualty so that Tenant cannot reasonably use them,"
            " Rent shall abate in proportion to the area that cannot be used until Landlord restores the Premises."
            " If restoration cannot be completed within one hundred eighty days, either party may terminate this"
            " Lease by written notice.",
        ),
        (
            "Section 10.2 Cross References",
            "See § 8.22, § 8.23, § 8.24(a), § 8.24(b), § 8.25, § 4.1, § 4.2(a), § 4.2(b)(i), § 4.3, § 4.4, § 5.1,"
            " § 6.1, § 6.2, § 6.3, § 7.1, § 7.2, § 7.3 and § 7.4, and §§ 9.1 through 9.9 of the Master Agreement,"
            " each as amended from time to time.",
        ),
    ]
    _draw_sections(c, y, sections)
    c.showPage()
    c.save()
    return path


def titled_agreement(path: Path, title: str, parties: str, sections: list[tuple[str, str]]) -> Path:
    """A one-page agreement: a title, a line naming the parties, then numbered sections with a heading each."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    width, height = letter
    c.setFont("Helvetica-Bold", 14)
    c.drawCentredString(width / 2, height - 72, title)
    y = draw_paragraph(c, height - 100, parties) - 12
    _draw_sections(c, y, sections)
    c.showPage()
    c.save()
    return path


def draw_paragraph(c: canvas.Canvas, y: float, text: str) -> float:
    """``text`` in 11 pt Times wrapped to the page's margins from ``y`` down; returns the next line's ``y``."""
    c.setFont("Times-Roman", 11)
    for line in simpleSplit(text, "Times-Roman", 11, letter[0] - 144):
        c.drawString(72, y, line)
        y -= 14
    return y


def _draw_sections(c: canvas.Canvas, y: float, sections: list[tuple[str, str]]) -> None:
    """Each section's heading in 12 pt bold, then its body, from ``y`` down."""
    for heading, body in sections:
        c.setFont("Helvetica-Bold", 12)
        c.drawString(72, y, heading)
        y = draw_paragraph(c, y - 18, body) - 12


#: Headings (``I. Background``) and paragraphs (each a tuple of sentences) of :func:`numbered_opinion`.
_OPINION: list[str | tuple[str, ...]] = [
    "I. Background",
    (
        "The General Assembly first addressed video sweepstakes in 2006, when it banned video poker machines,",
        "and it amended the statute in 2008 and again in 2010 to reach the games that replaced them.",
    ),
    (
        "Plaintiffs design sweepstakes kiosks and license them to operators, who place the kiosks in convenience",
        "stores; players buy internet time and receive entries that reveal prizes on reel-spinning video games.",
    ),
    "II. Analysis",
    (
        "Whether chance or skill predominates in a game is a mixed question of fact and law, reviewed de novo;",
        "the findings of the trial court bind us when competent evidence supports them. No amount of skill",
        "changes the outcome of a turn, see State v. Hardin, 183 N.C. App. 92, 99 (2007), and the",
        "winner-every-time feature does not change what the player controls.",
    ),
    (
        "Nor does the double nudge: the game stops the reels where chance puts them and lets the player move one",
        "symbol, which no dexterity turns into a game of skill. Accordingly, chance predominates.",
    ),
    "III. Conclusion",
    ("We modify and affirm the decision of the Court of Appeals.",),
]


def numbered_opinion(path: Path) -> tuple[Path, dict[int, tuple[str, ...]]]:
    """A double-spaced, justified opinion whose paragraphs are numbered ``¶ N`` in the left margin (9 pt, level with
    each paragraph's indented first line), with roman-numbered parts; returns the path and each paragraph's printed
    lines."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    width, height = letter
    y = height - 90
    paragraphs: dict[int, tuple[str, ...]] = {}
    for item in _OPINION:
        if isinstance(item, str):
            c.setFont("Times-Roman", 12)
            c.drawCentredString(width / 2, y, item)
            y -= 28.8
            continue
        words = " ".join(item)
        first = simpleSplit(words, "Times-Roman", 12, width - 144 - 36)[0]
        lines = (first, *simpleSplit(words[len(first) :].strip(), "Times-Roman", 12, width - 144))
        paragraphs[number := len(paragraphs) + 1] = lines
        c.setFont("Times-Roman", 9)
        c.drawString(29, y, f"¶ {number}")
        for k, line in enumerate(lines):
            x = 108 if k == 0 else 72
            text = c.beginText(x, y)
            text.setFont("Times-Roman", 12)
            if k < len(lines) - 1:  # justified, as opinions are: every line but a paragraph's last runs to the margin
                text.setWordSpace((width - 72 - x - c.stringWidth(line, "Times-Roman", 12)) / max(line.count(" "), 1))
            text.textLine(line)
            c.drawText(text)
            y -= 28.8
    c.showPage()
    c.save()
    return path, paragraphs


def slip_opinion(path: Path, pages: int) -> Path:
    """A court's slip opinion set as the Supreme Court prints it: a small text block on a letter page, the running
    header 116 pt down (odd pages ``Cite as: ...`` and the page number at the right, even pages the number at the
    left and the case name), ``Opinion of the Court`` under it, and on page 3 the part ``II`` and its subpart
    ``A`` centred alone at the top of the text."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    width, height = letter
    left, right = 156.0, 456.0
    for n in range(1, pages + 1):
        c.setFont("Times-Roman", 9)
        if n % 2:
            c.drawCentredString(width / 2, height - 116, "Cite as: 569 U. S. ____ (2013)")
            c.drawRightString(right, height - 116, str(n))
        else:
            c.drawString(left, height - 116, str(n))
            c.drawCentredString(width / 2, height - 116, "TARRANT REGIONAL WATER DIST. v. HERRMANN")
        c.drawCentredString(width / 2, height - 140, "Opinion of the Court")
        y = height - 170
        if n == 3:
            c.setFont("Times-Roman", 11)
            for part in ("II", "A"):
                c.drawCentredString(width / 2, y, part)
                y -= 16
        c.setFont("Times-Roman", 11)
        words = _PARAGRAPH.split()
        text = " ".join(random.Random(n).sample(words * 4, 4 * len(words)))  # shuffled: no line repeats
        for line in simpleSplit(text, "Times-Roman", 11, right - left):
            if y < 150:
                break
            c.drawString(left, y, line)
            y -= 13
        c.showPage()
    c.save()
    return path


#: Clauses of :func:`lease_revisions` (title, body), in the first revision's order.
LEASE_CLAUSES: list[tuple[str, str]] = [
    ("Premises", "Landlord leases to Tenant the office suite on the fourth floor of the Harbor Building."),
    ("Term", "The term begins on March 1 and runs for sixty months unless ended earlier under this Lease."),
    ("Rent", "Tenant shall pay base rent of four thousand dollars per month, due on the first day of each month."),
    ("Security Deposit", "Tenant shall deposit eight thousand dollars, returned within thirty days after the term."),
    ("Use", "Tenant shall use the premises for general office purposes and for no other purpose."),
    ("Signage", "Tenant may place one sign bearing its name at the suite entrance, at its own cost."),
    ("Repairs", "Landlord shall keep the roof, structure and building systems in good repair."),
    ("Insurance", "Tenant shall carry commercial general liability insurance of two million dollars."),
]
#: What each later revision changes (see :func:`lease_revisions`).
PARKING = ("Parking", "Tenant may use six reserved spaces in the north garage without charge during the term.")
NEW_RENT = "Tenant shall pay base rent of four thousand five hundred dollars per month, due on the fifth day."


def lease_revisions(folder: Path) -> list[Path]:
    """Four revisions of one lease (``lease.pdf`` in ``folder/r1`` ... ``folder/r4``), four sections a page:

    - r1: :data:`LEASE_CLAUSES` as Sections 1-8;
    - r2: a Parking clause inserted as Section 3, the later sections renumbered (Rent becomes Section 4);
    - r3: Signage deleted and Rent amended (:data:`NEW_RENT`), the rest renumbered;
    - r4: r3 with a cover page added before it (every clause one page later).
    """
    r1 = list(LEASE_CLAUSES)
    r2 = [*r1[:2], PARKING, *r1[2:]]
    r3 = [(t, NEW_RENT if t == "Rent" else b) for t, b in r2 if t != "Signage"]
    out = []
    for number, (clauses, cover) in enumerate([(r1, False), (r2, False), (r3, False), (r3, True)], start=1):
        path = folder / f"r{number}" / "lease.pdf"
        path.parent.mkdir(parents=True, exist_ok=True)
        out.append(_lease(path, clauses, cover))
    return out


def _lease(path: Path, clauses: list[tuple[str, str]], cover: bool) -> Path:
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    width, height = letter
    if cover:
        c.setFont("Helvetica-Bold", 16)
        c.drawCentredString(width / 2, height / 2, "Harbor Building Office Lease: Execution Copy")
        c.showPage()
    for start in range(0, len(clauses), 4):
        y = height - 72
        if start == 0:
            c.setFont("Helvetica-Bold", 14)
            c.drawCentredString(width / 2, y, "OFFICE LEASE")
            y -= 30
        for number, (title, body) in enumerate(clauses[start : start + 4], start=start + 1):
            c.setFont("Helvetica-Bold", 12)
            c.drawString(72, y, f"Section {number}. {title}")
            y = draw_paragraph(c, y - 18, body) - 16
        c.showPage()
    c.save()
    return path


#: Sections of :func:`code_chapter_revisions` (id, title, body) in the first revision.
CODE_SECTIONS: list[tuple[str, str, str]] = [
    ("8.22.010", "Purpose", "This chapter regulates sidewalk cafes so that pedestrians keep a clear path of travel."),
    ("8.22.020", "Permit required", "No person shall operate a sidewalk cafe without a permit issued by the director."),
    ("8.22.030", "Hours", "A sidewalk cafe may operate between seven in the morning and ten in the evening."),
    ("8.22.040", "Amplified sound", "No amplified music or speakers shall be used in a sidewalk cafe at any time."),
    ("8.22.050", "Revocation", "The director may revoke a permit after notice and a hearing for any violation."),
]
#: The amended hours of the second revision.
NEW_HOURS = "A sidewalk cafe may operate between six in the morning and eleven in the evening, every day."


def code_chapter_revisions(folder: Path) -> list[Path]:
    """Two revisions of a municipal code chapter (``chapter_8_22.pdf`` in ``folder/c1``, ``folder/c2``): the second
    amends 8.22.030's hours (:data:`NEW_HOURS`), repeals 8.22.040 and adds 8.22.045 (Outdoor heaters); codes keep
    their section numbers."""
    c1 = list(CODE_SECTIONS)
    heaters = ("8.22.045", "Outdoor heaters", "Outdoor heaters shall be listed by a testing laboratory and anchored.")
    c2 = [(i, t, NEW_HOURS if i == "8.22.030" else b) for i, t, b in c1 if i != "8.22.040"]
    c2.insert(3, heaters)
    out = []
    for number, sections in enumerate((c1, c2), start=1):
        path = folder / f"c{number}" / "chapter_8_22.pdf"
        path.parent.mkdir(parents=True, exist_ok=True)
        c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
        width, height = letter
        c.setFont("Helvetica-Bold", 14)
        c.drawCentredString(width / 2, height - 72, "Chapter 8.22 SIDEWALK CAFES")
        y = height - 110
        for ident, title, body in sections:
            c.setFont("Helvetica-Bold", 12)
            c.drawString(72, y, f"{ident} {title}.")
            y = draw_paragraph(c, y - 18, body) - 16
        c.showPage()
        c.save()
        out.append(path)
    return out


def scanned_copy(source: Path, target: Path, dpi: int = 200) -> Path:
    """``source`` as a scan: each page rendered to a grey bitmap at ``dpi`` and stored as an image-only page of the
    same size (no text layer), as a scanner would give it."""
    import pypdfium2 as pdfium  # the reader's own renderer

    pdf = pdfium.PdfDocument(str(source))
    c = canvas.Canvas(str(target), invariant=1)
    try:
        for page in pdf:
            width, height = page.get_size()
            image = page.render(scale=dpi / 72).to_pil().convert("L")
            c.setPageSize((width, height))
            c.drawImage(ImageReader(image), 0, 0, width=width, height=height)
            c.showPage()
    finally:
        pdf.close()
    c.save()
    return target


def without_page(source: Path, target: Path, page: int) -> Path:
    """``source`` with its 1-based page ``page`` removed (the other pages copied as they are)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(source))
    out = pdfium.PdfDocument.new()
    try:
        keep = [i for i in range(len(pdf)) if i != page - 1]
        out.import_pages(pdf, keep)
        out.save(str(target))
    finally:
        out.close()
        pdf.close()
    return target
