import type { SqlClient } from '../tx.ts';

/**
 * Moves the batch's runs in status `from` to `to` (CANCELLED ends them); returns how many.
 * Index: the batch's runs on "Run_batchId_status_startedAt_id_idx" (batchId, status, …).
 */
export function moveBatchRuns(
  tx: SqlClient,
  organizationId: string,
  batchId: string,
  from: string,
  to: string,
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "Run" SET status = ${to}::"RunStatus", "updatedAt" = ${now},
      "endedAt" = CASE WHEN ${to === 'CANCELLED'} THEN ${now}::timestamptz ELSE "endedAt" END
    WHERE "batchId" = ${batchId} AND "organizationId" = ${organizationId} AND status = ${from}::"RunStatus"`;
}
