import type { SqlClient } from '../tx.ts';

/**
 * Closes the runs' open attempts `failed` with `reason` (interrupted, lost).
 * Index: "RunAttempt_runId_number_organizationId_key", each run's range.
 */
export function failOpenAttempts(tx: SqlClient, runIds: string[], reason: string, now: Date) {
  return tx.$executeRaw`
    UPDATE "RunAttempt" SET "endedAt" = ${now}, outcome = 'failed', reason = ${reason}, "durationSeconds" = 0
    WHERE "runId" = ANY(${runIds}::text[]) AND "endedAt" IS NULL`;
}
