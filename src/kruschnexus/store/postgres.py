"""PostgreSQL + pgvector through psycopg 3: the one storage code path (embedded or external server)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg import pq, sql
from psycopg.rows import class_row, dict_row, tuple_row
from psycopg.types.json import Jsonb

from kruschnexus.config import EF_SEARCH, IndexBuild
from kruschnexus.errors import EmbedError, StoreError, StoreUnavailable
from kruschnexus.store import queries as q
from kruschnexus.store.migrate import available, migrate
from kruschnexus.store.records import (
    DocumentRow,
    HitRow,
    LegRow,
    LexicalDocumentRow,
    LexicalSpanRow,
    PageRow,
    PageTextRow,
    ProgressRow,
    ReadVersionsRow,
    RoleStandingRow,
    SpanTextRow,
    SpanVectorRow,
    StoredRow,
    TokenRecord,
    TokenRow,
    TokenSecretRow,
    VectorStorage,
    WorkspaceRow,
    values,
)
from kruschnexus.store.writer import Connection, DocumentWriter, forgetting_vectors


@dataclass(frozen=True)
class RoleLimit:
    """Something the connected role cannot do, and the statement a DBA runs so that it can."""

    what: str
    fix: str


_P = ParamSpec("_P")
_T = TypeVar("_T")
_R = TypeVar("_R")


def _all(conn: Connection, record: type[_R], statement: Any, params: Mapping[str, Any]) -> list[_R]:
    """Every row of ``statement`` as a ``record``."""
    with conn.cursor(row_factory=class_row(record)) as cur:
        return cur.execute(statement, dict(params)).fetchall()


def _one(conn: Connection, record: type[_R], statement: Any, params: Mapping[str, Any]) -> _R | None:
    """The first row of ``statement`` as a ``record``, or ``None``."""
    with conn.cursor(row_factory=class_row(record)) as cur:
        return cur.execute(statement, dict(params)).fetchone()


@contextlib.contextmanager
def _maintenance_memory(conn: Connection, size: str | None) -> Iterator[None]:
    """The session's ``maintenance_work_mem`` of ``size`` while the block runs (an index build, a table rewrite),
    the server's own again after it; nothing is set when ``size`` is ``None``."""
    if size is None:
        yield
        return
    conn.execute(q.SET_SESSION_MAINTENANCE_MEMORY, {"memory": size})
    try:
        yield
    finally:
        if not (conn.closed or conn.broken):
            conn.execute(q.RESET_MAINTENANCE_MEMORY)


CATALOGUE = "*"
"""The scope of operations across workspaces (listing them, sharing kept bytes); not a valid workspace name."""
#: pgvector's HNSW build parameters where an index's options do not say (indexes built before they were set).
PGVECTOR_M = 16
PGVECTOR_EF_CONSTRUCTION = 64
#: The HNSW build of the settings' defaults.
DEFAULT_BUILD = IndexBuild()
#: The functions of the indexed conditions of a section look-up or a quoted phrase, which row security lets an index
#: answer only when LEAKPROOF (migration 0008 marks them so when it runs as a superuser).
LOOKUP_FUNCTIONS = ("textlike(text, text)", "texticregexeq(text, text)", "arrayoverlap(anyarray, anyarray)")


