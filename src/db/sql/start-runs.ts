import type { SqlClient } from '../tx.ts';

/**
 * Moves claimed runs to IN_PROGRESS under `owner`'s lease.
 * Index: "Run_pkey", one probe per id (the caller holds the rows).
 */
export function startRuns(
  tx: SqlClient,
  organizationId: string,
  runIds: string[],
  owner: string,
  now: Date,
  leaseUntil: Date,
) {
  return tx.$executeRaw`
    UPDATE "Run" SET status = 'IN_PROGRESS', "startedAt" = coalesce("startedAt", ${now}), "updatedAt" = ${now},
      "leaseOwner" = ${owner}, "leaseExpiresAt" = ${leaseUntil}
    WHERE id = ANY(${runIds}::text[]) AND "organizationId" = ${organizationId}`;
}
