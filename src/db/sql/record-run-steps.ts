import type { SqlClient } from '../tx.ts';

/**
 * Records the step each run is at, while it is `owner`'s; returns the runs that were.
 * Index: "Run_pkey", one probe per run.
 */
export function recordRunSteps(
  client: SqlClient,
  runs: { runId: string; organizationId: string; stepId: string }[],
  owner: string,
  now: Date,
) {
  return client.$queryRaw<{ id: string }[]>`
    UPDATE "Run" AS r SET "currentStepId" = at.step, "updatedAt" = ${now}
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.organizationId)}::text[],
      ${runs.map((run) => run.stepId)}::text[]) AS at(id, "organizationId", step)
    WHERE r.id = at.id AND r."organizationId" = at."organizationId" AND r.status = 'IN_PROGRESS'
      AND r."leaseOwner" = ${owner}
    RETURNING r.id`;
}
