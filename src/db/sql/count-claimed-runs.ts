import type { SqlClient } from '../tx.ts';

/**
 * Counts `count` runs of a batch claimed (PENDING to IN_PROGRESS, the batch
 * IN_PROGRESS with them) and sets when its next paced call may start (null:
 * not paced).
 * Index: "Batch_pkey" (the caller holds the row).
 */
export function countClaimedRuns(
  tx: SqlClient,
  organizationId: string,
  batchId: string,
  count: number,
  nextCallAt: Date | null,
) {
  return tx.$executeRaw`
    UPDATE "Batch" SET "pendingCount" = "pendingCount" - ${count}, "inProgressCount" = "inProgressCount" + ${count},
      status = (CASE WHEN status = 'PENDING' THEN 'IN_PROGRESS' ELSE status::text END)::"BatchStatus", "updatedAt" = now(),
      "nextCallAt" = ${nextCallAt}::timestamptz
    WHERE id = ${batchId} AND "organizationId" = ${organizationId}`;
}
