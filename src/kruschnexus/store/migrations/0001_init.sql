-- 0001_init: workspaces, documents, pages, blocks, spans. Every table is keyed by workspace.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE workspaces (
    name        text PRIMARY KEY,
    model_id    text NOT NULL,
    dim         integer NOT NULL CHECK (dim > 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
    workspace         text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
    doc_id            text NOT NULL,
    source            text NOT NULL,
    doc_type          text,
    kind              text NOT NULL,
    byte_size         bigint NOT NULL,
    page_count        integer NOT NULL,
    extractor_version text NOT NULL,
    chunker_version   text NOT NULL,
    model_id          text NOT NULL,
    ingested_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace, doc_id)
);

CREATE TABLE pages (
    workspace   text NOT NULL,
    doc_id      text NOT NULL,
    page_number integer NOT NULL CHECK (page_number >= 1),
    text        text NOT NULL,
    width       double precision NOT NULL,
    height      double precision NOT NULL,
    rotation    integer NOT NULL,
    label       text,
    used_ocr    boolean NOT NULL DEFAULT false,
    needs_ocr   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (workspace, doc_id, page_number),
    FOREIGN KEY (workspace, doc_id) REFERENCES documents (workspace, doc_id) ON DELETE CASCADE
);

CREATE TABLE blocks (
    workspace   text NOT NULL,
    doc_id      text NOT NULL,
    page_number integer NOT NULL,
    ordinal     integer NOT NULL,
    kind        text NOT NULL,
    char_start  integer NOT NULL,
    char_end    integer NOT NULL,
    bbox        double precision[] NOT NULL,
    PRIMARY KEY (workspace, doc_id, page_number, ordinal),
    FOREIGN KEY (workspace, doc_id, page_number) REFERENCES pages (workspace, doc_id, page_number) ON DELETE CASCADE
);

CREATE TABLE spans (
    workspace    text NOT NULL,
    doc_id       text NOT NULL,
    page_number  integer NOT NULL,
    ordinal      integer NOT NULL,
    char_start   integer NOT NULL CHECK (char_start >= 0),
    char_end     integer NOT NULL CHECK (char_end > char_start),
    text         text NOT NULL,
    section      text,
    section_path text[] NOT NULL DEFAULT '{}',
    heading_path text[] NOT NULL,
    header       text NOT NULL,
    boxes        jsonb,
    bbox         double precision[],
    locator      jsonb,
    used_ocr     boolean NOT NULL DEFAULT false,
    dim          integer NOT NULL,
    embedding    vector NOT NULL,
    tsv          tsvector NOT NULL,
    PRIMARY KEY (workspace, doc_id, page_number, ordinal),
    FOREIGN KEY (workspace, doc_id, page_number) REFERENCES pages (workspace, doc_id, page_number) ON DELETE CASCADE
);

CREATE INDEX spans_tsv_gin ON spans USING gin (tsv);
CREATE INDEX spans_section ON spans (workspace, section);
-- One HNSW cosine index per vector dimension is created on demand (store.queries.hnsw_index_ddl).
