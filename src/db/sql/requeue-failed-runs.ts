import type { SqlClient } from '../tx.ts';

/**
 * Moves the batch's FAILED runs to `to` (PENDING, or PAUSED), due at once; returns how many.
 * Index: the batch's runs on "Run_batchId_status_startedAt_id_idx" (batchId, status, …).
 */
export function requeueFailedRuns(tx: SqlClient, organizationId: string, batchId: string, to: string) {
  return tx.$executeRaw`
    UPDATE "Run" SET status = ${to}::"RunStatus", "endedAt" = NULL, error = NULL, reason = NULL, "nextAttemptAt" = now(), "updatedAt" = now()
    WHERE "batchId" = ${batchId} AND "organizationId" = ${organizationId} AND status = 'FAILED'`;
}
