"""PostgreSQL + pgvector through psycopg 3: the one storage code path (embedded or external server)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import pq
from psycopg.rows import class_row, dict_row

from kruschnexus.config import IndexBuild
from kruschnexus.errors import EmbedError, SchemaBusy, StoreError
from kruschnexus.store import queries as q
from kruschnexus.store.access import LOOKUP_FUNCTIONS, Access, RoleLimit
from kruschnexus.store.base import CATALOGUE, all_rows, read
from kruschnexus.store.document_reads import DocumentReads
from kruschnexus.store.leg_reads import LegReads
from kruschnexus.store.maintenance import DEFAULT_BUILD, IndexMaintenance
from kruschnexus.store.migrate import available, migrate
from kruschnexus.store.records import (
    LexicalDocumentRow,
    LexicalSpanRow,
    WorkspaceRow,
)
from kruschnexus.store.writer import Connection, DocumentWriter, forgetting_vectors

__all__ = ["CATALOGUE", "LOOKUP_FUNCTIONS", "PgStore", "RoleLimit"]


class PgStore(DocumentReads, LegReads, IndexMaintenance, Access):
    """A connection to a migrated database.

    Every read and write of a workspace's rows runs in a transaction scoped to that workspace
    (:meth:`scoped`): PostgreSQL row-level security (migration ``0003_row_security``) then shows and accepts
    only that workspace's rows, whatever the query says.

    Raises:
        StoreError: the server cannot be reached or lacks pgvector.
    """

    def __init__(self, dsn: str, reconnect: Callable[[], Connection] | None = None, replica: bool = False) -> None:
        self._reconnect = reconnect
        try:
            self.conn: Connection = self.open_connection(dsn, migrate_schema=not replica)
        except SchemaBusy:
            raise  # reconnecting would only wait for the same transactions again
        except StoreError:
            if reconnect is None:
                raise
            self.conn = reconnect()
        try:
            self._lower_role = self._bypasses_row_security()
        except psycopg.Error as exc:
            self.conn.close()
            raise StoreError(f"cannot read the database role: {exc}") from exc
        except StoreError:
            self.conn.close()
            raise

    @staticmethod
    def open_connection(dsn: str, migrate_schema: bool = True) -> Connection:
        """A new connection to a migrated database with pgvector's types registered. A replica (a hot standby,
        ``migrate_schema`` false) is not migrated, which it cannot be: its schema must already be this version's.

        Raises:
            StoreError: the server cannot be reached or lacks pgvector, or a replica's schema is not this version's.
        """
        try:
            conn: Connection = psycopg.connect(dsn, autocommit=True, row_factory=dict_row)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL ({_redact(dsn)}): {exc}") from exc
        try:
            if migrate_schema:
                migrate(conn)
            else:
                _check_replica(conn, dsn)
            from pgvector.psycopg import register_vector

            register_vector(conn)
        except psycopg.Error as exc:
            conn.close()
            raise StoreError(f"cannot prepare the database (is pgvector installed?): {exc}") from exc
        except StoreError:
            conn.close()
            raise
        return conn

    def _bypasses_row_security(self) -> bool:
        row = self.conn.execute(q.SELECT_ROLE_BYPASS).fetchone()
        assert row is not None
        if row["bypass"] and not row["scoped_role"]:
            raise StoreError(
                "the database role bypasses row security (superuser or BYPASSRLS) and the role nexus_workspace"
                " does not exist: connect once as a superuser to migrate, or as a role without BYPASSRLS"
            )
        return bool(row["bypass"])

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @property
    def reusable(self) -> bool:
        """The connection is open, sound and outside any transaction: a pool may hand it to the next caller."""
        return (
            not (self.conn.closed or self.conn.broken)
            and self.conn.info.transaction_status == pq.TransactionStatus.IDLE
        )

    @read
    def server_info(self) -> dict[str, str]:
        """PostgreSQL and pgvector versions."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(
                "SELECT current_setting('server_version') AS postgres,"
                " (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector"
            ).fetchone()
        assert row is not None
        return {"postgres": str(row["postgres"]), "pgvector": str(row["pgvector"])}

    def wal_position(self) -> int:
        """The primary's current write-ahead log position (as a number): every commit so far is at or before it."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.SELECT_WAL_POSITION).fetchone()
        assert row is not None
        return int(row["position"])

    def replayed_position(self) -> int | None:
        """How far a replica has replayed the primary's log (``None``: not a replica, or not replaying yet)."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.SELECT_REPLAYED_POSITION).fetchone()
        return None if row is None or row["position"] is None else int(row["position"])

    @read
    def workspace(self, name: str) -> tuple[str, int] | None:
        """``(model_id, dim)`` of a workspace, or ``None`` if it does not exist."""
        with self.scoped(name) as conn:
            row = conn.execute(q.SELECT_WORKSPACE, {"name": name}).fetchone()
        return None if row is None else (str(row["model_id"]), int(row["dim"]))

    @read
    def workspaces(self) -> list[WorkspaceRow]:
        """Every workspace with its model and document count (catalogue scope)."""
        with self.scoped(CATALOGUE) as conn:
            return all_rows(conn, WorkspaceRow, q.SELECT_WORKSPACES, {})

    def ensure_workspace(self, name: str, model_id: str, dim: int, index: IndexBuild = DEFAULT_BUILD) -> bool:
        """Create a workspace bound to an embedding model, or check that it is bound to this one; True when this call
        created it (of two racing calls, exactly one). The HNSW index of ``dim`` is built as ``index`` says when
        there is none yet.

        Raises:
            EmbedError: the workspace was built with another model or dimension.
        """
        with self.scoped(name) as conn:
            created = conn.execute(q.INSERT_WORKSPACE, {"name": name, "model_id": model_id, "dim": dim}).fetchone()
        stored = self.workspace(name)
        assert stored is not None
        if stored != (model_id, dim):
            raise EmbedError(
                f"workspace {name!r} was built with embedding model {stored[0]} ({stored[1]} dims); the current"
                f" model is {model_id} ({dim} dims). Use the same NEXUS_EMBEDDER or another workspace."
            )
        with self.scoped(CATALOGUE) as conn:
            # No DDL when the index is there: even IF NOT EXISTS locks spans, and would wait for a rebuild.
            present = conn.execute(q.SELECT_INDEX_EXISTS, {"name": q.hnsw_index_name(dim)}).fetchone()
            if not (present and present["present"]):
                conn.execute(q.LOCK_INDEX_DDL)  # a second writer waits, then finds the index made
                conn.execute(q.hnsw_index_ddl(dim, index.m, index.ef_construction))
        return created is not None

    def cache_vectors(self, dim: int, vectors: Mapping[str, Any]) -> None:
        """Put vectors in the embedding cache shared between workspaces (a key already there is left as it is), in
        a short transaction of their own and in key order: never held until a document commits, so two ingests of
        the same texts neither wait on each other for long nor deadlock."""
        rows = [{"embed_key": k, "dim": dim, "embedding": vectors[k]} for k in sorted(vectors)]
        with self.scoped(CATALOGUE) as conn, conn.cursor() as cur:
            cur.executemany(q.INSERT_CACHED_VECTOR, rows)

    def delete_workspace(self, name: str) -> bool:
        """Remove a workspace and everything in it; True if it existed."""
        with self.scoped(name) as conn, forgetting_vectors(conn, name, q.SELECT_WORKSPACE_KEYS, {"workspace": name}):
            return conn.execute(q.DELETE_WORKSPACE, {"name": name}).rowcount > 0

    def delete_workspace_documents(self, name: str) -> tuple[bool, list[str]]:
        """Remove a workspace; returns whether it existed and the doc ids no other workspace still holds."""
        with self.scoped(name) as conn:
            ids = [str(r["doc_id"]) for r in conn.execute(q.SELECT_WORKSPACE_DOC_IDS, {"name": name})]
            with forgetting_vectors(conn, name, q.SELECT_WORKSPACE_KEYS, {"workspace": name}):
                existed = conn.execute(q.DELETE_WORKSPACE, {"name": name}).rowcount > 0
        return existed, [i for i in ids if not self._doc_id_in_use(i)]

    def delete_document(self, workspace: str, doc_id: str) -> tuple[bool, bool]:
        """Remove one document version (and tell the lexical index, in the same transaction); when it was the
        latest of its name, the newest remaining version becomes the latest. Returns whether it existed and
        whether no workspace holds its bytes any more."""
        params = {"workspace": workspace, "doc_id": doc_id}
        with self.scoped(workspace) as conn:
            with forgetting_vectors(conn, workspace, q.SELECT_DOCUMENT_KEYS, params):
                gone = conn.execute(q.DELETE_DOCUMENT_RETURNING, params).fetchone()
            existed = gone is not None
            if gone is not None:
                writer = DocumentWriter(conn)
                writer.announce(workspace, doc_id, "delete")
                if gone["latest"]:
                    promoted = conn.execute(q.PROMOTE_NEWEST, {**params, "name": gone["name"]}).fetchone()
                    if promoted is not None:
                        writer.announce(workspace, str(promoted["doc_id"]), "upsert")
        return existed, existed and not self._doc_id_in_use(doc_id)

    @read
    def outbox_head(self, workspace: str) -> tuple[str, int] | None:
        """``(generation, last seq)`` of a workspace's lexical outbox: the generation changes when a workspace of
        that name is deleted and made again. ``None`` when the workspace does not exist."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.SELECT_OUTBOX_HEAD, {"workspace": workspace}).fetchone()
        return None if row is None else (str(row["generation"]), int(row["head"]))

    @read
    def outbox_after(self, workspace: str, after: int) -> list[tuple[int, str, str]]:
        """``(seq, doc_id, op)`` of the outbox rows past ``after``, in commit order."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_OUTBOX_AFTER, {"workspace": workspace, "after": after}).fetchall()
        return [(int(r["seq"]), str(r["doc_id"]), str(r["op"])) for r in rows]

    def lexical_spans(self, workspace: str, doc_ids: Sequence[str] | None) -> Iterator[LexicalSpanRow]:
        """What the lexical index needs of each span of these documents (of every document: ``None``), streamed."""
        statement = q.SELECT_ALL_LEXICAL_SPANS if doc_ids is None else q.SELECT_LEXICAL_SPANS
        params = {"workspace": workspace, "doc_ids": list(doc_ids or ())}
        with (
            self.scoped(workspace) as conn,
            conn.cursor(name="lexical_spans", row_factory=class_row(LexicalSpanRow)) as cur,
        ):
            cur.itersize = 1000
            cur.execute(statement, params)
            yield from cur

    @read
    def lexical_documents(
        self, workspace: str, doc_ids: Sequence[str] | None, front_pages: int, front_chars: int
    ) -> list[LexicalDocumentRow]:
        """Each document's source, type and the text of its first pages (units), for the document index."""
        statement = q.SELECT_ALL_LEXICAL_DOCUMENTS if doc_ids is None else q.SELECT_LEXICAL_DOCUMENTS
        params = {
            "workspace": workspace,
            "doc_ids": list(doc_ids or ()),
            "front_pages": front_pages,
            "front_chars": front_chars,
        }
        with self.scoped(workspace) as conn:
            return all_rows(conn, LexicalDocumentRow, statement, params)

    @read
    def _doc_id_in_use(self, doc_id: str) -> bool:
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.COUNT_DOC_ID_USES, {"doc_id": doc_id}).fetchone()
        return row is not None and int(row["uses"]) > 0

    @contextlib.contextmanager
    def document_transaction(self, workspace: str) -> Iterator[DocumentWriter]:
        """One transaction for one document of ``workspace``: all of it is stored, or none of it."""
        try:
            with self.scoped(workspace) as conn:
                yield DocumentWriter(conn)
        except psycopg.Error as exc:
            raise StoreError(f"the database refused the document: {exc}") from exc


def _check_replica(conn: Connection, dsn: str) -> None:
    """A replica is in recovery and its schema holds every migration this version ships (its primary migrated it).

    Raises:
        StoreError: either is not so.
    """
    row = conn.execute(q.SELECT_REPLICA_STANDING).fetchone()
    assert row is not None
    if not row["in_recovery"]:
        conn.close()
        raise StoreError(f"NEXUS_READ_DATABASE_URL ({_redact(dsn)}) is not a replica: it accepts writes")
    latest = max(m.version for m in available())
    found = conn.execute(q.SELECT_SCHEMA_VERSION).fetchone() if row["migrated"] else None
    version = None if found is None else found["version"]
    if version is None or int(version) < latest:
        conn.close()
        raise StoreError(
            f"the replica ({_redact(dsn)}) has schema version {version}, this version needs {latest}: connect to"
            " the primary once (it migrates), then wait for the replica to replay it"
        )


def _redact(dsn: str) -> str:
    if "@" in dsn and "://" in dsn:
        scheme, rest = dsn.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return dsn
