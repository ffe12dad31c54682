-- 0004_lexical_outbox: the lexical (BM25) index is derived from these tables, never primary. Every document
-- transaction that stores or removes a document also writes one outbox row (in the same transaction); the index
-- applies the rows after commit and catches up at start, so a crash between the two loses nothing.
-- `seq` orders the changes of one workspace in commit order: writers take a per-workspace transaction lock just
-- before inserting their row (store.queries.LOCK_OUTBOX) and hold it until commit.
CREATE TABLE lexical_outbox (
    seq         bigserial PRIMARY KEY,
    workspace   text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
    doc_id      text NOT NULL,
    op          text NOT NULL CHECK (op IN ('upsert', 'delete')),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lexical_outbox_workspace_seq ON lexical_outbox (workspace, seq);

ALTER TABLE lexical_outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE lexical_outbox FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_scope ON lexical_outbox
    USING (workspace = current_setting('nexus.workspace', true) OR current_setting('nexus.workspace', true) = '*');

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'nexus_workspace') THEN
        GRANT SELECT, INSERT, DELETE ON lexical_outbox TO nexus_workspace;
        GRANT USAGE ON SEQUENCE lexical_outbox_seq_seq TO nexus_workspace;
    END IF;
END $$;
