"""A real external PostgreSQL as a DBA hands it over: a second, separate server on a loopback port with password
authentication, a database owned by a role that is no superuser, and pgvector, created by the DBA. The store
migrates it as that role, row security binds the role itself, and ``nexus doctor`` says what the role cannot do
and what the DBA must run. (``make test-external`` runs the store, retrieval and security suites against such a
server too.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from kruschnexus.cli.app import cli
from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.store.postgres import LOOKUP_FUNCTIONS, PgStore
from tests.conftest import FIXTURES
from tests.external_pg import ExternalServer, external_server

pytestmark = pytest.mark.integration

LEAKPROOF = "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF"
LOOKUPS = [f"ALTER FUNCTION pg_catalog.{f} LEAKPROOF" for f in LOOKUP_FUNCTIONS]


@pytest.fixture(scope="module")
def server() -> Iterator[ExternalServer]:
    with external_server() as running:
        yield running


@pytest.fixture(scope="module")
def external(server: ExternalServer, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    home = tmp_path_factory.mktemp("external-home")
    return Settings.load(overrides={"home": home, "database_url": server.dsn}, env={})


def test_the_role_is_no_superuser_and_cannot_create_roles(server: ExternalServer) -> None:
    with psycopg.connect(server.dsn) as conn:
        row = conn.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
    assert row == (False, False, False, False)


def test_a_non_superuser_owner_migrates_ingests_searches_and_verifies(external: Settings, embedder: Embedder) -> None:
    with Corpus("ext-a", settings=external, embedder=embedder) as corpus:
        results = corpus.ingest([FIXTURES / "sample_contract.pdf"])
        assert [r.status for r in results] == ["ingested"], [r.reason for r in results]
        hits = corpus.search("commercial office space", k=5)
        assert hits and hits[0].source == "sample_contract.pdf"
        for hit in hits:
            assert hit.page_number is not None
            assert corpus.page(hit.doc_id, hit.page_number).text[hit.char_start : hit.char_end] == hit.text
        assert corpus.verify().ok


def test_row_security_binds_the_owner_itself(external: Settings, embedder: Embedder) -> None:
    with Corpus("ext-b", settings=external, embedder=embedder) as corpus:
        corpus.ingest([FIXTURES / "ligatures.pdf"])
    assert external.database_url is not None
    store = PgStore(external.database_url)
    try:
        assert "no superuser" in store.role_summary()
        assert store.conn.execute("SELECT count(*) AS n FROM spans").fetchone() == {"n": 0}, "no scope: no rows"
        with store.scoped("ext-b") as conn:
            seen = {r["workspace"] for r in conn.execute("SELECT workspace FROM spans").fetchall()}
        assert seen == {"ext-b"}, "a query without WHERE sees only its workspace"
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            with store.scoped("ext-b") as conn:
                conn.execute("UPDATE spans SET workspace = 'ext-a'")
    finally:
        store.close()


def _doctor(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> dict[str, dict[str, object]]:
    monkeypatch.setenv("NEXUS_HOME", str(settings.home))
    assert settings.database_url is not None
    monkeypatch.setenv("NEXUS_DATABASE_URL", settings.database_url)
    result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    report = json.loads(result.output.strip().splitlines()[-1])
    return {str(c["name"]): c for c in report["checks"]}


def test_doctor_says_what_the_role_cannot_do_and_what_the_dba_runs(
    server: ExternalServer, external: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = _doctor(monkeypatch, external)
    role = checks["database role"]
    assert checks["database"]["ok"] and "external" in str(checks["database"]["detail"])
    assert role["ok"] is False and LEAKPROOF in str(role["detail"]) and "nexus_owner" in str(role["detail"])
    assert all(statement in str(role["detail"]) for statement in LOOKUPS), role
    with psycopg.connect(server.dba_dsn, autocommit=True) as dba:
        for statement in (LEAKPROOF, *LOOKUPS):  # what doctor told the DBA to run
            dba.execute(statement)
    role = _doctor(monkeypatch, external)["database role"]
    assert role["ok"] is True and "LEAKPROOF" not in str(role["detail"]), role


def test_the_dsn_password_never_reaches_an_error(external: Settings, tmp_path: Path) -> None:
    assert external.database_url is not None
    password = external.database_url.split(":")[2].split("@")[0]
    wrong = external.database_url.replace(password, "not-the-password")
    from kruschnexus.errors import StoreError

    with pytest.raises(StoreError) as caught:
        PgStore(wrong)
    assert "not-the-password" not in str(caught.value) and "authentication failed" in str(caught.value)
