-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "trunkId" TEXT;

-- CreateIndex
CREATE INDEX "Run_status_createdAt_idx" ON "Run"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Run_trunkId_status_idx" ON "Run"("trunkId", "status");
