-- 0009_embedding_cache: vectors shared between workspaces by embedding key (a hash of the model id and the exact text
-- the model read), so that a document ingested into a second workspace is not embedded again. Written and read only
-- when the embedding cache is on (`NEXUS_EMBED_CACHE`, off by default): a workspace that finds a text's vector here
-- learns that some workspace embedded that text, which is a leak between workspaces of different owners. It holds
-- no workspace and no text; rows are keyed by their own key (a table of its own when distributed, joined to none).
CREATE TABLE embedding_cache (
    embed_key text PRIMARY KEY,
    dim integer NOT NULL,
    embedding vector NOT NULL
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'nexus_workspace') THEN
        GRANT SELECT, INSERT, DELETE ON embedding_cache TO nexus_workspace;
    END IF;
END $$;
