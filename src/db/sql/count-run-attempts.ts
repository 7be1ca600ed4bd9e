import type { SqlClient } from '../tx.ts';

/**
 * Counts attempt `number` on each run, while it is `owner`'s and that attempt
 * is its next one; returns the runs counted (one missing: lost, or counted already).
 * Index: "Run_pkey", one probe per run.
 */
export function countRunAttempts(tx: SqlClient, runs: { runId: string; number: number }[], owner: string, now: Date) {
  return tx.$queryRaw<{ id: string }[]>`
    UPDATE "Run" AS r SET attempts = next.number, "updatedAt" = ${now}
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.number)}::int[]) AS next(id, number)
    WHERE r.id = next.id AND r.status = 'IN_PROGRESS' AND r."leaseOwner" = ${owner} AND r.attempts = next.number - 1
    RETURNING r.id`;
}
