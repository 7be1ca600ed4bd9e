import type { SqlQueryable } from '../database.ts';

/**
 * The API key with this hash, revoked or not (no row: none).
 * Index: "ApiKey_hash_key".
 */
export async function apiKeyByHash(sql: SqlQueryable, hash: string) {
  const { rows } = await sql.query<{
    id: string;
    organizationId: string;
    revokedAt: Date | null;
    lastUsedAt: Date | null;
  }>('SELECT id, "organizationId", "revokedAt", "lastUsedAt" FROM "ApiKey" WHERE hash = $1', [hash]);
  return rows[0];
}
