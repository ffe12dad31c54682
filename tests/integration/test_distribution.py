"""The schema stays distributable by workspace (Citus, docs/scaling.md): every table of a workspace's rows is keyed
by its workspace (primary key and every unique index include it), every foreign key between them carries it, and
no query joins two tables except on it. A cross-workspace join or key would pin the rows of two workspaces to one
machine."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg
import pytest
from psycopg import sql

from kruschnexus.store import queries as q

pytestmark = pytest.mark.integration

#: The workspace column of each table that holds a workspace's rows (``workspaces`` is keyed by its name).
DISTRIBUTED = {
    "workspaces": "name",
    "documents": "workspace",
    "pages": "workspace",
    "blocks": "workspace",
    "spans": "workspace",
    "lexical_outbox": "workspace",
}
#: Tables kept on the coordinator: the migrations' record, and tokens (looked up by id before their workspace is
#: known; docs/scaling.md says what must change about their key before distributing).
COORDINATOR = {"schema_migrations", "tokens"}
#: Tables keyed by a key of their own and joined to none (distributed by it, or kept on the coordinator).
SELF_KEYED = {"embedding_cache": "embed_key"}


@pytest.fixture(scope="module")
def conn(database_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    from kruschnexus.store.postgres import PgStore

    PgStore(database_url).close()  # migrated
    with psycopg.connect(database_url, autocommit=True) as opened:
        yield opened


def _columns(conn: psycopg.Connection[tuple[object, ...]], kind: str) -> list[tuple[str, str, list[str]]]:
    """``(table, constraint or index, columns)`` of every primary key (``p``), unique index (``u``) or foreign
    key (``f``) of the tables in the current schema."""
    if kind == "u":
        query = (
            "SELECT t.relname, i.relname, array_agg(a.attname::text ORDER BY a.attnum) FROM pg_index x"
            " JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
            " JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()"
            " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(x.indkey)"
            " WHERE x.indisunique GROUP BY t.relname, i.relname"
        )
        rows = conn.execute(query).fetchall()
    else:
        query = (
            "SELECT t.relname, c.conname, array_agg(a.attname::text ORDER BY a.attnum) FROM pg_constraint c"
            " JOIN pg_class t ON t.oid = c.conrelid"
            " JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()"
            " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(c.conkey)"
            " WHERE c.contype = %s GROUP BY t.relname, c.conname"
        )
        rows = conn.execute(query, (kind,)).fetchall()
    return [(str(t), str(name), list(cols)) for t, name, cols in rows]  # type: ignore[call-overload]


def test_every_table_is_either_distributed_by_workspace_or_kept_on_the_coordinator(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    tables = {str(r[0]) for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
    assert tables == set(DISTRIBUTED) | COORDINATOR | set(SELF_KEYED), "a new table: say how it is distributed"


@pytest.mark.parametrize("kind", ["p", "u", "f"])
def test_keys_of_distributed_tables_carry_the_workspace(
    conn: psycopg.Connection[tuple[object, ...]], kind: str
) -> None:
    for table, name, cols in _columns(conn, kind):
        if table in DISTRIBUTED:
            assert DISTRIBUTED[table] in cols, f"{table}.{name} ({', '.join(cols)}) does not include the workspace"
        if table in SELF_KEYED:
            assert kind != "f", f"{table}.{name}: a table keyed by its own key refers to no other"
            assert SELF_KEYED[table] in cols, f"{table}.{name} ({', '.join(cols)}) does not include its key"


def test_foreign_keys_between_distributed_tables_join_on_the_workspace(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    rows = conn.execute(
        "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, c.conname,"
        " (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i)"
        "  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),"
        " (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i)"
        "  JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n)"
        " FROM pg_constraint c WHERE c.contype = 'f'"
    ).fetchall()
    for child, parent, name, cols, parent_cols in rows:
        child, parent = str(child), str(parent)
        if child in DISTRIBUTED and parent in DISTRIBUTED:
            pairs = dict(zip(parent_cols, cols, strict=True))  # type: ignore[call-overload]
            assert pairs.get(DISTRIBUTED[parent]) == DISTRIBUTED[child], f"{child}.{name} crosses workspaces"


_ALIASED = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)\s+(?!(?:WHERE|JOIN|LEFT|ON|GROUP|ORDER|AS)\b)(\w+)\b")


def _statements() -> Iterator[tuple[str, str]]:
    full = q.SpanFilter(
        workspace="w",
        doc_types=("x",),
        sections=("1",),
        section_likes=("1.%",),
        section_patterns=("1",),
        phrase_patterns=("a",),
    )
    as_of = q.SpanFilter(workspace="w", as_of=datetime(2026, 1, 1, tzinfo=UTC))
    for name in dir(q):
        value = getattr(q, name)
        if isinstance(value, sql.Composable):
            yield name, value.as_string(None)
    legs = (
        q.dense_leg(full, 384),
        q.nearest_first_leg(full, 384),
        q.fulltext_leg(full),
        q.keyed_leg(full),
        q.keyed_nearer(full, 384),
        q.capped_exact_leg(full, 384),
        q.word_first_exact_leg(full, 384),
    )
    for leg, _ in (*legs, q.dense_leg(as_of, 384)):
        yield "leg", leg.as_string(None)
    yield "span_cosines", q.span_cosines(384).as_string(None)


def test_no_query_joins_two_tables_except_on_the_workspace() -> None:
    checked = 0
    for name, text in _statements():
        aliases = {alias: table for table, alias in _ALIASED.findall(text) if table in DISTRIBUTED}
        if len(aliases) < 2:
            continue
        for alias, table in aliases.items():
            column = DISTRIBUTED[table]
            bound = re.search(rf"\b{alias}\.{column}\s*=|=\s*{alias}\.{column}\b", text)
            assert bound, f"{name}: {table} {alias} is not tied to the workspace: {text}"
            checked += 1
    assert checked >= 10, "the check found the joins"


def test_only_the_known_key_leads_from_the_coordinator_into_a_distributed_table(
    conn: psycopg.Connection[tuple[object, ...]],
) -> None:
    """Citus allows no foreign key from a coordinator table into a distributed one. ``tokens`` still has one (to
    ``workspaces``): docs/scaling.md says it goes before distributing; no other may be added."""
    rows = conn.execute(
        "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c WHERE c.contype = 'f'"
    ).fetchall()
    crossing = {(str(a), str(b)) for a, b in rows if str(a) in COORDINATOR and str(b) in DISTRIBUTED}
    assert crossing == {("tokens", "workspaces")}
