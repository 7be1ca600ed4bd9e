import type { SqlClient } from '../tx.ts';

/**
 * Runs in progress over every instance, per organization: the sum of its
 * active (PENDING, IN_PROGRESS, PAUSED) batches' counters. A cancelled
 * batch's runs still ending are not counted: they end without another call.
 * Index: "Batch_status_scheduledAt_idx", a range per active status (active
 * batches are few beside the finished ones).
 */
export function runsInProgressByOrganization(tx: SqlClient, organizationIds: string[]) {
  return tx.$queryRaw<{ organizationId: string; inProgress: number }[]>`
    SELECT "organizationId", sum("inProgressCount")::int AS "inProgress" FROM "Batch"
    WHERE status IN ('PENDING', 'IN_PROGRESS', 'PAUSED') AND "organizationId" = ANY(${organizationIds}::text[])
    GROUP BY "organizationId"`;
}
