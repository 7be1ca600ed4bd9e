-- A call record's transcript and words (a 40-turn record: about 7 KB of
-- JSON) are compressed as each report writes them; with pglz (PostgreSQL's
-- default) that was 3% of PostgreSQL's CPU per report, with lz4 under 0.5%
-- (BENCHMARKS.md, "Call records: ingest, where each cost goes"); lz4 also
-- decompresses faster, for ts_rank. Rows written before keep their pglz
-- values, read as ever. A server built without lz4 (the embedded PGlite)
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
