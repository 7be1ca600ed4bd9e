-- Run and RunAttempt become range-partitioned by month (docs/scaling.md#runs-partitioned-by-month),
-- so that a month past RUN_RETENTION_MONTHS is dropped as a table instead of
-- deleted row by row. Prisma's schema cannot say PARTITION BY: this migration
-- builds both tables by hand with exactly the columns, keys and indexes
-- schema.prisma declares (the schema engine compares the partitioned parent,
-- which carries them all), and test/migrations.test.ts checks what it cannot see.
--
-- Run is partitioned on its id, which starts with the creation's milliseconds
-- (run_ + 12 hex digits); RunAttempt on its run's id, so an attempt lands in its
-- run's month and a month's runs and attempts go together. A partitioned
-- table's keys must hold its partition key, and every key of a tenant table
-- holds organizationId (docs/scaling.md, Citus): the primary keys become
-- (id, organizationId) and (id, runId, organizationId), the id first so a
-- lookup by id alone still walks the key. Each table has a default partition:
-- a row whose month has no partition yet (or an id of another form) is
-- stored there instead of failing its insert.

-- The foreign keys into the old tables go first.
ALTER TABLE "CallRecord" DROP CONSTRAINT "CallRecord_attemptId_fkey";
ALTER TABLE "RunAttempt" DROP CONSTRAINT "RunAttempt_runId_fkey";

-- The old tables step aside with their rows; their constraint and index names are freed.
ALTER TABLE "Run" RENAME TO "Run_unpartitioned";
ALTER TABLE "Run_unpartitioned" DROP CONSTRAINT "Run_pkey", DROP CONSTRAINT "Run_batch_fkey", DROP CONSTRAINT "Run_prospect_fkey";
DROP STATISTICS "Run_batchId_dependencies_stat";
DROP INDEX "Run_batchId_nextAttemptAt_id_idx", "Run_batchId_startedAt_id_idx", "Run_batchId_status_startedAt_id_idx",
  "Run_leaseExpiresAt_idx", "Run_organizationId_endedAt_idx", "Run_prospectId_startedAt_idx", "Run_trunkId_status_idx",
  "Run_workflowId_startedAt_id_idx", "Run_workflowId_status_startedAt_id_idx", "Run_workflowVersionId_startedAt_idx";
ALTER TABLE "RunAttempt" RENAME TO "RunAttempt_unpartitioned";
ALTER TABLE "RunAttempt_unpartitioned" DROP CONSTRAINT "RunAttempt_pkey";
DROP INDEX "RunAttempt_batchId_endedAt_idx", "RunAttempt_batchId_startedAt_idx", "RunAttempt_organizationId_endedAt_idx",
  "RunAttempt_organizationId_fromNumber_startedAt_idx", "RunAttempt_roomName_idx", "RunAttempt_runId_number_key";

-- CreateTable (by hand: PARTITION BY)
CREATE TABLE "Run" (
    "id" TEXT NOT NULL DEFAULT ((('run_'::text || lpad(to_hex(((date_part('epoch'::text, clock_timestamp()) * (1000)::double precision))::bigint), 12, '0'::text)) || '7'::text) || substr(replace((gen_random_uuid())::text, '-'::text, ''::text), 14)),
    "organizationId" TEXT NOT NULL,
    "workflowId" TEXT NOT NULL,
    "workflowVersionId" TEXT NOT NULL,
    "batchId" TEXT NOT NULL,
    "prospectId" TEXT NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'PENDING',
    "currentStepId" TEXT,
    "startedAt" TIMESTAMPTZ(3),
    "endedAt" TIMESTAMPTZ(3),
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "callbacks" INTEGER NOT NULL DEFAULT 0,
    "recoveries" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastOutcome" "CallOutcome",
    "reason" TEXT,
    "error" TEXT,
    "trunkId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id", "organizationId")
) PARTITION BY RANGE ("id");

-- CreateTable (by hand: PARTITION BY)
CREATE TABLE "RunAttempt" (
    "id" TEXT NOT NULL DEFAULT ('att_'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)),
    "organizationId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "batchId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "stepId" TEXT NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "outcome" "CallOutcome",
    "reason" TEXT,
    "fromNumber" TEXT,
    "toNumber" TEXT NOT NULL,
    "durationSeconds" DOUBLE PRECISION,
    "dynamicVariables" JSONB,
    "roomName" TEXT,
    "callEndedAt" TIMESTAMPTZ(3),
    "reportedOutcome" "CallOutcome",
    "reportedDurationSeconds" DOUBLE PRECISION,
    "consentId" TEXT,

    CONSTRAINT "RunAttempt_pkey" PRIMARY KEY ("id", "runId", "organizationId")
) PARTITION BY RANGE ("runId");

-- CreateIndex: as before (20261121074812_run_write_cost and later), on the parents; each partition gets its own.
CREATE INDEX "Run_workflowId_startedAt_id_idx" ON "Run"("workflowId", "startedAt" DESC, "id" DESC);
CREATE INDEX "Run_workflowId_status_startedAt_id_idx" ON "Run"("workflowId", "status", "startedAt" DESC, "id" DESC);
CREATE INDEX "Run_batchId_status_startedAt_id_idx" ON "Run"("batchId", "status", "startedAt" DESC, "id" DESC);
CREATE INDEX "Run_batchId_startedAt_id_idx" ON "Run"("batchId", "startedAt" DESC, "id" DESC);
CREATE INDEX "Run_prospectId_startedAt_idx" ON "Run"("prospectId", "startedAt" DESC);
CREATE INDEX "Run_workflowVersionId_startedAt_idx" ON "Run"("workflowVersionId", "startedAt" DESC);
CREATE INDEX "Run_batchId_nextAttemptAt_id_idx" ON "Run"("batchId", "nextAttemptAt", "id") WHERE "status" = 'PENDING';
CREATE INDEX "Run_leaseExpiresAt_idx" ON "Run"("leaseExpiresAt") WHERE "status" = 'IN_PROGRESS';
CREATE INDEX "Run_trunkId_status_idx" ON "Run"("trunkId", "status") WHERE "trunkId" IS NOT NULL;
CREATE INDEX "Run_organizationId_endedAt_idx" ON "Run"("organizationId", "endedAt") WHERE "endedAt" IS NOT NULL;
CREATE STATISTICS "Run_batchId_dependencies_stat" (dependencies) ON "batchId", "workflowVersionId", "workflowId", "organizationId" FROM "Run";

