import type { SqlClient } from '../tx.ts';

/**
 * How many attempts a run made at one step.
 * Index: "RunAttempt_runId_number_key", the run's range (a few rows).
 */
export async function countAttemptsAtStep(tx: SqlClient, runId: string, stepId: string): Promise<number> {
  const [row] = await tx.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM "RunAttempt" WHERE "runId" = ${runId} AND "stepId" = ${stepId}`;
  return row!.count;
}
