import type { SqlClient } from '../tx.ts';

/**
 * Records the outcome of each run's latest call (the runs go on with their next step).
 * Index: "Run_pkey", one probe per run.
 */
export function recordLastOutcomes(
  tx: SqlClient,
  runs: { runId: string; organizationId: string; outcome: string }[],
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "Run" AS r SET "lastOutcome" = latest.outcome::"CallOutcome", "updatedAt" = ${now}
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.organizationId)}::text[],
      ${runs.map((run) => run.outcome)}::text[]) AS latest(id, "organizationId", outcome)
    WHERE r.id = latest.id AND r."organizationId" = latest."organizationId"`;
}
