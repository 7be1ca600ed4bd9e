import type { SqlClient } from '../tx.ts';

/**
 * Ends a run that placed no call (FAILED or CANCELLED, with its reason), while
 * it is `owner`'s; 1 when it was.
 * Index: "Run_pkey".
 */
export function endRunWithoutCall(
  tx: SqlClient,
  organizationId: string,
  runId: string,
  owner: string,
  end: { to: string; reason: string; error: string | null },
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "Run" SET status = ${end.to}::"RunStatus", "endedAt" = ${now}, "updatedAt" = ${now}, reason = ${end.reason}, error = ${end.error},
      "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "trunkId" = NULL
    WHERE id = ${runId} AND "organizationId" = ${organizationId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner}`;
}
