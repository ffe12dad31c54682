-- 0007_distributable: every table of a workspace's rows is keyed by its workspace, so that the schema can be
-- distributed by workspace (Citus: docs/scaling.md). The lexical outbox was keyed by its global sequence alone; its
-- rows are only ever read by workspace and sequence, so the key becomes (workspace, seq) and nothing else changes.
ALTER TABLE lexical_outbox DROP CONSTRAINT lexical_outbox_pkey;
ALTER TABLE lexical_outbox ADD PRIMARY KEY (workspace, seq);
DROP INDEX IF EXISTS lexical_outbox_workspace_seq;
