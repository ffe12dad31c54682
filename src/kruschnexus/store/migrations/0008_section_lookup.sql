-- 0008_section_lookup: a question that names a section is answered from indexes instead of from every span of the
-- workspace. Each arm of the section filter gets one: the section's ancestors (`section_path &&`), the sections below
-- it (`section LIKE '8.22.%'`, a pattern index whatever the collation) and a line that opens with the section's
-- number (`text ~* pattern`: the text's trigrams, pg_trgm, a trusted extension the database's owner may create).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX spans_section_path_gin ON spans USING gin (section_path);
CREATE INDEX spans_section_pattern ON spans (workspace, section text_pattern_ops);
CREATE INDEX spans_text_trgm ON spans USING gin (text gin_trgm_ops);

-- As for full-text matching (0003): under row security the planner uses these indexes only when the conditions'
-- functions are LEAKPROOF. PostgreSQL does not mark them so because their errors can carry an argument: a malformed
-- LIKE or regular-expression pattern, arrays of element types whose equality raises. In this store a pattern is
-- always a bound value of the question, never a column, and the arrays are text[] of section ids, so no row's
-- contents can reach an error; and only the store's own statements run on its role. The marking holds for the
-- whole database, though: a DBA who shares the database with other applications that rely on row security should
-- weigh it before running the statements `nexus doctor` gives. Marked here only when the migrating role may (a
-- superuser: the embedded server).
DO $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        ALTER FUNCTION pg_catalog.textlike(text, text) LEAKPROOF;
        ALTER FUNCTION pg_catalog.texticregexeq(text, text) LEAKPROOF;
        ALTER FUNCTION pg_catalog.arrayoverlap(anyarray, anyarray) LEAKPROOF;
    ELSE
        RAISE NOTICE 'not a superuser: a section look-up under row security cannot use its indexes until a'
            ' superuser marks textlike, texticregexeq and arrayoverlap LEAKPROOF (nexus doctor gives the statements)';
    END IF;
END $$;
