"""SQL text for the store. Values are always bound parameters; identifiers and DDL literals go through
``psycopg.sql``. Built here, run by :mod:`kruschnexus.store.postgres`, so tests can pin them."""

from __future__ import annotations

from psycopg import sql

INSERT_WORKSPACE = sql.SQL(
    "INSERT INTO workspaces (name, model_id, dim) VALUES (%(name)s, %(model_id)s, %(dim)s)"
    " ON CONFLICT (name) DO NOTHING"
)
SELECT_WORKSPACE = sql.SQL("SELECT model_id, dim FROM workspaces WHERE name = %(name)s")
SELECT_WORKSPACES = sql.SQL(
    "SELECT w.name, w.model_id, w.dim, count(d.doc_id) FROM workspaces w"
    " LEFT JOIN documents d ON d.workspace = w.name GROUP BY w.name ORDER BY w.name"
)
DELETE_WORKSPACE = sql.SQL("DELETE FROM workspaces WHERE name = %(name)s")
SELECT_DOCUMENT = sql.SQL(
    "SELECT source, page_count FROM documents WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s"
)
INSERT_DOCUMENT = sql.SQL(
    "INSERT INTO documents (workspace, doc_id, source, doc_type, kind, byte_size, page_count,"
    " extractor_version, chunker_version, model_id)"
    " VALUES (%(workspace)s, %(doc_id)s, %(source)s, %(doc_type)s, %(kind)s, %(byte_size)s, %(page_count)s,"
    " %(extractor_version)s, %(chunker_version)s, %(model_id)s)"
)
INSERT_PAGE = sql.SQL(
    "INSERT INTO pages (workspace, doc_id, page_number, text, width, height, rotation, label, used_ocr, needs_ocr)"
    " VALUES (%(workspace)s, %(doc_id)s, %(page_number)s, %(text)s, %(width)s, %(height)s, %(rotation)s,"
    " %(label)s, %(used_ocr)s, %(needs_ocr)s)"
)
INSERT_BLOCK = sql.SQL(
    "INSERT INTO blocks (workspace, doc_id, page_number, ordinal, kind, char_start, char_end, bbox)"
    " VALUES (%(workspace)s, %(doc_id)s, %(page_number)s, %(ordinal)s, %(kind)s, %(char_start)s, %(char_end)s,"
    " %(bbox)s)"
)
INSERT_SPAN = sql.SQL(
    "INSERT INTO spans (workspace, doc_id, page_number, ordinal, char_start, char_end, text, section,"
    " section_path, heading_path, header, boxes, bbox, locator, used_ocr, dim, embedding, tsv)"
    " VALUES (%(workspace)s, %(doc_id)s, %(page_number)s, %(ordinal)s, %(char_start)s, %(char_end)s, %(text)s,"
    " %(section)s, %(section_path)s, %(heading_path)s, %(header)s, %(boxes)s, %(bbox)s, %(locator)s,"
    " %(used_ocr)s, %(dim)s, %(embedding)s,"
    " setweight(to_tsvector('english', %(header)s), 'A') || setweight(to_tsvector('english', %(text)s), 'B'))"
)
SELECT_DOCUMENTS = sql.SQL(
    "SELECT doc_id, source, doc_type, kind, byte_size, page_count, extractor_version, ingested_at"
    " FROM documents WHERE workspace = %(workspace)s ORDER BY source, doc_id"
)
SELECT_SPANS = sql.SQL(
    "SELECT s.doc_id, d.source, d.doc_type, s.page_number, p.label, s.locator, s.header, s.heading_path,"
    " s.section, s.char_start, s.char_end, s.bbox, s.boxes, s.text, s.used_ocr, s.ordinal"
    " FROM spans s JOIN documents d ON d.workspace = s.workspace AND d.doc_id = s.doc_id"
    " JOIN pages p ON p.workspace = s.workspace AND p.doc_id = s.doc_id AND p.page_number = s.page_number"
    " WHERE s.workspace = %(workspace)s ORDER BY d.source, s.doc_id, s.page_number, s.ordinal"
)
SELECT_PAGES = sql.SQL(
    "SELECT page_number, text, needs_ocr FROM pages WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s"
    " ORDER BY page_number"
)
SELECT_DOC_SPANS = sql.SQL(
    "SELECT page_number, ordinal, char_start, char_end, text, boxes FROM spans"
    " WHERE workspace = %(workspace)s AND doc_id = %(doc_id)s ORDER BY page_number, ordinal"
)
COUNT_WORKSPACE = sql.SQL(
    "SELECT (SELECT count(*) FROM documents WHERE workspace = %(workspace)s) AS documents,"
    " (SELECT count(*) FROM pages WHERE workspace = %(workspace)s) AS pages,"
    " (SELECT count(*) FROM spans WHERE workspace = %(workspace)s) AS spans"
)


def hnsw_index_ddl(dim: int) -> sql.Composed:
    """The HNSW cosine index serving vectors of one dimension (a partial expression index)."""
    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {name} ON spans USING hnsw ((embedding::vector({dim})) vector_cosine_ops)"
        " WHERE dim = {dim}"
    ).format(name=sql.Identifier(f"spans_hnsw_d{int(dim)}"), dim=sql.Literal(int(dim)))
