import type { SqlClient } from '../tx.ts';

/**
 * Puts each run off until its own instant (contact_limits: each number's
 * window frees at another time), in one statement.
 * Index: "Run_pkey", one probe per id (the caller holds the rows).
 */
export function deferRunsEach(tx: SqlClient, organizationId: string, runs: { id: string; until: Date }[]) {
  return tx.$executeRaw`
    UPDATE "Run" AS r SET "nextAttemptAt" = d.until
    FROM unnest(${runs.map((run) => run.id)}::text[], ${runs.map((run) => run.until)}::timestamptz[]) AS d(id, until)
    WHERE r.id = d.id AND r."organizationId" = ${organizationId}`;
}
