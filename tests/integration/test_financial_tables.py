"""Financial tables (#17 part 1): the PDF table reader scored against the HTML it was printed from
(bench/tables.py), and the HTML reader's statement rows, on a generated statement and on the corpus 10-K.

Printing needs Chromium (``.ci/run`` installs it): without it these tests skip, unless NEXUS_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.extract import open_source
from kruschnexus.model import Page
from tests.conftest import CORPUS, ROOT, needs_corpus

pytestmark = pytest.mark.integration

TEN_K = CORPUS / "financial" / "galaxy_gaming_10k_2021.htm"


def load_tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_tables", ROOT / "bench" / "tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


TABLES = load_tables()
BROWSER = TABLES.chromium()
needs_browser = pytest.mark.skipif(
    BROWSER is None and os.environ.get("NEXUS_REQUIRE_BROWSER") != "1",
    reason="Chromium is not installed (it prints the HTML the tables are scored against)",
)


def measure(html: Path) -> Any:
    assert BROWSER is not None, "NEXUS_REQUIRE_BROWSER=1 but Chromium is missing"
    with tempfile.TemporaryDirectory() as tmp:
        return TABLES.measure(html, Path(tmp), BROWSER)


@needs_browser
def test_a_generated_statement_is_read_cell_for_cell() -> None:
    """A balance sheet and an equity statement (two header levels, underlined, ``$`` columns, negatives in
    parentheses): every cell found, its text exact, each spanning header over the columns below it."""
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "statement.htm"
        html.write_text(TABLES.sample_html(), encoding="utf-8")
        report = measure(html)
    assert report.truth_cells > 50
    assert (report.precision, report.recall, report.text_exact) == (1.0, 1.0, 1.0), report
    assert report.row_agreement == 1.0 and report.col_agreement == 1.0, report
    assert report.median_iou >= 0.9 and report.spanning_headers_assigned >= 0.8, report


@needs_browser
@needs_corpus
def test_the_10k_tables_keep_their_floor() -> None:
    """The corpus 10-K's 45 content tables (1,823 cells) printed by Chromium. Before statements were read: F1 0.55
    (precision 0.89, recall 0.39), text exact 0.94; pdf-7: F1 0.894; pdf-8 (tables of one or two rows under a
    ruled header, bench/README.md): F1 0.909, text exact 0.99, median IoU 0.97. The floor is the issue's target."""
    report = measure(TEN_K)
    summary = {k: v for k, v in vars(report).items() if k not in ("per_table", "text_mismatches")}
    assert report.tables == 45 and report.truth_cells == 1823, summary
    assert report.f1 >= 0.90 and report.precision >= 0.93, summary
    assert report.text_exact >= 0.98 and report.median_iou >= 0.9, summary
    assert report.row_agreement >= 0.97 and report.spanning_headers_assigned >= 0.6, summary


def _statement_rows(pages: list[Page]) -> list[Page]:
    return [p for p in pages if p.locator is not None and "cells" in p.locator]


@needs_corpus
def test_the_10k_statements_are_rows_with_header_paths() -> None:
    """Every figure of the HTML statements travels with its header path (both levels of the equity statement),
    its offsets re-prove against the row's text, and the hidden inline-XBRL header stays out."""
    with open_source(TEN_K) as source:
        pages = list(source.pages())
    rows = _statement_rows(pages)
    assert len(rows) > 300
    for row in rows:
        assert row.locator is not None
        for cell in row.locator["cells"]:
            value = row.text[cell["start"] : cell["end"]]
            assert value and value == value.strip()
            if cell["header"]:
                assert row.text[: cell["start"]].endswith(f"{' > '.join(cell['header'])}: ") or cell["start"] == 0
    assets = next(p for p in rows if p.text.startswith("Total current assets\n"))
    assert assets.text == "Total current assets\n2021: 23,890,122\n2020: 11,562,833"
    balance = next(p for p in rows if p.text.startswith("Balance, December 31, 2021\n"))
    assert "Common Stock > Shares: 23,523,969" in balance.text.split("\n")
    everything = "\n".join(p.text for p in pages)
    for hidden in ("0000013156", "--12-31", "P5Y", "P3Y"):
        assert not re.search(rf"(?<![\w-]){re.escape(hidden)}(?![\w-])", everything), hidden


@needs_corpus
def test_a_question_about_a_statement_finds_the_row_with_the_number(
    settings: Settings, embedder: Embedder, workspace: str
) -> None:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as corpus:
        corpus.ingest([TEN_K])
        for question, line in (
            ("total current assets at the end of 2021", "2021: 23,890,122"),
            ("net cash provided by operating activities in 2021", "2021: 6,003,576"),
        ):
            hits = corpus.search(question, k=5)
            assert hits and line in hits[0].text.split("\n"), (question, [h.text[:80] for h in hits])
            assert hits[0].locator is not None and "cells" in hits[0].locator
