-- A batch's lowest run id (its runs are all written by the one INSERT that
-- creates the batch), so the statements reading a batch's runs bound "Run"."id",
-- the partition key, and PostgreSQL skips the months before the batch's
-- (docs/scaling.md#reading-a-batchs-months).
-- AlterTable
ALTER TABLE "Batch" ADD COLUMN "firstRunId" TEXT;

UPDATE "Batch" b SET "firstRunId" = r.first
FROM (SELECT "batchId", "organizationId", min(id) AS first FROM "Run" GROUP BY "batchId", "organizationId") r
WHERE r."batchId" = b.id AND r."organizationId" = b."organizationId";
