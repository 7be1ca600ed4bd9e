// Rate limits per API key (per client address for requests without one),
// over every REST route and /graphql. E1 (agent update) has a tighter quota
// of its own. With Redis the counters are shared by every instance; while
// Redis does not answer, each instance counts on its own (a key may then make
// up to its quota on each instance) rather than failing requests.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimits } from '../config/request-limits.ts';
import type { RedisHealth } from '../events/redis-health.ts';

const keyOf = (request: FastifyRequest) => {
  const apiKey = request.headers['x-api-key'];
  // Keys are secrets: counters are named by a hash, never by the key itself.
  return typeof apiKey === 'string' && apiKey
    ? `key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}`
    : `ip:${request.ip}`;
};

// The plugin's own stores, in Redis and in this process's memory (the package exports no path to them).
type PluginStore = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  ...rest: unknown[]
) => FastifyRateLimitStore & {
  read: FastifyRateLimitStore['incr'];
};
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as PluginStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as PluginStore;

type Count = Parameters<FastifyRateLimitStore['incr']>;
type Child = Parameters<FastifyRateLimitStore['child']>[0];

/** Counts in Redis while it answers, in this process's memory while it does not (src/events/redis-health.ts). */
class SharedOrLocalStore implements FastifyRateLimitStore {
  constructor(
    private readonly shared: InstanceType<PluginStore>,
    private readonly local: InstanceType<PluginStore>,
    private readonly health: RedisHealth,
  ) {}

  incr(...[key, done, timeWindow, max]: Count) {
    this.count('incr', key, done, timeWindow, max);
  }

  read(...[key, done, timeWindow, max]: Count) {
    this.count('read', key, done, timeWindow, max);
  }

  child(routeOptions: Child) {
    const shared = this.shared.child(routeOptions) as InstanceType<PluginStore>;
    const local = this.local.child(routeOptions) as InstanceType<PluginStore>;
    return new SharedOrLocalStore(shared, local, this.health);
  }

  private count(method: 'incr' | 'read', ...[key, done, timeWindow, max]: Count) {
    if (!this.health.tryRedis()) return this.local[method](key, done, timeWindow, max);
    this.shared[method](
      key,
      (error, result) => {
        if (!error) {
          this.health.commandSucceeded();
          return done(null, result);
        }
        this.health.commandFailed();
        this.local[method](key, done, timeWindow, max);
      },
      timeWindow,
      max,
    );
  }
}

/** Where the counters live in Redis (the same keys as before the fallback existed). */
const NAMESPACE = 'gateway-rate-limit:';

function sharedOrLocalStore(redis: Redis, health: RedisHealth): FastifyRateLimitStoreCtor {
  return class extends SharedOrLocalStore {
    constructor({
      continueExceeding = false,
      exponentialBackoff = false,
    }: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      super(
        new RedisStore(continueExceeding, exponentialBackoff, redis, NAMESPACE),
        new LocalStore(continueExceeding, exponentialBackoff),
        health,
      );
    }
  };
}

export interface SharedCounters {
  redis: Redis;
  health: RedisHealth;
}

export async function registerRateLimits(app: FastifyInstance, limits: RateLimits, shared: SharedCounters | undefined) {
  await app.register(rateLimit, {
    global: true,
    max: limits.perKey,
    timeWindow: limits.windowMs,
    keyGenerator: keyOf,
    ...(shared ? { store: sharedOrLocalStore(shared.redis, shared.health) } : {}),
    // The stores above never fail; were one to, the request goes through unlimited rather than failing.
    skipOnError: true,
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
