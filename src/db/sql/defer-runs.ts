import type { SqlClient } from '../tx.ts';

/**
 * Puts runs off until `until` (their calling window opens).
 * Index: "Run_pkey", one probe per id (the caller holds the rows).
 */
export function deferRuns(tx: SqlClient, organizationId: string, runIds: string[], until: Date) {
  return tx.$executeRaw`UPDATE "Run" SET "nextAttemptAt" = ${until} WHERE id = ANY(${runIds}::text[]) AND "organizationId" = ${organizationId}`;
}
