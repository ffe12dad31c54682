"""The gold-text check: every labelled passage of a suite really is on the page the suite says.

For each query that has a gold passage, the document is opened with pypdfium2 (deliberately not through
``kruschnexus.parse``, so a parser bug cannot hide a labelling error), the page's text layer is read with
``get_textpage().get_text_range()``, and :func:`~kruschnexus.eval.metrics.fold` of the gold text must occur
in the fold of that text (ligatures, line-end hyphens and white space are folded as described there).
When the gold text is not on the stated page, the failure names the pages it is on, if any.

Only PDFs can be checked; a suite entry for another kind of document is reported as a failure.

A hard negative that names its document and a numbered part of it ("Section 41.7 of the ... lease", "Article XIV
of the bylaws", "Exhibit Q to the credit agreement") is checked the other way round by
:func:`check_negative`: the document's text must hold no marker of that part, neither its label with its number
anywhere ("Section 41.7", "Exhibit Q") nor its number opening a line as a heading does ("41.7 Holding Over").
Only the part's base number is looked for (``8.22.070(B)`` looks for ``8.22.070``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium

from kruschnexus.eval.metrics import fold
from kruschnexus.eval.suite import Suite, SuiteQuery


@dataclass(frozen=True)
class GoldFailure:
    """A query whose gold passage could not be confirmed.

    Attributes:
        query_id: the query's id.
        doc / page: where the suite says the passage is (page 1-based).
        reason: a one-line explanation.
    """

    query_id: str
    doc: str | None
    page: int | None
    reason: str

    def __str__(self) -> str:
        return f"{self.query_id}: {self.doc} p.{self.page}: {self.reason}"


@dataclass(frozen=True)
class GoldReport:
    """The outcome of :func:`check_gold` over one suite."""

    suite: Suite
    checked: int
    failures: tuple[GoldFailure, ...]

    checked_negatives: int = 0
    negative_failures: tuple[GoldFailure, ...] = ()

    @property
    def ok(self) -> bool:
        """Every gold passage was found on its page, and no hard negative names a part its document has."""
        return not self.failures and not self.negative_failures

    def summary_lines(self) -> list[str]:
        """Human-readable summary: size, ids, kind shares, splits, families, family x kind, gold outcome."""
        suite = self.suite
        total = len(suite.queries)
        ids = len({q.id for q in suite.queries})
        kinds = ", ".join(f"{kind} {n} ({n / total:.1%})" for kind, n in suite.kind_counts().items())
        splits = ", ".join(f"{split} {n} ({n / total:.1%})" for split, n in suite.split_counts().items())
        families = ", ".join(f"{family} {n}" for family, n in suite.family_counts().items())
        found = self.checked - len(self.failures)
        lines = [
            f"{suite.path}: {total} queries, {ids} unique ids",
            f"kinds: {kinds}",
            f"splits: {splits}",
            f"families: {families}",
            "family x kind (dev/test):",
        ]
        by_split: Counter[tuple[str, str, str | None]] = Counter((q.family, q.kind, q.split) for q in suite.queries)
        for (family, kind), n in suite.family_kind_counts().items():
            lines.append(
                f"  {family:<22} {kind:<14} {n:>4} ({by_split[family, kind, 'dev']}/{by_split[family, kind, 'test']})"
            )
        if self.checked_negatives:
            clean = self.checked_negatives - len(self.negative_failures)
            lines.append(
                f"negatives: {clean}/{self.checked_negatives} naming a part have no such part in their document,"
                f" {len(self.negative_failures)} failure(s)"
            )
        lines.append(f"gold: {found}/{self.checked} passages found on their page, {len(self.failures)} failure(s)")
        return lines


def kind_shares(suite: Suite) -> dict[str, float]:
    """Fraction of the suite's queries of each kind."""
    total = len(suite.queries)
    return {kind: n / total for kind, n in suite.kind_counts().items()}


