-- 0008_section_lookup: a question that names a section is answered from indexes instead of from every span of the
-- workspace. Each arm of the section filter gets one: the section's ancestors (`section_path &&`), the sections below
-- it (`section LIKE '8.22.%'`, a pattern index whatever the collation) and a line that opens with the section's
-- number (`text ~* pattern`: the text's trigrams, pg_trgm, a trusted extension the database's owner may create).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX spans_section_path_gin ON spans USING gin (section_path);
CREATE INDEX spans_section_pattern ON spans (workspace, section text_pattern_ops);
CREATE INDEX spans_text_trgm ON spans USING gin (text gin_trgm_ops);
