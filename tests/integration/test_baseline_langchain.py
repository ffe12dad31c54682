"""The LangChain baseline (PyPDFLoader + RecursiveCharacterTextSplitter(1000, 200) + pgvector top-k) on the fixtures,
against the real database and model."""

from __future__ import annotations

import importlib.util
import time
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from psycopg import sql

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import ConfigError, StoreError
from kruschnexus.eval import baseline_langchain
from kruschnexus.eval.baseline_langchain import BaselineBuild, LangChainSystem, baseline_workspace
from kruschnexus.eval.metrics import is_relevant
from kruschnexus.eval.suite import SuiteQuery
from kruschnexus.store.postgres import PgStore
from tests.conftest import FIXTURES

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        any(importlib.util.find_spec(m) is None for m in ("langchain_community", "langchain_text_splitters", "pypdf")),
        reason="the langchain baseline needs the 'eval' extra (pip install -e '.[eval]')",
    ),
]

#: The module-wide build: the system, what its build() reported, and the files it was given.
Built = tuple[LangChainSystem, BaselineBuild, list[Path]]

PDFS = [FIXTURES / "sample_contract.pdf", FIXTURES / "ligatures.pdf"]


def _reference_chunks(paths: list[Path]) -> list[tuple[str, int, str]]:
    """What the common stack gives, computed with LangChain directly: ``(file name, 1-based page, text)``."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is being sunset", category=DeprecationWarning)
        from langchain_community.document_loaders import PyPDFLoader
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    return [
        (path.name, int(c.metadata["page"]) + 1, c.page_content)
        for path in paths
        for c in splitter.split_documents(PyPDFLoader(str(path)).load())
    ]


def _drop(store: PgStore, workspace: str) -> None:
    for table in (workspace, f"{workspace}__files"):
        store.conn.execute(
            sql.SQL("DROP TABLE IF EXISTS {}.{}").format(sql.Identifier("eval_baseline"), sql.Identifier(table))
        )


def _rows(store: PgStore, workspace: str) -> list[tuple[str, int, str]]:
    query = sql.SQL("SELECT source, page, text FROM {}.{} ORDER BY source, ordinal").format(
        sql.Identifier("eval_baseline"), sql.Identifier(workspace)
    )
    return [(r["source"], r["page"], r["text"]) for r in store.conn.execute(query).fetchall()]


@pytest.fixture(scope="module")
def store(settings: Settings) -> Iterator[PgStore]:
    assert settings.database_url is not None
    pg = PgStore(settings.database_url)
    yield pg
    pg.close()


@pytest.fixture
def fresh(store: PgStore) -> Iterator[str]:
    """A baseline workspace name whose tables are dropped afterwards."""
    name = "lc-" + uuid.uuid4().hex[:10]
    yield name
    _drop(store, name)


@pytest.fixture(scope="module")
def built(store: PgStore, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    broken = tmp_path_factory.mktemp("lc") / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a pdf")
    files = [*PDFS, FIXTURES / "office_rent_roll.csv", FIXTURES / "scanned_lease.pdf", broken]
    name = "lc-" + uuid.uuid4().hex[:10]
    system = LangChainSystem(files, embedder, store, workspace=name)
    report = system.build()
    yield system, report, files
    _drop(store, name)


def test_chunks_are_exactly_langchains(built: Built, store: PgStore) -> None:
    system, report, _ = built
    expected = _reference_chunks([*PDFS, FIXTURES / "scanned_lease.pdf"])
    assert report.chunks == len(expected) == len(_rows(store, system.workspace))
    assert sorted(_rows(store, system.workspace)) == sorted(expected)
    assert {page for _, page, _ in expected} == {1, 2, 3, 4, 5}


def test_out_of_scope_and_unreadable_files_yield_nothing(built: Built) -> None:
    _, report, _ = built
    assert report.built == ("broken.pdf", "ligatures.pdf", "sample_contract.pdf", "scanned_lease.pdf")
    assert [name for name, _ in report.skipped] == ["office_rent_roll.csv"]
    assert "not a PDF" in report.skipped[0][1]
    assert [name for name, _ in report.unreadable] == ["broken.pdf"]
    assert not report.is_noop


def test_page_is_one_based_and_right(built: Built) -> None:
    system, _, _ = built
    hits = system.search("Tenant shall deliver certificates of insurance before taking possession", k=5)
    assert (hits[0].source, hits[0].page) == ("sample_contract.pdf", 3)
    assert "certificates of insurance" in hits[0].text
    first = system.search("Event of Default: failure to pay any installment of Rent when due", k=1)[0]
    assert (first.source, first.page) == ("sample_contract.pdf", 4)


def test_hits_score_on_the_product_rules(built: Built) -> None:
    system, _, _ = built
    gold = SuiteQuery(
        id="lig",
        family="lookup",
        query="office floor space",
        doc="ligatures.pdf",
        page=1,
        section=None,
        gold_text="The office shall be floor space.",
        kind="lookup",
    )
    hits = system.search(gold.query, k=3)
    assert is_relevant(hits[0].source, hits[0].page, hits[0].text, gold)


def test_never_abstains_and_carries_no_proof(built: Built) -> None:
    system, report, _ = built
    for k in (1, 5, 7):
        hits = system.search("xqzvbl blorftwug grnnkle", k=k)
        assert len(hits) == k
        assert all(h.proved is False and h.section is None and h.confidence is None for h in hits)
    assert len(system.search("recipe for banana bread", k=report.chunks + 10)) == report.chunks
    with pytest.raises(ValueError):
        system.search("anything", k=0)


def test_second_build_is_a_noop(
    built: Built, store: PgStore, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    system, report, files = built
    before = _rows(store, system.workspace)

    def _never(*_args: object) -> None:
        raise AssertionError("the fast path re-read a PDF")

    monkeypatch.setattr(baseline_langchain, "_split", _never)
    again = baseline_langchain.LangChainSystem(files, embedder, store, workspace=system.workspace)
    started = time.perf_counter()
    second = again.build()
    assert time.perf_counter() - started < 5
    assert second.is_noop and second.built == () and second.removed == ()
    assert second.reused == report.built
    assert second.unreadable == report.unreadable and second.chunks == report.chunks
    assert _rows(store, system.workspace) == before


def test_changed_file_list_rebuilds_only_the_difference(store: PgStore, embedder: Embedder, fresh: str) -> None:
    first = LangChainSystem(PDFS, embedder, store, workspace=fresh).build()
    second = LangChainSystem(PDFS[:1], embedder, store, workspace=fresh).build()
    assert second.removed == ("ligatures.pdf",) and second.reused == ("sample_contract.pdf",)
    assert second.chunks == first.chunks - len(_reference_chunks(PDFS[1:]))
    assert {source for source, _, _ in _rows(store, fresh)} == {"sample_contract.pdf"}


def test_search_before_build_and_bad_arguments(store: PgStore, embedder: Embedder, fresh: str) -> None:
    with pytest.raises(StoreError, match="build"):
        LangChainSystem(PDFS, embedder, store, workspace=fresh).search("rent", k=3)
    with pytest.raises(ConfigError, match="repeat"):
        LangChainSystem([PDFS[0], PDFS[0]], embedder, store, workspace=fresh)
    with pytest.raises(ConfigError, match="invalid baseline workspace"):
        LangChainSystem(PDFS, embedder, store, workspace="Bad Name")
    long = "w" * 63
    assert len(baseline_workspace(long)) <= 48 and baseline_workspace("short") == "short"


def test_for_corpus_builds_beside_a_product_workspace(settings: Settings, embedder: Embedder, fresh: str) -> None:
    with Corpus(workspace=fresh, settings=settings, embedder=embedder) as corpus:
        system = LangChainSystem.for_corpus(corpus, [*PDFS, FIXTURES / "office_rent_roll.csv"])
        assert system.name == "langchain" and system.workspace == fresh
        hits = system.search("certificates of insurance", k=4)
        assert len(hits) == 4 and all(h.source in {p.name for p in PDFS} for h in hits)
