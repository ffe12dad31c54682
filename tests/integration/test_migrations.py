"""Upgrading a database made by an earlier version: migration 0006 (document versions) on rows that version left,
including two documents stored under one file name (an edited file ingested twice). Real PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row

from kruschnexus.store.migrate import available, migrate

pytestmark = pytest.mark.integration


@pytest.fixture
def old_database(database_url: str) -> Iterator[psycopg.Connection[dict[str, object]]]:
    """A new database with the migrations before 0006 applied, as an earlier version left it."""
    name = "mig_" + uuid.uuid4().hex[:10]
    with psycopg.connect(database_url, autocommit=True) as admin:
        admin.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
    dsn = make_conninfo("", **{**conninfo_to_dict(database_url), "dbname": name})
    try:
        with psycopg.connect(dsn, row_factory=dict_row) as conn:
            conn.execute(
                "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for mig in available():
                if mig.version < 6:
                    conn.execute(mig.sql.encode())
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (mig.version, mig.name)
                    )
            conn.commit()
            yield conn
    finally:
        with psycopg.connect(database_url, autocommit=True) as admin:
            admin.execute(psycopg.sql.SQL("DROP DATABASE {} WITH (FORCE)").format(psycopg.sql.Identifier(name)))


def _document(conn: psycopg.Connection[dict[str, object]], doc_id: str, source: str, day: int) -> None:
    conn.execute(
        "INSERT INTO documents (workspace, doc_id, source, kind, byte_size, page_count, extractor_version,"
        " chunker_version, model_id, ingested_at) VALUES ('w', %s, %s, 'csv', 10, 1, 'x', 'y', 'm',"
        " timestamptz '2026-01-01' + make_interval(days => %s))",
        (doc_id, source, day),
    )


def test_rows_of_an_earlier_version_become_version_1_and_none_stops_being_searched(
    old_database: psycopg.Connection[dict[str, object]],
) -> None:
    conn = old_database
    conn.execute("SELECT set_config('nexus.workspace', '*', false)")
    conn.execute("INSERT INTO workspaces (name, model_id, dim) VALUES ('w', 'm', 3)")
    _document(conn, "a" * 64, "payments.csv", 1)
    _document(conn, "b" * 64, "payments.csv", 2)  # the same file edited and ingested again
    _document(conn, "c" * 64, "lease.pdf", 1)
    conn.commit()

    applied = migrate(conn)
    assert [m.version for m in applied] == [m.version for m in available() if m.version >= 6]
    rows = conn.execute("SELECT doc_id, name, version, latest FROM documents ORDER BY doc_id").fetchall()
    assert [(r["name"], r["version"], r["latest"]) for r in rows] == [
        (f"payments.csv ({'a' * 12})", 1, True),  # the older copy keeps being searched, under a name of its own
        ("payments.csv", 1, True),  # the newest keeps the file's name: the next edit becomes its version 2
        ("lease.pdf", 1, True),
    ]
    with pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute("UPDATE documents SET name = 'lease.pdf' WHERE doc_id = %s", ("b" * 64,))
    conn.rollback()
    assert migrate(conn) == [], "applied once"
