"""HTML into the real embedded PostgreSQL with the real model: every stored span re-derived from the kept file.

Each span's unit text is rebuilt from the kept original bytes by lxml at the locator's XPath, with the unit test's
own reading of visible text (``tests.unit.test_html_reader``), not the reader's. The shared corpus's EDGAR
filings make about 630 spans, few enough for the real model (so no hash embedder here).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kruschnexus import Corpus, Hit
from kruschnexus.blobs import blob_path
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.ingest import FileResult
from tests.conftest import CORPUS, needs_corpus
from tests.unit.test_html_reader import FILING, parse_kept, text_at

pytestmark = pytest.mark.integration


@pytest.fixture
def corpus(settings: Settings, embedder: Embedder, workspace: str) -> Iterator[Corpus]:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as c:
        yield c


def check_every_span(corpus: Corpus, results: list[FileResult]) -> list[Hit]:
    """Provenance of every stored span, then ``verify``; returns the spans."""
    assert [r.status for r in results] == ["ingested"] * len(results), [(r.path, r.reason) for r in results]
    trees = {
        r.doc_id: parse_kept(blob_path(corpus.settings.blob_dir, str(r.doc_id)), r.meta["encoding"]) for r in results
    }
    hits = list(corpus.export())
    assert len(hits) == sum(r.spans for r in results) and hits
    for hit in hits:
        assert hit.page_number is None and hit.page_label is None and hit.bbox is None and hit.boxes is None
        locator: dict[str, Any] = hit.locator or {}
        assert locator["kind"] == "element" and isinstance(locator["index"], int) and locator["path"].startswith("/")
        unit_text = text_at(trees[hit.doc_id], locator)
        assert hit.text == unit_text[hit.char_start : hit.char_end], locator
        place = f"{hit.source} block {locator['index']}"
        assert hit.citation == (f"{place} § {hit.header}" if hit.header else place)
        assert hit.heading_path[0] == f"Block {locator['index']}"
    report = corpus.verify()
    assert report.ok, report.mismatches[:3]
    assert report.spans == len(hits) and report.pages == sum(r.pages for r in results)
    return hits


def test_fixture_spans_search_and_sections(corpus: Corpus) -> None:
    [result] = corpus.ingest([FILING], doc_type="authority")
    assert result.kind == "html" and result.pages == 25 and result.meta["furniture_dropped"] == 3
    hits = check_every_span(corpus, [result])
    texts = [h.text for h in hits]
    assert not any(secret in t for t in texts for secret in ("SECRET", "- 1 -", "Page 2 of 3"))

    [row] = corpus.search('"Third Lease Year"', k=1)
    assert row.text == (
        "Third Lease Year escalation step\nAnnual Base Rent: $328,879.00\nMonthly Installment: $27,406.58"
    )
    locator = row.locator or {}
    assert {k: locator[k] for k in ("table", "row")} == {"table": 1, "row": 4} and "col" not in locator
    assert [row.text[c["start"] : c["end"]] for c in locator["cells"]][1:] == ["$328,879.00", "$27,406.58"]
    assert row.section == "3.1" and row.header == "Section 3.1 Base Rent."
    assert row.citation == f"html_filing.html block {locator['index']} § Section 3.1 Base Rent."

    def section_of(start: str) -> str | None:
        [hit] = [h for h in hits if h.text.startswith(start)]
        return hit.section

    assert section_of("Section 1.3 Parking.") == "1.3"
    assert section_of("(a) The late charge") == "3.2(a)"
    assert section_of("passenger elevator service") == "5.1"
    in_five = corpus.search("section:5.1 services", k=10)
    assert in_five and all(h.section == "5.1" for h in in_five)
    assert corpus.search("section:9.9 rent") == []


@needs_corpus
def test_edgar_filings_from_the_corpus(corpus: Corpus) -> None:
    leases = sorted((CORPUS / "lease").glob("*.htm"))
    assert len(leases) == 3
    results = corpus.ingest(leases)
    hits = check_every_span(corpus, results)
    by_name = {Path(r.path).name: r for r in results}
    assert by_name["edgar_lease_11_nnn_commercial.htm"].meta["furniture_dropped"] == 33
    assert by_name["edgar_lease_01_office_karyopharm.htm"].meta["sgml"]["type"] == "EX-10.1"

    # Checked by hand: the NNN lease's "4. RENT." is a hanging-indent table row, and "(a) Base Rent." under it
    # opens 4(a); its rent schedule is a statement read a row at a time, each figure after its column's name.
    [base_rent] = [h for h in hits if h.text.startswith("(a) Base Rent. Base Rent shall be $11.00")]
    assert base_rent.section == "4(a)" and base_rent.header == "(a) Base Rent."
    [first_year] = [h for h in hits if h.text.startswith("From Month: 1\n")]
    assert first_year.text.endswith("\nYearly Base Rent: $221,925.00")
    locator = first_year.locator or {}
    assert (locator["table"], locator["row"]) == (5, 3)
    yearly = locator["cells"][-1]
    assert (yearly["col"], yearly["header"]) == (20, ["Yearly Base Rent"])
    assert first_year.text[yearly["start"] : yearly["end"]] == "$221,925.00"
    [row] = [h for h in hits if h.text == "4. RENT."]
    assert row.section == "4" and (row.locator or {})["path"].endswith("/tr")
    karyopharm = [h for h in hits if h.source == "edgar_lease_01_office_karyopharm.htm"]
    assert {h.section for h in karyopharm if h.text.startswith("(b) The “Surrender Premises” shall mean")} == {"3(b)"}
    assert not any(h.text.startswith("SECOND AMENDMENT TO GROUND LEASE") and len(h.text) < 40 for h in hits)
