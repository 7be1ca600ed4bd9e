import type { SqlClient } from '../tx.ts';

/**
 * Counts attempt `number` on each run, while it is `owner`'s, that attempt is
 * its next one and its batch is still running (PENDING or IN_PROGRESS: a run
 * that waited for a line while its batch was paused or cancelled places no
 * call); returns the runs counted (one missing: lost, counted already, or its
 * batch stopped).
 * Index: "Run_pkey", one probe per run, and "Batch_pkey" for its batch.
 */
export function countRunAttempts(
  tx: SqlClient,
  runs: { runId: string; organizationId: string; number: number }[],
  owner: string,
  now: Date,
) {
  return tx.$queryRaw<{ id: string }[]>`
    UPDATE "Run" AS r SET attempts = next.number, "updatedAt" = ${now}
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.organizationId)}::text[],
      ${runs.map((run) => run.number)}::int[]) AS next(id, "organizationId", number)
    WHERE r.id = next.id AND r."organizationId" = next."organizationId" AND r.status = 'IN_PROGRESS'
      AND r."leaseOwner" = ${owner} AND r.attempts = next.number - 1
      AND EXISTS (SELECT 1 FROM "Batch" b WHERE b.id = r."batchId" AND b."organizationId" = r."organizationId"
        AND b.status IN ('PENDING', 'IN_PROGRESS'))
    RETURNING r.id`;
}
