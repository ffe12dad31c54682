"""Isolation enforced by PostgreSQL: a transaction acting for workspace A reads and writes only A's rows, even
when the query forgets its WHERE clause."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from kruschnexus.config import Settings
from kruschnexus.corpus import Corpus
from kruschnexus.embed.base import Embedder
from kruschnexus.store.postgres import CATALOGUE, LOOKUP_FUNCTIONS, PgStore
from tests.conftest import FIXTURES
from tests.security.conftest import ATTEMPTS

pytestmark = pytest.mark.integration

A, B = "rls-matter-a", "rls-matter-b"
LANDMARK = "the Building is a well-known landmark in the financial district"
TABLES = {
    "workspaces": "name",
    "documents": "workspace",
    "pages": "workspace",
    "blocks": "workspace",
    "spans": "workspace",
}


@pytest.fixture(scope="module")
def store(settings: Settings, embedder: Embedder) -> Iterator[PgStore]:
    for name, files in ((A, ["sample_contract.pdf"]), (B, ["sample_contract.pdf", "ligatures.pdf"])):
        with Corpus(name, settings=settings, embedder=embedder) as corpus:
            corpus.delete()
            results = corpus.ingest([FIXTURES / f for f in files])
            assert all(r.status == "ingested" for r in results), results
    assert settings.database_url is not None
    opened = PgStore(settings.database_url)
    yield opened
    opened.close()


def _all_rows(conn: psycopg.Connection[dict[str, object]], table: str) -> list[dict[str, object]]:
    return conn.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table))).fetchall()


@pytest.mark.parametrize("table", sorted(TABLES))
def test_a_query_without_where_sees_only_its_workspace(store: PgStore, table: str) -> None:
    column = TABLES[table]
    with store.scoped(A) as conn:
        seen = {r[column] for r in _all_rows(conn, table)}
    ATTEMPTS["read another workspace through an unfiltered query"] += 1
    assert seen == {A}
    with store.scoped(CATALOGUE) as conn:
        assert {A, B} <= {r[column] for r in _all_rows(conn, table)}


def test_writes_into_another_workspace_are_refused(store: PgStore) -> None:
    with store.scoped(A) as conn:
        row = conn.execute("SELECT * FROM documents LIMIT 1").fetchone()
    assert row is not None
    stolen = {**row, "workspace": B, "doc_id": "f" * 64}
    columns = sql.SQL(", ").join(sql.Identifier(c) for c in ("workspace", "doc_id", "source", "kind", "byte_size"))
    values = sql.SQL(", ").join(sql.Literal(stolen[c]) for c in ("workspace", "doc_id", "source", "kind", "byte_size"))
    insert = sql.SQL("INSERT INTO documents ({}, page_count, extractor_version, chunker_version, model_id)"
                     " VALUES ({}, 1, 'x', 'x', 'x')").format(columns, values)  # fmt: skip
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"), store.scoped(A) as conn:
        conn.execute(insert)
    ATTEMPTS["insert a row into another workspace"] += 1
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"), store.scoped(A) as conn:
        conn.execute("UPDATE spans SET workspace = %s", (B,))
    ATTEMPTS["move rows into another workspace"] += 1


def test_update_and_delete_without_where_touch_only_their_workspace(store: PgStore) -> None:
    before, own_spans = store.counts(B), store.counts(A)[2]
    with store.conn.transaction(force_rollback=True):
        with store.scoped(A) as conn:
            changed = conn.execute("UPDATE spans SET text = text").rowcount
            deleted = conn.execute("DELETE FROM documents").rowcount
        assert (changed, deleted) == (own_spans, 1)
        assert store.counts(B) == before
    ATTEMPTS["delete another workspace's rows through an unfiltered delete"] += 1
    assert store.counts(A)[0] == 1, "the rollback restores A"


def _superuser(store: PgStore) -> bool:
    row = store.conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
    return row is not None and bool(row["rolsuper"])


def test_a_non_superuser_role_is_bound_without_switching_roles(settings: Settings, store: PgStore) -> None:
    """An external database is usually reached as an ordinary role: row security binds it directly. Against such a
    server (``make test-external``) the connection's own role is that ordinary role; otherwise one is made."""
    if not _superuser(store):
        assert store.conn.execute("SELECT count(*) AS n FROM spans").fetchone() == {"n": 0}, "no scope: no rows"
        with store.conn.transaction():
            store.conn.execute("SELECT set_config('nexus.workspace', %s, true)", (A,))
            own = store.conn.execute("SELECT DISTINCT workspace FROM spans").fetchall()
        assert own == [{"workspace": A}]
        ATTEMPTS["read without a workspace scope as an ordinary role"] += 1
        return
    with store.conn.transaction():
        store.conn.execute("DROP ROLE IF EXISTS nexus_probe")
        store.conn.execute("CREATE ROLE nexus_probe LOGIN")
        store.conn.execute("GRANT nexus_workspace TO nexus_probe")
    try:
        with psycopg.connect(str(settings.database_url), user="nexus_probe", autocommit=True) as probe:
            assert probe.execute("SELECT count(*) FROM spans").fetchone() == (0,), "no scope: no rows"
            with probe.transaction():
                probe.execute("SELECT set_config('nexus.workspace', %s, true)", (A,))
                seen = probe.execute("SELECT DISTINCT workspace FROM spans").fetchall()
            assert seen == [(A,)]
            ATTEMPTS["read without a workspace scope as an ordinary role"] += 1
    finally:
        store.conn.execute("REVOKE nexus_workspace FROM nexus_probe")
        store.conn.execute("DROP ROLE nexus_probe")


