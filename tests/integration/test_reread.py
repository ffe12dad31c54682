"""Reading stored documents again from their kept bytes (``nexus reingest``): after an extractor or chunker upgrade,
or once Tesseract can OCR pages that were stored without text. Against the real database, model and Tesseract."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from kruschnexus import Corpus, blobs
from kruschnexus.cli.app import cli
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.ingest import CHUNKER_VERSION, Ingester
from kruschnexus.parse.ocr import tesseract_version
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration

CONTRACT = FIXTURES / "sample_contract.pdf"


@pytest.fixture
def corpus(settings: Settings, embedder: Embedder, workspace: str) -> Iterator[Corpus]:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as c:
        yield c


def _as_if_read_by(corpus: Corpus, chunker_version: str) -> None:
    """What an older version of the product left: the same rows, stamped with another chunker version."""
    with corpus.store.scoped(corpus.workspace) as conn:
        conn.execute(
            "UPDATE documents SET chunker_version = %(v)s WHERE workspace = %(w)s",
            {"v": chunker_version, "w": corpus.workspace},
        )


def _spans(corpus: Corpus) -> list[tuple[str, int | None, int, int, str | None, str]]:
    return sorted((h.doc_id, h.page_number, h.char_start, h.char_end, h.section, h.text) for h in corpus.export())


def test_a_document_read_by_an_older_chunker_is_read_again_keeping_its_vectors(corpus: Corpus) -> None:
    corpus.ingest([CONTRACT, FIXTURES / "office_rent_roll.csv"])
    before = _spans(corpus)
    hits_before = [(h.citation, h.score) for h in corpus.search("security deposit returned")]
    assert corpus.reread() == [], "documents read by this version are not read again"
    _as_if_read_by(corpus, "sections-0")

    again = corpus.ingest([CONTRACT])
    assert again[0].status == "unchanged"
    assert "sections-0" in again[0].reason and "nexus reingest" in again[0].reason, again[0].reason

    results = corpus.reread()
    assert [r.status for r in results] == ["ingested", "ingested"], [r.reason for r in results]
    for r in results:
        assert r.spans > 0 and r.reused == r.spans, "the same texts keep their vectors: nothing is embedded again"
        assert r.reason.startswith("read again") and CHUNKER_VERSION in r.reason
    assert _spans(corpus) == before
    assert [(h.citation, h.score) for h in corpus.search("security deposit returned")] == hits_before
    assert all(row.chunker_version == CHUNKER_VERSION for row in corpus.store.read_versions(corpus.workspace))
    assert corpus.reread() == []
    assert corpus.verify().ok


def test_pages_stored_without_ocr_are_read_again_once_they_can_be(corpus: Corpus) -> None:
    if tesseract_version() is None:
        pytest.skip("Tesseract is not installed (apt install tesseract-ocr)")
    stored = corpus.ingest([FIXTURES / "scanned_lease.pdf"], ocr="never")[0]
    assert stored.needs_ocr and stored.spans == 0
    assert corpus.search("rent") == []
    assert "not OCR'd then" in corpus.ingest([FIXTURES / "scanned_lease.pdf"])[0].reason
    assert corpus.reread(ocr="never") == [], "under --ocr never nothing would change"

    results = corpus.reread()
    assert len(results) == 1 and results[0].status == "ingested", results[0].reason
    assert results[0].ocr_pages and not results[0].needs_ocr and results[0].spans > 0
    assert corpus.search("rent"), "the OCR'd text is searchable"
    assert corpus.reread() == []


def test_a_document_whose_bytes_are_gone_fails_and_stays(corpus: Corpus, settings: Settings) -> None:
    result = corpus.ingest([CONTRACT])[0]
    assert result.doc_id is not None
    counts = corpus.counts()
    blobs.blob_path(settings.blob_dir, result.doc_id).unlink()
    failed = corpus.reread(every=True)
    assert [r.status for r in failed] == ["failed"]
    assert "no longer kept" in failed[0].reason and "sample_contract.pdf" in failed[0].path
    assert corpus.counts() == counts, "the stored version stays"


def test_a_document_deleted_meanwhile_is_not_brought_back(
    corpus: Corpus, settings: Settings, embedder: Embedder, workspace: str
) -> None:
    """Its bytes are still kept (another workspace holds them): the read succeeds, the replace finds nothing."""
    with Corpus(workspace=workspace + "-keeps", settings=settings, embedder=embedder) as other:
        other.ingest([CONTRACT])
        doc_id = corpus.ingest([CONTRACT])[0].doc_id
        assert doc_id is not None
        row = corpus.store.read_versions(corpus.workspace)[0]
        corpus.delete_document(doc_id)
        ingester = Ingester(corpus.store, embedder, settings, corpus.workspace)
        try:
            result = ingester.reread(doc_id, row.source, row.doc_type)
        finally:
            ingester.close()
        assert result.status == "skipped" and "deleted" in result.reason
        assert corpus.counts()[0] == 0 and other.counts()[0] == 1
        other.delete()


def test_reingest_command(corpus: Corpus, cli_env: None) -> None:
    corpus.ingest([CONTRACT])
    runner = CliRunner()
    current = runner.invoke(cli, ["reingest", "-w", corpus.workspace])
    assert current.exit_code == 0 and "nothing to read again" in current.output
    _as_if_read_by(corpus, "sections-0")
    result = runner.invoke(cli, ["reingest", "-w", corpus.workspace, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [f["status"] for f in report["files"]] == ["ingested"]
    assert report["files"][0]["file"] == "sample_contract.pdf"
    missing = runner.invoke(cli, ["reingest", "-w", "no-such-workspace-x"])
    assert missing.exit_code != 0 and "no-such-workspace-x" in missing.output
