import type { SqlClient } from '../tx.ts';

/**
 * A row when the run's attempt `number` was written.
 * Index: "RunAttempt_runId_number_key".
 */
export function attemptExists(tx: SqlClient, runId: string, number: number) {
  return tx.$queryRaw<unknown[]>`SELECT 1 FROM "RunAttempt" WHERE "runId" = ${runId} AND number = ${number}`;
}
