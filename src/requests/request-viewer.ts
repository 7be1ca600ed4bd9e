// Who an HTTP request is, found once per request: the rate limiter asks first
// (to count the request against its organization's quota, src/requests/rate-limits.ts),
// then the route serving it (the REST router, /graphql), and both get the
// same answer for one look-up. A look-up that failed (the database away) is
// not kept: the route looks again, and answers that failure in its own shape.
import type { FastifyRequest } from 'fastify';
import type { ApiKeyCache } from '../auth/api-key-cache.ts';
import { authenticate, type Viewer } from '../auth/authenticate.ts';
import type { Database } from '../db/database.ts';

/** The viewer the request's `X-API-Key` authenticates, or null (no key, or one unknown or revoked). */
export type RequestViewers = (request: FastifyRequest) => Promise<Viewer | null>;

export function requestViewers(db: Database, apiKeys: ApiKeyCache): RequestViewers {
  const found = new WeakMap<FastifyRequest, Promise<Viewer | null>>();
  return (request) => {
    let viewer = found.get(request);
    if (!viewer) {
      const key = request.headers['x-api-key'];
      viewer = authenticate(db, typeof key === 'string' ? key : null, apiKeys);
      found.set(request, viewer);
      viewer.catch(() => found.delete(request));
    }
    return viewer;
  };
}