-- A retried start cannot write attempt n twice; the run's attempts in order.
CREATE UNIQUE INDEX "RunAttempt_runId_number_organizationId_key" ON "RunAttempt"("runId", "number", "organizationId");
CREATE INDEX "RunAttempt_batchId_startedAt_idx" ON "RunAttempt"("batchId", "startedAt");
CREATE INDEX "RunAttempt_batchId_endedAt_idx" ON "RunAttempt"("batchId", "endedAt") WHERE "endedAt" IS NOT NULL;
CREATE INDEX "RunAttempt_roomName_idx" ON "RunAttempt"("roomName");
CREATE INDEX "RunAttempt_organizationId_endedAt_idx" ON "RunAttempt"("organizationId", "endedAt") WHERE "endedAt" IS NOT NULL;
CREATE INDEX "RunAttempt_organizationId_fromNumber_startedAt_idx" ON "RunAttempt"("organizationId", "fromNumber", "startedAt");

-- The default partitions, then one partition a month from the oldest run's to
-- this one; the gateway creates the months ahead (src/engine/run-partitions.ts).
CREATE TABLE "Run_default" PARTITION OF "Run" DEFAULT;
CREATE TABLE "RunAttempt_default" PARTITION OF "RunAttempt" DEFAULT;
DO $$
DECLARE
  month date := coalesce(
    (SELECT date_trunc('month', to_timestamp(('x' || substr(min(id), 5, 12))::bit(48)::bigint / 1000.0) AT TIME ZONE 'UTC')::date
     FROM "Run_unpartitioned" WHERE id ~ '^run_[0-9a-f]{12}'),
    date_trunc('month', now() AT TIME ZONE 'UTC')::date);
  bound text;
  next_bound text;
BEGIN
  WHILE month <= date_trunc('month', now() AT TIME ZONE 'UTC')::date LOOP
    bound := 'run_' || lpad(to_hex((extract(epoch FROM month::timestamp AT TIME ZONE 'UTC') * 1000)::bigint), 12, '0');
    next_bound := 'run_' || lpad(to_hex((extract(epoch FROM (month + interval '1 month')::timestamp AT TIME ZONE 'UTC') * 1000)::bigint), 12, '0');
    EXECUTE format('CREATE TABLE %I PARTITION OF "Run" FOR VALUES FROM (%L) TO (%L)', 'Run_' || to_char(month, 'YYYY_MM'), bound, next_bound);
    EXECUTE format('CREATE STATISTICS %I (dependencies) ON "batchId", "workflowVersionId", "workflowId", "organizationId" FROM %I',
      'Run_' || to_char(month, 'YYYY_MM') || '_dependencies_stat', 'Run_' || to_char(month, 'YYYY_MM'));
    EXECUTE format('CREATE TABLE %I PARTITION OF "RunAttempt" FOR VALUES FROM (%L) TO (%L)', 'RunAttempt_' || to_char(month, 'YYYY_MM'), bound, next_bound);
    month := month + interval '1 month';
  END LOOP;
END $$;

-- The rows move into their months.
INSERT INTO "Run" SELECT "id", "organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "status",
  "currentStepId", "startedAt", "endedAt", "leaseOwner", "leaseExpiresAt", "attempts", "callbacks", "recoveries",
  "nextAttemptAt", "lastOutcome", "reason", "error", "trunkId", "createdAt", "updatedAt" FROM "Run_unpartitioned";
INSERT INTO "RunAttempt" SELECT "id", "organizationId", "runId", "batchId", "number", "stepId", "startedAt", "endedAt",
  "outcome", "reason", "fromNumber", "toNumber", "durationSeconds", "dynamicVariables", "roomName", "callEndedAt",
  "reportedOutcome", "reportedDurationSeconds", "consentId" FROM "RunAttempt_unpartitioned";
DROP TABLE "RunAttempt_unpartitioned";
DROP TABLE "Run_unpartitioned";
ANALYZE "Run";
ANALYZE "RunAttempt";

-- The call record's unique key becomes the one its foreign key to the attempt names.
DROP INDEX "CallRecord_attemptId_key";
CREATE UNIQUE INDEX "CallRecord_attemptId_runId_organizationId_key" ON "CallRecord"("attemptId", "runId", "organizationId");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_batch_fkey" FOREIGN KEY ("batchId", "workflowId", "organizationId", "workflowVersionId") REFERENCES "Batch"("id", "workflowId", "organizationId", "workflowVersionId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Run" ADD CONSTRAINT "Run_prospect_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RunAttempt" ADD CONSTRAINT "RunAttempt_run_fkey" FOREIGN KEY ("runId", "organizationId") REFERENCES "Run"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "CallRecord" ADD CONSTRAINT "CallRecord_attempt_fkey" FOREIGN KEY ("attemptId", "runId", "organizationId") REFERENCES "RunAttempt"("id", "runId", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
