"""Ingest into the real embedded PostgreSQL with the real model: invariants, idempotence, bad input, verify."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from kruschnexus import Corpus, Hit
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.embed.fake import HashEmbedder
from kruschnexus.errors import EmbedError
from kruschnexus.ingest import STAGES
from kruschnexus.schema.v1 import json_schema_text
from tests.conftest import FIXTURES

pytestmark = pytest.mark.integration


@pytest.fixture
def corpus(settings: Settings, embedder: Embedder, workspace: str) -> Iterator[Corpus]:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as c:
        yield c


def page_texts(corpus: Corpus) -> dict[tuple[str, int], str]:
    # Scoped, as the store reads: against a server where the store's role is an ordinary one (make test-external),
    # row security shows nothing outside a workspace's scope.
    with corpus.store.scoped(corpus.workspace) as conn:
        rows = conn.execute(
            "SELECT doc_id, page_number, text FROM pages WHERE workspace = %s", (corpus.workspace,)
        ).fetchall()
    return {(r["doc_id"], r["page_number"]): r["text"] for r in rows}


def test_ingest_export_invariants(corpus: Corpus) -> None:
    results = corpus.ingest([FIXTURES / "sample_contract.pdf", FIXTURES / "ligatures.pdf"], doc_type="authority")
    assert [r.status for r in results] == ["ingested", "ingested"]
    assert results[0].pages == 5 and results[0].spans > 10
    for result in results:  # where each file's seconds went: every stage ran, and together they fit in the total
        assert list(result.stages) == list(STAGES) and all(result.stages[s] > 0 for s in STAGES[:-1]), result.stages
        assert sum(result.stages.values()) == pytest.approx(result.seconds, abs=0.01)
    texts = page_texts(corpus)
    hits = list(corpus.export())
    assert len(hits) == sum(r.spans for r in results)
    schema = json.loads(json_schema_text())
    for hit in hits:
        assert hit.page_number is not None
        assert hit.text == texts[(hit.doc_id, hit.page_number)][hit.char_start : hit.char_end]
        assert hit.score is None and hit.doc_type == "authority" and hit.used_ocr is False
        assert hit.boxes and hit.bbox is not None
        xs = [b[0] for b in hit.boxes] + [b[0] + b[2] for b in hit.boxes]
        ys = [b[1] for b in hit.boxes] + [b[1] + b[3] for b in hit.boxes]
        assert hit.bbox == pytest.approx([min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)], abs=0.02)
        assert hit.heading_path[0] == f"Page {hit.page_number}"
        assert hit.citation.startswith(f"{hit.source} p.{hit.page_number}")
        assert set(hit.model_dump(mode="json")) == set(schema["properties"])
        assert Hit.model_validate_json(hit.model_dump_json()) == hit
    first = next(h for h in hits if h.source == "sample_contract.pdf")
    assert first.citation == "sample_contract.pdf p.1 § Section 8.22 Permitted Use of Premises"


def test_reingest_unchanged_is_a_noop(corpus: Corpus, tmp_path: Path) -> None:
    corpus.ingest([FIXTURES / "sample_contract.pdf"])
    before = corpus.counts()
    copy = tmp_path / "renamed.pdf"
    copy.write_bytes((FIXTURES / "sample_contract.pdf").read_bytes())
    again = corpus.ingest([FIXTURES / "sample_contract.pdf", copy])
    assert [r.status for r in again] == ["unchanged", "unchanged"]
    assert "as sample_contract.pdf" in again[1].reason
    assert corpus.counts() == before


def test_bad_files_fail_alone(corpus: Corpus, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    fake = tmp_path / "notes.pdf"
    fake.write_text("just some text, not a PDF")
    unsupported = tmp_path / "data.xyz"
    unsupported.write_text("x")
    encrypted = tmp_path / "locked.pdf"
    _encrypt(FIXTURES / "sample_contract.pdf", encrypted)
    missing = tmp_path / "missing.pdf"
    good = FIXTURES / "ligatures.pdf"
    results = corpus.ingest([corrupt, empty, fake, unsupported, encrypted, missing, good])
    by_name = {Path(r.path).name: r for r in results}
    assert by_name["ligatures.pdf"].status == "ingested"
    expected = {
        "corrupt.pdf": "damaged",
        "empty.pdf": "empty",
        "notes.pdf": "not",
        "data.xyz": "unsupported",
        "locked.pdf": "password",
        "missing.pdf": "no such file",
    }
    for name, words in expected.items():
        assert by_name[name].status == "failed", name
        assert words in by_name[name].reason, (name, by_name[name].reason)
    assert corpus.counts()[0] == 1


def test_folder_walk_skips_unsupported_without_failing(corpus: Corpus, tmp_path: Path) -> None:
    (tmp_path / "readme.xyz").write_text("not a document")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lig.pdf").write_bytes((FIXTURES / "ligatures.pdf").read_bytes())
    results = corpus.ingest([tmp_path])
    assert sorted((Path(r.path).name, r.status) for r in results) == [
        ("lig.pdf", "ingested"),
        ("readme.xyz", "skipped"),
    ]


def test_scanned_page_is_reported_not_failed(corpus: Corpus) -> None:
    [result] = corpus.ingest([FIXTURES / "two_page_scan_like.pdf"], ocr="never")
    assert result.status == "ingested" and result.needs_ocr == [2]
    assert "were not OCR'd (OCR is off" in result.reason
    report = corpus.verify()
    assert report.ok and report.needs_ocr == [("two_page_scan_like.pdf", 2)]


def test_verify_passes_then_catches_tampering(corpus: Corpus) -> None:
    corpus.ingest([FIXTURES / "sample_contract.pdf"])
    report = corpus.verify()
    assert report.ok and report.spans == corpus.counts()[2] and report.pages == 5
    with corpus.store.scoped(corpus.workspace) as conn:
        tampered = conn.execute(
            "UPDATE spans SET char_end = char_end - 1, text = left(text, -1) WHERE workspace = %s AND page_number = 2"
            " AND ordinal = 0",
            (corpus.workspace,),
        ).rowcount
        tampered += conn.execute(
            "UPDATE spans SET boxes = '[[1,1,1,1]]' WHERE workspace = %s AND page_number = 3 AND ordinal = 0",
            (corpus.workspace,),
        ).rowcount
        tampered += conn.execute(
            "UPDATE pages SET text = text || ' ' WHERE workspace = %s AND page_number = 4", (corpus.workspace,)
        ).rowcount
    assert tampered == 3
    bad = corpus.verify()
    whats = sorted((m.page_number, m.what.split(":")[-1].strip()) for m in bad.mismatches)
    assert [p for p, _ in whats] == [2, 3, 4]
    assert any("boxes differ" in w for _, w in whats)
    assert any("page text differs" in w for _, w in whats)


def test_mixing_models_is_refused(settings: Settings, embedder: Embedder, workspace: str) -> None:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as real:
        real.ingest([FIXTURES / "ligatures.pdf"])
    with Corpus(workspace=workspace, settings=settings, embedder=HashEmbedder(64)) as other:
        with pytest.raises(EmbedError, match="built with embedding model all-MiniLM"):
            other.ingest([FIXTURES / "sample_contract.pdf"])
        assert other.counts()[0] == 1


def test_failed_document_leaves_nothing(settings: Settings, workspace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    class Exploding(HashEmbedder):
        calls = 0

        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            Exploding.calls += 1
            if Exploding.calls > 1:
                raise EmbedError("boom on the second batch")
            return super().embed_batch(texts)

    monkeypatch.setattr("kruschnexus.ingest.SPAN_BATCH", 4)
    with Corpus(workspace=workspace, settings=settings, embedder=Exploding(32)) as corpus:
        [result] = corpus.ingest([FIXTURES / "sample_contract.pdf"])
        assert Exploding.calls == 2, "the first batch was stored inside the transaction before the failure"
        assert result.status == "failed" and "boom" in result.reason
        assert corpus.counts() == (0, 0, 0)


def test_workspace_names_are_checked(settings: Settings) -> None:
    from kruschnexus.errors import ConfigError

    for bad in ("", "UPPER", "a b", "x" * 64, "../etc", "drop;table", "-lead"):
        with pytest.raises(ConfigError, match="invalid workspace name"):
            Corpus(workspace=bad, settings=settings)


def _encrypt(source: Path, target: Path) -> None:
    """A password-protected copy, written with qpdf-free means: pdfium cannot encrypt, so use reportlab."""
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    enc = pdfencrypt.StandardEncryption("secret", canPrint=0)
    c = canvas.Canvas(str(target), encrypt=enc)
    c.drawString(72, 720, "Locked content")
    c.save()
    assert source.is_file()


def test_database_constraints_hold(corpus: Corpus) -> None:
    corpus.ingest([FIXTURES / "ligatures.pdf"])
    with pytest.raises(psycopg.errors.CheckViolation), corpus.store.scoped(corpus.workspace) as conn:
        conn.execute("UPDATE spans SET char_end = char_start WHERE workspace = %s", (corpus.workspace,))
