"""A lease in many successive revisions, with the truth of every revision (reportlab, deterministic for a seed).

Each revision changes the one before it by a few operations drawn from a seeded random generator: a clause amended
(one of its facts takes a new value), a clause inserted (the later ones renumbered), a clause deleted, or a page of
recitals put in front of the clauses (every clause one page later) or taken out. The truth records, for every
revision, each clause's number, page and text, so that a question about a clause has a right answer in each
revision, and an old citation of it a right place (or none) in the latest. Used by ``bench/revisions.py`` and its
floors in the test suite.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from tests.pdfgen import draw_paragraph

#: Clauses per page (each at most four lines: they always fit).
PER_PAGE = 4


@dataclass(frozen=True)
class ClauseKind:
    """A kind of clause: its title, its text with ``{}`` slots, the values each slot may take, and the question
    it answers (worded apart from the clause)."""

    title: str
    template: str
    values: tuple[tuple[str, ...], ...]
    question: str


KINDS: tuple[ClauseKind, ...] = (
    ClauseKind(
        "Premises",
        "Landlord leases to Tenant Suite {} on the {} floor of the Meridian Tower, with the right to use the common"
        " lobby and elevators.",
        (("410", "520", "615", "730"), ("fourth", "fifth", "sixth", "seventh")),
        "which suite and floor of the building does the tenant lease",
    ),
    ClauseKind(
        "Term",
        "The term of this Lease is {} months, beginning on the Commencement Date stated in Exhibit B.",
        (("thirty-six", "sixty", "eighty-four", "one hundred twenty"),),
        "how many months does the lease last",
    ),
    ClauseKind(
        "Base Rent",
        "Tenant shall pay base rent of {} dollars per month, in advance, on the {} day of each calendar month.",
        (
            ("eleven thousand", "twelve thousand five hundred", "thirteen thousand", "fourteen thousand two hundred"),
            ("first", "fifth"),
        ),
        "how much monthly base rent is payable and when is it due",
    ),
    ClauseKind(
        "Security Deposit",
        "Tenant shall deliver a security deposit of {} dollars, which Landlord returns within {} days after the"
        " Lease ends.",
        (("twenty-two thousand", "twenty-five thousand", "thirty thousand"), ("thirty", "forty-five", "sixty")),
        "what security deposit must the tenant give and when is it refunded",
    ),
    ClauseKind(
        "Permitted Use",
        "Tenant shall use the Premises only for {} and for no other purpose without Landlord's consent.",
        (("general office purposes", "a software development studio", "a medical billing office"),),
        "what may the tenant use the space for",
    ),
    ClauseKind(
        "Parking",
        "Tenant may use {} reserved parking spaces in the {} garage at no additional charge.",
        (("four", "six", "ten"), ("north", "south", "underground")),
        "how many parking spaces does the tenant get and in which garage",
    ),
    ClauseKind(
        "Utilities",
        "Landlord furnishes heat, air conditioning, water and electricity on business days from {} to {}.",
        (("7 a.m.", "8 a.m."), ("6 p.m.", "7 p.m.", "8 p.m.")),
        "during which hours does the landlord provide heating and cooling",
    ),
    ClauseKind(
        "Repairs",
        "Landlord keeps the roof, foundation and building systems in repair; Tenant repairs damage it causes within"
        " {} days of notice.",
        (("ten", "fifteen", "thirty"),),
        "who must fix the roof and building systems",
    ),
    ClauseKind(
        "Insurance",
        "Tenant shall carry commercial general liability insurance of at least {} dollars per occurrence, naming"
        " Landlord as additional insured.",
        (("one million", "two million", "three million"),),
        "what liability coverage must the tenant maintain",
    ),
    ClauseKind(
        "Assignment and Subletting",
        "Tenant shall not assign this Lease or sublet the Premises without Landlord's written consent, which Landlord"
        " gives or refuses within {} days.",
        (("ten", "twenty", "thirty"),),
        "may the tenant transfer the lease or sublease the space to someone else",
    ),
    ClauseKind(
        "Late Charge",
        "Any payment received more than {} days after it is due bears a late charge of {} percent of the amount"
        " overdue.",
        (("five", "seven", "ten"), ("four", "five", "six")),
        "what penalty applies when rent is paid late",
    ),
    ClauseKind(
        "Signage",
        "Tenant may install one sign bearing its name beside the suite entrance, in a form Landlord approves in {}.",
        (("writing", "advance", "its reasonable discretion"),),
        "can the tenant put its name on a sign at the door",
    ),
    ClauseKind(
        "Renewal Option",
        "Tenant may extend the term once for {} years by notice given at least {} months before the term ends.",
        (("three", "five"), ("six", "nine", "twelve")),
        "does the tenant have an option to extend the lease",
    ),
    ClauseKind(
        "Holdover",
        "If Tenant remains in possession after the term ends, it pays {} percent of the last monthly base rent for"
        " each month it holds over.",
        (("one hundred fifty", "one hundred twenty-five", "two hundred"),),
        "what does the tenant owe if it stays after the lease expires",
    ),
    ClauseKind(
        "Notices",
        "Every notice under this Lease is given in writing by {} to the addresses set out in Exhibit C.",
        (("certified mail or national courier", "hand delivery or national courier", "certified mail"),),
        "how must notices between the parties be sent",
    ),
    ClauseKind(
        "Governing Law",
        "This Lease is governed by the laws of the State of {}, without regard to its conflict of laws rules.",
        (("Illinois", "New York", "Delaware", "Colorado"),),
        "which jurisdiction's law applies to the lease",
    ),
    ClauseKind(
        "Brokers",
        "Each party represents that it dealt with no broker other than {}, whose commission Landlord pays.",
        (("Hollis Realty Advisors", "Crane & Marsh Brokerage"),),
        "which real estate broker was involved and who pays its commission",
    ),
    ClauseKind(
        "Hazardous Materials",
        "Tenant shall not bring onto the Premises any hazardous material except ordinary {} in small quantities.",
        (("office and cleaning supplies", "cleaning supplies"),),
        "may the tenant keep dangerous chemicals in the space",
    ),
    ClauseKind(
        "Force Majeure",
        "Neither party is liable for a delay caused by {}, except a delay in paying money.",
        (("fire, flood, strikes or acts of government", "acts of God, war, strikes or pandemics"),),
        "is a party excused for delays it cannot control",
    ),
    ClauseKind(
        "Estoppel Certificates",
        "Within {} days after Landlord asks, Tenant shall sign a certificate stating that this Lease is in full force.",
        (("ten", "fifteen", "twenty"),),
        "how quickly must the tenant confirm the lease is in effect when the landlord asks",
    ),
)
#: Kinds in the first revision (the rest are inserted by later ones).
FIRST = 16
RECITALS = (
    "RECITALS. Landlord owns the Meridian Tower. Tenant wishes to lease space in it on the terms below, and the"
    " parties intend this revision to restate the Lease as amended to date."
)


@dataclass(frozen=True)
class Clause:
    """One clause in one revision: its kind, the values of its slots, and where it was printed."""

    kind: int
    values: tuple[int, ...]
    number: int = 0
    page: int = 0

    @property
    def title(self) -> str:
        return KINDS[self.kind].title

    @property
    def body(self) -> str:
        kind = KINDS[self.kind]
        return kind.template.format(*(options[i] for options, i in zip(kind.values, self.values, strict=True)))

    @property
    def question(self) -> str:
        return KINDS[self.kind].question


@dataclass
class Revision:
    """One revision's file and clauses (in order, numbered and paged as printed), and what changed from the last."""

    number: int
    path: Path
    clauses: list[Clause]
    recitals: bool
    changes: list[str] = field(default_factory=list)

    def clause(self, kind: int) -> Clause | None:
        """This revision's clause of a kind, if it has one."""
        return next((c for c in self.clauses if c.kind == kind), None)


