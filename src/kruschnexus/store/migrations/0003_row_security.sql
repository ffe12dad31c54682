-- 0003_row_security: a transaction acting for one workspace sees and writes only that workspace's rows,
-- enforced by PostgreSQL row-level security, not only by the WHERE clauses of the queries. The store sets
-- `nexus.workspace` for the transaction (set_config(..., true)); '*' is the catalogue scope (listing workspaces,
-- deciding whether kept bytes are still used). Workspace names cannot be '*'. FORCE applies the policies to the
-- tables' owner too; a superuser connection bypasses row security, so the store then also switches to the
-- role nexus_workspace for each workspace transaction.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'nexus_workspace') THEN
        CREATE ROLE nexus_workspace NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
EXCEPTION
    WHEN duplicate_object THEN NULL;  -- created by a concurrent migration of another database in this cluster
    WHEN insufficient_privilege THEN
        RAISE NOTICE 'cannot create role nexus_workspace; row security still binds a non-superuser owner';
END $$;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'nexus_workspace') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO nexus_workspace', current_schema());
        GRANT SELECT, INSERT, UPDATE, DELETE ON workspaces, documents, pages, blocks, spans TO nexus_workspace;
    END IF;
END $$;

-- Under row security the planner may use an index for a condition before the policy's only when the condition's
-- function is LEAKPROOF; `tsvector @@ tsquery` (ts_match_vq) is not marked so, which turns the full-text leg's GIN
-- lookup into a scan of the whole workspace (x5-10 per query on the corpus, bench/rls.py). Its result depends only
-- on its two arguments and it raises no error that reveals a row's contents, so it is marked LEAKPROOF where the
-- migrating role may (a superuser); otherwise a DBA can run the same statement.
DO $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
    ELSE
        RAISE NOTICE 'not a superuser: full-text search under row security cannot use its GIN index until a'
            ' superuser runs ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF';
    END IF;
END $$;

ALTER TABLE workspaces ENABLE ROW LEVEL SECURITY;
ALTER TABLE workspaces FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_scope ON workspaces
    USING (name = current_setting('nexus.workspace', true) OR current_setting('nexus.workspace', true) = '*');

ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
ALTER TABLE documents FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_scope ON documents
    USING (workspace = current_setting('nexus.workspace', true) OR current_setting('nexus.workspace', true) = '*');

ALTER TABLE pages ENABLE ROW LEVEL SECURITY;
ALTER TABLE pages FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_scope ON pages
    USING (workspace = current_setting('nexus.workspace', true) OR current_setting('nexus.workspace', true) = '*');

ALTER TABLE blocks ENABLE ROW LEVEL SECURITY;
ALTER TABLE blocks FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_scope ON blocks
    USING (workspace = current_setting('nexus.workspace', true) OR current_setting('nexus.workspace', true) = '*');

ALTER TABLE spans ENABLE ROW LEVEL SECURITY;
ALTER TABLE spans FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_scope ON spans
    USING (workspace = current_setting('nexus.workspace', true) OR current_setting('nexus.workspace', true) = '*');

-- API tokens: one workspace each, read or write; only a hash of the secret is stored.
CREATE TABLE tokens (
    token_id     text PRIMARY KEY,
    workspace    text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
    secret_hash  bytea NOT NULL,
    mode         text NOT NULL CHECK (mode IN ('read', 'write')),
    label        text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz
);
CREATE INDEX tokens_workspace ON tokens (workspace);
