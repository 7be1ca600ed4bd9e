import type { SqlClient } from '../tx.ts';

/**
 * Moves runs taken back with no call in flight to `to` (a waiting status, due
 * at once, or FAILED after too many recoveries), counting the recovery.
 * Index: "Run_pkey", one probe per id (the caller holds the rows).
 */
export function recoverIdleRuns(tx: SqlClient, organizationId: string, runIds: string[], to: string, now: Date) {
  const final = to === 'FAILED' || to === 'CANCELLED';
  return tx.$executeRaw`
    UPDATE "Run" SET status = ${to}::"RunStatus", "updatedAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
      "trunkId" = NULL, recoveries = recoveries + 1, "nextAttemptAt" = ${now},
      "endedAt" = CASE WHEN ${final} THEN ${now}::timestamptz ELSE NULL END,
      error = CASE WHEN ${to === 'FAILED'} THEN 'gave up after ' || (recoveries + 1) || ' recoveries' ELSE error END
    WHERE "organizationId" = ${organizationId} AND id = ANY(${runIds}::text[])`;
}
