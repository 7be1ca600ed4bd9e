// Who is asking: every request (REST, /graphql, graphql-ws) names its caller
// by an API key (src/auth/api-keys.ts), and is served as the viewer the key
// belongs to. Issuing, revoking and rotating keys is the organization's
// business (src/domain/organizations.ts).
import type { Database } from '../db/database.ts';
import { apiKeyByHash } from '../db/sql/api-key-by-hash.ts';
import { hashApiKey, looksLikeApiKey } from './api-keys.ts';

/** The caller: the organization everything it reads or writes is confined to, and the key it came with. */
export interface Viewer {
  organizationId: string;
  apiKeyId: string;
}

// last_used_at is advisory: writing it on every request would turn each read
// into a write, so it is refreshed at most once a minute per key.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The viewer an API key authenticates, or null when the key is unknown or
 * revoked. Every request asks this, so
 * the key is read with one plain statement rather than through Prisma's query
 * pipeline; the rare write (last use) goes through Prisma.
 */
export async function authenticate(db: Database, key: string | undefined | null): Promise<Viewer | null> {
  if (!key || !looksLikeApiKey(key)) return null;
  const row = await apiKeyByHash(db.sql, hashApiKey(key));
  if (!row || row.revokedAt) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.prisma.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return { organizationId: row.organizationId, apiKeyId: row.id };
}
