"""SQL text for the store. Values are always bound parameters; identifiers and DDL literals go through
``psycopg.sql``. Built here, run by :mod:`kruschnexus.store.postgres`, so tests can pin them."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import sql

from kruschnexus.store.records import BlockRecord, DocumentRecord, PageRecord, SpanRecord, TokenRecord, columns


def insert_statement(
    table: str, record: type, computed: Mapping[str, str] | None = None, tail: str = ""
) -> sql.Composed:
    """``INSERT INTO table (...) VALUES (...)`` of a written record's columns (its fields, in order), each bound to
    the parameter of its name; ``computed`` gives a column an SQL expression of the parameters instead (a column
    that is no field of the record is appended); ``tail`` follows the values (``ON CONFLICT ...``)."""
    exprs = dict(computed or {})
    names = [*columns(record), *(c for c in exprs if c not in columns(record))]
    values = [sql.SQL(exprs[c]) if c in exprs else sql.Placeholder(c) for c in names]
    return sql.SQL("INSERT INTO {table} ({names}) VALUES ({values}){tail}").format(
        table=sql.Identifier(table),
        names=sql.SQL(", ").join(map(sql.Identifier, names)),
        values=sql.SQL(", ").join(values),
        tail=sql.SQL(tail),
    )


INSERT_WORKSPACE = sql.SQL(
    "INSERT INTO workspaces (name, model_id, dim) VALUES (%(name)s, %(model_id)s, %(dim)s)"
    " ON CONFLICT (name) DO NOTHING RETURNING name"
)


@functools.cache
def scope_statement(lower_role: bool, settings: int = 0) -> sql.Composed:
    """One statement (one round trip) that scopes a transaction: ``nexus.workspace`` to ``%(workspace)s``, the role
    ``nexus_workspace`` when ``lower_role`` (as ``SET LOCAL ROLE``), and ``settings`` more transaction-local
    settings, names and values bound as ``%(setting_<i>)s`` and ``%(value_<i>)s``."""
    calls: list[sql.Composable] = [sql.SQL("set_config('nexus.workspace', %(workspace)s, true)")]
    if lower_role:
        calls.append(sql.SQL("set_config('role', 'nexus_workspace', true)"))
    calls.extend(
        sql.SQL("set_config({}, {}, true)").format(sql.Placeholder(f"setting_{i}"), sql.Placeholder(f"value_{i}"))
        for i in range(settings)
    )
    return sql.SQL("SELECT {}").format(sql.SQL(", ").join(calls))


SELECT_ROLE_BYPASS = sql.SQL(
    "SELECT (rolsuper OR rolbypassrls) AS bypass,"
    " EXISTS (SELECT FROM pg_roles WHERE rolname = 'nexus_workspace') AS scoped_role"
    " FROM pg_roles WHERE rolname = current_user"
)
#: What the connected role may do that the store relies on: see ``PgStore.role_limits``.
SELECT_ROLE_STANDING = sql.SQL(
    "SELECT current_user AS role, r.rolsuper AS superuser, r.rolbypassrls AS bypass_rls,"
    " EXISTS (SELECT FROM pg_roles WHERE rolname = 'nexus_workspace') AS scoped_role,"
    " (SELECT proleakproof FROM pg_proc WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure)"
    " AS fulltext_leakproof,"
    " (SELECT bool_and(proleakproof) FROM pg_proc WHERE oid IN ('pg_catalog.textlike(text, text)'::regprocedure,"
    " 'pg_catalog.texticregexeq(text, text)'::regprocedure,"
    " 'pg_catalog.arrayoverlap(anyarray, anyarray)'::regprocedure))"
    " AS lookups_leakproof,"
    " (SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'spans') AS owner,"
    " current_database() AS database"
    " FROM pg_roles r WHERE r.rolname = current_user"
)
#: Write-ahead log positions as numbers (``pg_lsn - '0/0'``): the primary's, and how far a replica has replayed.
SELECT_WAL_POSITION = sql.SQL("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint AS position")
SELECT_REPLAYED_POSITION = sql.SQL("SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint AS position")
SELECT_REPLICA_STANDING = sql.SQL(
    "SELECT pg_is_in_recovery() AS in_recovery, to_regclass('schema_migrations') IS NOT NULL AS migrated"
)
SELECT_SCHEMA_VERSION = sql.SQL("SELECT max(version) AS version FROM schema_migrations")
SELECT_WORKSPACE = sql.SQL("SELECT model_id, dim FROM workspaces WHERE name = %(name)s")
SELECT_WORKSPACES = sql.SQL(
    "SELECT w.name, w.model_id, w.dim, count(d.doc_id) FILTER (WHERE d.latest) AS documents FROM workspaces w"
    " LEFT JOIN documents d ON d.workspace = w.name GROUP BY w.name ORDER BY w.name"
)
DELETE_WORKSPACE = sql.SQL("DELETE FROM workspaces WHERE name = %(name)s")
SELECT_WORKSPACE_DOC_IDS = sql.SQL("SELECT doc_id FROM documents WHERE workspace = %(name)s")
DELETE_DOCUMENT = sql.SQL("DELETE FROM documents WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s")
DELETE_DOCUMENT_RETURNING = sql.SQL(
    "DELETE FROM documents WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s RETURNING name, latest"
)
#: After the latest version of a name is deleted, the newest remaining one becomes the latest.
PROMOTE_NEWEST = sql.SQL(
    "UPDATE documents SET latest = true WHERE workspace = %(workspace)s AND doc_id ="
    " (SELECT doc_id FROM documents WHERE workspace = %(workspace)s AND name = %(name)s"
    " ORDER BY version DESC LIMIT 1) RETURNING doc_id"
)
COUNT_DOC_ID_USES = sql.SQL("SELECT count(*) AS uses FROM documents WHERE doc_id = %(doc_id)s")
SELECT_DOCUMENT = sql.SQL(
    "SELECT source, page_count FROM documents WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s"
)
SELECT_DOCUMENT_NAMES = sql.SQL(
    "SELECT doc_id, name FROM documents WHERE workspace = %(workspace)s AND doc_id = ANY(%(doc_ids)s)"
)
SELECT_DOCUMENT_SOURCES = sql.SQL(
    "SELECT doc_id, source FROM documents WHERE workspace = %(workspace)s AND doc_id = ANY(%(doc_ids)s)"
)
INSERT_DOCUMENT = insert_statement(
    "documents",
    DocumentRecord,
    {"ingested_at": "coalesce(%(ingested_at)s::timestamptz, now())"},
    " ON CONFLICT (workspace, doc_id) DO NOTHING RETURNING doc_id",
)
#: Serialises the writers of one document name (its next version number is read, then taken).
LOCK_DOCUMENT_NAME = sql.SQL(
    "SELECT pg_advisory_xact_lock(hashtextextended('nexus.name:' || %(workspace)s || '/' || %(name)s, 0))"
)
NEXT_VERSION = sql.SQL(
    "SELECT coalesce(max(version), 0) + 1 AS version FROM documents WHERE workspace = %(workspace)s AND name = %(name)s"
)
#: The versions of a name that stop being the latest (returned, so their lexical entries can be dropped).
SUPERSEDE = sql.SQL(
    "UPDATE documents SET latest = false WHERE workspace = %(workspace)s AND name = %(name)s AND latest"
    " AND doc_id <> %(doc_id)s RETURNING doc_id"
)
MAKE_LATEST = sql.SQL(
    "UPDATE documents SET latest = true WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s AND NOT latest"
    " RETURNING doc_id"
)
#: How one stored content is known: its name, version and whether it is the latest of its name.
SELECT_STORED = sql.SQL(
    "SELECT doc_id, source, name, version, latest, ingested_at FROM documents"
    " WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s"
)
INSERT_PAGE = insert_statement("pages", PageRecord)
INSERT_BLOCK = insert_statement("blocks", BlockRecord)
#: The full-text vector weights the heading above the text.
INSERT_SPAN = insert_statement(
    "spans",
    SpanRecord,
    {"tsv": "setweight(to_tsvector('english', %(header)s), 'A') || setweight(to_tsvector('english', %(text)s), 'B')"},
)
_DOCUMENT_ROWS = (
    "SELECT doc_id, source, doc_type, kind, byte_size, page_count, extractor_version, meta, ingested_at, name,"
    " version, latest FROM documents WHERE workspace = %(workspace)s"
)
SELECT_DOCUMENTS = sql.SQL(_DOCUMENT_ROWS + " ORDER BY name, version, doc_id")
#: Every version of one name, oldest first (the ``SELECT_DOCUMENTS`` columns).
SELECT_VERSIONS = sql.SQL(_DOCUMENT_ROWS + " AND name = %(name)s ORDER BY version")
#: What deciding whether to read a document again needs: the versions that read it, and whether pages still lack text.
SELECT_READ_VERSIONS = sql.SQL(
    "SELECT d.doc_id, d.source, d.doc_type, d.extractor_version, d.chunker_version,"
    " EXISTS (SELECT 1 FROM pages p WHERE p.workspace = d.workspace AND p.doc_id = d.doc_id AND p.needs_ocr)"
    " AS needs_ocr FROM documents d WHERE d.workspace = %(workspace)s"
    " AND (%(doc_id)s::text IS NULL OR d.doc_id = %(doc_id)s) ORDER BY d.source, d.doc_id"
)
#: Spans of the latest versions with their vectors, in a stable order (a benchmark's sample: ``span_vectors``).
SELECT_SPAN_VECTORS = sql.SQL(
    "SELECT s.text, s.embedding FROM spans s JOIN documents d ON d.workspace = s.workspace AND d.doc_id = s.doc_id"
    " WHERE s.workspace = %(workspace)s AND d.latest AND s.dim = %(dim)s"
    " ORDER BY s.doc_id, s.page_number, s.ordinal LIMIT %(limit)s"
)
#: The stored vectors of one document by embedding key (see migration 0005).
SELECT_DOCUMENT_VECTORS = sql.SQL(
    "SELECT DISTINCT ON (embed_key) embed_key, embedding FROM spans WHERE workspace = %(workspace)s"
    " AND doc_id = %(doc_id)s AND dim = %(dim)s AND embed_key IS NOT NULL"
)
#: Stored vectors by embedding key (see migration 0005), one per key.
SELECT_VECTORS_BY_KEY = sql.SQL(
    "SELECT DISTINCT ON (embed_key) embed_key, embedding FROM spans"
    " WHERE workspace = %(workspace)s AND dim = %(dim)s AND embed_key = ANY(%(keys)s)"
)
#: The embedding cache shared between workspaces (migration 0009; only when the cache is on).
SELECT_CACHED_VECTORS = sql.SQL(
    "SELECT embed_key, embedding FROM embedding_cache WHERE dim = %(dim)s AND embed_key = ANY(%(keys)s)"
)
INSERT_CACHED_VECTOR = sql.SQL(
    "INSERT INTO embedding_cache (embed_key, dim, embedding) VALUES (%(embed_key)s, %(dim)s, %(embedding)s)"
    " ON CONFLICT (embed_key) DO NOTHING"
)
SELECT_DOCUMENT_KEYS = sql.SQL(
    "SELECT DISTINCT embed_key FROM spans WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s"
    " AND embed_key IS NOT NULL"
)
SELECT_WORKSPACE_KEYS = sql.SQL(
    "SELECT DISTINCT embed_key FROM spans WHERE workspace = %(workspace)s AND embed_key IS NOT NULL"
)
CACHE_IS_EMPTY = sql.SQL("SELECT NOT EXISTS (SELECT FROM embedding_cache) AS empty")
SELECT_KEYS_IN_USE = sql.SQL(
    "SELECT DISTINCT embed_key FROM spans WHERE workspace = %(workspace)s AND embed_key = ANY(%(keys)s)"
)
DELETE_CACHED_VECTORS = sql.SQL("DELETE FROM embedding_cache WHERE embed_key = ANY(%(keys)s)")
SELECT_DOCUMENT_INFO = sql.SQL(_DOCUMENT_ROWS + " AND doc_id = %(doc_id)s")
#: The columns a hit is built from (``wire.hit_from_row``), for every query that returns spans as hits: written once.
_HIT_COLUMN_LIST = (
    "s.doc_id, d.source, d.name, d.version, d.doc_type, s.page_number, p.label, p.locator IS NULL AS paged,"
    " s.locator, s.header, s.heading_path, s.section, s.section_path, s.char_start, s.char_end, s.bbox, s.boxes,"
    " s.text, s.used_ocr, s.ordinal"
)
#: A span's document, joined within its workspace.
_DOCUMENT_JOIN = "JOIN documents d ON d.workspace = s.workspace AND d.doc_id = s.doc_id"
#: A span's document and page, joined within its workspace.
_SPAN_JOINS = (
    _DOCUMENT_JOIN
    + " JOIN pages p ON p.workspace = s.workspace AND p.doc_id = s.doc_id AND p.page_number = s.page_number"
)
_SPAN_FROM = "FROM spans s " + _SPAN_JOINS
_SPAN_ROWS = "SELECT " + _HIT_COLUMN_LIST + " " + _SPAN_FROM + " WHERE s.workspace = %(workspace)s"
SELECT_SPANS = sql.SQL(_SPAN_ROWS + " ORDER BY d.source, s.doc_id, s.page_number, s.ordinal")
SELECT_DOCUMENT_HITS = sql.SQL(_SPAN_ROWS + " AND s.doc_id = %(doc_id)s ORDER BY s.page_number, s.ordinal")
SELECT_PAGE_SPANS = sql.SQL(
    _SPAN_ROWS + " AND s.doc_id = %(doc_id)s AND s.page_number = %(page_number)s ORDER BY s.ordinal"
)
SELECT_PAGES = sql.SQL(
    "SELECT page_number, text, needs_ocr, used_ocr, locator FROM pages"
    " WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s"
    " ORDER BY page_number"
)
_PAGE_ROWS = (
    "SELECT p.doc_id, d.source, d.name, d.version, d.kind, p.page_number, p.text, p.width, p.height, p.rotation,"
    " p.label, p.used_ocr, p.needs_ocr, p.locator"
    " FROM pages p JOIN documents d ON d.workspace = p.workspace AND d.doc_id = p.doc_id"
    " WHERE p.workspace = %(workspace)s AND p.doc_id = %(doc_id)s"
)
SELECT_PAGE = sql.SQL(_PAGE_ROWS + " AND p.page_number = %(page_number)s")
SELECT_UNIT = sql.SQL(_PAGE_ROWS + " AND p.locator = %(locator)s ORDER BY p.page_number LIMIT 1")
SELECT_DOC_SPANS = sql.SQL(
    "SELECT page_number, ordinal, char_start, char_end, text, boxes, locator FROM spans"
    " WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s ORDER BY page_number, ordinal"
)
LOCK_OUTBOX = sql.SQL("SELECT pg_advisory_xact_lock(hashtextextended('nexus.outbox:' || %(workspace)s, 0))")
INSERT_OUTBOX = sql.SQL("INSERT INTO lexical_outbox (workspace, doc_id, op) VALUES (%(workspace)s, %(doc_id)s, %(op)s)")
SELECT_OUTBOX_HEAD = sql.SQL(
    "SELECT w.created_at::text AS generation,"
    " (SELECT coalesce(max(o.seq), 0) FROM lexical_outbox o WHERE o.workspace = w.name) AS head"
    " FROM workspaces w WHERE w.name = %(workspace)s"
)
SELECT_OUTBOX_AFTER = sql.SQL(
    "SELECT seq, doc_id, op FROM lexical_outbox WHERE workspace = %(workspace)s AND seq > %(after)s ORDER BY seq"
)
_LEXICAL_SPANS = (
    "SELECT s.doc_id, s.page_number, s.ordinal, s.text, s.section, s.section_path, s.heading_path, d.source,"
    " d.doc_type, p.locator IS NULL AS paged"
    " FROM spans s JOIN documents d ON d.workspace = s.workspace AND d.doc_id = s.doc_id"
    " JOIN pages p ON p.workspace = s.workspace AND p.doc_id = s.doc_id AND p.page_number = s.page_number"
    " WHERE s.workspace = %(workspace)s AND d.latest"
)
SELECT_LEXICAL_SPANS = sql.SQL(
    _LEXICAL_SPANS + " AND s.doc_id = ANY(%(doc_ids)s) ORDER BY s.doc_id, s.page_number, s.ordinal"
)
SELECT_ALL_LEXICAL_SPANS = sql.SQL(_LEXICAL_SPANS + " ORDER BY s.doc_id, s.page_number, s.ordinal")
_LEXICAL_DOCUMENTS = (
    "SELECT d.doc_id, d.source, d.doc_type,"
    " left((SELECT string_agg(p.text, E'\\n' ORDER BY p.page_number) FROM pages p"
    " WHERE p.workspace = d.workspace AND p.doc_id = d.doc_id AND p.page_number <= %(front_pages)s),"
    " %(front_chars)s) AS front"
    " FROM documents d WHERE d.workspace = %(workspace)s AND d.latest"
)
SELECT_LEXICAL_DOCUMENTS = sql.SQL(_LEXICAL_DOCUMENTS + " AND d.doc_id = ANY(%(doc_ids)s) ORDER BY d.doc_id")
SELECT_ALL_LEXICAL_DOCUMENTS = sql.SQL(_LEXICAL_DOCUMENTS + " ORDER BY d.doc_id")
COUNT_WORKSPACE = sql.SQL(
    "SELECT (SELECT count(*) FROM documents WHERE workspace = %(workspace)s) AS documents,"
    " (SELECT count(*) FROM pages WHERE workspace = %(workspace)s) AS pages,"
    " (SELECT count(*) FROM spans WHERE workspace = %(workspace)s) AS spans"
)


#: Serialises the creation of an HNSW index: two ``CREATE INDEX IF NOT EXISTS`` of one name at once collide.
LOCK_INDEX_DDL = sql.SQL("SELECT pg_advisory_xact_lock(hashtextextended('nexus.hnsw_ddl', 0))")


def hnsw_index_name(dim: int) -> str:
    """The name of the HNSW index serving vectors of one dimension."""
    return f"spans_hnsw_d{int(dim)}"


#: The name a rebuilt HNSW index has until it replaces the one in use (``nexus reindex --vectors``).
REBUILD_SUFFIX = "_rebuild"


def hnsw_index_ddl(dim: int, m: int, ef_construction: int, *, rebuild: bool = False) -> sql.Composed:
    """The HNSW cosine index serving vectors of one dimension (a partial expression index), built with ``m`` links
    a node and a beam of ``ef_construction``. ``rebuild``: under its rebuild name, built without blocking writes
    (``CONCURRENTLY``: outside any transaction)."""
    name = hnsw_index_name(dim) + (REBUILD_SUFFIX if rebuild else "")
    return sql.SQL(
        "CREATE INDEX {concurrently} IF NOT EXISTS {name} ON spans USING hnsw"
        " ((embedding::vector({dim})) vector_cosine_ops) WITH (m = {m}, ef_construction = {ef})"
        " WHERE dim = {dim}"
    ).format(
        concurrently=sql.SQL("CONCURRENTLY" if rebuild else ""),
        name=sql.Identifier(name),
        dim=sql.Literal(int(dim)),
        m=sql.Literal(int(m)),
        ef=sql.Literal(int(ef_construction)),
    )


def drop_hnsw_index_ddl(dim: int) -> sql.Composed:
    """Drop the HNSW index of one dimension (a bulk load builds it once afterwards, far faster)."""
    return sql.SQL("DROP INDEX IF EXISTS {name}").format(name=sql.Identifier(hnsw_index_name(dim)))


def drop_rebuilt_index_ddl(dim: int) -> sql.Composed:
    """Drop a rebuild of the HNSW index of one dimension (a failed one, or what a stopped one left, invalid)
    without blocking reads or writes (outside any transaction)."""
    return sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {name}").format(
        name=sql.Identifier(hnsw_index_name(dim) + REBUILD_SUFFIX)
    )


def rename_index_ddl(dim: int, old_suffix: str, new_suffix: str) -> sql.Composed:
    """Rename the HNSW index of one dimension from its name with ``old_suffix`` to that with ``new_suffix``."""
    name = hnsw_index_name(dim)
    return sql.SQL("ALTER INDEX {old} RENAME TO {new}").format(
        old=sql.Identifier(name + old_suffix), new=sql.Identifier(name + new_suffix)
    )


#: The name the replaced HNSW index has from the swap until it is dropped.
REPLACED_SUFFIX = "_replaced"


def drop_replaced_index_ddl(dim: int) -> sql.Composed:
    """Drop the HNSW index a rebuild replaced, without blocking reads or writes (outside any transaction)."""
    return sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {name}").format(
        name=sql.Identifier(hnsw_index_name(dim) + REPLACED_SUFFIX)
    )


#: Serialises rebuilds of HNSW indexes (a session lock, tried: a second rebuild is refused at once instead of
#: waiting, and a concurrent build never waits on a session that waits on it).
TRY_LOCK_INDEX_REBUILD = sql.SQL("SELECT pg_try_advisory_lock(hashtextextended('nexus.hnsw_rebuild', 0)) AS locked")
UNLOCK_INDEX_REBUILD = sql.SQL("SELECT pg_advisory_unlock(hashtextextended('nexus.hnsw_rebuild', 0))")
#: Whether an index of this name exists (``ensure_workspace`` then runs no DDL: even ``CREATE INDEX IF NOT EXISTS``
#: takes a lock on ``spans`` that waits for a concurrent build).
SELECT_INDEX_EXISTS = sql.SQL("SELECT to_regclass(%(name)s) IS NOT NULL AS present")
#: The build options of an index (``m=16``, ``ef_construction=200``; none when it was built with pgvector's own).
SELECT_INDEX_OPTIONS = sql.SQL("SELECT c.reloptions AS options FROM pg_class c WHERE c.oid = to_regclass(%(name)s)")


#: The indexes of this schema PostgreSQL does not use: a concurrent build or rebuild stopped or failed (or is running).
SELECT_INVALID_INDEXES = sql.SQL(
    "SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
    " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT i.indisvalid AND n.nspname = current_schema()"
    " ORDER BY c.relname"
)
SELECT_INDEX_SIZE = sql.SQL("SELECT pg_size_pretty(pg_relation_size(to_regclass(%(name)s))) AS size")
#: The server's buffer cache and the HNSW index's size on disk (null when there is none), in bytes.
SELECT_BUFFER_CACHE = sql.SQL(
    "SELECT pg_size_bytes(current_setting('shared_buffers')) AS buffers,"
    " pg_relation_size(to_regclass(%(name)s)) AS index"
)
#: The size of the spans table's TOAST data, and when migration 0011 (vectors kept in their rows) was applied.
SELECT_TOAST_SIZE = sql.SQL(
    "SELECT pg_relation_size(c.reltoastrelid) AS toast_bytes,"
    " (SELECT m.applied_at FROM schema_migrations m WHERE m.version = 11) AS since"
    " FROM pg_class c WHERE c.oid = 'spans'::regclass"
)
_OLDER_SPANS = sql.SQL(
    "FROM spans s JOIN documents d ON d.workspace = s.workspace AND d.doc_id = s.doc_id WHERE d.ingested_at < %(since)s"
)
#: How many spans belong to documents stored before ``%(since)s``.
COUNT_OLDER_SPANS = sql.SQL("SELECT count(*) AS older {older}").format(older=_OLDER_SPANS)
#: Of at most ``%(sample)s`` spans of documents stored before ``%(since)s``, how many keep their vector in TOAST
#: (``pg_column_toast_chunk_id``: PostgreSQL 17 and later).
SELECT_OLDER_OUT_OF_LINE = sql.SQL(
    "SELECT count(*) AS read, count(pg_column_toast_chunk_id(o.embedding)) AS outside"
    " FROM (SELECT s.embedding {older} LIMIT %(sample)s) o"
).format(older=_OLDER_SPANS)
#: Rewrite the spans table and rebuild its indexes (vectors stored before migration 0011 move into their rows).
REWRITE_SPANS = sql.SQL("VACUUM (FULL, ANALYZE) spans")
#: The session's name in ``pg_stat_activity`` (a progress watcher's, see :mod:`~kruschnexus.store.progress`).
SET_APPLICATION_NAME = sql.SQL("SELECT set_config('application_name', %(name)s, false)")
#: Where one backend's long maintenance stands (:class:`~kruschnexus.store.records.ProgressRow`): waiting for a lock,
#: or a table rewrite's or an index build's phase and counts (PostgreSQL's progress views).
SELECT_MAINTENANCE_PROGRESS = sql.SQL(
    "SELECT a.wait_event_type = 'Lock' AS waiting,"
    " c.phase AS rewrite_phase, c.heap_blks_scanned AS blocks_done, c.heap_blks_total AS blocks_total,"
    " c.index_rebuild_count AS indexes_done,"
    " (SELECT count(*) FROM pg_index x WHERE x.indrelid = c.relid) AS indexes_total,"
    " i.phase AS build_phase, i.tuples_done, i.tuples_total, i.blocks_done AS build_blocks_done,"
    " i.blocks_total AS build_blocks_total"
    " FROM pg_stat_activity a"
    " LEFT JOIN pg_stat_progress_cluster c ON c.pid = a.pid"
    " LEFT JOIN pg_stat_progress_create_index i ON i.pid = a.pid"
    " WHERE a.pid = %(pid)s"
)
SET_MAINTENANCE_MEMORY = sql.SQL("SELECT set_config('maintenance_work_mem', %(memory)s, true)")
SET_SESSION_MAINTENANCE_MEMORY = sql.SQL("SELECT set_config('maintenance_work_mem', %(memory)s, false)")
RESET_MAINTENANCE_MEMORY = sql.SQL("RESET maintenance_work_mem")
ANALYZE = sql.SQL("ANALYZE documents, pages, spans")
#: Whether some span of the workspace was written before spans held their line markers (migration 0010).
SELECT_UNMARKED = sql.SQL(
    "SELECT EXISTS (SELECT 1 FROM spans WHERE workspace = %(workspace)s AND line_markers IS NULL) AS unmarked"
)
#: How many spans of a workspace were stored without their line markers (the partial index spans_unmarked counts).
COUNT_UNMARKED = sql.SQL(
    "SELECT count(*) AS unmarked FROM spans WHERE workspace = %(workspace)s AND line_markers IS NULL"
)
#: Up to ``%(limit)s`` spans without their line markers, and their text, in key order, locked (an ingest that
#: replaces one of them waits for the batch; another marker skips them).
SELECT_UNMARKED_SPANS = sql.SQL(
    "SELECT doc_id, page_number, ordinal, text FROM spans WHERE workspace = %(workspace)s AND line_markers IS NULL"
    " ORDER BY doc_id, page_number, ordinal LIMIT %(limit)s FOR UPDATE SKIP LOCKED"
)
#: Store the line markers of spans given as JSON rows ``{doc_id, page_number, ordinal, markers}``, where they still
#: have none.
UPDATE_LINE_MARKERS = sql.SQL(
    "UPDATE spans s SET line_markers = ARRAY(SELECT jsonb_array_elements_text(v.markers))"
    " FROM jsonb_to_recordset(%(rows)s) AS v(doc_id text, page_number integer, ordinal integer, markers jsonb)"
    " WHERE s.workspace = %(workspace)s AND s.doc_id = v.doc_id AND s.page_number = v.page_number"
    " AND s.ordinal = v.ordinal AND s.line_markers IS NULL"
)


@dataclass(frozen=True)
class SpanFilter:
    """Restrictions applied to both retrieval legs (all values are bound parameters).

    Attributes:
        doc_types: ``documents.doc_type`` must be one of these, in any letter case (none: any).
        page_ranges: inclusive ``(first, last)`` page ranges (none: any page).
        source_likes: SQL ``LIKE`` patterns on the source name, case-insensitive (any may match).
        sections: the span's section is one of these, below one (``LIKE`` patterns in ``section_likes``),
            or has one as an ancestor, or a line of its text opens with one: its stored line markers hold one of
            ``line_marker_keys`` (the sections, lower-cased: the test fusion applies), or, for a span stored without
            them (before migration 0010), its text matches one of ``section_patterns`` (case-insensitive regular
            expressions, loose: fusion keeps only spans whose line markers name the section; none: every span is
            marked).
        phrase_patterns: case-insensitive regular expressions the text must all match, one per quoted phrase (its
            words in order, any white space between them); tested on the nearest spans read (``nearest_first_leg``),
            else answered by the text's trigram index.
        mention_patterns: case-insensitive regular expressions one of which the text must match (a section the
            question names, mentioned in a passage of a document that lacks it).
        excluded_likes: patterns none of which may match.
        excluded_terms: words whose full-text match excludes a span.
        doc_ids: the span's document is one of these (none: any); set when a question names its document.
        names: the span's document has one of these names (none: any); set instead of ``doc_ids`` when a question
            names its document and asks for versions other than the latest.
        versions: the span's document is one of these versions of its name (``version:N``).
        as_of: the span's document is, of its name, the version stored last before this time (``as_of:DATE``).
            With neither, only the latest version of each name is searched.
    """

    workspace: str
    doc_types: tuple[str, ...] = ()
    page_ranges: tuple[tuple[int, int], ...] = ()
    source_likes: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    section_likes: tuple[str, ...] = ()
    line_marker_keys: tuple[str, ...] = ()
    section_patterns: tuple[str, ...] = ()
    phrase_patterns: tuple[str, ...] = ()
    mention_patterns: tuple[str, ...] = ()
    excluded_likes: tuple[str, ...] = ()
    excluded_terms: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    versions: tuple[int, ...] = ()
    as_of: datetime | None = None

    @property
    def planned_for_values(self) -> bool:
        """Phrases and sections are answered by their indexes only in a plan made for their values: the trigram
        index needs a phrase's or a section's pattern, the pattern index a section's fixed prefix. A cached generic
        plan (psycopg prepares a statement run five times) would try them on every span."""
        return bool(self.phrase_patterns or self.sections)

    @property
    def pinned(self) -> bool:
        """Versions other than the latest are asked for (the lexical index holds only the latest)."""
        return bool(self.versions) or self.as_of is not None


def version_sql(f: SpanFilter) -> tuple[sql.Composed, dict[str, Any]]:
    """The condition on ``documents d`` that chooses the versions ``f`` searches, and its parameters."""
    if f.versions:
        return sql.SQL("d.version = ANY(%(versions)s)").format(), {"versions": list(f.versions)}
    if f.as_of is not None:
        return (
            sql.SQL(
                "d.doc_id IN (SELECT DISTINCT ON (o.name) o.doc_id FROM documents o"
                " WHERE o.workspace = %(workspace)s AND o.ingested_at < %(as_of)s"
                " ORDER BY o.name, o.ingested_at DESC, o.version DESC)"
            ).format(),
            {"as_of": f.as_of},
        )
    return sql.SQL("d.latest").format(), {}


#: The span's text lower-cased with every run of white space (no-break spaces included) folded to one space.
_FOLDED_TEXT = "lower(regexp_replace(s.text, '[\\s\u00a0\u2007\u202f]+', ' ', 'g'))"


def span_filter_sql(f: SpanFilter) -> tuple[sql.Composed, dict[str, Any]]:
    """The WHERE clause (over ``spans s`` joined to ``documents d`` and ``pages p``) and its parameters.

    ``page:`` ranges only match physical pages: units of unpaged formats have no page number.
    """
    versions, params = version_sql(f)
    clauses = [sql.SQL("s.workspace = %(workspace)s"), versions]
    params["workspace"] = f.workspace
    if f.doc_ids:
        clauses.append(sql.SQL("s.doc_id = ANY(%(doc_ids)s)"))
        params["doc_ids"] = list(f.doc_ids)
    if f.names:
        clauses.append(sql.SQL("d.name = ANY(%(names)s)"))
        params["names"] = list(f.names)
    if f.doc_types:
        clauses.append(sql.SQL("lower(d.doc_type) = ANY(%(doc_types)s)"))
        params["doc_types"] = [t.lower() for t in f.doc_types]
    if f.page_ranges:
        clauses.append(
            sql.SQL(
                "p.locator IS NULL AND EXISTS (SELECT 1 FROM unnest(%(page_lo)s::int[], %(page_hi)s::int[])"
                " AS r(lo, hi) WHERE s.page_number BETWEEN r.lo AND r.hi)"
            )
        )
        params["page_lo"] = [lo for lo, _ in f.page_ranges]
        params["page_hi"] = [hi for _, hi in f.page_ranges]
    if f.source_likes:
        clauses.append(sql.SQL("(d.source ILIKE ANY(%(source_likes)s) OR d.name ILIKE ANY(%(source_likes)s))"))
        params["source_likes"] = list(f.source_likes)
    if f.sections:
        clauses.append(_section_clause(f, params))
    for i, pattern in enumerate(f.phrase_patterns):
        # One condition per phrase, planned for its value (run_leg), so the trigram index answers it.
        clauses.append(sql.SQL("s.text ~* {}").format(sql.Placeholder(f"phrase_{i}")))
        params[f"phrase_{i}"] = pattern
    if f.mention_patterns:
        clauses.append(sql.SQL("s.text ~* ANY(%(mention_patterns)s)"))
        params["mention_patterns"] = list(f.mention_patterns)
    if f.excluded_likes:
        clauses.append(sql.SQL("NOT (" + _FOLDED_TEXT + " LIKE ANY(%(excluded_likes)s))"))
        params["excluded_likes"] = list(f.excluded_likes)
    if f.excluded_terms:
        clauses.append(
            sql.SQL(
                "NOT EXISTS (SELECT 1 FROM unnest(%(excluded_terms)s::text[]) AS t(term)"
                " WHERE numnode(plainto_tsquery('english', t.term)) > 0"
                " AND s.tsv @@ plainto_tsquery('english', t.term))"
            )
        )
        params["excluded_terms"] = list(f.excluded_terms)
    return sql.SQL(" AND ").join(clauses), params


def _section_clause(f: SpanFilter, params: dict[str, Any]) -> sql.Composed:
    """The span is in one of ``f.sections``, below one, has one as an ancestor, or a line of its text opens with one.

    One arm per pattern, each answered by an index (0008_section_lookup: the section, its pattern, its ancestors;
    0010_line_markers: the stored line markers, and for spans stored without them the text's trigrams), so the planner
    reads the spans of a section instead of every span.
    """
    arms: list[sql.Composable] = [
        sql.SQL("s.section = ANY(%(sections)s)"),
        sql.SQL("s.section_path && %(sections)s::text[]"),
    ]
    for i, like in enumerate(f.section_likes):
        arms.append(sql.SQL("s.section LIKE {}").format(sql.Placeholder(f"section_like_{i}")))
        params[f"section_like_{i}"] = like
    if f.line_marker_keys:
        arms.append(sql.SQL("s.line_markers && %(line_marker_keys)s::text[]"))
        params["line_marker_keys"] = list(f.line_marker_keys)
    for i, pattern in enumerate(f.section_patterns):
        unmarked = sql.SQL("(s.line_markers IS NULL AND s.text ~* {})")
        arms.append(unmarked.format(sql.Placeholder(f"section_pattern_{i}")))
        params[f"section_pattern_{i}"] = pattern
    params["sections"] = list(f.sections)
    return sql.SQL("({})").format(sql.SQL(" OR ").join(arms))


_HIT_COLUMNS = sql.SQL(_HIT_COLUMN_LIST)
_FROM = sql.SQL(_SPAN_FROM)
_ALL_TERMS = sql.SQL(
    "(numnode(plainto_tsquery('english', %(text)s)) > 0 AND s.tsv @@ plainto_tsquery('english', %(text)s))"
)


def _distance(dim: int) -> sql.Composed:
    """A span's cosine distance to ``%(vector)s``, in the form the HNSW index of dimension ``dim`` serves."""
    return sql.SQL("s.embedding::vector({dim}) <=> %(vector)s::vector({dim})").format(dim=sql.Literal(int(dim)))


def dense_leg(f: SpanFilter, dim: int) -> tuple[sql.Composed, dict[str, Any]]:
    """Top ``%(limit)s`` spans by cosine (HNSW index of this dimension); needs ``%(vector)s`` and ``%(text)s``.

    The spans are ranked joined to their documents, and to their pages only when the filter reads them (``page:``;
    :func:`_filter_from`, as the exact rankings read them); the pages of the top ones are joined after. A workspace
    of corpus size is ranked exactly (the planner expects few spans of the latest documents), and joining every
    span's page first took 22 ms of a 40 ms read of 6,220 spans."""
    where, params = span_filter_sql(f)
    query = sql.SQL(
        "SELECT {cols}, 1 - s.distance AS cosine, {all_terms} AS fulltext_match"
        " FROM (SELECT s.*, {distance} AS distance {filter_from}"
        " WHERE {where} AND s.dim = {dim} ORDER BY {distance} LIMIT %(limit)s) s"
        " {joins} ORDER BY s.distance"
    ).format(
        cols=_HIT_COLUMNS,
        distance=_distance(dim),
        all_terms=_ALL_TERMS,
        filter_from=_filter_from(f),
        joins=sql.SQL(_SPAN_JOINS),
        where=where,
        dim=sql.Literal(int(dim)),
    )
    return query, params


def nearest_first_leg(f: SpanFilter, dim: int) -> tuple[sql.Composed, dict[str, Any]]:
    """The dense leg read nearest-first: the ``%(scan)s`` spans nearest the question (the plan of a question
    without filters: the HNSW index, at scale), then the top ``%(limit)s`` of them that pass ``f``.

    When at least ``limit`` pass, they are the leg's answer: no span that passes is nearer than the farthest one
    read (as far as the index's order is exact: HNSW with relaxed iterative scans is approximate, as for a question
    without filters). When fewer pass, the filter is selective and every span that passes is ranked
    (:func:`capped_exact_leg` first for a phrase, else :func:`dense_leg`).
    This spares a filter that passes many spans the planner's choice of ranking all of them exactly, which it makes
    when it misjudges how many pass (a ``doc:`` pattern, an excluded phrase, a phrase).

    ``f`` is tested on the spans read, whole rows, and never used to find spans: a phrase's trigram index, which the
    planner would otherwise scan for every span holding the phrase and join to the nearest, stays unread (at 10^6
    spans, ``"security deposit"`` held by 1,405 spans: 397 of the 400 nearest hold it, read in 4 ms, where the
    trigram index's scan of the 1,405 took 58 ms).
    """
    where, params = span_filter_sql(f)
    query = sql.SQL(
        "SELECT {cols}, 1 - s.distance AS cosine, {all_terms} AS fulltext_match"
        " FROM (SELECT s.*, {distance} AS distance"
        " FROM spans s WHERE s.workspace = %(workspace)s AND s.dim = {dim} ORDER BY {distance}"
        " LIMIT %(scan)s) s"
        " {joins} WHERE {where} ORDER BY s.distance LIMIT %(limit)s"
    ).format(
        cols=_HIT_COLUMNS,
        distance=_distance(dim),
        all_terms=_ALL_TERMS,
        joins=sql.SQL(_SPAN_JOINS),
        where=where,
        dim=sql.Literal(int(dim)),
    )
    return query, params


def capped_exact_leg(f: SpanFilter, dim: int) -> tuple[sql.Composed, dict[str, Any]]:
    """Every span that passes ``f``, ranked by its exact distance to ``%(vector)s``, top ``%(limit)s``, when at most
    ``%(cap)s`` pass: each row tells how many passed (``passing``, at most ``cap + 1``); more than ``cap`` means
    the spans read are not all that pass, and the rows are no answer.

    The spans that pass are read first (their keys' indexes: a section, a document), never walked to through the
    HNSW graph, which under a filter passing few must go past the many that do not (at 10^6 spans,
    ``Section 9.5(b)`` passes 2,250, and the graph's walk read 20,000 spans to find 50 of them).
    """
    where, params = span_filter_sql(f)
    query = sql.SQL(
        "WITH passing AS MATERIALIZED (SELECT s.workspace, s.doc_id, s.page_number, s.ordinal, {distance} AS distance"
        " {filter_from} WHERE {where} AND s.dim = {dim} LIMIT %(cap)s + 1)"
        " SELECT {cols}, 1 - n.distance AS cosine, {all_terms} AS fulltext_match,"
        " (SELECT count(*) FROM passing) AS passing"
        " FROM (SELECT * FROM passing ORDER BY distance LIMIT %(limit)s) n"
        " JOIN spans s ON s.workspace = n.workspace AND s.doc_id = n.doc_id AND s.page_number = n.page_number"
        " AND s.ordinal = n.ordinal {joins} ORDER BY n.distance"
    ).format(where=where, **_exact_parts(f, dim))
    return query, params


def _exact_parts(f: SpanFilter, dim: int) -> dict[str, sql.Composable]:
    """What the exact rankings' statements share: the hit's columns, the distance, the full-text match, where the
    spans are read from and the joins of the hits."""
    return {
        "cols": _HIT_COLUMNS,
        "distance": _distance(dim),
        "all_terms": _ALL_TERMS,
        "filter_from": _filter_from(f),
        "joins": sql.SQL(_SPAN_JOINS),
        "dim": sql.Literal(int(dim)),
    }


def word_first_exact_leg(f: SpanFilter, dim: int) -> tuple[sql.Composed, dict[str, Any]]:
    """:func:`capped_exact_leg` for a filter that quotes phrases, finding its spans by one word of them: every span
    that passes ``f`` but for its phrases and holds the word in any letter case (``%(word_title)s`` or
    ``%(word_lower)s``, ``LIKE`` patterns of the word with a capital first letter, as the defined terms that make
    common phrases are written, and lower-cased, or else ``%(word_pattern)s``, the word as a case-insensitive regular
    expression: together the spans whose text matches that part of a phrase's expression), ranked by its exact
    distance to ``%(vector)s``, then the phrases tested in that order until ``%(limit)s`` hold them.

    The regular expression of a phrase costs about 3 µs per span tested, more than reaching the span's row, and a
    ``LIKE`` a third of it: when most spans holding the word hold the phrase (``"the borrower"``), testing the phrase
    on the nearest only saves most of the ranking (at 10^5 spans, 6,512 spans hold ``borrower``, 5,895 of them
    ``the borrower``). ``passing`` counts the word's spans (at most ``cap + 1``): more than ``cap`` means the rows
    are no answer, as for :func:`capped_exact_leg`; no rows means none of those read holds the phrases, which is an
    answer only when they were all read (not told here: ask :func:`capped_exact_leg`)."""
    if not f.phrase_patterns:
        raise ValueError("a ranking that finds its spans by a word of their phrases needs a phrase")
    where, params = span_filter_sql(dataclasses.replace(f, phrase_patterns=()))
    phrases = sql.SQL(" AND ").join(
        sql.SQL("t.text ~* {}").format(sql.Placeholder(f"phrase_{i}")) for i in range(len(f.phrase_patterns))
    )
    params.update({f"phrase_{i}": pattern for i, pattern in enumerate(f.phrase_patterns)})
    query = sql.SQL(
        "WITH holding AS MATERIALIZED (SELECT s.workspace, s.doc_id, s.page_number, s.ordinal, {distance} AS distance"
        " {filter_from} WHERE {where}"
        " AND (s.text LIKE %(word_title)s OR s.text LIKE %(word_lower)s OR s.text ~* %(word_pattern)s)"
        " AND s.dim = {dim} LIMIT %(cap)s + 1)"
        " SELECT {cols}, 1 - n.distance AS cosine, {all_terms} AS fulltext_match,"
        " (SELECT count(*) FROM holding) AS passing"
        " FROM (SELECT h.* FROM (SELECT * FROM holding ORDER BY distance OFFSET 0) h"
        " WHERE (SELECT {phrases} FROM spans t WHERE t.workspace = h.workspace AND t.doc_id = h.doc_id"
        " AND t.page_number = h.page_number AND t.ordinal = h.ordinal) LIMIT %(limit)s) n"
        " JOIN spans s ON s.workspace = n.workspace AND s.doc_id = n.doc_id AND s.page_number = n.page_number"
        " AND s.ordinal = n.ordinal {joins} ORDER BY n.distance"
    ).format(where=where, phrases=phrases, **_exact_parts(f, dim))
    return query, params


def passing_plan(f: SpanFilter, dim: int) -> tuple[sql.Composed, dict[str, Any]]:
    """The planner's plan (JSON) of reading the spans that pass ``f``: its top node's ``Plan Rows`` is how many it
    expects to pass."""
    where, params = span_filter_sql(f)
    query = sql.SQL("EXPLAIN (FORMAT JSON) SELECT 1 {from_} WHERE {where} AND s.dim = {dim}").format(
        from_=_filter_from(f), where=where, dim=sql.Literal(int(dim))
    )
    return query, params


def _filter_from(f: SpanFilter) -> sql.SQL:
    """The spans and what ``f`` tests of them: their document, and their page only for page ranges (joining every
    page of a workspace costs a read of them all when the planner hashes them)."""
    return sql.SQL("FROM spans s " + _SPAN_JOINS if f.page_ranges else "FROM spans s " + _DOCUMENT_JOIN)


#: How many spans the table holds, as the planner last counted them (every workspace: the HNSW index holds them all).
SELECT_SPANS_ESTIMATE = sql.SQL(
    "SELECT greatest(reltuples, 0)::float8 AS spans FROM pg_class WHERE oid = 'spans'::regclass"
)


def ranks_exactly_first(f: SpanFilter) -> bool:
    """Whether the dense leg tries :func:`capped_exact_leg` first: ``f`` passes spans by their keys (a section, a
    named document), whose indexes find them, and tests no text with a regular expression (a phrase, a mention: a
    filter that would be read twice when many pass)."""
    keyed = f.sections or f.doc_ids or f.names
    return bool(keyed) and not (f.phrase_patterns or f.mention_patterns)


def reads_nearest_first(f: SpanFilter) -> bool:
    """Whether the dense leg tries :func:`nearest_first_leg` first: ``f`` restricts by what may pass many spans
    (document patterns or types, pages, excluded words or phrases) or by a quoted phrase, which the spans nearest
    a question that quotes it mostly hold, and by nothing keyed that passes few (a named document, a section, a
    mention, another version), which :func:`dense_leg` ranks directly."""
    broad = f.doc_types or f.page_ranges or f.source_likes or f.excluded_likes or f.excluded_terms or f.phrase_patterns
    narrow = f.doc_ids or f.names or f.sections or f.mention_patterns or f.pinned
    return bool(broad) and not narrow


def fulltext_leg(f: SpanFilter) -> tuple[sql.Composed, dict[str, Any]]:
    """Top ``%(limit)s`` spans holding any word of ``%(text)s``, by ``ts_rank_cd`` (PostgreSQL full text): the
    lexical leg of a search of versions other than the latest, which the lexical index does not hold."""
    where, params = span_filter_sql(f)
    any_terms = sql.SQL("replace(plainto_tsquery('english', %(text)s)::text, ' & ', ' | ')::tsquery")
    query = sql.SQL(
        "SELECT {cols}, {all_terms} AS fulltext_match {from_}"
        " WHERE {where} AND numnode(plainto_tsquery('english', %(text)s)) > 0 AND s.tsv @@ {any_terms}"
        " ORDER BY ts_rank_cd(s.tsv, {any_terms}) DESC, s.doc_id, s.page_number, s.ordinal LIMIT %(limit)s"
    ).format(cols=_HIT_COLUMNS, all_terms=_ALL_TERMS, from_=_FROM, where=where, any_terms=any_terms)
    return query, params


def key_arrays(keys: Sequence[tuple[str, int, int]]) -> dict[str, list[Any]]:
    """``key_docs``, ``key_pages`` and ``key_ordinals``: span keys ``(doc_id, page_number, ordinal)`` as the keyed
    statements (:func:`keyed_leg`, :func:`keyed_nearer`, :func:`span_cosines`) take them."""
    return {
        "key_docs": [key[0] for key in keys],
        "key_pages": [key[1] for key in keys],
        "key_ordinals": [key[2] for key in keys],
    }


#: The spans of the keys in ``%(key_docs)s``, ``%(key_pages)s`` and ``%(key_ordinals)s``, each read by its primary
#: key, then its document and page by theirs: lateral reads of one row, which the planner can neither fold into
#: joins nor reorder. Folded, a quoted phrase's constant estimate (97 spans of 10^6) had it read every span holding
#: the phrase's trigrams and hash them with the keys (``"events of default" page:1-50``: 6,621 spans, 118 ms, where
#: 400 keys read by key take about 5), and a ``doc:`` pattern's estimate of one document had it read the 50 keys
#: again for each of the 25 documents that matched (20 ms at 10^5 spans, where reading them once takes 1).
_KEYED_SPANS = sql.SQL(
    "unnest(%(key_docs)s::text[], %(key_pages)s::int[], %(key_ordinals)s::int[]) AS k(doc_id, page_number, ordinal)"
    " CROSS JOIN LATERAL (SELECT * FROM spans s0 WHERE s0.workspace = %(workspace)s AND s0.doc_id = k.doc_id"
    " AND s0.page_number = k.page_number AND s0.ordinal = k.ordinal LIMIT 1) AS s"
    " CROSS JOIN LATERAL (SELECT * FROM documents d0 WHERE d0.workspace = s.workspace AND d0.doc_id = s.doc_id"
    " LIMIT 1) AS d"
    " CROSS JOIN LATERAL (SELECT * FROM pages p0 WHERE p0.workspace = s.workspace AND p0.doc_id = s.doc_id"
    " AND p0.page_number = s.page_number LIMIT 1) AS p"
)


def keyed_leg(f: SpanFilter) -> tuple[sql.Composed, dict[str, Any]]:
    """The spans whose keys are given in ``%(key_docs)s``, ``%(key_pages)s`` and ``%(key_ordinals)s`` (the lexical
    index's ranking, each key once) that also pass the filter; needs ``%(text)s`` for ``fulltext_match``.

    The keys lead, each span found by primary key, then its document and page (:data:`_KEYED_SPANS`): as a
    semi-join (``IN``) the planner expected some 25,000 rows from 50 keys and hashed the whole documents or pages
    table (at 10^5 spans, 7 ms of a 7.8 ms read went to hashing 10,000 pages), and as joins it could still begin
    elsewhere."""
    where, params = span_filter_sql(f)
    query = sql.SQL("SELECT {cols}, {all_terms} AS fulltext_match FROM {keyed} WHERE {where}").format(
        cols=_HIT_COLUMNS, all_terms=_ALL_TERMS, keyed=_KEYED_SPANS, where=where
    )
    return query, params


def span_cosines(dim: int) -> sql.Composed:
    """The cosine to ``%(vector)s`` of each span of ``%(workspace)s`` whose key is given in ``%(key_docs)s``,
    ``%(key_pages)s`` and ``%(key_ordinals)s`` and whose vector has ``dim`` dimensions (read by primary key): the
    dense leg's check of the graph's walk against the lexical leg's spans."""
    return sql.SQL(
        "SELECT s.doc_id, s.page_number, s.ordinal, 1 - ({distance}) AS cosine FROM spans s"
        " WHERE s.workspace = %(workspace)s AND s.dim = {dim} AND (s.doc_id, s.page_number, s.ordinal) IN"
        " (SELECT * FROM unnest(%(key_docs)s::text[], %(key_pages)s::int[], %(key_ordinals)s::int[]))"
    ).format(distance=_distance(dim), dim=sql.Literal(int(dim)))


def keyed_nearer(f: SpanFilter, dim: int) -> tuple[sql.Composed, dict[str, Any]]:
    """:func:`keyed_leg` (needs ``%(text)s`` too) of the spans of ``dim`` dimensions nearer ``%(vector)s`` than the
    cosine ``%(farthest)s``, with their cosines: the dense leg mends a filtered walk of the graph with these (keys
    from deeper in the lexical index's ranking than its leg keeps). Only the spans that join the walk's rows are
    read whole."""
    where, params = span_filter_sql(f)
    query = sql.SQL(
        "SELECT {cols}, {all_terms} AS fulltext_match, 1 - ({distance}) AS cosine"
        " FROM {keyed}"
        " WHERE s.dim = {dim} AND 1 - ({distance}) > %(farthest)s AND {where}"
    ).format(
        cols=_HIT_COLUMNS,
        all_terms=_ALL_TERMS,
        distance=_distance(dim),
        keyed=_KEYED_SPANS,
        dim=sql.Literal(int(dim)),
        where=where,
    )
    return query, params


INSERT_TOKEN = insert_statement("tokens", TokenRecord)
SELECT_TOKEN = sql.SQL(
    "SELECT token_id, workspace, secret_hash, mode, label, created_at, revoked_at FROM tokens"
    " WHERE token_id = %(token_id)s"
)
SELECT_TOKENS = sql.SQL(
    "SELECT token_id, workspace, mode, label, created_at, revoked_at FROM tokens"
    " WHERE workspace = %(workspace)s ORDER BY created_at, token_id"
)
REVOKE_TOKEN = sql.SQL("UPDATE tokens SET revoked_at = now() WHERE token_id = %(token_id)s AND revoked_at IS NULL")
