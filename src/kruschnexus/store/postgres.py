"""PostgreSQL + pgvector through psycopg 3: the one storage code path (embedded or external server)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from kruschnexus.errors import EmbedError, StoreError
from kruschnexus.store import queries as q
from kruschnexus.store.migrate import migrate

Row = dict[str, Any]


class PgStore:
    """A connection to a migrated database.

    Raises:
        StoreError: the server cannot be reached or lacks pgvector.
    """

    def __init__(self, dsn: str) -> None:
        try:
            self.conn: psycopg.Connection[Row] = psycopg.connect(dsn, autocommit=True, row_factory=dict_row)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL ({_redact(dsn)}): {exc}") from exc
        try:
            migrate(self.conn)
            from pgvector.psycopg import register_vector

            register_vector(self.conn)
        except psycopg.Error as exc:
            self.conn.close()
            raise StoreError(f"cannot prepare the database (is pgvector installed?): {exc}") from exc

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def server_info(self) -> dict[str, str]:
        """PostgreSQL and pgvector versions."""
        row = self.conn.execute(
            "SELECT current_setting('server_version') AS postgres,"
            " (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector"
        ).fetchone()
        assert row is not None
        return {"postgres": str(row["postgres"]), "pgvector": str(row["pgvector"])}

    def workspace(self, name: str) -> tuple[str, int] | None:
        """``(model_id, dim)`` of a workspace, or ``None`` if it does not exist."""
        row = self.conn.execute(q.SELECT_WORKSPACE, {"name": name}).fetchone()
        return None if row is None else (str(row["model_id"]), int(row["dim"]))

    def workspaces(self) -> list[Row]:
        """Every workspace with its model and document count."""
        return self.conn.execute(q.SELECT_WORKSPACES).fetchall()

    def ensure_workspace(self, name: str, model_id: str, dim: int) -> None:
        """Create a workspace bound to an embedding model, or check that it is bound to this one.

        Raises:
            EmbedError: the workspace was built with another model or dimension.
        """
        self.conn.execute(q.INSERT_WORKSPACE, {"name": name, "model_id": model_id, "dim": dim})
        stored = self.workspace(name)
        assert stored is not None
        if stored != (model_id, dim):
            raise EmbedError(
                f"workspace {name!r} was built with embedding model {stored[0]} ({stored[1]} dims); the current"
                f" model is {model_id} ({dim} dims). Use the same NEXUS_EMBEDDER or another workspace."
            )
        self.conn.execute(q.hnsw_index_ddl(dim))

    def delete_workspace(self, name: str) -> bool:
        """Remove a workspace and everything in it; True if it existed."""
        return self.conn.execute(q.DELETE_WORKSPACE, {"name": name}).rowcount > 0

    def delete_workspace_documents(self, name: str) -> tuple[bool, list[str]]:
        """Remove a workspace; returns whether it existed and the doc ids no other workspace still holds."""
        with self.conn.transaction():
            ids = [str(r["doc_id"]) for r in self.conn.execute(q.SELECT_WORKSPACE_DOC_IDS, {"name": name})]
            existed = self.conn.execute(q.DELETE_WORKSPACE, {"name": name}).rowcount > 0
            return existed, [i for i in ids if not self._doc_id_in_use(i)]

    def delete_document(self, workspace: str, doc_id: str) -> tuple[bool, bool]:
        """Remove one document; returns whether it existed and whether no workspace holds its bytes any more."""
        with self.conn.transaction():
            existed = self.conn.execute(q.DELETE_DOCUMENT, {"workspace": workspace, "doc_id": doc_id}).rowcount > 0
            return existed, existed and not self._doc_id_in_use(doc_id)

    def _doc_id_in_use(self, doc_id: str) -> bool:
        row = self.conn.execute(q.COUNT_DOC_ID_USES, {"doc_id": doc_id}).fetchone()
        return row is not None and int(row["uses"]) > 0

    def page(self, workspace: str, doc_id: str, page_number: int) -> Row | None:
        """One stored page (or unit) with its document's source and kind, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        return self.conn.execute(q.SELECT_PAGE, params).fetchone()

    def unit(self, workspace: str, doc_id: str, locator: Mapping[str, Any]) -> Row | None:
        """The stored unit of an unpaged document at ``locator``, or ``None``."""
        params = {"workspace": workspace, "doc_id": doc_id, "locator": Jsonb(dict(locator))}
        return self.conn.execute(q.SELECT_UNIT, params).fetchone()

    def page_spans(self, workspace: str, doc_id: str, page_number: int) -> list[Row]:
        """The spans of one page in reading order, as ``iter_spans`` rows."""
        params = {"workspace": workspace, "doc_id": doc_id, "page_number": page_number}
        return self.conn.execute(q.SELECT_PAGE_SPANS, params).fetchall()

    def document_source(self, workspace: str, doc_id: str) -> str | None:
        """The stored source name of a document version, or ``None`` if absent."""
        row = self.conn.execute(q.SELECT_DOCUMENT, {"workspace": workspace, "doc_id": doc_id}).fetchone()
        return None if row is None else str(row["source"])

    @contextlib.contextmanager
    def document_transaction(self) -> Iterator[DocumentWriter]:
        """One transaction for one document: all of it is stored, or none of it."""
        try:
            with self.conn.transaction():
                yield DocumentWriter(self.conn)
        except psycopg.Error as exc:
            raise StoreError(f"the database refused the document: {exc}") from exc

    def documents(self, workspace: str) -> list[Row]:
        """Documents of a workspace."""
        return self.conn.execute(q.SELECT_DOCUMENTS, {"workspace": workspace}).fetchall()

    def pages(self, workspace: str, doc_id: str) -> list[Row]:
        """Stored pages of a document (number, text, needs_ocr)."""
        return self.conn.execute(q.SELECT_PAGES, {"workspace": workspace, "doc_id": doc_id}).fetchall()

    def document_spans(self, workspace: str, doc_id: str) -> list[Row]:
        """Stored spans of a document (offsets, text, boxes)."""
        return self.conn.execute(q.SELECT_DOC_SPANS, {"workspace": workspace, "doc_id": doc_id}).fetchall()

    def iter_spans(self, workspace: str) -> Iterator[Row]:
        """Every span of a workspace with its document and page fields, streamed."""
        with self.conn.transaction(), self.conn.cursor(name="export_spans") as cur:
            cur.itersize = 500
            cur.execute(q.SELECT_SPANS, {"workspace": workspace})
            yield from cur

    def run_leg(self, query: Any, params: Mapping[str, Any]) -> list[Row]:
        """Run one retrieval leg (HNSW with a wider beam and iterative scans, so filters keep recall)."""
        with self.conn.transaction():
            self.conn.execute("SET LOCAL hnsw.ef_search = 200")
            self.conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            return self.conn.execute(query, dict(params)).fetchall()

    def counts(self, workspace: str) -> tuple[int, int, int]:
        """Documents, pages and spans stored in a workspace."""
        row = self.conn.execute(q.COUNT_WORKSPACE, {"workspace": workspace}).fetchone()
        assert row is not None
        return int(row["documents"]), int(row["pages"]), int(row["spans"])


class DocumentWriter:
    """Inserts one document's rows inside the caller's transaction, in batches."""

    def __init__(self, conn: psycopg.Connection[Row]) -> None:
        self._conn = conn

    def document(self, values: Mapping[str, Any]) -> None:
        """The document row (first); ``meta`` as a plain JSON object."""
        self._conn.execute(q.INSERT_DOCUMENT, {**values, "meta": Jsonb(values.get("meta") or {})})

    def pages(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Page (or unit) rows; ``locator`` as a plain JSON value or ``None``."""
        self._many(q.INSERT_PAGE, [{**r, "locator": _json(r["locator"])} for r in rows])

    def blocks(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Block rows of one page."""
        self._many(q.INSERT_BLOCK, rows)

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
