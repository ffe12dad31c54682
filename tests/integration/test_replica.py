"""Read scaling on an existing engine: searches go to a streaming replica (``NEXUS_READ_DATABASE_URL``), made from a
base backup of a separate primary on loopback; ingests go to the primary; a search right after an ingest sees it,
from the replica once it has replayed the ingest, else from the primary, and says which."""

from __future__ import annotations

import time
from collections.abc import Iterator

import psycopg
import pytest

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.errors import StoreError
from kruschnexus.hub import Hub
from kruschnexus.store.postgres import PgStore
from tests.conftest import FIXTURES
from tests.external_pg import ExternalServer, external_server

pytestmark = pytest.mark.integration

BEHIND = "primary: the replica had not replayed"


@pytest.fixture(scope="module")
def servers() -> Iterator[ExternalServer]:
    with external_server(replica=True) as running:
        yield running


@pytest.fixture(scope="module")
def replicated(servers: ExternalServer, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings on the primary and its replica, once the primary is migrated and the replica has replayed it."""
    assert servers.read_dsn is not None
    PgStore(servers.dsn).close()
    deadline = time.monotonic() + 30
    while True:
        try:
            PgStore(servers.read_dsn, replica=True).close()
            break
        except StoreError:
            assert time.monotonic() < deadline, "the replica never replayed the primary's migrations"
            time.sleep(0.1)
    overrides = {
        "home": tmp_path_factory.mktemp("replica-home"),
        "database_url": servers.dsn,
        "read_database_url": servers.read_dsn,
        "replica_wait": 0.5,
    }
    return Settings.load(overrides=overrides, env={})


def _replay(servers: ExternalServer, paused: bool) -> None:
    assert servers.read_dba_dsn is not None
    with psycopg.connect(servers.read_dba_dsn, autocommit=True) as dba:
        dba.execute("SELECT pg_wal_replay_pause()" if paused else "SELECT pg_wal_replay_resume()")


def test_the_replica_is_a_read_only_standby(servers: ExternalServer) -> None:
    assert servers.read_dsn is not None
    with psycopg.connect(servers.read_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("CREATE TABLE nope (x int)")


def test_a_search_after_an_ingest_sees_it_from_the_replica(replicated: Settings, embedder: Embedder) -> None:
    with Corpus("rep-a", settings=replicated, embedder=embedder) as corpus:
        results = corpus.ingest([FIXTURES / "sample_contract.pdf"])
        assert [r.status for r in results] == ["ingested"], [r.reason for r in results]
        hits = corpus.search("commercial office space", k=3)
        assert corpus.read_from == "replica"
        assert hits and hits[0].source == "sample_contract.pdf"
        page = corpus.page(hits[0].doc_id, hits[0].page_number or 1)
        assert corpus.read_from == "replica"
        assert page.text[hits[0].char_start : hits[0].char_end] == hits[0].text


def test_while_the_replica_is_behind_the_primary_answers_and_says_so(
    servers: ExternalServer, replicated: Settings, embedder: Embedder
) -> None:
    with Corpus("rep-b", settings=replicated, embedder=embedder) as corpus:
        _replay(servers, paused=True)
        try:
            corpus.ingest([FIXTURES / "ligatures.pdf"])
            hits = corpus.search("well-known landmark in the financial district", k=3)
            assert corpus.read_from.startswith(BEHIND), corpus.read_from
            assert hits and hits[0].source == "ligatures.pdf", "the primary has the ingest"
        finally:
            _replay(servers, paused=False)
        corpus.search("well-known landmark in the financial district", k=3)
        assert corpus.read_from == "replica", "caught up once replay resumes"


def test_a_replica_that_drops_the_connection_is_read_again_after_one_answer_from_the_primary(
    servers: ExternalServer, replicated: Settings, embedder: Embedder
) -> None:
    with Corpus("rep-d", settings=replicated, embedder=embedder) as corpus:
        corpus.ingest([FIXTURES / "sample_contract.pdf"])
        assert corpus.search("commercial office space", k=1) and corpus.read_from == "replica"
        assert servers.read_dba_dsn is not None
        with psycopg.connect(servers.read_dba_dsn, autocommit=True) as dba:
            dba.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'nexus_owner'")
        assert corpus.search("commercial office space", k=1), "the primary answers"
        assert corpus.read_from.startswith("primary: the replica cannot be read"), corpus.read_from
        assert corpus.search("commercial office space", k=1)
        assert corpus.read_from == "replica", "a new connection to the replica"


def test_a_server_process_routes_its_requests_alike(replicated: Settings, embedder: Embedder) -> None:
    with Hub(replicated, embedder=embedder, connections=2) as hub:
        with hub.corpus("rep-c") as corpus:
            corpus.ingest([FIXTURES / "sample_contract.pdf"])
        with hub.corpus("rep-c") as corpus:
            assert corpus.search("commercial office space", k=1)
            assert corpus.read_from == "replica"


def test_a_primary_given_as_the_replica_is_refused(servers: ExternalServer) -> None:
    with pytest.raises(StoreError, match="not a replica"):
        PgStore(servers.dsn, replica=True)


def test_a_replica_without_an_external_primary_is_refused(tmp_path_factory: pytest.TempPathFactory) -> None:
    from kruschnexus.errors import ConfigError

    settings = Settings.load(
        overrides={"home": tmp_path_factory.mktemp("lonely"), "read_database_url": "postgresql://x@127.0.0.1/y"},
        env={},
    )
    with pytest.raises(ConfigError, match="needs NEXUS_DATABASE_URL"), Corpus("w", settings=settings) as corpus:
        corpus.search("anything")
