import type { SqlQueryable } from '../database.ts';

/**
 * The API key with this hash, revoked or expired or not (no row: none), with its scopes.
 * Index: "ApiKey_hash_key".
 */
export async function apiKeyByHash(sql: SqlQueryable, hash: string) {
  const { rows } = await sql.query<{
    id: string;
    organizationId: string;
    revokedAt: Date | null;
    lastUsedAt: Date | null;
    name: string | null;
    scopes: string[];
    expiresAt: Date | null;
  }>(
    'SELECT id, "organizationId", "revokedAt", "lastUsedAt", name, scopes, "expiresAt" FROM "ApiKey" WHERE hash = $1',
    [hash],
  );
  return rows[0];
}
