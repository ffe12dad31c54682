-- 0006_versions: a document has a stable name in its workspace (its path relative to the ingested folder, or a
-- name given at ingest) and each distinct content stored under that name is a version of it (1, 2, ...). A row of
-- `documents` stays one content (doc_id, the hash of its bytes); `latest` marks the version a search answers from
-- by default. Rows stored before this migration are named by their file name; when two rows of a workspace share
-- one (before, re-ingesting an edited file kept both copies), the newest keeps the plain name and each older one
-- is named `file (first 12 hex of its doc_id)`, so that no stored document stops being searched by the upgrade.
ALTER TABLE documents ADD COLUMN name text;
ALTER TABLE documents ADD COLUMN version integer;
ALTER TABLE documents ADD COLUMN latest boolean NOT NULL DEFAULT true;

UPDATE documents d
SET name = CASE WHEN r.newest = 1 THEN d.source ELSE d.source || ' (' || left(d.doc_id, 12) || ')' END,
    version = 1
FROM (
    SELECT workspace, doc_id,
        row_number() OVER (PARTITION BY workspace, source ORDER BY ingested_at DESC, doc_id DESC) AS newest
    FROM documents
) r
WHERE r.workspace = d.workspace AND r.doc_id = d.doc_id;

ALTER TABLE documents ALTER COLUMN name SET NOT NULL;
ALTER TABLE documents ALTER COLUMN version SET NOT NULL;
ALTER TABLE documents ADD CONSTRAINT documents_version_positive CHECK (version >= 1);
CREATE UNIQUE INDEX documents_name_version ON documents (workspace, name, version);
CREATE UNIQUE INDEX documents_name_latest ON documents (workspace, name) WHERE latest;
