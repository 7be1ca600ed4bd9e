import { BatchStatus } from '../../generated/prisma/enums.ts';
import { enumValues } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';

const LIVE = enumValues(BatchStatus.PENDING, BatchStatus.IN_PROGRESS, BatchStatus.PAUSED);

/**
 * Moves the batches whose every run is final to FINISHED, or FAILED when every
 * run failed (a client's CANCELLED stays); returns those that moved.
 * Index: "Batch_pkey", one probe per id (the caller holds the rows).
 */
export function completeBatches(tx: SqlClient, batchIds: string[]) {
  return tx.$queryRaw<{ id: string; organizationId: string; status: string }[]>`
    UPDATE "Batch" SET status = (CASE WHEN "failedCount" = "totalProspects" THEN 'FAILED' ELSE 'FINISHED' END)::"BatchStatus",
      "updatedAt" = now()
    WHERE id = ANY(${batchIds}::text[]) AND status IN (${LIVE})
      AND "pendingCount" + "inProgressCount" + "pausedCount" = 0
    RETURNING id, "organizationId", status::text AS status`;
}
