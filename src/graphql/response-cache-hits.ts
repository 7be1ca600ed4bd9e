// Response cache hits answered before yoga (src/http/app.ts's /graphql
// handler): a request the cache answered once (use-response-cache.ts, through
// yoga) is answered again, when it comes back byte for byte the same, from
// the key yoga computed for it, without yoga's fetch Request and Response,
// its parameter parsing and its plugins, which were most of a hit's CPU
// (BENCHMARKS.md, (n)).
//
// What a request is recognised by (its "route"): its caller's cache session
// (organization and key scopes, responseCacheSession), its method, URL,
// Accept and Content-Type headers, and its body's bytes. Yoga derives the
// cache key from nothing else (the key is the session, document, operation
// name and variables the body or URL holds), and what it answers a hit with
// from nothing else either (Accept chooses the media type): so the same route
// has the same key and the same headers. What the route's first hit told
// (its key, status and headers) is kept; the answer itself is looked up in
// the store each time, as through yoga: in Redis, a copy checked against its
// nonce (src/events/response-cache-store.ts), so nothing is served past an
// invalidation. Not found (dropped, expired, Redis away): the request goes to
// yoga as any other, which misses and executes.
//
// What runs for a hit here as through yoga: the Fastify hooks (the rate
// limit, counted per request; the request log; security headers, CORS), the
// caller's authentication (the session needs its organization and scopes),
// the bypass (`Cache-Control: no-cache`/`no-store` goes to yoga), the hit
// counter and the `X-Response-Cache: hit` header.
import type { IncomingHttpHeaders } from 'node:http';
import type { ResponseCacheStore } from '../events/response-cache-store.ts';
import type { Metrics } from '../observability/metrics.ts';
import { bypassesCache, type CacheSessionContext, responseCacheSession } from './use-response-cache.ts';

/**
 * The largest body a route is recognised by: a dashboard's query with its
 * variables is a few kB. Larger bodies are read by yoga from the stream, as before.
 */
export const HIT_BODY_BYTES = 16 * 1024;
/** Routes remembered, the least recently learned forgotten first: at most ~16 MiB of bodies. */
const MAX_ROUTES = 1_000;

/** What a request is, as far as the route goes. */
export interface HitRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Its body's bytes when read before yoga (a POST of at most HIT_BODY_BYTES); undefined otherwise. */
  body: unknown;
}

/** What the route's first hit was answered with, besides its body. */
interface Route {
  /** The answer's key in the store (use-response-cache.ts's buildResponseCacheKey). */
  key: string;
  status: number;
  headers: Record<string, string>;
}

/** An answer for a hit: the kept bytes, with the status and headers yoga answered the route's first hit with. */
export interface Hit extends Omit<Route, 'key'> {
  bytes: Buffer;
}

export class ResponseCacheHits {
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly store: ResponseCacheStore,
    private readonly metrics: Metrics,
  ) {}

  /** The request's route, or undefined when it may not be answered here (no caller, a bypass, a body not read). */
  routeOf(request: HitRequest, context: CacheSessionContext): string | undefined {
    if (this.store.settings.ttlMs === 0) return undefined;
    const session = responseCacheSession(context);
    if (session === null || bypassesCache(request.headers['cache-control'])) return undefined;
    const { method, url, headers, body } = request;
    const bytes = body instanceof Buffer && body.length <= HIT_BODY_BYTES ? body : undefined;
    if (method !== 'GET' && !bytes) return undefined;
    // A body's bytes as one character each (latin1): compared exactly, not hashed.
    return `${session}\n${method} ${url}\n${headers.accept ?? ''}\n${headers['content-type'] ?? ''}\n${bytes?.toString('latin1') ?? ''}`;
  }

  /** The answer kept for the route, when it has been a hit before and its answer is still kept (its nonce in Redis). */
  async answer(route: string | undefined): Promise<Hit | undefined> {
    const known = route === undefined ? undefined : this.routes.get(route);
    if (!known) return undefined;
    const found = await this.store.find(known.key);
    if (!found) return undefined;
    this.metrics.responseCache.inc({ result: 'hit' });
    return { status: known.status, headers: known.headers, bytes: found.bytes };
  }

  /** Yoga answered the route with a hit of `key`: its next requests are answered here. */
  learn(route: string | undefined, key: string, response: Response): void {
    if (route === undefined || this.routes.has(route)) return;
    if (this.routes.size >= MAX_ROUTES) this.routes.delete(this.routes.keys().next().value as string);
    const headers: Record<string, string> = {};
    // Its length is the bytes' own, counted as they are sent.
    for (const [name, value] of response.headers) if (name !== 'content-length') headers[name] = value;
    this.routes.set(route, { key, status: response.status, headers });
  }
}
