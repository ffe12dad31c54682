-- 0005_embed_key: what the model read for a span, as a key (a hash of the model id and the embedding text), so that
-- a document read again (after an extractor or chunker upgrade, or with OCR) reuses the vectors of the spans whose
-- text did not change instead of embedding them again. NULL for spans stored before this migration.
ALTER TABLE spans ADD COLUMN embed_key text;
CREATE INDEX spans_embed_key ON spans (workspace, embed_key) WHERE embed_key IS NOT NULL;
