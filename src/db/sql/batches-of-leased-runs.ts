import type { SqlClient } from '../tx.ts';
import { type LeasedRuns, leasedRunCondition } from './leased-runs.ts';

/**
 * The batches of the runs taken back (up to 100), read without locks: the
 * batches are locked first (the lock order), then the runs (lock-leased-runs.ts).
 * Index: expired leases on "Run_leaseExpiresAt_idx", partial WHERE status =
 * 'IN_PROGRESS'; given ids on "Run_pkey".
 */
export function batchesOfLeasedRuns(tx: SqlClient, runs: LeasedRuns) {
  return tx.$queryRaw<{ batchId: string; organizationId: string }[]>`
    SELECT DISTINCT r."batchId", r."organizationId" FROM "Run" r WHERE r.status = 'IN_PROGRESS' AND ${leasedRunCondition(runs)} LIMIT 100`;
}
