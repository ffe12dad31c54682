"""The store's upkeep of its indexes and tables: the HNSW index built, rebuilt beside the one in use and described,
the spans table rewritten, how far such work has gone, where vectors are kept, and the line markers of spans stored
before they were."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import psycopg
from psycopg.types.json import Jsonb

from kruschnexus.config import IndexBuild
from kruschnexus.errors import StoreError
from kruschnexus.store import queries as q
from kruschnexus.store.base import CATALOGUE, StoreBase, one_row, read
from kruschnexus.store.records import ProgressRow, VectorStorage
from kruschnexus.store.writer import Connection

#: pgvector's HNSW build parameters where an index's options do not say (indexes built before they were set).
PGVECTOR_M = 16
PGVECTOR_EF_CONSTRUCTION = 64
#: The HNSW build of the settings' defaults.
DEFAULT_BUILD = IndexBuild()


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


class IndexMaintenance(StoreBase):
    """Index and table upkeep (a part of :class:`~kruschnexus.store.postgres.PgStore`)."""

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
            return one_row(conn, ProgressRow, q.SELECT_MAINTENANCE_PROGRESS, {"pid": pid})

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

    @read
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

    @read
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
