// A stream held open with a key (a graphql-ws connection, an SSE subscription
// or live query over /graphql) hears nothing more once its key no longer
// holds, as an HTTP request with it would be refused: the key is verified
// again every API_KEY_CACHE_TTL_MS (on the key cache's clock,
// src/auth/api-key-cache.ts) while the stream lasts, and the stream ends once
// the key is revoked, expired, or holds other scopes.
import type { Database } from '../db/database.ts';
import type { ApiKeyCache } from './api-key-cache.ts';
import { authenticate, type Viewer } from './authenticate.ts';

const sameScopes = (a: Viewer, b: Viewer) =>
  a.scopes.length === b.scopes.length && a.scopes.every((s, i) => s === b.scopes[i]);

/**
 * A signal that aborts once `key`, which authenticated `viewer`, no longer
 * holds as it did. The key is watched until `until` aborts (the stream ended).
 */
export function keyLapse(
  db: Database,
  apiKeys: ApiKeyCache,
  key: string,
  viewer: Viewer,
  until: AbortSignal,
): AbortSignal {
  const lapsed = new AbortController();
  void (async () => {
    while (!until.aborted) {
      try {
        await apiKeys.untilRecheck(until);
      } catch {
        return; // the stream ended
      }
      // A failed read (the database away a moment) keeps the stream: the next turn reads again.
      const now = await authenticate(db, key, apiKeys).catch(() => viewer);
      if (until.aborted) return;
      if (!now || !sameScopes(now, viewer)) {
        lapsed.abort();
        return;
      }
    }
  })();
  return lapsed.signal;
}
