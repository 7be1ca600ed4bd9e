// Rate limits per API key (per client address for requests without one),
// over every REST route and /graphql. E1 (agent update) has a tighter quota
// of its own. With Redis the counters are shared by every instance.
import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';

export interface RateLimits {
  /** Requests per key per window, on every route. */
  perKey: number;
  /** Requests per key per window on E1, counted separately. */
  agentUpdate: number;
  windowMs: number;
}

const keyOf = (request: FastifyRequest) => {
  const apiKey = request.headers['x-api-key'];
  // Keys are secrets: counters are named by a hash, never by the key itself.
  return typeof apiKey === 'string' && apiKey
    ? `key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}`
    : `ip:${request.ip}`;
};

export async function registerRateLimits(app: FastifyInstance, limits: RateLimits, redis: Redis | undefined) {
  await app.register(rateLimit, {
    global: true,
    max: limits.perKey,
    timeWindow: limits.windowMs,
    keyGenerator: keyOf,
    nameSpace: 'gateway-rate-limit:',
    ...(redis ? { redis } : {}),
    // Rendered by the app's error handler as SPEC.md's error body; the plugin
    // has already set Retry-After and the RateLimit headers.
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`rate limit exceeded: retry in ${Math.ceil(context.ttl / 1000)} s`), { statusCode: 429 }),
  });
}

/**
 * E1's own quota: one limiter (one counter per key) shared by the routes it is
 * attached to, so both prefixes of E1 draw on the same quota. Those routes opt
 * out of the per-key limit (`unlimited`) and run this hook instead.
 */
export const agentUpdateLimiter = (app: FastifyInstance, limits: RateLimits) =>
  app.rateLimit({
    max: limits.agentUpdate,
    timeWindow: limits.windowMs,
    keyGenerator: (request: FastifyRequest) => `agent-update:${keyOf(request)}`,
  });

/** Route options for routes that are never limited (health checks, documents). */
export const unlimited = { rateLimit: false } as const;
