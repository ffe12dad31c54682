"""PostgreSQL + pgvector through psycopg 3: the one storage code path (embedded or external server)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from kruschnexus.config import EF_SEARCH
from kruschnexus.errors import EmbedError, StoreError, StoreUnavailable
from kruschnexus.store import queries as q
from kruschnexus.store.migrate import migrate

Row = dict[str, Any]
Connection = psycopg.Connection[Row]
_P = ParamSpec("_P")
_T = TypeVar("_T")


CATALOGUE = "*"
"""The scope of operations across workspaces (listing them, sharing kept bytes); not a valid workspace name."""


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

    def __init__(self, dsn: str, reconnect: Callable[[], Connection] | None = None) -> None:
        self._reconnect = reconnect
        try:
            self.conn: Connection = self.open_connection(dsn)
        except StoreError:
            if reconnect is None:
                raise
            self.conn = reconnect()
        try:
            self._lower_role = self._bypasses_row_security()
        except psycopg.Error as exc:
            self.conn.close()
            raise StoreError(f"cannot read the database role: {exc}") from exc

    @staticmethod
    def open_connection(dsn: str) -> Connection:
        """A new connection to a migrated database with pgvector's types registered.

        Raises:
            StoreError: the server cannot be reached or lacks pgvector.
        """
        try:
            conn: Connection = psycopg.connect(dsn, autocommit=True, row_factory=dict_row)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL ({_redact(dsn)}): {exc}") from exc
        try:
            migrate(conn)
            from pgvector.psycopg import register_vector

            register_vector(conn)
        except psycopg.Error as exc:
            conn.close()
            raise StoreError(f"cannot prepare the database (is pgvector installed?): {exc}") from exc
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

    @contextlib.contextmanager
    def scoped(self, workspace: str) -> Iterator[Connection]:
        """A transaction acting for ``workspace`` (:data:`CATALOGUE` for every workspace): row-level security
        shows and accepts only its rows. Nested use keeps the outer scope's role.

        A connection found lost is replaced first (see :class:`~kruschnexus.store.database.Database`).

        Raises:
            StoreUnavailable: the connection was lost during the transaction (nothing of it is committed).
        """
        if self.conn.closed or self.conn.broken:
            self._replace_connection()
        try:
            with self.conn.transaction():
                self.conn.execute(q.SET_WORKSPACE, {"workspace": workspace})
                if self._lower_role and workspace != CATALOGUE:
                    self.conn.execute(q.SET_SCOPED_ROLE)
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

    @_read
    def workspace(self, name: str) -> tuple[str, int] | None:
        """``(model_id, dim)`` of a workspace, or ``None`` if it does not exist."""
        with self.scoped(name) as conn:
            row = conn.execute(q.SELECT_WORKSPACE, {"name": name}).fetchone()
        return None if row is None else (str(row["model_id"]), int(row["dim"]))

    @_read
    def workspaces(self) -> list[Row]:
        """Every workspace with its model and document count (catalogue scope)."""
        with self.scoped(CATALOGUE) as conn:
            return conn.execute(q.SELECT_WORKSPACES).fetchall()

    def ensure_workspace(self, name: str, model_id: str, dim: int) -> bool:
        """Create a workspace bound to an embedding model, or check that it is bound to this one; True when this call
        created it (of two racing calls, exactly one).

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
            conn.execute(q.LOCK_INDEX_DDL)  # a second writer waits, then finds the index made
            conn.execute(q.hnsw_index_ddl(dim))
        return created is not None

    def delete_workspace(self, name: str) -> bool:
        """Remove a workspace and everything in it; True if it existed."""
        with self.scoped(name) as conn:
            return conn.execute(q.DELETE_WORKSPACE, {"name": name}).rowcount > 0

    def delete_workspace_documents(self, name: str) -> tuple[bool, list[str]]:
        """Remove a workspace; returns whether it existed and the doc ids no other workspace still holds."""
        with self.scoped(name) as conn:
            ids = [str(r["doc_id"]) for r in conn.execute(q.SELECT_WORKSPACE_DOC_IDS, {"name": name})]
            existed = conn.execute(q.DELETE_WORKSPACE, {"name": name}).rowcount > 0
        return existed, [i for i in ids if not self._doc_id_in_use(i)]

    def delete_document(self, workspace: str, doc_id: str) -> tuple[bool, bool]:
        """Remove one document version (and tell the lexical index, in the same transaction); when it was the
        latest of its name, the newest remaining version becomes the latest. Returns whether it existed and
        whether no workspace holds its bytes any more."""
        params = {"workspace": workspace, "doc_id": doc_id}
        with self.scoped(workspace) as conn:
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

    def lexical_spans(self, workspace: str, doc_ids: Sequence[str] | None) -> Iterator[Row]:
        """What the lexical index needs of each span of these documents (of every document: ``None``), streamed."""
        statement = q.SELECT_ALL_LEXICAL_SPANS if doc_ids is None else q.SELECT_LEXICAL_SPANS
        params = {"workspace": workspace, "doc_ids": list(doc_ids or ())}
        with self.scoped(workspace) as conn, conn.cursor(name="lexical_spans") as cur:
            cur.itersize = 1000
            cur.execute(statement, params)
            yield from cur

    @_read
    def lexical_documents(
        self, workspace: str, doc_ids: Sequence[str] | None, front_pages: int, front_chars: int
    ) -> list[Row]:
        """Each document's source, type and the text of its first pages (units), for the document index."""
        statement = q.SELECT_ALL_LEXICAL_DOCUMENTS if doc_ids is None else q.SELECT_LEXICAL_DOCUMENTS
        params = {
            "workspace": workspace,
            "doc_ids": list(doc_ids or ()),
            "front_pages": front_pages,
            "front_chars": front_chars,
        }
        with self.scoped(workspace) as conn:
            return conn.execute(statement, params).fetchall()

    @_read
    def _doc_id_in_use(self, doc_id: str) -> bool:
        with self.scoped(CATALOGUE) as conn:
            row = conn.execute(q.COUNT_DOC_ID_USES, {"doc_id": doc_id}).fetchone()
        return row is not None and int(row["uses"]) > 0

    @_read
    def page(self, workspace: str, doc_id: str, page_number: int) -> Row | None:
        """One stored page (or unit) with its document's source and kind, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_PAGE, params).fetchone()

    @_read
    def unit(self, workspace: str, doc_id: str, locator: Mapping[str, Any]) -> Row | None:
        """The stored unit of an unpaged document at ``locator``, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "locator": Jsonb(dict(locator))}
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_UNIT, params).fetchone()

    @_read
    def page_spans(self, workspace: str, doc_id: str, page_number: int) -> list[Row]:
        """The spans of one page in reading order, as ``iter_spans`` rows."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_PAGE_SPANS, params).fetchall()

    @_read
    def document_source(self, workspace: str, doc_id: str) -> str | None:
        """The stored source name of a document version, or ``None`` if absent."""
        with self.scoped(workspace) as conn:
            row = conn.execute(q.SELECT_DOCUMENT, {"workspace": workspace, "doc_id": doc_id}).fetchone()
        return None if row is None else str(row["source"])

    @_read
    def stored(self, workspace: str, doc_id: str) -> Row | None:
        """How a stored content is known (doc_id, source, name, version, latest, ingested_at), or ``None``."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_STORED, {"workspace": workspace, "doc_id": doc_id}).fetchone()

    @_read
    def versions(self, workspace: str, name: str) -> list[Row]:
        """Every version of a document name, oldest first."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_VERSIONS, {"workspace": workspace, "name": name}).fetchall()

    @_read
    def document_names(self, workspace: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The names of the given stored contents (those that exist), by doc_id."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_NAMES, {"workspace": workspace, "doc_ids": list(doc_ids)})
            return {str(row["doc_id"]): str(row["name"]) for row in rows.fetchall()}

    @_read
    def document_hits(self, workspace: str, doc_id: str) -> list[Row]:
        """Every span of one stored version in reading order, as ``iter_spans`` rows (hit columns)."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_DOCUMENT_HITS, {"workspace": workspace, "doc_id": doc_id}).fetchall()

    @_read
    def document_sources(self, workspace: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The stored source names of the given documents (those that exist), by doc_id."""
        with self.scoped(workspace) as conn:
            rows = conn.execute(q.SELECT_DOCUMENT_SOURCES, {"workspace": workspace, "doc_ids": list(doc_ids)})
            return {str(row["doc_id"]): str(row["source"]) for row in rows.fetchall()}

    @_read
    def read_versions(self, workspace: str, doc_id: str | None = None) -> list[Row]:
        """Each document's (or one's) source, type, extractor and chunker versions, and whether a page still needs
        OCR."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_READ_VERSIONS, {"workspace": workspace, "doc_id": doc_id}).fetchall()

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
    def documents(self, workspace: str) -> list[Row]:
        """Documents of a workspace."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_DOCUMENTS, {"workspace": workspace}).fetchall()

    @_read
    def document(self, workspace: str, doc_id: str) -> Row | None:
        """One document of a workspace (the ``documents`` columns), or ``None``."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_DOCUMENT_INFO, {"workspace": workspace, "doc_id": doc_id}).fetchone()

    @_read
    def pages(self, workspace: str, doc_id: str) -> list[Row]:
        """Stored pages of a document (number, text, needs_ocr)."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_PAGES, {"workspace": workspace, "doc_id": doc_id}).fetchall()

    @_read
    def document_spans(self, workspace: str, doc_id: str) -> list[Row]:
        """Stored spans of a document (offsets, text, boxes)."""
        with self.scoped(workspace) as conn:
            return conn.execute(q.SELECT_DOC_SPANS, {"workspace": workspace, "doc_id": doc_id}).fetchall()

    def iter_spans(self, workspace: str) -> Iterator[Row]:
        """Every span of a workspace with its document and page fields, streamed."""
        with self.scoped(workspace) as conn, conn.cursor(name="export_spans") as cur:
            cur.itersize = 500
            cur.execute(q.SELECT_SPANS, {"workspace": workspace})
            yield from cur

    @_read
    def run_leg(self, query: Any, params: Mapping[str, Any]) -> list[Row]:
        """Run one retrieval leg for ``params["workspace"]`` (HNSW with a wider beam and iterative scans, so
        filters keep recall)."""
        with self.scoped(str(params["workspace"])) as conn:
            conn.execute("SELECT set_config('hnsw.ef_search', %(ef)s, true)", {"ef": str(EF_SEARCH)})
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            return conn.execute(query, dict(params)).fetchall()

    def insert_token(self, values: Mapping[str, Any]) -> None:
        """Store a new API token (its secret hashed by the caller)."""
        with self.scoped(CATALOGUE) as conn:
            conn.execute(q.INSERT_TOKEN, dict(values))

    @_read
    def token(self, token_id: str) -> Row | None:
        """One token by id (revoked ones included), or ``None``."""
        with self.scoped(CATALOGUE) as conn:
            return conn.execute(q.SELECT_TOKEN, {"token_id": token_id}).fetchone()

    @_read
    def tokens(self, workspace: str) -> list[Row]:
        """The tokens of a workspace, without their hashes."""
        with self.scoped(CATALOGUE) as conn:
            return conn.execute(q.SELECT_TOKENS, {"workspace": workspace}).fetchall()

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


class DocumentWriter:
    """Inserts one document's rows inside the caller's transaction, in batches."""

    def __init__(self, conn: psycopg.Connection[Row]) -> None:
        self._conn = conn

    def document(self, values: Mapping[str, Any]) -> bool:
        """The document row (first); ``meta`` as a plain JSON object. False when another writer stored the same
        document first: this insert waits for that writer's transaction, so two writers of one document never
        both store it and neither sees a constraint error; the caller then rolls back."""
        row = self._conn.execute(q.INSERT_DOCUMENT, {**values, "meta": Jsonb(values.get("meta") or {})}).fetchone()
        return row is not None

    def claim_version(self, workspace: str, name: str, doc_id: str) -> tuple[int, list[str]]:
        """The next version number of ``name`` for the content ``doc_id``, which becomes its latest: returns the
        number and the doc_ids that stop being the latest. Holds the name's lock until commit, so two writers of one
        name never take the same number."""
        params = {"workspace": workspace, "name": name, "doc_id": doc_id}
        self._conn.execute(q.LOCK_DOCUMENT_NAME, params)
        row = self._conn.execute(q.NEXT_VERSION, params).fetchone()
        superseded = [str(r["doc_id"]) for r in self._conn.execute(q.SUPERSEDE, params).fetchall()]
        return int(row["version"]) if row else 1, superseded

    def restore_latest(self, workspace: str, name: str, doc_id: str) -> list[str]:
        """Make the stored version ``doc_id`` of ``name`` its latest again (its file went back to those bytes);
        returns the doc_ids whose standing changed (empty when it already was the latest)."""
        params = {"workspace": workspace, "name": name, "doc_id": doc_id}
        self._conn.execute(q.LOCK_DOCUMENT_NAME, params)
        superseded = [str(r["doc_id"]) for r in self._conn.execute(q.SUPERSEDE, params).fetchall()]
        promoted = [str(r["doc_id"]) for r in self._conn.execute(q.MAKE_LATEST, params).fetchall()]
        return promoted + superseded

    def remove(self, workspace: str, doc_id: str) -> bool:
        """Delete the stored document (its pages, blocks and spans go with it) before it is stored again in this
        transaction: a reader sees the old version until commit, then the new one, never neither. False when there
        was none (deleted meanwhile)."""
        return self._conn.execute(q.DELETE_DOCUMENT, {"workspace": workspace, "doc_id": doc_id}).rowcount > 0

    def vectors_by_key(self, workspace: str, dim: int, keys: Sequence[str]) -> dict[str, Any]:
        """Stored vectors of this workspace by embedding key (those found), read in this transaction."""
        if not keys:
            return {}
        rows = self._conn.execute(q.SELECT_VECTORS_BY_KEY, {"workspace": workspace, "dim": dim, "keys": list(keys)})
        return {str(r["embed_key"]): r["embedding"] for r in rows.fetchall()}

    def pages(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Page (or unit) rows; ``locator`` as a plain JSON value or ``None``."""
        self._many(q.INSERT_PAGE, [{**r, "locator": _json(r["locator"])} for r in rows])

    def blocks(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Block rows of one page."""
        self._many(q.INSERT_BLOCK, rows)

    def announce(self, workspace: str, doc_id: str, op: str) -> None:
        """Tell the lexical index (through its outbox) that a document was stored (``upsert``) or removed
        (``delete``). Call it last in the transaction: it takes the workspace's outbox lock until commit, so that
        outbox rows of one workspace are numbered in commit order."""
        self._conn.execute(q.LOCK_OUTBOX, {"workspace": workspace})
        self._conn.execute(q.INSERT_OUTBOX, {"workspace": workspace, "doc_id": doc_id, "op": op})

    def spans(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Span rows (``boxes`` and ``locator`` as plain JSON values, ``embedding`` as a numpy vector)."""
        prepared = [{**r, "boxes": _json(r["boxes"]), "locator": _json(r["locator"])} for r in rows]
        self._many(q.INSERT_SPAN, prepared)

    def _many(self, statement: Any, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            with self._conn.cursor() as cur:
                cur.executemany(statement, [dict(r) for r in rows])


def _json(value: Any) -> Jsonb | None:
    """A JSON column value: SQL NULL for ``None``."""
    return None if value is None else Jsonb(value)


def _redact(dsn: str) -> str:
    if "@" in dsn and "://" in dsn:
        scheme, rest = dsn.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return dsn
