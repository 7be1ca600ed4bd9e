-- E4 writes 100,000 runs in one statement; a new PENDING run now writes 8
-- index entries instead of 11 and makes 2 foreign-key checks instead of 5.
-- Written by `npm run migration:new`, then edited by hand where Prisma's
-- schema cannot say it (see the comments marked "by hand").

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_batchId_fkey";

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_organizationId_fkey";

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_prospectId_fkey";

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_workflowId_fkey";

-- DropForeignKey
ALTER TABLE "Run" DROP CONSTRAINT "Run_workflowVersionId_fkey";

-- DropIndex
DROP INDEX "Run_batchId_startedAt_id_idx";

-- DropIndex
DROP INDEX "Run_batchId_status_startedAt_id_idx";

-- DropIndex
DROP INDEX "Run_status_createdAt_idx";

-- DropIndex
DROP INDEX "Run_status_leaseExpiresAt_idx";

-- DropIndex
DROP INDEX "Run_workflowId_startedAt_id_idx";

-- DropIndex
DROP INDEX "Run_workflowId_status_startedAt_id_idx";

-- AlterTable
ALTER TABLE "Run" ALTER COLUMN "id" SET DEFAULT ((('run_'::text || lpad(to_hex(((date_part('epoch'::text, clock_timestamp()) * (1000)::double precision))::bigint), 12, '0'::text)) || '7'::text) || substr(replace((gen_random_uuid())::text, '-'::text, ''::text), 14));

-- CreateIndex
CREATE UNIQUE INDEX "Batch_id_workflowId_organizationId_workflowVersionId_key" ON "Batch"("id", "workflowId", "organizationId", "workflowVersionId");

-- CreateIndex
CREATE UNIQUE INDEX "Prospect_id_organizationId_key" ON "Prospect"("id", "organizationId");

-- CreateIndex
CREATE INDEX "Run_workflowId_startedAt_id_idx" ON "Run"("workflowId", "startedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Run_workflowId_status_startedAt_id_idx" ON "Run"("workflowId", "status", "startedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Run_batchId_status_startedAt_id_idx" ON "Run"("batchId", "status", "startedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Run_batchId_startedAt_id_idx" ON "Run"("batchId", "startedAt" DESC, "id" DESC);

-- CreateIndex (by hand: partial, WHERE) The claim's order, (createdAt, id): all
-- runs of a batch share createdAt, so without id the claim sorted them all.
CREATE INDEX "Run_createdAt_id_idx" ON "Run"("createdAt", "id") WHERE "status" = 'PENDING';

-- CreateIndex (by hand: partial, WHERE)
CREATE INDEX "Run_leaseExpiresAt_idx" ON "Run"("leaseExpiresAt") WHERE "status" = 'IN_PROGRESS';

-- DropIndex, CreateIndex (by hand: the same index made partial, which the
-- schema engine cannot see without the partialIndexes preview feature)
DROP INDEX "Run_trunkId_status_idx";
CREATE INDEX "Run_trunkId_status_idx" ON "Run"("trunkId", "status") WHERE "trunkId" IS NOT NULL;

-- DropIndex, CreateIndex (by hand, as above)
DROP INDEX "Run_organizationId_endedAt_idx";
CREATE INDEX "Run_organizationId_endedAt_idx" ON "Run"("organizationId", "endedAt") WHERE "endedAt" IS NOT NULL;

-- CreateStatistics (by hand: Prisma's schema has no statistics) A batch
-- determines its version, workflow and organization: without this the planner
-- multiplies their selectivities as if they were independent.
CREATE STATISTICS "Run_batchId_dependencies_stat" (dependencies) ON "batchId", "workflowVersionId", "workflowId", "organizationId" FROM "Run";

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_batch_fkey" FOREIGN KEY ("batchId", "workflowId", "organizationId", "workflowVersionId") REFERENCES "Batch"("id", "workflowId", "organizationId", "workflowVersionId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_prospect_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
