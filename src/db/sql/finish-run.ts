import type { SqlClient } from '../tx.ts';

/**
 * Ends a run after its steps (FINISHED or FAILED), while it is `owner`'s; 1 when it was.
 * Index: "Run_pkey".
 */
export function finishRun(
  tx: SqlClient,
  runId: string,
  owner: string,
  outcome: string,
  error: string | null,
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "Run" SET status = ${outcome}::"RunStatus", "endedAt" = ${now}, "updatedAt" = ${now}, error = ${error},
      "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "trunkId" = NULL
    WHERE id = ${runId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner}`;
}
