-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "traceparent" TEXT;