class PageTexts:
    """Page texts of the PDFs under one folder, each document read once and kept for the run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._raw: dict[str, list[str]] = {}
        self._docs: dict[str, list[str]] = {}

    def raw_pages(self, doc: str) -> list[str]:
        """Text layer of every page of ``doc`` as read; raises OSError or ValueError if unreadable."""
        if doc not in self._raw:
            self._raw[doc] = read_pdf_pages(self.root / doc)
        return self._raw[doc]

    def pages(self, doc: str) -> list[str]:
        """Folded text of every page of ``doc`` (index 0 is page 1); raises OSError or ValueError if unreadable."""
        if doc not in self._docs:
            self._docs[doc] = [fold(text) for text in self.raw_pages(doc)]
        return self._docs[doc]


#: Words that name a numbered part of a document, as users write them.
_LABEL = (
    r"(?:sections?|sec\.|ss\.|§+|articles?|art\.|clauses?|paragraphs?|para\.|¶|chapters?|exhibits?|schedules?|annex"
    r"|o\.m\.c\.|omc)"
)
#: A reference in a query: a label, then a number (``41.7``, ``8.22.070``, ``2.01``), a Roman numeral (``XIV``)
#: or a capital letter (``Exhibit Q``), then any ``(a)`` parts.
_REFERENCE = re.compile(
    rf"(?i:{_LABEL})\s*(\d+(?:\.\d+)*[A-Za-z]?|[IVXLC]+|[A-Z](?:-\d+)?)(?![\w.]*\w)((?:\([0-9A-Za-z]+\))*)"
)


def section_reference(query: str) -> tuple[str, str] | None:
    """The (label, base number) of the first numbered part a query names, e.g. ``("Section", "41.7")``."""
    match = _REFERENCE.search(query)
    if match is None:
        return None
    label = re.match(r"\S+", match.group(0))
    return (label.group(0) if label else "", match.group(1))


def part_markers(number: str, text: str) -> list[str]:
    """Places in ``text`` that mark a part numbered ``number``: any label followed by it ("Section 41.7",
    "Exhibit Q"; not "Section 41.7.2", a reference to a deeper number that may belong to another document), or the
    number opening a line followed by a capitalised word, as headings do ("41.7 Holding", "33. SECURITY")."""
    num = re.escape(number)
    labelled = re.compile(rf"(?i:{_LABEL})[ \t]*(?:\r?\n[ \t]*)?{num}(?![0-9A-Za-z]|\.\d)")
    heading = re.compile(rf"^[ \t\xa0]*{num}(?![\d.]\d)\.?[ \t\xa0]+[-–—]?[ \t\xa0]*[A-Z]", re.MULTILINE)
    found = [m.group(0) for m in labelled.finditer(text)] + [m.group(0) for m in heading.finditer(text)]
    return [" ".join(f.split()) for f in found]


def check_negative(query: SuiteQuery, texts: PageTexts) -> GoldFailure | None:
    """A hard negative naming a part of its document: ``None`` when the document has no marker of that part
    (also when the query names no part or no document)."""
    if not query.is_negative or query.doc is None:
        return None
    reference = section_reference(query.query)
    if reference is None:
        return None
    try:
        text = "\n".join(texts.raw_pages(query.doc))
    except (OSError, ValueError) as exc:
        return GoldFailure(query.id, query.doc, None, str(exc))
    markers = part_markers(reference[1], text)
    if not markers:
        return None
    shown = "; ".join(dict.fromkeys(markers[:3]))
    return GoldFailure(query.id, query.doc, None, f"the document seems to have {reference[0]} {reference[1]}: {shown}")


def read_pdf_pages(path: Path) -> list[str]:
    """The raw text layer of each page of a PDF (pdfium's ``get_text_range``), first page first.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not a PDF, or pdfium cannot open it.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if path.suffix.lower() != ".pdf":
        raise ValueError("only PDF documents can be checked")
    with _open_pdf(path) as pdf:
        texts = []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            try:
                texts.append(textpage.get_text_range())
            finally:
                textpage.close()
                page.close()
        return texts


def check_query(query: SuiteQuery, texts: PageTexts) -> GoldFailure | None:
    """Confirm one query's gold passage; ``None`` when it is fine (hard negatives always are)."""
    if query.doc is None or query.page is None or query.gold_text is None:
        return None
    try:
        pages = texts.pages(query.doc)
    except (OSError, ValueError) as exc:
        return GoldFailure(query.id, query.doc, query.page, str(exc))
    if query.page > len(pages):
        return GoldFailure(query.id, query.doc, query.page, f"the document has only {len(pages)} page(s)")
    gold = fold(query.gold_text)
    if gold in pages[query.page - 1]:
        return None
    elsewhere = [str(n) for n, text in enumerate(pages, start=1) if gold in text]
    hint = f"; it is on page(s) {', '.join(elsewhere)}" if elsewhere else ""
    empty = " (the page has no text layer)" if not pages[query.page - 1] else ""
    return GoldFailure(query.id, query.doc, query.page, f"gold_text not found on the page{empty}{hint}")


def check_gold(suite: Suite, corpus: Path) -> GoldReport:
    """Check every gold passage of ``suite`` against the documents under ``corpus``."""
    texts = PageTexts(corpus)
    positives = suite.positives
    failures = tuple(f for q in positives if (f := check_query(q, texts)) is not None)
    named = [q for q in suite.queries if q.is_negative and q.doc is not None and section_reference(q.query)]
    negative_failures = tuple(f for q in named if (f := check_negative(q, texts)) is not None)
    return GoldReport(
        suite=suite,
        checked=len(positives),
        failures=failures,
        checked_negatives=len(named),
        negative_failures=negative_failures,
    )


@contextmanager
def _open_pdf(path: Path) -> Iterator[pdfium.PdfDocument]:
    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise ValueError(f"pdfium cannot open it: {exc}") from exc
    try:
        yield pdf
    finally:
        pdf.close()
