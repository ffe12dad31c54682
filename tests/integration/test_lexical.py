"""The lexical (BM25) leg against the real embedded PostgreSQL and a real Tantivy index: fed by the outbox, caught
up after a crash, rebuilt from the database, per-workspace statistics, phrases across no-break spaces, and the
same ranking as bm25s over the same texts and tokens."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kruschnexus import Corpus
from kruschnexus.config import Settings
from kruschnexus.embed.base import Embedder
from kruschnexus.ingest import Ingester
from kruschnexus.lexical.index import IndexState, LexicalQuery, SpanEntry
from kruschnexus.lexical.sync import STALE_SHARE, Lexicon
from kruschnexus.lexical.tantivy_index import FORMAT, TantivyIndex
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.integration

DOCS = [FIXTURES / "sample_contract.pdf", FIXTURES / "office_lease.docx", FIXTURES / "office_rent_roll.csv"]


@pytest.fixture
def corpus(settings: Settings, embedder: Embedder, workspace: str) -> Iterator[Corpus]:
    with Corpus(workspace=workspace, settings=settings, embedder=embedder) as c:
        yield c


def _sparse_keys(corpus: Corpus, query: str) -> list[tuple[str, int | None, int]]:
    trace = corpus.run(query, k=10, legs=("sparse",)).trace
    return [(c.doc_id, c.page_number, c.ordinal) for c in trace.candidates if c.sparse_rank is not None]


def test_ingest_feeds_the_index_and_the_sparse_leg_ranks_alone(corpus: Corpus) -> None:
    corpus.ingest(DOCS)
    hits = corpus.run("security deposit returned", k=3, legs=("sparse",)).hits
    assert hits, "the lexical leg alone answers a question whose words are in the corpus"
    assert "deposit" in hits[0].text.lower()
    assert any(r.startswith("sparse_rank_1") for r in hits[0].match_reasons)
    state = corpus.lexicon.index(corpus.workspace).state
    assert state is not None and state.applied >= 3


def test_a_committed_document_reaches_the_index_after_a_crash(
    corpus: Corpus, settings: Settings, embedder: Embedder
) -> None:
    corpus.ingest(DOCS[:1])
    # A document committed by a process that died before applying the outbox (no sync after this ingest):
    ingester = Ingester(corpus.store, embedder, settings, corpus.workspace)
    ingester.ingest([FIXTURES / "html_filing.html"])
    index = corpus.lexicon.index(corpus.workspace)
    assert not index.search(LexicalQuery(text="Quillon Analytics"), 5), "not applied yet"
    # Another process (a fresh Lexicon) catches up before its first search.
    fresh = Lexicon(settings.lexical_dir)
    try:
        report = fresh.sync(corpus.store, corpus.workspace)
        assert report.documents == 1 and not report.rebuilt
        assert fresh.index(corpus.workspace).search(LexicalQuery(text="Quillon Analytics"), 5)
    finally:
        fresh.close()


def test_a_lost_index_is_rebuilt_from_the_database(corpus: Corpus) -> None:
    corpus.ingest(DOCS)
    before = _sparse_keys(corpus, "base rent per month")
    corpus.lexicon.close()
    shutil.rmtree(corpus.settings.lexical_dir / corpus.workspace)
    after = _sparse_keys(corpus, "base rent per month")
    assert before and after == before
    ticks: list[tuple[int, int]] = []
    report = corpus.reindex(lambda done, total: ticks.append((done, total)))
    assert report.rebuilt and report.documents == 3 and report.spans == corpus.counts()[2]
    assert _sparse_keys(corpus, "base rent per month") == before
    spans = report.spans
    assert ticks[0] == (0, spans) and ticks[-1] == (spans, spans), "progress runs from 0 to every span"
    assert [done for done, _ in ticks] == sorted(done for done, _ in ticks)


def test_a_deleted_document_leaves_the_index(corpus: Corpus) -> None:
    corpus.ingest(DOCS[:2])
    doc_id = next(d.doc_id for d in corpus.documents() if d.source == "sample_contract.pdf")
    assert any(k[0] == doc_id for k in _sparse_keys(corpus, "security deposit"))
    corpus.delete_document(doc_id)
    assert all(k[0] != doc_id for k in _sparse_keys(corpus, "security deposit"))


def _sparse_scores(corpus: Corpus, query: str) -> dict[tuple[str, int | None, int], float]:
    trace = corpus.run(query, k=10, legs=("sparse",)).trace
    return {(c.doc_id, c.page_number, c.ordinal): c.sparse_score or 0.0 for c in trace.candidates}


def test_documents_read_again_never_leave_stale_statistics(corpus: Corpus, tmp_path: Path) -> None:
    """The engine counts deleted entries in its statistics until segments merge: once the entries deleted since the
    index was built whole pass STALE_SHARE of the live ones, the next sync builds it whole, and the scores are a fresh
    index's again."""
    note = tmp_path / "deposit_note.txt"
    note.write_text("The landlord shall return the security deposit within thirty days.\n", encoding="utf-8")
    docs = [*DOCS, note]
    corpus.ingest(docs)
    index = corpus.lexicon.index(corpus.workspace)
    by_source = {d.source: d.doc_id for d in corpus.documents()}
    live = index.span_count()
    small = min(by_source.values(), key=lambda d: index.span_count([d]))
    big = max(by_source.values(), key=lambda d: index.span_count([d]))
    assert index.span_count([small]) <= STALE_SHARE * live < index.span_count([big]), "the fixtures must straddle it"
    query = "landlord shall return the security deposit"

    def read_again(doc_id: str) -> int:
        """Delete the document and ingest it again (both sync the index); the deleted entries the index counts."""
        source = next(s for s, d in by_source.items() if d == doc_id)
        corpus.delete_document(doc_id)
        corpus.ingest([next(p for p in docs if p.name == source)])
        corpus.lexicon.sync(corpus.store, corpus.workspace)
        state = index.state
        assert state is not None
        return state.deleted

    small_spans = index.span_count([small])
    assert read_again(small) == small_spans, "a small change is applied in place, its old entries counted"
    assert read_again(big) == 0, "past the share the index is built whole"
    scores = _sparse_scores(corpus, query)
    assert corpus.reindex().rebuilt
    assert _sparse_scores(corpus, query) == pytest.approx(scores), "the scores of an index built whole"


