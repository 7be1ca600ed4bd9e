import type { SqlClient } from '../tx.ts';

export interface AttemptEnd {
  outcome: string;
  reason: string | null;
  durationSeconds: number | null;
}

/**
 * Closes the run's attempt `number` with its outcome, if still open; 1 when it was.
 * Index: "RunAttempt_runId_number_key".
 */
export function closeAttempt(tx: SqlClient, runId: string, number: number, end: AttemptEnd, now: Date) {
  return tx.$executeRaw`
    UPDATE "RunAttempt" SET "endedAt" = ${now}, outcome = ${end.outcome}::"CallOutcome", reason = ${end.reason},
      "durationSeconds" = ${end.durationSeconds}
    WHERE "runId" = ${runId} AND number = ${number} AND "endedAt" IS NULL`;
}
