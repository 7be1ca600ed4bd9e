-- A call record's transcript (a 40-turn record: about 7 KB of JSON) is
-- compressed as each report writes it; with pglz (PostgreSQL's default) that
-- was 3% of PostgreSQL's CPU per report, with lz4 under 0.5% (BENCHMARKS.md,
-- "Call records: ingest, where each cost goes"). The words take lz4 too for
-- when they compress (a 40-turn record's, about 2 KB, do not: they are stored
-- out of line as they are, with either method). Rows written before keep their
-- pglz values, read as ever. A server built without lz4 (the embedded PGlite)
-- keeps pglz.
DO $$
BEGIN
  ALTER TABLE "CallRecord"
    ALTER COLUMN "transcript" SET COMPRESSION lz4,
    ALTER COLUMN "searchVector" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
