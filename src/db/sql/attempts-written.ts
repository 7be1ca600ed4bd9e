import type { SqlClient } from '../tx.ts';

/**
 * Of these runs' attempts, the runs whose attempt `number` was written.
 * Index: "RunAttempt_runId_number_organizationId_key", one probe per attempt.
 */
export function attemptsWritten(tx: SqlClient, attempts: { runId: string; organizationId: string; number: number }[]) {
  return tx.$queryRaw<{ runId: string }[]>`
    SELECT a."runId" FROM "RunAttempt" AS a
    JOIN unnest(${attempts.map((attempt) => attempt.runId)}::text[], ${attempts.map((attempt) => attempt.organizationId)}::text[],
      ${attempts.map((attempt) => attempt.number)}::int[]) AS wanted("runId", "organizationId", number)
      ON a."runId" = wanted."runId" AND a."organizationId" = wanted."organizationId" AND a.number = wanted.number`;
}
