import type { SqlClient } from '../tx.ts';

/**
 * How many attempts each run made at its step, by run id.
 * Index: "RunAttempt_runId_number_organizationId_key", each run's range (a few rows).
 */
export async function attemptsAtSteps(
  tx: SqlClient,
  runs: { runId: string; organizationId: string; stepId: string }[],
): Promise<Map<string, number>> {
  const rows = await tx.$queryRaw<{ runId: string; count: number }[]>`
    SELECT at."runId", count(a."runId")::int AS count
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.organizationId)}::text[],
      ${runs.map((run) => run.stepId)}::text[]) AS at("runId", "organizationId", "stepId")
    LEFT JOIN "RunAttempt" AS a
      ON a."runId" = at."runId" AND a."organizationId" = at."organizationId" AND a."stepId" = at."stepId"
    GROUP BY at."runId"`;
  return new Map(rows.map((row) => [row.runId, row.count]));
}