def test_statistics_are_per_workspace(settings: Settings, embedder: Embedder, workspace: str) -> None:
    with (
        Corpus(workspace, settings=settings, embedder=embedder) as a,
        Corpus(workspace + "b", settings=settings, embedder=embedder) as b,
    ):
        a.ingest(DOCS[:1])
        b.ingest(DOCS[:1])
        query = LexicalQuery(text="landlord shall return the deposit")
        alone = a.lexicon.index(a.workspace).search(query, 5)
        b.ingest(DOCS[1:])  # more documents elsewhere change b's statistics, never a's
        assert a.lexicon.index(a.workspace).search(query, 5) == alone
        assert b.lexicon.index(b.workspace).search(query, 5) != alone
        b.delete()
        assert not (settings.lexical_dir / b.workspace).exists()


def test_phrases_match_across_no_break_spaces(corpus: Corpus, tmp_path: Path) -> None:
    notice = tmp_path / "notice.txt"
    notice.write_text(
        "Termination requires written\u00a0notice of sixty days.\n\nRent is due monthly in advance.\n",
        encoding="utf-8",
    )
    corpus.ingest([notice])
    hits = corpus.search('"written notice"', k=5)
    assert [h.text for h in hits] == ["Termination requires written\u00a0notice of sixty days."]
    excluded = corpus.search('rent -"written notice"', k=5)
    assert excluded and all("notice" not in h.text for h in excluded)


def test_reindex_command(corpus: Corpus, cli_env: None) -> None:
    from click.testing import CliRunner

    from kruschnexus.cli.app import cli

    corpus.ingest(DOCS[:1])
    result = CliRunner().invoke(cli, ["reindex", "-w", corpus.workspace, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["rebuilt"] is True and report["documents"] == 1 and report["spans"] > 0
    missing = CliRunner().invoke(cli, ["reindex", "-w", "no-such-workspace-x"])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_same_top_10_as_bm25s(corpus: Corpus, tmp_path: Path) -> None:
    """Tantivy's BM25 over span texts ranks like bm25s (Lucene variant, k1 1.2, b 0.75) over the same tokens."""
    corpus.ingest([*DOCS, FIXTURES / "html_filing.html", FIXTURES / "table_rent_schedule.pdf"])
    queries = [json.loads(line)["query"] for line in (ROOT / "eval" / "fixtures.jsonl").read_text().splitlines()]
    queries += ["late charge", "tenant shall pay", "renewal option term", "pallet storage", "Quillon Analytics"]
    same, compared = agreement_with_bm25s(corpus, queries, tmp_path / "plain")
    assert compared >= 15
    assert same / compared >= 0.95, f"same top 10 on {same} of {compared} queries"


def agreement_with_bm25s(corpus: Corpus, queries: list[str], folder: Path) -> tuple[int, int]:
    """``(same, compared)``: queries whose top 10 spans by Tantivy (text field only) and by bm25s agree, up to
    swaps among spans whose bm25s scores are within 2% of the 10th (Tantivy stores lengths in one byte)."""
    import bm25s  # type: ignore[import-untyped]

    rows = list(corpus.store.lexical_spans(corpus.workspace, None))
    index = TantivyIndex(folder)
    entries = [SpanEntry(r.doc_id, r.page_number, r.ordinal, r.text, "", (), (), None, True) for r in rows]
    index.replace([], entries, [])
    index.commit(IndexState("check", 0))
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    reference.index([index.analyze(e.text) for e in entries], show_progress=False)
    same = compared = 0
    for text in queries:
        terms = index.query_terms(text)  # distinct analysed terms without stop words, as the engine ranks by
        ours = {h.key for h in index.search(LexicalQuery(text=text), 10)}
        if not terms or not ours:
            continue
        docs, scores = reference.retrieve([terms], k=min(30, len(entries)), show_progress=False)
        ranked = [(entries[int(i)].key, float(s)) for i, s in zip(docs[0], scores[0], strict=True) if s > 0]
        theirs = {key for key, _ in ranked[:10]}
        tenth = ranked[min(9, len(ranked) - 1)][1]
        swapped = {key for key, score in ranked if abs(score - tenth) <= 0.02 * tenth}
        compared += 1
        same += (ours ^ theirs) <= swapped
    index.close()
    return same, compared


def test_an_index_of_an_older_format_is_rebuilt_not_refused(corpus: Corpus, settings: Settings) -> None:
    """An upgrade changes the index's schema: the old index (another schema at the folder's top, a state of
    another format) is set aside and rebuilt from the database, and its files are removed."""
    import tantivy

    corpus.ingest(DOCS[:1])
    corpus.lexicon.close()
    folder = settings.lexical_dir / corpus.workspace
    shutil.rmtree(folder)
    for name in ("spans", "documents"):
        (folder / name).mkdir(parents=True)
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("body", stored=True)
        tantivy.Index(builder.build(), path=str(folder / name))
    (folder / "state.json").write_text(json.dumps({"format": "tantivy-3", "generation": "x", "applied": 1}))
    hits = corpus.search("late charge", k=3)
    assert hits and "late" in hits[0].text.lower()
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == [FORMAT]
