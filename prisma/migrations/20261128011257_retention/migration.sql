-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "retainedAfterAt" TIMESTAMPTZ(3),
ADD COLUMN     "retainedAfterRunId" TEXT,
ADD COLUMN     "retentionDays" INTEGER;

-- CreateIndex
CREATE INDEX "WebhookEvent_objectId_idx" ON "WebhookEvent"("objectId");