def _read(method: Callable[Concatenate[PgStore, _P], _T]) -> Callable[Concatenate[PgStore, _P], _T]:
    """A read that failed because the connection was lost runs once more, on a fresh connection."""

    @functools.wraps(method)
    def once_more(store: PgStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return method(store, *args, **kwargs)
        except StoreUnavailable:
            if store._reconnect is None:
                raise
            return method(store, *args, **kwargs)

    return once_more


class PgStore:
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

    @contextlib.contextmanager
    def scoped(self, workspace: str, settings: Mapping[str, str] | None = None) -> Iterator[Connection]:
        """A transaction acting for ``workspace`` (:data:`CATALOGUE` for every workspace): row-level security
        shows and accepts only its rows. Nested use keeps the outer scope's role. ``settings``: more
        transaction-local settings (name to value), set in the same statement.

        A connection found lost is replaced first (see :class:`~kruschnexus.store.database.Database`).

        Raises:
            StoreUnavailable: the connection was lost during the transaction (nothing of it is committed).
        """
        if self.conn.closed or self.conn.broken:
            self._replace_connection()
        try:
            with self.conn.transaction():
                extra = list((settings or {}).items())
                params = {"workspace": workspace}
                for i, (name, value) in enumerate(extra):
                    params[f"setting_{i}"], params[f"value_{i}"] = name, value
                lower = self._lower_role and workspace != CATALOGUE
                self.conn.execute(q.scope_statement(lower, len(extra)), params)
                yield self.conn
        except psycopg.OperationalError as exc:
            if self.conn.closed or self.conn.broken:
                raise StoreUnavailable(f"the connection to the database was lost: {exc}") from exc
            raise

    def _replace_connection(self) -> None:
        if self._reconnect is None:
            raise StoreUnavailable("the connection to the database was lost")
        self.conn.close()
        self.conn = self._reconnect()

    @_read
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

    @_read
    def role_limits(self) -> list[RoleLimit]:
        """What the connected role cannot do that the store would use, each with what a DBA runs to lift it
        (empty: nothing is missing)."""
        with self.scoped(CATALOGUE) as conn:
            row = _one(conn, RoleStandingRow, q.SELECT_ROLE_STANDING, {})
        assert row is not None
        limits = []
        if not row.fulltext_leakproof:
            limits.append(
                RoleLimit(
                    "full-text matching is not LEAKPROOF, so under row security the full-text leg of a search of"
                    " older versions scans its workspace instead of using the GIN index (5-10x slower)",
                    "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;  -- as a superuser",
                )
            )
        if not row.lookups_leakproof:
            limits.append(
                RoleLimit(
                    "LIKE, case-insensitive regular expressions and array overlap are not LEAKPROOF, so under row"
                    " security a question that names a section ranks every span of its workspace instead of using"
                    " the section indexes (0.5 s instead of 5 ms at 10^5 spans)",
                    " ".join(f"ALTER FUNCTION pg_catalog.{f} LEAKPROOF;" for f in LOOKUP_FUNCTIONS)
                    + "  -- as a superuser",
                )
            )
        if row.owner is not None and row.owner != row.role and not row.superuser:
            limits.append(
                RoleLimit(
                    f"the tables belong to {row.owner}, not {row.role}: a new version's migrations cannot run",
                    f"connect as {row.owner} once after upgrading, or, as a superuser (or a member of both roles):"
                    f" REASSIGN OWNED BY {_quoted(row.owner)} TO {_quoted(row.role)};",
                )
            )
        return limits

    def role_summary(self) -> str:
        """Who the connection acts as, and what binds it to one workspace at a time."""
        with self.scoped(CATALOGUE) as conn:
            row = _one(conn, RoleStandingRow, q.SELECT_ROLE_STANDING, {})
        assert row is not None
        if row.superuser or row.bypass_rls:
            return f"{row.role} on {row.database} bypasses row security: workspace transactions act as nexus_workspace"
        if row.owner is not None and row.owner != row.role:
            return (
                f"{row.role} on {row.database} (no superuser, not the tables' owner {row.owner}): row security binds it"
            )
        return f"{row.role} on {row.database} (no superuser): row security binds it as the tables' owner"

    @_read
    def workspace(self, name: str) -> tuple[str, int] | None:
        """``(model_id, dim)`` of a workspace, or ``None`` if it does not exist."""
        with self.scoped(name) as conn:
            row = conn.execute(q.SELECT_WORKSPACE, {"name": name}).fetchone()
        return None if row is None else (str(row["model_id"]), int(row["dim"]))

    @_read
    def workspaces(self) -> list[WorkspaceRow]:
        """Every workspace with its model and document count (catalogue scope)."""
        with self.scoped(CATALOGUE) as conn:
            return _all(conn, WorkspaceRow, q.SELECT_WORKSPACES, {})

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

    @_read
    def outbox_head(self, workspace: str) -> tuple[str, int] | None:
        """``(generation, last seq)`` of a workspace's lexical outbox: the generation changes when a workspace of
        that name is deleted and made again. ``None`` when the workspace does not exist."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.SELECT_OUTBOX_HEAD, {"workspace": workspace}).fetchone()
        return None if row is None else (str(row["generation"]), int(row["head"]))

    @_read
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

    @_read
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
            return _all(conn, LexicalDocumentRow, statement, params)

    @_read
    def _doc_id_in_use(self, doc_id: str) -> bool:
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.COUNT_DOC_ID_USES, {"doc_id": doc_id}).fetchone()
        return row is not None and int(row["uses"]) > 0

    @_read
    def page(self, workspace: str, doc_id: str, page_number: int) -> PageRow | None:
        """One stored page (or unit) with its document's source and kind, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        with self.scoped(workspace) as conn:
            return _one(conn, PageRow, q.SELECT_PAGE, params)

    @_read
    def unit(self, workspace: str, doc_id: str, locator: Mapping[str, Any]) -> PageRow | None:
        """The stored unit of an unpaged document at ``locator``, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "locator": Jsonb(dict(locator))}
        with self.scoped(workspace) as conn:
            return _one(conn, PageRow, q.SELECT_UNIT, params)

    @_read
    def page_spans(self, workspace: str, doc_id: str, page_number: int) -> list[HitRow]:
        """The spans of one page in reading order."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        with self.scoped(workspace) as conn:
            return _all(conn, HitRow, q.SELECT_PAGE_SPANS, params)

    @_read
    def document_source(self, workspace: str, doc_id: str) -> str | None:
        """The stored source name of a document version, or ``None`` if absent."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.SELECT_DOCUMENT, {"workspace": workspace, "doc_id": doc_id}).fetchone()
        return None if row is None else str(row["source"])

    @_read
    def stored(self, workspace: str, doc_id: str) -> StoredRow | None:
        """How a stored content is known (name, version, latest, ingested_at), or ``None``."""
        with self.scoped(workspace) as conn:
            return _one(conn, StoredRow, q.SELECT_STORED, {"workspace": workspace, "doc_id": doc_id})

    @_read
    def versions(self, workspace: str, name: str) -> list[DocumentRow]:
        """Every version of a document name, oldest first."""
        with self.scoped(workspace) as conn:
            return _all(conn, DocumentRow, q.SELECT_VERSIONS, {"workspace": workspace, "name": name})

    @_read
    def document_names(self, workspace: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The names of the given stored contents (those that exist), by doc_id."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_NAMES, {"workspace": workspace, "doc_ids": list(doc_ids)})
            return {str(row["doc_id"]): str(row["name"]) for row in rows.fetchall()}

    @_read
    def document_hits(self, workspace: str, doc_id: str) -> list[HitRow]:
        """Every span of one stored version in reading order."""
        with self.scoped(workspace) as conn:
            return _all(conn, HitRow, q.SELECT_DOCUMENT_HITS, {"workspace": workspace, "doc_id": doc_id})

    @_read
    def document_sources(self, workspace: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The stored source names of the given documents (those that exist), by doc_id."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_SOURCES, {"workspace": workspace, "doc_ids": list(doc_ids)})
            return {str(row["doc_id"]): str(row["source"]) for row in rows.fetchall()}

    @_read
    def read_versions(self, workspace: str, doc_id: str | None = None) -> list[ReadVersionsRow]:
        """Each document's (or one's) source, type, extractor and chunker versions, and whether a page still needs
        OCR."""
        with self.scoped(workspace) as conn:
            return _all(conn, ReadVersionsRow, q.SELECT_READ_VERSIONS, {"workspace": workspace, "doc_id": doc_id})

    @_read
    def span_vectors(self, workspace: str, dim: int, limit: int) -> list[SpanVectorRow]:
        """Up to ``limit`` spans of the latest versions with their vectors of dimension ``dim``, in document order
        (what ``bench/search.py --like`` builds realistic spans from)."""
        with self.scoped(workspace) as conn:
            params = {"workspace": workspace, "dim": dim, "limit": limit}
            return _all(conn, SpanVectorRow, q.SELECT_SPAN_VECTORS, params)

    @_read
    def document_vectors(self, workspace: str, doc_id: str, dim: int) -> dict[str, Any]:
        """The stored vectors of one document by embedding key."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_VECTORS, {"workspace": workspace, "doc_id": doc_id, "dim": dim})
            return {str(r["embed_key"]): r["embedding"] for r in rows.fetchall()}

    @contextlib.contextmanager
    def document_transaction(self, workspace: str) -> Iterator[DocumentWriter]:
        """One transaction for one document of ``workspace``: all of it is stored, or none of it."""
        try:
            with self.scoped(workspace) as conn:
                yield DocumentWriter(conn)
        except psycopg.Error as exc:
            raise StoreError(f"the database refused the document: {exc}") from exc

    @_read
    def documents(self, workspace: str) -> list[DocumentRow]:
        """Documents of a workspace."""
        with self.scoped(workspace) as conn:
            return _all(conn, DocumentRow, q.SELECT_DOCUMENTS, {"workspace": workspace})

    @_read
    def document(self, workspace: str, doc_id: str) -> DocumentRow | None:
        """One document of a workspace, or ``None``."""
        with self.scoped(workspace) as conn:
            return _one(conn, DocumentRow, q.SELECT_DOCUMENT_INFO, {"workspace": workspace, "doc_id": doc_id})

    @_read
    def pages(self, workspace: str, doc_id: str) -> list[PageTextRow]:
        """Stored pages of a document (number, text, needs_ocr)."""
        with self.scoped(workspace) as conn:
            return _all(conn, PageTextRow, q.SELECT_PAGES, {"workspace": workspace, "doc_id": doc_id})

    @_read
    def document_spans(self, workspace: str, doc_id: str) -> list[SpanTextRow]:
        """Stored spans of a document (offsets, text, boxes)."""
        with self.scoped(workspace) as conn:
            return _all(conn, SpanTextRow, q.SELECT_DOC_SPANS, {"workspace": workspace, "doc_id": doc_id})

    def iter_spans(self, workspace: str) -> Iterator[HitRow]:
        """Every span of a workspace with its document and page fields, streamed."""
        with self.scoped(workspace) as conn, conn.cursor(name="export_spans", row_factory=class_row(HitRow)) as cur:
            cur.itersize = 500
            cur.execute(q.SELECT_SPANS, {"workspace": workspace})
            yield from cur

    @_read
    def run_leg(
        self,
        query: Any,
        params: Mapping[str, Any],
        ef_search: int = EF_SEARCH,
        planned_for_values: bool = False,
        exact: bool = False,
        work_mem: str | None = None,
    ) -> list[LegRow]:
        """Run one retrieval leg for ``params["workspace"]`` (HNSW with a beam of ``ef_search`` and iterative
        scans, so filters keep recall); ``planned_for_values``: plan this run for its own values, never a cached
        generic plan (see :attr:`~kruschnexus.store.queries.SpanFilter.planned_for_values`); ``exact``: no index
        scan, so a dense leg ranks by the exact distance of every span (what ``bench/search.py`` measures the
        HNSW index's recall against); ``work_mem``: PostgreSQL's ``work_mem`` for this leg's transaction alone
        (``32MB``), the server's own when omitted."""
        with self._leg_scope(params, ef_search, planned_for_values, work_mem) as conn:
            if exact:
                conn.execute("SET LOCAL enable_indexscan = off")
            return _all(conn, LegRow, query, params)

    @_read
    def run_leg_and_cosines(
        self,
        query: Any,
        params: Mapping[str, Any],
        ef_search: int,
        planned_for_values: bool,
        seeds: Sequence[tuple[str, int, int]],
        dim: int,
    ) -> tuple[list[LegRow], dict[tuple[str, int, int], float]]:
        """:meth:`run_leg` (never exact), and in the same transaction the cosines to ``params["vector"]`` of the
        ``seeds`` (span keys; :func:`~.queries.span_cosines`: spans of another dimension have none)."""
        with self._leg_scope(params, ef_search, planned_for_values) as conn:
            rows = _all(conn, LegRow, query, params)
            others = list(dict.fromkeys(seeds))
            if not others:
                return rows, {}
            bound = {
                "workspace": params["workspace"],
                "vector": params["vector"],
                "key_docs": [key[0] for key in others],
                "key_pages": [key[1] for key in others],
                "key_ordinals": [key[2] for key in others],
            }
            with conn.cursor(row_factory=tuple_row) as cur:
                found = cur.execute(q.span_cosines(dim), bound).fetchall()
        return rows, {(doc, page, ordinal): float(cosine) for doc, page, ordinal, cosine in found}

    def passing_estimate(
        self, query: Any, params: Mapping[str, Any], planned_for_values: bool = False
    ) -> tuple[float, float]:
        """``(spans the planner expects to pass, spans stored)`` for a :func:`~.queries.passing_plan` statement,
        under the scope :meth:`run_leg` uses."""
        with (
            self._leg_scope(params, EF_SEARCH, planned_for_values) as conn,
            conn.cursor(row_factory=tuple_row) as cur,
        ):
            plan = cur.execute(query, dict(params)).fetchone()
            stored = _spans_stored(cur)
        rows = float(plan[0][0]["Plan"]["Plan Rows"]) if plan is not None else 0.0
        return rows, stored

    def spans_stored(self, workspace: str) -> float:
        """How many spans the table holds, as the planner last counted them (every workspace's: the HNSW index
        holds them all), read under ``workspace``'s scope."""
        with self.scoped(workspace) as conn, conn.cursor(row_factory=tuple_row) as cur:
            return _spans_stored(cur)

    def explain_leg(
        self, query: Any, params: Mapping[str, Any], ef_search: int = EF_SEARCH, planned_for_values: bool = False
    ) -> list[str]:
        """The planner's plan of one retrieval leg under the settings :meth:`run_leg` uses, line by line."""
        with (
            self._leg_scope(params, ef_search, planned_for_values) as conn,
            conn.cursor(row_factory=tuple_row) as cur,
        ):
            return [str(row[0]) for row in cur.execute(sql.SQL("EXPLAIN ") + query, dict(params))]

    @contextlib.contextmanager
    def _leg_scope(
        self, params: Mapping[str, Any], ef_search: int, planned_for_values: bool, work_mem: str | None = None
    ) -> Iterator[Connection]:
        """A leg's transaction: its workspace's scope, HNSW with a beam of ``ef_search``, iterative scans (and
        ``work_mem`` when given)."""
        settings = {"hnsw.ef_search": str(ef_search), "hnsw.iterative_scan": "relaxed_order"}
        if planned_for_values:
            settings["plan_cache_mode"] = "force_custom_plan"
        if work_mem is not None:
            settings["work_mem"] = work_mem
        with self.scoped(str(params["workspace"]), settings) as conn:
            yield conn

    def drop_vector_index(self, dim: int) -> None:
        """Drop the HNSW index of one dimension (before a bulk load; :meth:`build_vector_index` makes it again)."""
        with self.scoped(CATALOGUE) as conn:
            conn.execute(q.drop_hnsw_index_ddl(dim))

    def build_vector_index(
        self, dim: int, index: IndexBuild = DEFAULT_BUILD, maintenance_work_mem: str | None = None
    ) -> None:
        """Build the HNSW index of one dimension as ``index`` says if it is missing, with more memory for the build
        if given."""
        with self.scoped(CATALOGUE) as conn:
            if maintenance_work_mem is not None:
                conn.execute(q.SET_MAINTENANCE_MEMORY, {"memory": maintenance_work_mem})
            conn.execute(q.LOCK_INDEX_DDL)
            conn.execute(q.hnsw_index_ddl(dim, index.m, index.ef_construction))

    def rebuild_vector_index(self, dim: int, index: IndexBuild, maintenance_work_mem: str | None = None) -> None:
        """Build the HNSW index of one dimension again as ``index`` says, beside the one in use (``CONCURRENTLY``:
        searches read and ingests write meanwhile), swap the two names in one short transaction, then drop the
        replaced index concurrently. One rebuild at a time (a second is refused); a failed build is dropped, and
        what a stopped one left (an invalid build, a replaced index) is dropped by the next. Use a connection of
        its own: the session's advisory lock is released when it closes, whatever stopped the rebuild.

        Raises:
            StoreError: the rebuild failed or another is running (the index in use is kept).
        """
        conn = self.conn  # autocommit: a concurrent build runs outside any transaction
        try:
            row = conn.execute(q.TRY_LOCK_INDEX_REBUILD).fetchone()
            if not (row and row["locked"]):
                raise StoreError("another rebuild of a vector index is running: wait for it to finish")
            try:
                conn.execute(q.drop_replaced_index_ddl(dim))
                conn.execute(q.drop_rebuilt_index_ddl(dim))
                with _maintenance_memory(conn, maintenance_work_mem):
                    try:
                        conn.execute(q.hnsw_index_ddl(dim, index.m, index.ef_construction, rebuild=True))
                    except psycopg.Error:
                        if not (conn.closed or conn.broken):
                            conn.execute(q.drop_rebuilt_index_ddl(dim))
                        raise
                with self.scoped(CATALOGUE) as swap:
                    swap.execute(q.LOCK_INDEX_DDL)
                    swap.execute(q.rename_index_ddl(dim, "", q.REPLACED_SUFFIX))
                    swap.execute(q.rename_index_ddl(dim, q.REBUILD_SUFFIX, ""))
                conn.execute(q.drop_replaced_index_ddl(dim))
            finally:
                if not (conn.closed or conn.broken):
                    conn.execute(q.UNLOCK_INDEX_REBUILD)
        except psycopg.Error as exc:
            raise StoreError(f"cannot rebuild the vector index of {dim} dimensions: {exc}") from exc

    def rewrite_spans(self, maintenance_work_mem: str | None = None) -> None:
        """Rewrite the spans table (``VACUUM FULL``): every workspace's spans, their vectors moved into their rows
        (migration 0011), every index of the table built again with ``maintenance_work_mem`` (the server's own when
        omitted). Searches and ingests wait until it ends.

        Raises:
            StoreError: the rewrite failed (the table is as it was): not the table's owner, no room for the copy.
        """
        conn = self.conn  # autocommit: VACUUM runs outside any transaction
        try:
            with _maintenance_memory(conn, maintenance_work_mem):
                conn.execute(q.REWRITE_SPANS)
        except psycopg.Error as exc:
            raise StoreError(f"cannot rewrite the spans table: {exc}") from exc

    def maintenance_progress(self, pid: int) -> ProgressRow | None:
        """Where backend ``pid``'s statement stands (:data:`~.queries.SELECT_MAINTENANCE_PROGRESS`), ``None`` when
        no such backend runs (see :mod:`~kruschnexus.store.progress`)."""
        with self.scoped(CATALOGUE) as conn:
            return _one(conn, ProgressRow, q.SELECT_MAINTENANCE_PROGRESS, {"pid": pid})

    def vector_index_build(self, dim: int) -> IndexBuild | None:
        """How the HNSW index of one dimension was built (pgvector's defaults where its options are silent), or
        ``None`` when there is none."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.SELECT_INDEX_OPTIONS, {"name": q.hnsw_index_name(dim)}).fetchone()
        if row is None:
            return None
        options = dict(str(o).split("=", 1) for o in row["options"] or ())
        return IndexBuild(
            int(options.get("m", PGVECTOR_M)), int(options.get("ef_construction", PGVECTOR_EF_CONSTRUCTION))
        )

    def invalid_indexes(self) -> list[str]:
        """The names of this schema's indexes PostgreSQL does not use (``pg_index.indisvalid`` false)."""
        with self.scoped(CATALOGUE) as conn:
            return [str(row["name"]) for row in conn.execute(q.SELECT_INVALID_INDEXES).fetchall()]

    def vector_index_size(self, dim: int) -> str | None:
        """The HNSW index's size on disk, as PostgreSQL prints it, or ``None`` when there is none."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.SELECT_INDEX_SIZE, {"name": q.hnsw_index_name(dim)}).fetchone()
        return None if row is None or row["size"] is None else str(row["size"])

    def buffer_cache(self, dim: int) -> tuple[int, int | None]:
        """The server's ``shared_buffers`` and the size on disk of the HNSW index of one dimension (``None`` when
        there is none), in bytes."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.SELECT_BUFFER_CACHE, {"name": q.hnsw_index_name(dim)}).fetchone()
        assert row is not None
        return int(row["buffers"]), None if row["index"] is None else int(row["index"])

    @_read
    def vector_storage(self, sample: int = 10_000) -> VectorStorage:
        """Where spans keep their vectors: the TOAST data's size, the spans of documents stored before migration
        0011 (every workspace's), and among at most ``sample`` of those how many keep their vector in TOAST (on
        PostgreSQL 17 and later)."""
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.SELECT_TOAST_SIZE).fetchone()
            assert row is not None
            toast, since = int(row["toast_bytes"]), row["since"]
            if not toast or since is None:
                return VectorStorage(toast, 0, 0, 0)
            counted = conn.execute(q.COUNT_OLDER_SPANS, {"since": since}).fetchone()
            older = int(counted["older"]) if counted is not None else 0
            if not older:
                return VectorStorage(toast, 0, 0, 0)
            if self.conn.info.server_version < 170000:
                return VectorStorage(toast, older, 0, None)
            found = conn.execute(q.SELECT_OLDER_OUT_OF_LINE, {"since": since, "sample": sample}).fetchone()
        assert found is not None
        return VectorStorage(toast, older, int(found["read"]), int(found["outside"]))

    @_read
    def has_unmarked_spans(self, workspace: str) -> bool:
        """Whether some span of ``workspace`` was stored without its line markers (before migration 0010)."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.SELECT_UNMARKED, {"workspace": workspace}).fetchone()
        return bool(row is not None and row["unmarked"])

    def unmarked_count(self, workspace: str) -> int:
        """How many spans of ``workspace`` were stored without their line markers (the partial index counts them)."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.COUNT_UNMARKED, {"workspace": workspace}).fetchone()
        return 0 if row is None else int(row["unmarked"])

    def mark_lines(
        self,
        workspace: str,
        markers: Callable[[str], list[str]],
        batch: int = 1000,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Store the line markers (``markers`` of its text) of each span of ``workspace`` stored without them, a
        batch per transaction, the batch's rows locked from their reading to their update (a span replaced meanwhile
        is the writer's, with its own markers); returns how many spans were marked. ``progress`` hears the count
        after each batch."""
        marked = 0
        while True:
            with self.scoped(workspace) as conn:
                rows = conn.execute(q.SELECT_UNMARKED_SPANS, {"workspace": workspace, "limit": batch}).fetchall()
                if not rows:
                    return marked
                payload = [
                    {
                        "doc_id": r["doc_id"],
                        "page_number": r["page_number"],
                        "ordinal": r["ordinal"],
                        "markers": markers(str(r["text"])),
                    }
                    for r in rows
                ]
                done = conn.execute(q.UPDATE_LINE_MARKERS, {"workspace": workspace, "rows": Jsonb(payload)}).rowcount
            if done <= 0:
                return marked  # nothing the batch read could be marked: stop rather than read it again
            marked += done
            if progress is not None:
                progress(marked)

    def analyze(self) -> None:
        """Refresh the planner's statistics of the document tables (after a bulk load)."""
        with self.scoped(CATALOGUE) as conn:
            conn.execute(q.ANALYZE)

    def insert_token(self, token: TokenRecord) -> None:
        """Store a new API token (its secret hashed by the caller)."""
        with self.scoped(CATALOGUE) as conn:
            conn.execute(q.INSERT_TOKEN, values(token))

    @_read
    def token(self, token_id: str) -> TokenSecretRow | None:
        """One token by id (revoked ones included), or ``None``."""
        with self.scoped(CATALOGUE) as conn:
            return _one(conn, TokenSecretRow, q.SELECT_TOKEN, {"token_id": token_id})

    @_read
    def tokens(self, workspace: str) -> list[TokenRow]:
        """The tokens of a workspace, without their hashes."""
        with self.scoped(CATALOGUE) as conn:
            return _all(conn, TokenRow, q.SELECT_TOKENS, {"workspace": workspace})

    def revoke_token(self, token_id: str) -> bool:
        """Revoke a token; True if it was live."""
        with self.scoped(CATALOGUE) as conn:
            return conn.execute(q.REVOKE_TOKEN, {"token_id": token_id}).rowcount > 0

    @_read
    def counts(self, workspace: str) -> tuple[int, int, int]:
        """Documents, pages and spans stored in a workspace."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.COUNT_WORKSPACE, {"workspace": workspace}).fetchone()
        assert row is not None
        return int(row["documents"]), int(row["pages"]), int(row["spans"])


def _spans_stored(cur: Any) -> float:
    """The planner's count of the spans table's rows (:data:`~.queries.SELECT_SPANS_ESTIMATE`), on a tuple cursor."""
    row = cur.execute(q.SELECT_SPANS_ESTIMATE).fetchone()
    return float(row[0]) if row is not None else 0.0


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


def _quoted(name: str) -> str:
    """A role name as SQL writes it (for advice shown to a DBA, never run here)."""
    return sql.Identifier(name).as_string(None)


def _redact(dsn: str) -> str:
    if "@" in dsn and "://" in dsn:
        scheme, rest = dsn.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return dsn
