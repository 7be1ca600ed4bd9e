import { BatchStatus } from '../../generated/prisma/enums.ts';
import { enumValues } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';

const CLAIMABLE = enumValues(BatchStatus.PENDING, BatchStatus.IN_PROGRESS);

/**
 * The organizations with batches whose runs may be claimed now, in id order
 * (the claim's lock order), read without locks: the one statement of a claim
 * that reads every organization's batches; each organization's are then
 * locked by a statement of its own (lock-due-batches.ts), which a sharded
 * database routes to that organization's shard (docs/scaling.md#ready-for-citus).
 * Index: "Batch_status_scheduledAt_idx", a range per status.
 */
export async function organizationsWithDueBatches(tx: SqlClient, now: Date): Promise<string[]> {
  const rows = await tx.$queryRaw<{ organizationId: string }[]>`
    SELECT DISTINCT "organizationId" FROM "Batch"
    WHERE status IN (${CLAIMABLE}) AND "pendingCount" > 0 AND ("scheduledAt" IS NULL OR "scheduledAt" <= ${now})
    ORDER BY "organizationId"`;
  return rows.map((row) => row.organizationId);
}
