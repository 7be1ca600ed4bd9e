import type { TenantKey } from '../tenant-key.ts';
import type { SqlClient } from '../tx.ts';
import { type LeasedRuns, leasedRunCondition } from './leased-runs.ts';

export interface LeasedRunRow {
  id: string;
  organizationId: string;
  batchId: string;
  recoveries: number;
  /** The attempt still open (a call in flight), or null. */
  openAttempt: number | null;
  stepId: string | null;
}

/**
 * Locks up to 500 of the runs taken back, of batches the caller holds, each
 * with its open attempt; runs another transaction holds are skipped.
 * Index: as batches-of-leased-runs.ts; the open attempt on "RunAttempt_runId_number_organizationId_key".
 */
export function lockLeasedRuns(tx: SqlClient, runs: LeasedRuns, batches: TenantKey[]) {
  return tx.$queryRaw<LeasedRunRow[]>`
    SELECT r.id, r."organizationId", r."batchId", r.recoveries, a.number AS "openAttempt", a."stepId"
    FROM "Run" r
    LEFT JOIN "RunAttempt" a ON a."runId" = r.id AND a."organizationId" = r."organizationId" AND a."endedAt" IS NULL
    WHERE r.status = 'IN_PROGRESS' AND ${leasedRunCondition(runs)}
      AND (r."batchId", r."organizationId") IN (SELECT * FROM unnest(${batches.map((batch) => batch.id)}::text[],
        ${batches.map((batch) => batch.organizationId)}::text[]))
    ORDER BY r.id LIMIT 500
    FOR UPDATE OF r SKIP LOCKED`;
}
