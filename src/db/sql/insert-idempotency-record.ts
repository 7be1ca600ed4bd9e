import type { SqlClient } from '../tx.ts';

/**
 * Records the organization's first request with `key`; no row when the key
 * is recorded already (that request's record stands).
 * Index: "IdempotencyRecord_organizationId_key_key" (ON CONFLICT).
 */
export function insertIdempotencyRecord(client: SqlClient, organizationId: string, key: string, requestHash: string) {
  return client.$queryRaw<{ id: string }[]>`
    INSERT INTO "IdempotencyRecord" ("organizationId", key, "requestHash") VALUES (${organizationId}, ${key}, ${requestHash})
    ON CONFLICT ("organizationId", key) DO NOTHING RETURNING id`;
}
