import type { SqlClient } from '../tx.ts';

/**
 * A row when the organization's do-not-call list holds the number.
 * Index: "DoNotCallNumber_pkey" ("organizationId", number).
 */
export function doNotCallEntry(client: SqlClient, organizationId: string, number: string) {
  return client.$queryRaw<unknown[]>`
    SELECT 1 FROM "DoNotCallNumber" WHERE "organizationId" = ${organizationId} AND number = ${number}`;
}
