"""Upgrading a database made by an earlier version: migration 0006 (document versions) on rows that version left,
including two documents stored under one file name (an edited file ingested twice). Real PostgreSQL."""

from __future__ import annotations

import contextlib
import random
import string
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row

from kruschnexus.errors import SchemaBusy
from kruschnexus.store.migrate import available, migrate
from kruschnexus.store.postgres import PgStore

pytestmark = pytest.mark.integration


@contextlib.contextmanager
def _database_before(database_url: str, version: int) -> Iterator[tuple[str, psycopg.Connection[dict[str, object]]]]:
    """A new database (its DSN and a connection) with the migrations before ``version`` applied, as an earlier
    version of the package left it; dropped afterwards."""
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
                if mig.version < version:
                    conn.execute(mig.sql.encode())
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (mig.version, mig.name)
                    )
            conn.commit()
            yield dsn, conn
    finally:
        with psycopg.connect(database_url, autocommit=True) as admin:
            admin.execute(psycopg.sql.SQL("DROP DATABASE {} WITH (FORCE)").format(psycopg.sql.Identifier(name)))


@pytest.fixture
def old_database(database_url: str) -> Iterator[psycopg.Connection[dict[str, object]]]:
    """A new database with the migrations before 0006 applied, as an earlier version left it."""
    with _database_before(database_url, 6) as (_, conn):
        yield conn


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


def _stored_document(conn: psycopg.Connection[dict[str, object]], doc_id: str) -> None:
    conn.execute(
        "INSERT INTO documents (workspace, doc_id, source, name, version, kind, byte_size, page_count,"
        " extractor_version, chunker_version, model_id) VALUES ('w', %s, %s, %s, 1, 'pdf', 10, 1, 'x', 'y', 'm')",
        (doc_id, doc_id[:8] + ".pdf", doc_id[:8] + ".pdf"),
    )
    conn.execute(
        "INSERT INTO pages (workspace, doc_id, page_number, text, width, height, rotation)"
        " VALUES ('w', %s, 1, 'x', 612, 792, 0)",
        (doc_id,),
    )


def _span(conn: psycopg.Connection[dict[str, object]], doc_id: str, ordinal: int, rng: random.Random) -> None:
    """A span whose row is past 2 kB however its text is compressed: 384 dimensions and 100 random words."""
    text = " ".join("".join(rng.choices(string.ascii_lowercase, k=6)) for _ in range(100))
    vector = [rng.uniform(-1, 1) for _ in range(384)]
    conn.execute(
        "INSERT INTO spans (workspace, doc_id, page_number, ordinal, char_start, char_end, text, heading_path, header,"
        " dim, embedding, tsv, line_markers) VALUES ('w', %s, 1, %s, 0, %s, %s, '{}', '', %s, %s::vector,"
        " to_tsvector('english', %s), '{}')",
        (doc_id, ordinal, len(text), text, len(vector), str(vector), text),
    )


def _vectors(conn: psycopg.Connection[dict[str, object]]) -> list[tuple[object, object]]:
    rows = conn.execute("SELECT doc_id, embedding::text AS v FROM spans ORDER BY doc_id").fetchall()
    return [(r["doc_id"], r["v"]) for r in rows]


def test_vectors_move_into_their_rows_and_the_store_counts_those_left_in_toast(database_url: str) -> None:
    """Migration 0011 keeps new spans' vectors in their rows; spans stored before it keep theirs in TOAST (which the
    store counts for doctor) until ``VACUUM FULL spans`` rewrites them, values unchanged."""
    rng = random.Random(11)
    with _database_before(database_url, 11) as (dsn, conn):
        conn.execute("SELECT set_config('nexus.workspace', '*', false)")
        conn.execute("INSERT INTO workspaces (name, model_id, dim) VALUES ('w', 'm', 384)")
        _stored_document(conn, "a" * 64)
        _span(conn, "a" * 64, 1, rng)  # a row past 2 kB: the vector goes to TOAST
        conn.commit()
        store = PgStore(dsn)  # opening migrates
        try:
            tells = store.conn.info.server_version >= 170000
            storage = conn.execute(
                "SELECT attstorage FROM pg_attribute WHERE attrelid = 'spans'::regclass AND attname = 'embedding'"
            ).fetchone()
            options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = 'spans'").fetchone()
            assert storage is not None and storage["attstorage"] == "m"
            assert options is not None and isinstance(options["reloptions"], list)
            assert "toast_tuple_target=8160" in options["reloptions"]
            found = store.vector_storage()
            assert found.toast_bytes > 0 and found.older == 1
            assert (found.read, found.outside) == ((1, 1) if tells else (0, None))
            _stored_document(conn, "b" * 64)
            _span(conn, "b" * 64, 1, rng)
            conn.commit()
            again = store.vector_storage()
            assert again.older == 1, "a span stored after the migration is not counted among the older"
            if tells:
                outside = conn.execute(
                    "SELECT doc_id FROM spans WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL"
                ).fetchall()
                assert outside == [{"doc_id": "a" * 64}], "the new span keeps its vector in its row"
            before = _vectors(conn)
            conn.commit()
            store.rewrite_spans("64MB")  # what `nexus reindex --rewrite` runs
            rewritten = store.vector_storage()
            assert rewritten.outside == 0 if tells else rewritten.toast_bytes == 0, rewritten
            assert _vectors(conn) == before
        finally:
            store.close()


def test_an_upgrade_that_waits_on_other_sessions_gives_way_and_is_tried_again(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A migration that needs a table another session's transaction holds waits a bounded time (a statement queued
    for an exclusive lock would stall every later reader of the table), rolls the whole upgrade back and tries
    again; when every try waited too long, a clear error and nothing applied. Once the other transaction ends, the
    upgrade goes through."""
    with _database_before(database_url, 10) as (dsn, conn):
        pending = [m.version for m in available() if m.version >= 10]
        with psycopg.connect(dsn) as reader:
            reader.execute("SELECT count(*) FROM spans")  # a search's transaction, left open
            with caplog.at_level("WARNING", logger="kruschnexus.store.migrate"):
                with pytest.raises(SchemaBusy, match=r"not upgraded: 2 tries each waited more than 100ms"):
                    migrate(conn, lock_timeout="100ms", attempts=2)
            assert "try 1 of 2" in caplog.text
            done = {r["version"] for r in conn.execute("SELECT version FROM schema_migrations").fetchall()}
            assert not done & set(pending), "nothing of the upgrade is applied"
            assert reader.execute("SELECT count(*) FROM spans").fetchone() is not None, "the reader went on"
        assert [m.version for m in migrate(conn, lock_timeout="100ms", attempts=2)] == pending
        columns = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'spans'"
        ).fetchall()
        assert "line_markers" in {c["column_name"] for c in columns}
