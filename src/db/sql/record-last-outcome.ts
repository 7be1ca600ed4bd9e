import type { SqlClient } from '../tx.ts';

/**
 * Records the outcome of a run's latest call (it goes on with its next step).
 * Index: "Run_pkey".
 */
export function recordLastOutcome(tx: SqlClient, runId: string, outcome: string, now: Date) {
  return tx.$executeRaw`UPDATE "Run" SET "lastOutcome" = ${outcome}::"CallOutcome", "updatedAt" = ${now} WHERE id = ${runId}`;
}
