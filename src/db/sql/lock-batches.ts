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
export function lockBatches(tx: SqlClient, batchIds: string[]) {
  return tx.$queryRaw<LockedBatchRow[]>`
    SELECT id, "organizationId", status::text AS status, "callingWindow", retry, "autoPause" FROM "Batch"
    WHERE id = ANY(${batchIds}::text[]) ORDER BY id FOR NO KEY UPDATE`;
}
