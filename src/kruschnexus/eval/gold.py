"""The gold-text check: every labelled passage of a suite really is on the page the suite says.

For each query that has a gold passage, the document is opened with pypdfium2 (deliberately not through
``kruschnexus.parse``, so a parser bug cannot hide a labelling error), the page's text layer is read with
``get_textpage().get_text_range()``, and :func:`~kruschnexus.eval.metrics.fold` of the gold text must occur
in the fold of that text (ligatures, line-end hyphens and white space are folded as described there).
When the gold text is not on the stated page, the failure names the pages it is on, if any.

Only PDFs can be checked; a suite entry for another kind of document is reported as a failure.
"""

from __future__ import annotations

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

    @property
    def ok(self) -> bool:
        """Every gold passage was found on its page."""
        return not self.failures

    def summary_lines(self) -> list[str]:
        """Human-readable summary: size, ids, kind shares, families, gold outcome."""
        suite = self.suite
        total = len(suite.queries)
        ids = len({q.id for q in suite.queries})
        kinds = ", ".join(f"{kind} {n} ({n / total:.1%})" for kind, n in suite.kind_counts().items())
        families = ", ".join(f"{family} {n}" for family, n in suite.family_counts().items())
        found = self.checked - len(self.failures)
        return [
            f"{suite.path}: {total} queries, {ids} unique ids",
            f"kinds: {kinds}",
            f"families: {families}",
            f"gold: {found}/{self.checked} passages found on their page, {len(self.failures)} failure(s)",
        ]


def kind_shares(suite: Suite) -> dict[str, float]:
    """Fraction of the suite's queries of each kind."""
    total = len(suite.queries)
    return {kind: n / total for kind, n in suite.kind_counts().items()}


class PageTexts:
    """Folded page texts of the PDFs under one folder, each document read once and kept for the run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._docs: dict[str, list[str]] = {}

    def pages(self, doc: str) -> list[str]:
        """Folded text of every page of ``doc`` (index 0 is page 1); raises OSError or ValueError if unreadable."""
        if doc not in self._docs:
            self._docs[doc] = [fold(text) for text in read_pdf_pages(self.root / doc)]
        return self._docs[doc]


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
    return GoldReport(suite=suite, checked=len(positives), failures=failures)


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
