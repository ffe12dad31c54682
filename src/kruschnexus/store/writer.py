"""Writing one document's rows (:class:`DocumentWriter`, inside the caller's transaction) and keeping the embedding
cache in step when spans are deleted (:func:`forgetting_vectors`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from kruschnexus.store import queries as q
from kruschnexus.store.records import BlockRecord, DocumentRecord, PageRecord, SpanRecord, values

#: A connection of the store: rows read as dicts.
Connection = psycopg.Connection[dict[str, Any]]


class DocumentWriter:
    """Inserts one document's rows inside the caller's transaction, in batches."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def document(self, document: DocumentRecord) -> bool:
        """The document row (first). False when another writer stored the same document first: this insert waits
        for that writer's transaction, so two writers of one document never both store it and neither sees a
        constraint error; the caller then rolls back."""
        row = self._conn.execute(q.INSERT_DOCUMENT, {**values(document), "meta": Jsonb(document.meta)}).fetchone()
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
        transaction: a reader sees the old version until commit, then the new one, never neither; its vectors leave
        the embedding cache (the new version's go back in when the cache is on). False when there was none (deleted
        meanwhile)."""
        params = {"workspace": workspace, "doc_id": doc_id}
        with forgetting_vectors(self._conn, workspace, q.SELECT_DOCUMENT_KEYS, params):
            return self._conn.execute(q.DELETE_DOCUMENT, params).rowcount > 0

    def vectors_by_key(self, workspace: str, dim: int, keys: Sequence[str]) -> dict[str, Any]:
        """Stored vectors of this workspace by embedding key (those found), read in this transaction."""
        if not keys:
            return {}
        rows = self._conn.execute(q.SELECT_VECTORS_BY_KEY, {"workspace": workspace, "dim": dim, "keys": list(keys)})
        return _by_key(rows.fetchall())

    def cached_vectors(self, dim: int, keys: Sequence[str]) -> dict[str, Any]:
        """Vectors of the embedding cache shared between workspaces by key (those found)."""
        if not keys:
            return {}
        rows = self._conn.execute(q.SELECT_CACHED_VECTORS, {"dim": dim, "keys": list(keys)})
        return _by_key(rows.fetchall())

    def pages(self, pages: Sequence[PageRecord]) -> None:
        """Pages (or units)."""
        self._many(q.INSERT_PAGE, [{**values(p), "locator": _json(p.locator)} for p in pages])

    def blocks(self, blocks: Sequence[BlockRecord]) -> None:
        """Blocks of pages already written."""
        self._many(q.INSERT_BLOCK, [values(b) for b in blocks])

    def announce(self, workspace: str, doc_id: str, op: str) -> None:
        """Tell the lexical index (through its outbox) that a document was stored (``upsert``) or removed
        (``delete``). Call it last in the transaction: it takes the workspace's outbox lock until commit, so that
        outbox rows of one workspace are numbered in commit order."""
        self._conn.execute(q.LOCK_OUTBOX, {"workspace": workspace})
        self._conn.execute(q.INSERT_OUTBOX, {"workspace": workspace, "doc_id": doc_id, "op": op})

    def spans(self, spans: Sequence[SpanRecord]) -> None:
        """Spans of pages already written."""
        prepared = [{**values(s), "boxes": _json(s.boxes), "locator": _json(s.locator)} for s in spans]
        self._many(q.INSERT_SPAN, prepared)

    def _many(self, statement: Any, rows: Sequence[Mapping[str, Any]]) -> None:
        if rows:
            with self._conn.cursor() as cur:
                cur.executemany(statement, rows)


@contextlib.contextmanager
def forgetting_vectors(conn: Connection, workspace: str, query: sql.SQL, params: Mapping[str, Any]) -> Iterator[None]:
    """Around a deletion: the embedding keys ``query`` reads before it (none while the embedding cache is empty, so
    with the cache off a deletion reads no key) leave the cache after it, those no span of the workspace still uses.
    A deleted document's vectors do not outlive it there (a key another workspace still uses goes too: a workspace
    sees no other's spans; its next ingest of that text embeds it again)."""
    row = conn.execute(q.CACHE_IS_EMPTY).fetchone()
    keys = [] if row is None or row["empty"] else _keys(conn, query, params)
    yield
    if not keys:
        return
    used = set(_keys(conn, q.SELECT_KEYS_IN_USE, {"workspace": workspace, "keys": keys}))
    gone = [k for k in keys if k not in used]
    if gone:
        conn.execute(q.DELETE_CACHED_VECTORS, {"keys": gone})


def _json(value: Any) -> Jsonb | None:
    """A JSON column value: SQL NULL for ``None``."""
    return None if value is None else Jsonb(value)


def _by_key(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {str(r["embed_key"]): r["embedding"] for r in rows}


def _keys(conn: Connection, query: sql.SQL, params: Mapping[str, Any]) -> list[str]:
    return [str(r["embed_key"]) for r in conn.execute(query, params)]
