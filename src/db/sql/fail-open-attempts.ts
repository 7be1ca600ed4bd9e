import type { TenantKey } from '../tenant-key.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Closes the runs' open attempts `failed` with `reason` (interrupted, lost).
 * Index: "RunAttempt_runId_number_organizationId_key", each run's range.
 */
export function failOpenAttempts(tx: SqlClient, runs: TenantKey[], reason: string, now: Date) {
  return tx.$executeRaw`
    UPDATE "RunAttempt" AS a SET "endedAt" = ${now}, outcome = 'failed', reason = ${reason}, "durationSeconds" = 0
    FROM unnest(${runs.map((run) => run.id)}::text[], ${runs.map((run) => run.organizationId)}::text[])
      AS taken(id, "organizationId")
    WHERE a."runId" = taken.id AND a."organizationId" = taken."organizationId" AND a."endedAt" IS NULL`;
}
