import type { TenantKey } from '../tenant-key.ts';
import type { SqlClient } from '../tx.ts';

export interface LockedBatchRow {
  id: string;
  organizationId: string;
  status: string;
  callingWindow: unknown;
  retry: unknown;
  autoPause: unknown;
}

/**
 * Locks batches in id order (the engine's lock order: src/engine/run-store.ts)
 * and reads what deciding their runs' next moves needs.
 * Index: "Batch_pkey", one probe per id.
 */
export function lockBatches(tx: SqlClient, batches: TenantKey[]) {
  return tx.$queryRaw<LockedBatchRow[]>`
    SELECT b.id, b."organizationId", b.status::text AS status, b."callingWindow", b.retry, b."autoPause" FROM "Batch" b
    JOIN unnest(${batches.map((batch) => batch.id)}::text[], ${batches.map((batch) => batch.organizationId)}::text[])
      AS locking(id, "organizationId") ON b.id = locking.id AND b."organizationId" = locking."organizationId"
    ORDER BY b.id FOR NO KEY UPDATE OF b`;
}
