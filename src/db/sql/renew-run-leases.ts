import type { SqlClient } from '../tx.ts';

/**
 * Extends `owner`'s leases on the runs it still holds.
 * Index: "Run_pkey", one probe per id.
 */
export function renewRunLeases(client: SqlClient, runIds: string[], owner: string, leaseUntil: Date) {
  return client.$executeRaw`
    UPDATE "Run" SET "leaseExpiresAt" = ${leaseUntil}
    WHERE id = ANY(${runIds}::text[]) AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner}`;
}
