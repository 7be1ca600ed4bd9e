// Who is asking: every request (REST, /graphql, graphql-ws) names its caller
// by an API key (src/auth/api-keys.ts), and is served as the viewer the key
// belongs to. Issuing, revoking and rotating keys is the organization's
// business (src/domain/organizations.ts).
import type { Database } from '../db/database.ts';
import { apiKeyByHash } from '../db/sql/api-key-by-hash.ts';
import type { ApiKeyCache, VerifiedKey } from './api-key-cache.ts';
import { hashApiKey, looksLikeApiKey } from './api-keys.ts';

/**
 * The caller: the organization everything it reads or writes is confined to,
 * the key it came with (its name, for the audit trail) and what that key may
 * do (src/key-scopes.ts).
 */
export interface Viewer {
  organizationId: string;
  apiKeyId: string;
  apiKeyName?: string | null;
  scopes: readonly string[];
}

// last_used_at is advisory: writing it on every request would turn each read
// into a write, so it is refreshed at most once a minute per key.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The viewer an API key authenticates, or null when the key is unknown or
 * revoked or expired. Every request asks this: with a cache (the server's, src/services.ts)
 * a key verified in the last seconds costs no statement at all
 * (src/auth/api-key-cache.ts); otherwise the key is read with one plain
 * statement rather than through Prisma's query pipeline. The rare write (last
 * use) goes through Prisma.
 */
export async function authenticate(
  db: Database,
  key: string | undefined | null,
  cache?: ApiKeyCache,
): Promise<Viewer | null> {
  if (!key || !looksLikeApiKey(key)) return null;
  const hash = hashApiKey(key);
  const now = cache ? cache.now() : Date.now();
  const cached = cache?.get(hash, now);
  // An expiring key is kept no longer than its expiry (the cache's get checks it), so it stops at its instant.
  if (cached) {
    await recordUse(db, cached, now);
    return cached.viewer;
  }
  const generation = cache?.generation() ?? 0;
  const row = await apiKeyByHash(db.sql, hash);
  // Unknown and revoked keys are not remembered: made-up keys cost a read each, and no memory.
  if (!row || row.revokedAt) return null;
  const expiresAt = row.expiresAt?.getTime() ?? null;
  if (expiresAt !== null && expiresAt <= now) return null;
  const verified: VerifiedKey = {
    viewer: Object.freeze({
      organizationId: row.organizationId,
      apiKeyId: row.id,
      apiKeyName: row.name,
      scopes: Object.freeze([...row.scopes]),
    }),
    lastUsedAt: row.lastUsedAt?.getTime() ?? null,
    keyExpiresAt: expiresAt,
  };
  await recordUse(db, verified, now);
  cache?.keep(hash, verified, generation);
  return verified.viewer;
}

/**
 * Refreshes the key's last use when it is older than the resolution. Only if the
 * stored one is older too: instances that remember the key write it once a minute between them.
 */
async function recordUse(db: Database, key: VerifiedKey, now: number): Promise<void> {
  if (key.lastUsedAt !== null && now - key.lastUsedAt <= LAST_USED_RESOLUTION_MS) return;
  // Set before the write: the requests that come with this key meanwhile do not write it again.
  key.lastUsedAt = now;
  const stale = new Date(now - LAST_USED_RESOLUTION_MS);
  await db.prisma.apiKey.updateMany({
    where: { id: key.viewer.apiKeyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: stale } }] },
    data: { lastUsedAt: new Date(now) },
  });
}
