import type { BatchStatus } from '../../generated/prisma/enums.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Locks the organization's batch for a change (the lock order: the batch
 * first, src/engine/run-store.ts) and reads its status; no row when it is not theirs.
 * Index: "Batch_pkey".
 */
export function lockOrganizationBatch(tx: SqlClient, organizationId: string, batchId: string) {
  return tx.$queryRaw<{ status: BatchStatus }[]>`
    SELECT status FROM "Batch" WHERE id = ${batchId} AND "organizationId" = ${organizationId} FOR UPDATE`;
}
