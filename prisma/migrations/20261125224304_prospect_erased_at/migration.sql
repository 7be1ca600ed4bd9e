-- When a person's data was erased (DELETE /org/{org_id}/prospects/{prospect_id}): set once,
-- so a second erasure changes nothing and writes no second prospect.erased event.
-- AlterTable
ALTER TABLE "Prospect" ADD COLUMN     "erasedAt" TIMESTAMPTZ(3);
