-- Campaign-grade batches: calling windows, pacing, retries, the circuit
-- breaker's settings on the batch; call attempts; do-not-call lists; the
-- organization's signing secret for the requests the service makes for it.
-- Written by `npm run migration:new`, then edited by hand where Prisma's
-- schema cannot say it (see the comments marked "by hand").

-- CreateEnum
CREATE TYPE "CallOutcome" AS ENUM ('answered', 'no_answer', 'busy', 'voicemail', 'failed');

-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "autoPause" JSONB,
ADD COLUMN     "callingWindow" JSONB,
ADD COLUMN     "callsPerSecond" DOUBLE PRECISION,
ADD COLUMN     "maxConcurrency" INTEGER,
ADD COLUMN     "nextCallAt" TIMESTAMPTZ(3),
ADD COLUMN     "pausedReason" TEXT,
ADD COLUMN     "retry" JSONB NOT NULL DEFAULT '{"max_attempts": 1, "on": ["no_answer", "busy"], "delay_seconds": 600}';

-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "signingSecretEncrypted" TEXT;

-- AlterTable
ALTER TABLE "Prospect" ADD COLUMN     "timezone" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "lastOutcome" "CallOutcome",
ADD COLUMN     "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "reason" TEXT,
ADD COLUMN     "recoveries" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
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

    CONSTRAINT "RunAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DoNotCallNumber" (
    "organizationId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "reason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DoNotCallNumber_pkey" PRIMARY KEY ("organizationId","number")
);

-- CreateIndex
CREATE INDEX "RunAttempt_batchId_startedAt_idx" ON "RunAttempt"("batchId", "startedAt");

-- CreateIndex (by hand: partial, WHERE) The circuit breaker reads a batch's
-- latest ended attempts, newest first.
CREATE INDEX "RunAttempt_batchId_endedAt_idx" ON "RunAttempt"("batchId", "endedAt") WHERE "endedAt" IS NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "RunAttempt_runId_number_key" ON "RunAttempt"("runId", "number");

-- CreateIndex
CREATE INDEX "DoNotCallNumber_organizationId_createdAt_idx" ON "DoNotCallNumber"("organizationId", "createdAt" DESC);

-- DropIndex, CreateIndex (by hand: partial, WHERE) A claim now takes a
-- batch's runs (its pacing and concurrency are the batch's) in the order
-- (nextAttemptAt, id): a run waiting for a retry delay or a calling window is
-- past the end of the walk, so a claim stops at the first run not yet due
-- instead of reading every waiting run. Existing runs are due when they were
-- created (the column's default above gave them the migration's instant).
DROP INDEX "Run_createdAt_id_idx";
UPDATE "Run" SET "nextAttemptAt" = "createdAt" WHERE status = 'PENDING';
CREATE INDEX "Run_batchId_nextAttemptAt_id_idx" ON "Run"("batchId", "nextAttemptAt", "id") WHERE "status" = 'PENDING';

-- AddForeignKey
ALTER TABLE "RunAttempt" ADD CONSTRAINT "RunAttempt_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DoNotCallNumber" ADD CONSTRAINT "DoNotCallNumber_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