def lease_series(folder: Path, revisions: int = 12, seed: int = 7) -> list[Revision]:
    """``revisions`` successive revisions of one lease, written to ``folder/rNN/lease.pdf``."""
    rng = random.Random(seed)
    clauses = [Clause(k, tuple(0 for _ in KINDS[k].values)) for k in range(FIRST)]
    recitals = False
    series: list[Revision] = []
    for number in range(1, revisions + 1):
        changes: list[str] = []
        if number > 1:
            clauses, recitals, changes = _change(rng, clauses, recitals)
        path = folder / f"r{number:02d}" / "lease.pdf"
        path.parent.mkdir(parents=True, exist_ok=True)
        printed = _draw(path, clauses, recitals)
        series.append(Revision(number, path, printed, recitals, changes))
        clauses = [replace(c, number=0, page=0) for c in printed]
    return series


def _change(rng: random.Random, clauses: list[Clause], recitals: bool) -> tuple[list[Clause], bool, list[str]]:
    """One revision's edits: one to three of amend, insert, delete, and now and then the recitals page."""
    clauses = list(clauses)
    changes: list[str] = []
    for _ in range(rng.randint(1, 3)):
        absent = [k for k in range(len(KINDS)) if all(c.kind != k for c in clauses)]
        operation = rng.choice(["amend", "amend", "insert", "delete"] if absent else ["amend", "amend", "delete"])
        if operation == "amend":
            at = rng.randrange(len(clauses))
            clause = clauses[at]
            slot = rng.randrange(len(clause.values))
            options = len(KINDS[clause.kind].values[slot])
            values = list(clause.values)
            values[slot] = (values[slot] + rng.randint(1, options - 1)) % options if options > 1 else values[slot]
            clauses[at] = replace(clause, values=tuple(values))
            changes.append(f"amend {clause.title}")
        elif operation == "insert":
            kind = rng.choice(absent)
            at = rng.randint(0, len(clauses))
            clauses.insert(at, Clause(kind, tuple(0 for _ in KINDS[kind].values)))
            changes.append(f"insert {KINDS[kind].title} at {at + 1}")
        elif len(clauses) > 8:
            gone = clauses.pop(rng.randrange(len(clauses)))
            changes.append(f"delete {gone.title}")
    if rng.random() < 0.3:
        recitals = not recitals
        changes.append("recitals page " + ("added" if recitals else "removed"))
    return clauses, recitals, changes


def _draw(path: Path, clauses: list[Clause], recitals: bool) -> list[Clause]:
    """Print the revision; returns its clauses numbered and paged as printed."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    width, height = letter
    page = 1
    if recitals:
        c.setFont("Helvetica-Bold", 14)
        c.drawCentredString(width / 2, height - 72, "OFFICE LEASE: MERIDIAN TOWER")
        draw_paragraph(c, height - 110, RECITALS)
        c.showPage()
        page += 1
    printed = []
    for start in range(0, len(clauses), PER_PAGE):
        y = height - 72
        if start == 0 and not recitals:
            c.setFont("Helvetica-Bold", 14)
            c.drawCentredString(width / 2, y, "OFFICE LEASE: MERIDIAN TOWER")
            y -= 34
        for number, clause in enumerate(clauses[start : start + PER_PAGE], start=start + 1):
            c.setFont("Helvetica-Bold", 12)
            c.drawString(72, y, f"Section {number}. {clause.title}")
            y = draw_paragraph(c, y - 18, clause.body) - 18
            printed.append(replace(clause, number=number, page=page))
        c.showPage()
        page += 1
    c.save()
    return printed
