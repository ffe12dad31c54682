"""Generate the small office-format fixtures (DOCX, CSV, TSV) used by the KruschNexus tests.

Usage: ``python scripts/make_office_fixtures.py [--out DIR]``. Writes into ``tests/fixtures`` unless ``--out`` is
given. Output is byte-stable: the DOCX gets fixed core properties and is re-packed with fixed ZIP timestamps
(python-docx stamps every member with the current time), the CSV files are written with fixed line ends.

Files written:

* ``office_lease.docx`` - a short lease: a ``Title``, ``Heading 1`` articles ("ARTICLE 3 RENT"), ``Heading 2``
  sections ("3.1 Base Rent"), body paragraphs (one with a line break and a tab), a bulleted list (``List Bullet``
  style), a numbered list (``Normal`` style with explicit ``w:numPr``), one empty paragraph, a paragraph made a
  heading only by its outline level, and a 4x3 rent-schedule table whose header cell "Base Rent" spans columns 2-3.
  The thumbnail and ``stylesWithEffects`` parts of python-docx's template are dropped to stay small.
* ``office_rent_roll.csv`` - UTF-8, comma-delimited, CRLF row ends: a quoted field with a comma, one with doubled
  quotes, one with an embedded newline (LF), and a row whose fields are all empty.
* ``office_rent_roll_latin1.csv`` - cp1252, semicolon-delimited, accented tenant names and decimal commas, so the
  encoding must be detected. Only letters that latin-1, cp1252 and cp1250 read alike are used (é ü ö ä ß ç í á ó ô):
  a detector may name any of those code pages for so short a file, and the text must come out right either way.
* ``office_rent_roll.tsv`` - UTF-8, tab-delimited.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import io
import zipfile
from pathlib import Path

import docx
from docx.document import Document
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml.ns import qn
from docx.oxml.parser import OxmlElement

ROOT = Path(__file__).resolve().parents[1]
FIXED_TIME = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
ZIP_TIME = (2024, 1, 2, 3, 4, 4)
#: ``w:num`` of python-docx's template that the ``List Number`` style uses.
NUMBERED_LIST_NUM_ID = 5

HEADER = ["Unit", "Tenant", "Lease Start", "Lease End", "Monthly Rent", "Square Feet", "Notes"]
ROWS = [
    ["101", "Brightside Books Inc.", "2024-01-01", "2028-12-31", "$4,500.00", "1850", "Anchor tenant"],
    ["102", "Smith, Jones & Partners LLP", "2023-06-01", "2026-05-31", "$3,150.00", "1200", ""],
    ["103", 'The "Corner" Café', "2022-03-15", "2027-03-14", "$2,275.50", "900", "Outdoor seating licence"],
    ["", "", "", "", "", "", ""],
    [
        "104",
        "Northwind Traders",
        "2021-09-01",
        "2025-08-31",
        "$5,980.00",
        "2400",
        "Renewal option exercised\nRent abated for March 2024",
    ],
    ["105", "Vacant", "", "", "", "1100", "Marketing as office suite"],
    [
        "106",
        "Greenleaf Dental PC",
        "2024-05-01",
        "2034-04-30",
        "$6,420.00",
        "2600",
        "Tenant improvement allowance $40/sq ft",
    ],
    ["107", "Harbor Yoga LLC", "2023-02-01", "2026-01-31", "$2,010.00", "850", "Guaranty by R. Patel"],
]
LATIN_HEADER = ["Lot", "Locataire", "Début du bail", "Loyer mensuel", "Remarques"]
LATIN_ROWS = [
    ["A1", "Société Générale Immobilier", "01/01/2024", "1.250,00", "Révision annuelle selon l'indice"],
    ["A2", "Müller & Söhne GmbH", "15/03/2023", "980,50", "Bürofläche im Erdgeschoß"],
    ["A3", "François Dupré", "01/09/2022", "745,00", "Préavis reçu; départ prévu"],
    ["B1", "Boulangerie Café Crémeux", "01/06/2021", "1.610,00", "Terrasse déclarée par la mairie"],
    ["B2", "González y Asociados S.L.", "01/02/2024", "2.030,00", "Garantía bancaria entregada"],
    ["B3", "Gérard Dépardieu Conseil", "01/10/2023", "890,00", "Dépôt de garantie versé, reçu numéro 2291"],
]


def make_lease(path: Path) -> None:
    """Write ``office_lease.docx``."""
    doc = docx.Document()
    _fix_core_properties(doc)
    _drop_optional_parts(doc)
    doc.add_paragraph("Commercial Lease Agreement", style="Title")
    doc.add_paragraph(
        "This Lease is made on January 2, 2024 between Acme Properties LLC (Landlord) and Brightside Books Inc. "
        "(Tenant)."
    )
    doc.add_heading("ARTICLE 1 PREMISES", level=1)
    doc.add_paragraph(
        "Landlord leases to Tenant the premises known as Suite 210, 400 Market Street, Springfield, containing "
        "approximately 1,850 rentable square feet."
    )
    doc.add_heading("ARTICLE 2 TERM", level=1)
    doc.add_heading("2.1 Commencement", level=2)
    doc.add_paragraph(
        "The Term begins on the Commencement Date and ends on the last day of the sixtieth full calendar month "
        "after it, unless sooner terminated under this Lease."
    )
    doc.add_heading("ARTICLE 3 RENT", level=1)
    doc.add_heading("3.1 Base Rent", level=2)
    doc.add_paragraph(
        "Tenant shall pay Base Rent in equal monthly installments, in advance, on the first day of each calendar "
        "month, according to the following schedule:"
    )
    doc.add_paragraph("")
    _rent_table(doc)
    doc.add_paragraph("Base Rent for any partial month shall be prorated on a daily basis.")
    doc.add_heading("3.2 Additional Rent", level=2)
    doc.add_paragraph("Tenant shall also pay, as Additional Rent, its proportionate share of:")
    for item in (
        "real estate taxes assessed against the Building;",
        "premiums for the Landlord's property and liability insurance;",
        "common area maintenance charges, including snow removal.",
    ):
        doc.add_paragraph(item, style="List Bullet")
    doc.add_heading("ARTICLE 4 USE", level=1)
    doc.add_paragraph("Tenant shall use the Premises only for the following purposes:")
    for item in (
        "the retail sale of new and used books and periodicals;",
        "a reading café serving coffee and light refreshments;",
        "author readings and community events after business hours.",
    ):
        _numbered(doc.add_paragraph(item))
    doc.add_heading("ARTICLE 5 NOTICES", level=1)
    notice = doc.add_paragraph("Notices to Landlord shall be sent to:")
    notice.add_run().add_break()
    notice.add_run("Acme Properties LLC\tAttn: Lease Administration")
    signatures = doc.add_paragraph("Signatures")
    signatures._p.get_or_add_pPr().append(_element("w:outlineLvl", val="0"))
    doc.add_paragraph("Executed by the parties on the date first written above.")
    path.write_bytes(_stable_zip(doc))


def _rent_table(doc: Document) -> None:
    table = doc.add_table(rows=4, cols=3)
    table.style = "Table Grid"
    header = table.rows[0].cells
    header[0].text = "Lease Year"
    merged = header[1].merge(header[2])
    merged.text = "Base Rent"
    rows = [
        ("Year 1 (months 1–12)", "$4,500.00 monthly", "$54,000.00 annually"),
        ("Year 2 (months 13–24)", "$4,635.00 monthly", "$55,620.00 annually"),
        ("Year 3 (months 25–36)", "$4,774.05 monthly", "$57,288.60 annually"),
    ]
    for r, values in enumerate(rows, start=1):
        for c, value in enumerate(values):
            table.rows[r].cells[c].text = value


def _numbered(paragraph: docx.text.paragraph.Paragraph) -> None:
    num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
    num_pr.get_or_add_ilvl().val = 0
    num_pr.get_or_add_numId().val = NUMBERED_LIST_NUM_ID


def _element(tag: str, **attrs: str) -> OxmlElement:
    el = OxmlElement(tag)
    for name, value in attrs.items():
        el.set(qn(f"w:{name}"), value)
    return el


def _fix_core_properties(doc: Document) -> None:
    props = doc.core_properties
    props.author = "KruschNexus Test Suite"
    props.last_modified_by = "KruschNexus Test Suite"
    props.title = "Commercial Lease Agreement"
    props.comments = "generated by scripts/make_office_fixtures.py"
    props.created = FIXED_TIME.replace(tzinfo=None)
    props.modified = FIXED_TIME.replace(tzinfo=None)
    props.last_printed = FIXED_TIME.replace(tzinfo=None)
    props.revision = 1


def _drop_optional_parts(doc: Document) -> None:
    """Leave out the template's thumbnail and ``stylesWithEffects`` (unreachable parts are not saved)."""
    package = doc.part.package
    for rid, rel in list(package.rels.items()):
        if rel.reltype == RT.THUMBNAIL:
            del package.rels[rid]
    for rid, rel in list(doc.part.rels.items()):
        if rel.reltype.endswith("/stylesWithEffects"):
            del doc.part.rels[rid]


def _stable_zip(doc: Document) -> bytes:
    raw = io.BytesIO()
    doc.save(raw)
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def _csv_bytes(header: list[str], rows: list[list[str]], delimiter: str, encoding: str) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode(encoding)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures")
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    make_lease(out / "office_lease.docx")
    (out / "office_rent_roll.csv").write_bytes(_csv_bytes(HEADER, ROWS, ",", "utf-8"))
    (out / "office_rent_roll_latin1.csv").write_bytes(_csv_bytes(LATIN_HEADER, LATIN_ROWS, ";", "cp1252"))
    tsv_rows = [row for row in ROWS if any(row)]
    (out / "office_rent_roll.tsv").write_bytes(_csv_bytes(HEADER, tsv_rows, "\t", "utf-8"))
    for name in ("office_lease.docx", "office_rent_roll.csv", "office_rent_roll_latin1.csv", "office_rent_roll.tsv"):
        data = (out / name).read_bytes()
        print(f"{name:32} {len(data):6d} bytes  sha256 {hashlib.sha256(data).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
