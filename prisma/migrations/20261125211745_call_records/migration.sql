-- Call records (POST /runs/{run_id}/attempts/{attempt}/record, GET /call-records).
-- An answering machine's kinds become outcomes of their own: retry.on may name them.

ALTER TYPE "CallOutcome" ADD VALUE 'ivr';
ALTER TYPE "CallOutcome" ADD VALUE 'call_screening';

-- Organization settings (PATCH /settings): PII masked by default; the search language.
ALTER TABLE "Organization" ADD COLUMN     "redactPii" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "transcriptLanguage" TEXT NOT NULL DEFAULT 'english';

-- CreateTable
CREATE TABLE "CallRecord" (
    "id" TEXT NOT NULL DEFAULT ('rec_'::text || replace((gen_random_uuid())::text, '-'::text, ''::text)),
    "organizationId" TEXT NOT NULL,
    "attemptId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "attemptNumber" INTEGER NOT NULL,
    "batchId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "transcript" JSONB NOT NULL DEFAULT '[]',
    "detection" JSONB,
    "detectionResult" TEXT,
    "summary" TEXT,
    "disposition" JSONB,
    "dispositionLabel" TEXT,
    "dispositionCategory" TEXT,
    "data" JSONB,
    "sentiment" DOUBLE PRECISION CONSTRAINT "CallRecord_sentiment_range" CHECK ("sentiment" BETWEEN -1 AND 1),
    "endedBy" TEXT,
    "recordingUrl" TEXT,
    "latency" JSONB,
    "callbackAt" TIMESTAMPTZ(3),
    "evaluations" JSONB NOT NULL DEFAULT '[]',
    "transfer" JSONB,
    "searchVector" tsvector,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CallRecord_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CallRecord_attemptId_key" ON "CallRecord"("attemptId");

-- CreateIndex
CREATE INDEX "CallRecord_organizationId_createdAt_id_idx" ON "CallRecord"("organizationId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "CallRecord_batchId_createdAt_idx" ON "CallRecord"("batchId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "CallRecord_runId_idx" ON "CallRecord"("runId");

-- CreateIndex
-- Insights: an organization's attempts that ended in a period; open attempts are never read by it.
CREATE INDEX "RunAttempt_organizationId_endedAt_idx" ON "RunAttempt"("organizationId", "endedAt") WHERE "endedAt" IS NOT NULL;

-- GET /call-records?q=: the words of transcripts and summaries (searchVector @@ query).
CREATE INDEX "CallRecord_searchVector_idx" ON "CallRecord" USING GIN ("searchVector");

-- AddForeignKey
ALTER TABLE "CallRecord" ADD CONSTRAINT "CallRecord_attemptId_fkey" FOREIGN KEY ("attemptId") REFERENCES "RunAttempt"("id") ON DELETE CASCADE ON UPDATE CASCADE;
