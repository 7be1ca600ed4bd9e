// Rate limits per organization: the requests carrying any of its keys, over
// every REST route and /graphql (SSE subscriptions included), and the
// operations sent over graphql-ws (src/graphql/websocket.ts), draw on one
// quota, so more keys buy no more requests. Requests without a valid key are
// counted per client address (an IPv6 client per /64), so made-up keys spend
// nobody's quota. The agent update (PATCH /agents/{agent_id}) has a tighter quota of its own, per
// organization too. With Redis the counters are shared by every instance;
// while Redis does not answer, each instance counts on its own (an
// organization may then make up to its quota on each instance) rather than
// failing requests. On a Redis Cluster each counter carries its organization
// (or client address) as its hash tag, so an organization's counters share a
// slot; each is a single-key script all the same.
import { createRequire } from 'node:module';
import rateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
  normalizeIP,
} from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { RateLimits } from '../config/request-limits.ts';
import type { RedisHealth } from '../redis/redis-health.ts';
import type { SharedRedis } from '../redis/shared-redis.ts';
import { RedisRateCounters } from './redis-rate-counters.ts';
import type { RequestViewers } from './request-viewer.ts';

// The plugin's own store in this process's memory (the package exports no path to it).
type PluginStore = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  ...rest: unknown[]
) => FastifyRateLimitStore & {
  read: FastifyRateLimitStore['incr'];
};
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as PluginStore;

type Count = Parameters<FastifyRateLimitStore['incr']>;
type Child = Parameters<FastifyRateLimitStore['child']>[0];

/** Counts in Redis while it answers, in this process's memory while it does not (src/redis/redis-health.ts). */
class SharedOrLocalStore implements FastifyRateLimitStore {
  constructor(
    private readonly shared: RedisRateCounters,
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
    const shared = this.shared.child(routeOptions);
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

/** Where the counters live in Redis. */
const NAMESPACE = 'gateway-rate-limit:';

/**
 * The counter a request draws on: its organization's, or its client address's when its key is missing or
 * not valid, or cannot be looked up now (the database away: the route then answers that, 503).
 */
async function counterOf(request: FastifyRequest, viewers: RequestViewers, hashTag: HashTag): Promise<string> {
  const viewer = await viewers(request).catch(() => null);
  return viewer ? organizationCounter(viewer.organizationId, hashTag) : `ip:${hashTag(normalizeIP(request.ip))}`;
}

type HashTag = SharedRedis['hashTag'];
const organizationCounter = (organizationId: string, hashTag: HashTag) => `org:${hashTag(organizationId)}`;
/** Without Redis (or in this process's memory) names have no slot to choose. */
const noHashTag: HashTag = (id) => id;

/** What a refusal says, over HTTP (SPEC.md's error body) and graphql-ws alike. */
export const rateLimitedMessage = (retryAfterSeconds: number) => `rate limit exceeded: retry in ${retryAfterSeconds} s`;

/** An operation refused for its organization's spent quota, and when the quota has room again. */
export interface RateLimited {
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** The agent update's own quota, a hook of both its routes (which opt out of the shared quota with `unlimited`). */
  agentUpdate: preHandlerAsyncHookHandler;
  /** Counts one operation not made over HTTP (graphql-ws) against its organization's quota: refused when it is spent. */
  countOperation(organizationId: string): Promise<RateLimited | null>;
}

export interface RateLimitDependencies {
  viewers: RequestViewers;
  /** Redis (a server or a cluster), for counters shared by every instance; absent on a single instance. */
  shared: SharedRedis | undefined;
}

export async function registerRateLimits(
  app: FastifyInstance,
  limits: RateLimits,
  { viewers, shared }: RateLimitDependencies,
): Promise<RateLimiter> {
  const local = new LocalStore(false, false);
  const store = shared
    ? new SharedOrLocalStore(new RedisRateCounters(shared.client, NAMESPACE), local, shared.health)
    : local;
  const hashTag = shared?.hashTag ?? noHashTag;
  await app.register(rateLimit, {
    global: true,
    max: limits.perOrganization,
    timeWindow: limits.windowMs,
    keyGenerator: (request) => counterOf(request, viewers, hashTag),
    // The plugin makes its store from a class: this one hands it the store above, whose counters
    // graphql-ws operations are counted on too (an object returned by a constructor is what `new` gives).
    store: function storeMadeAbove() {
      return store;
    } as unknown as FastifyRateLimitStoreCtor,
    // The stores above never fail; were one to, the request goes through unlimited rather than failing.
    skipOnError: true,
    // Rendered by the app's error handler as SPEC.md's error body; the plugin
    // has already set Retry-After and the RateLimit headers.
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(rateLimitedMessage(Math.ceil(context.ttl / 1000))), { statusCode: 429 }),
  });
  return {
    // One limiter (one counter per organization) shared by the routes it is attached to,
    // so both prefixes of the agent update draw on the same quota.
    agentUpdate: app.rateLimit({
      max: limits.agentUpdate,
      timeWindow: limits.windowMs,
      keyGenerator: async (request: FastifyRequest) => `agent-update:${await counterOf(request, viewers, hashTag)}`,
    }),
    countOperation: (organizationId) =>
      new Promise((resolve) =>
        store.incr(
          organizationCounter(organizationId, hashTag),
          // As for HTTP (skipOnError): were the store to fail, the operation goes through.
          (error, counted) =>
            resolve(
              !error && counted && counted.current > limits.perOrganization
                ? { retryAfterSeconds: Math.ceil(counted.ttl / 1000) }
                : null,
            ),
          limits.windowMs,
          limits.perOrganization,
        ),
      ),
  };
}

/** Route options for routes that are never limited (health checks, documents). */
export const unlimited = { rateLimit: false } as const;
