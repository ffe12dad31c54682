-- 0011_inline_vectors: a span's vector is kept in its row. pgvector's `vector` is stored EXTERNAL by default, and a
-- span's row (a 384-dimension vector is 1,544 bytes, plus its text, tsvector and boxes) is past the 2 kB at which
-- PostgreSQL moves the largest values to the TOAST table: 96% of the vectors lived there, so every distance the dense
-- leg computes from a row (the nearest-first read, a phrase's or a section's exact ranking, the lexical spans'
-- cosines) fetched one TOAST index entry and one TOAST page besides the row's own page. MAIN keeps the vector in
-- the row unless it cannot fit a page at all; a toast_tuple_target of a whole page keeps text, tsvector and boxes
-- in the row too, compressed or moved out only when the row would not fit a page.
-- Rows written before this migration keep their layout until the table is rewritten (`VACUUM FULL spans`, which
-- blocks the table while it runs); `nexus doctor` says how many there are.
-- Citus refuses SET STORAGE on a distributed table: there the shards keep their layout, and the operator changes it
-- shard by shard (`run_command_on_shards`); the migration says so and goes on.
DO $$
DECLARE
    distributed boolean := false;
BEGIN
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''spans''::regclass)'
            INTO distributed;
    END IF;
    IF distributed THEN
        RAISE NOTICE 'spans is distributed: its vectors keep their storage (set it on the shards)';
    ELSE
        ALTER TABLE spans ALTER COLUMN embedding SET STORAGE MAIN;
    END IF;
END $$;
ALTER TABLE spans SET (toast_tuple_target = 8160);
