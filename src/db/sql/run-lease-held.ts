import type { SqlClient } from '../tx.ts';

/**
 * Whether the run is IN_PROGRESS under `owner`'s lease (no row: the run is gone).
 * Index: "Run_pkey".
 */
export function runLeaseHeld(tx: SqlClient, runId: string, owner: string) {
  return tx.$queryRaw<{ held: boolean }[]>`
    SELECT status = 'IN_PROGRESS' AND "leaseOwner" = ${owner} AS held FROM "Run" WHERE id = ${runId}`;
}