def test_search_and_export_run_under_the_scope(store: PgStore, settings: Settings, embedder: Embedder) -> None:
    with Corpus(A, settings=settings, embedder=embedder) as corpus:
        assert {h.source for h in corpus.export()} == {"sample_contract.pdf"}
        hits = corpus.search("commercial office space", k=20)
        assert all(h.source != "ligatures.pdf" for h in corpus.search(LANDMARK, k=20))
    assert hits and all(h.source == "sample_contract.pdf" for h in hits)
    with Corpus(B, settings=settings, embedder=embedder) as corpus:
        assert any(h.source == "ligatures.pdf" for h in corpus.search(LANDMARK, k=5)), corpus.explain(LANDMARK)


def test_the_catalogue_scope_is_not_a_workspace_name(settings: Settings) -> None:
    from kruschnexus.errors import ConfigError

    with pytest.raises(ConfigError, match="invalid workspace name"):
        Corpus(CATALOGUE, settings=settings)
    ATTEMPTS["use the catalogue scope '*' as a workspace name"] += 1


def test_section_lookups_are_leakproof_so_their_indexes_serve_scoped_searches(store: PgStore) -> None:
    """A superuser's migration (0008) marks LIKE, case-insensitive regular expressions and array overlap; under an
    ordinary role, doctor names the statements a DBA must run."""
    row = store.conn.execute(
        "SELECT bool_and(proleakproof) AS leakproof FROM pg_proc WHERE oid = ANY(%s::regprocedure[])",
        ([f"pg_catalog.{f}" for f in LOOKUP_FUNCTIONS],),
    ).fetchone()
    assert row is not None
    told = any("texticregexeq" in limit.fix for limit in store.role_limits())
    if _superuser(store):
        assert row == {"leakproof": True} and not told
    else:
        assert told == (not row["leakproof"])


def test_full_text_matching_is_leakproof_so_the_gin_index_serves_scoped_searches(store: PgStore) -> None:
    """A superuser's migration marks it; under an ordinary role, doctor names the statement a DBA must run."""
    row = store.conn.execute(
        "SELECT proleakproof FROM pg_proc WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure"
    ).fetchone()
    assert row is not None
    told = any("ts_match_vq" in limit.fix for limit in store.role_limits())
    if _superuser(store):
        assert row == {"proleakproof": True} and not told
    else:
        assert told == (not row["proleakproof"])
