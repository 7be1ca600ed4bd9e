// The real gateway on a loopback port, over fresh storage, for HTTP tests.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../src/clock.ts';
import type { GraphQLLimits, RateLimits, SubscriptionLimits } from '../../src/config/request-limits.ts';
import type { OutcomeShares } from '../../src/config/simulated-calls.ts';
import { defaultWebhookSettings, type WebhookSettings } from '../../src/config/webhook-settings.ts';
import { type LiveKitSettings, loadConfig, type Storage } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { openReadReplicas } from '../../src/db/read-replicas.ts';
import { createOrganization } from '../../src/domain/organizations.ts';
import { prepareDatabase } from '../../src/domain/prepare-database.ts';
import { SecretBox } from '../../src/domain/secrets.ts';
import type { Dialer } from '../../src/engine/dialer.ts';
import type { RunEngine } from '../../src/engine/run-engine.ts';
import { defaultStepHandlers, type StepHandler } from '../../src/engine/steps.ts';
import { buildApp } from '../../src/http/app.ts';
import { connectRedis } from '../../src/redis/shared-redis.ts';
import { createEngine, createWebhookWorker } from '../../src/server.ts';
import { createServices, type Services } from '../../src/services.ts';
import type { WebhookWorker } from '../../src/webhooks/webhook-worker.ts';
import { createTestStorage, type TestStorage } from './storage.ts';

export interface TestEngineOptions {
  concurrency?: number;
  leaseMs?: number;
  maxRecoveries?: number;
  callMs?: number;
  /** Shares of the simulated calls' outcomes; every call answered unless given. */
  outcomes?: OutcomeShares;
  /** Replaces the simulated (or LiveKit) dialer. */
  dialer?: Dialer;
  clock?: Clock;
  drainMs?: number;
  /** Extra or replacement step handlers (not `call`: see `dialer`). */
  handlers?: Record<string, StepHandler>;
}

export interface TestServerOptions {
  rateLimits?: RateLimits;
  subscriptionLimits?: SubscriptionLimits;
  /** Unrevoked API keys an organization may hold (API_KEYS_PER_ORGANIZATION's default unless given). */
  apiKeysPerOrganization?: number;
  /** The clock keys expire by and the key cache counts its TTL on (API_KEY_CACHE_TTL_MS's default). */
  apiKeyClock?: Clock;
  graphqlLimits?: GraphQLLimits;
  corsOrigins?: string[];
  /** METRICS_TOKEN: TEST_METRICS_TOKEN unless given; null: unset (/metrics off). */
  metricsToken?: string | null;
  /** Log at this level into `logStream`. */
  log?: { level: string; stream: NodeJS.WritableStream };
  /** Run a run engine in this instance. */
  engine?: TestEngineOptions;
  /** Another test server whose database this instance shares (a second instance). */
  sharing?: TestServer;
  /** Carry events and rate-limit counters through this Redis. */
  redisUrl?: string;
  /** …or through this Redis Cluster (REDIS_CLUSTER_NODES: `host:port` of its nodes). */
  redisCluster?: string[];
  /** DIALER=livekit against this LiveKit (a double: test/support/livekit-double.ts); the engine, if any, calls through it. */
  livekit?: LiveKitSettings;
  /** LIVE_QUERY_THROTTLE_MS (0 unless given: each invalidation re-executes at once). */
  liveQueryThrottleMs?: number;
  /** What live queries' throttles wait on (the system's clock unless given). */
  liveQueryClock?: Clock;
  /** FEDERATION=on: /graphql serves the subgraph schema. */
  federation?: boolean;
  /** GRAPHQL_SQL_SUBTREES=off: every connection is answered by its resolvers. */
  sqlSubtrees?: boolean;
  /** The response cache (RESPONSE_CACHE_TTL_MS, RESPONSE_CACHE_MAX_ENTRIES): the server's defaults unless given. */
  responseCache?: { ttlMs: number; maxEntries: number };
  /** Webhook settings (http and private addresses are allowed unless these say otherwise). */
  webhooks?: TestWebhookOptions;
  /** Run on this storage, migrated here if it is empty (the test owns it), instead of a fresh copy. */
  storage?: Storage;
  /** Send reads to these streaming replicas (DATABASE_REPLICA_URLS), checked on `clock`. */
  replicas?: { urls: string[]; maxLagMs: number; checkMs: number; clock: Clock };
}

interface TestWebhookOptions extends Partial<WebhookSettings> {
  /** Run a webhook delivery worker in this instance. */
  deliver?: boolean;
  clock?: Clock;
}

export interface TestServer {
  url: string;
  db: Database;
  app: FastifyInstance;
  services: Services;
  secrets: SecretBox;
  storage: TestStorage | null;
  engine: RunEngine | null;
  /** The webhook delivery worker (with `webhooks.deliver`). */
  webhooks: WebhookWorker | null;
  /**
   * Resolves after the engine's next `count` claim transactions (made while it has a free slot): the last began
   * after this call, so a run that was due now has been taken. Waits for the engine, not for a duration.
   */
  engineClaims(count?: number): Promise<void>;
  /** GET /metrics with the metrics token: the exposition text (throws unless 200). */
  metrics(): Promise<string>;
  /** A new organization and its API key. */
  createOrganization(name?: string): Promise<{ organizationId: string; apiKey: string }>;
  /** POSTs a GraphQL operation with the given key and returns status, body and what X-Response-Cache said (hit, miss or null). */
  graphql(
    apiKey: string | null,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<{ status: number; body: { data?: any; errors?: any }; cache: string | null }>;
  close(): Promise<void>;
}

/** The METRICS_TOKEN test servers have unless told otherwise. */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789';

// Generous: tests that exercise the limits start a server with their own.
const testRateLimits = { perOrganization: 100_000, agentUpdate: 100_000, windowMs: 60_000 };

/** The engine the real server builds (src/server.ts createEngine), with the tests' options. */
function testEngine(services: Services, options: TestEngineOptions): RunEngine {
  const engine = {
    enabled: true,
    concurrency: options.concurrency ?? 10,
    leaseMs: options.leaseMs ?? 30_000,
    maxRecoveries: options.maxRecoveries ?? 3,
    drainMs: options.drainMs ?? 0,
    simulatedCalls: { durationMs: options.callMs ?? 20, outcomes: options.outcomes ?? { answered: 1 } },
    insightsIntervalMs: 0,
    retentionIntervalMs: 0,
    auditRetentionDays: 400,
    runRetentionMonths: null,
  };
  const handlers = new Map([...defaultStepHandlers(), ...Object.entries(options.handlers ?? {})]);
  return createEngine({ engine }, services, { pollMs: 50, handlers, dialer: options.dialer, clock: options.clock })!;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const storage = options.sharing || options.storage ? null : await createTestStorage();
  // A second instance on PostgreSQL gets a pool of its own, as another process would;
  // the embedded database admits one process, so instances in it share the handle.
  const shared = options.sharing?.db;
  const ownDatabase = !shared || shared.storage.kind === 'postgres';
  const db = shared
    ? ownDatabase
      ? await prepareDatabase(shared.storage)
      : shared
    : await prepareDatabase(options.storage ?? storage!.storage);
  // Read as the server reads its environment.
  const redisTarget = loadConfig({
    REDIS_URL: options.redisUrl,
    REDIS_CLUSTER_NODES: options.redisCluster?.join(','),
  }).redis;
  const redis = redisTarget && (await connectRedis(redisTarget));
  // Instances of one deployment share the key, as ENCRYPTION_KEY makes them.
  const secrets = options.sharing?.secrets ?? new SecretBox(randomBytes(32));
  // Tests send webhooks to receivers on the loopback interface, over http.
  const { deliver, clock: webhookClock, ...webhookSettings } = options.webhooks ?? {};
  const webhookConfig = { ...defaultWebhookSettings, allowHttp: true, allowPrivate: true, ...webhookSettings };
  const replicas =
    options.replicas &&
    (await openReadReplicas(db, options.replicas.urls, { ...options.replicas, poolSize: 5 }, options.replicas.clock));
  const services = createServices({
    db,
    replicas,
    secrets,
    redis,
    livekit: options.livekit,
    webhooks: webhookConfig,
    apiKeysPerOrganization: options.apiKeysPerOrganization,
    apiKeyClock: options.apiKeyClock,
    liveQueryThrottleMs: options.liveQueryThrottleMs ?? 0,
    liveQueryClock: options.liveQueryClock,
    responseCache: options.responseCache,
  });
  const app = await buildApp({
    services,
    rateLimits: options.rateLimits ?? testRateLimits,
    subscriptionLimits: options.subscriptionLimits,
    graphqlLimits: options.graphqlLimits,
    federation: options.federation,
    sqlSubtrees: options.sqlSubtrees,
    corsOrigins: options.corsOrigins,
    metricsToken: options.metricsToken === null ? undefined : (options.metricsToken ?? TEST_METRICS_TOKEN),
    logLevel: options.log?.level,
    logStream: options.log?.stream,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const engine = options.engine ? testEngine(services, options.engine) : null;
  if (engine) services.metrics.attachEngine(engine);
  const claimWaiters = new Set<{ left: number; resolve: () => void }>();
  engine?.onClaim(() => {
    for (const waiter of claimWaiters) {
      if (--waiter.left > 0) continue;
      claimWaiters.delete(waiter);
      waiter.resolve();
    }
  });
  engine?.start();
  const webhooks = deliver ? createWebhookWorker(services, { pollMs: 20, clock: webhookClock }) : null;
  if (webhooks) services.metrics.attachWebhooks(webhooks);
  webhooks?.start();
  return {
    url,
    db,
    app,
    services,
    secrets,
    storage,
    engine,
    webhooks,
    engineClaims(count = 2) {
      if (!engine) throw new Error('this test server runs no engine');
      return new Promise((resolve) => claimWaiters.add({ left: count, resolve }));
    },
    async metrics() {
      const response = await fetch(`${url}/metrics`, {
        headers: { authorization: `Bearer ${options.metricsToken ?? TEST_METRICS_TOKEN}` },
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text}`);
      return text;
    },
    async createOrganization(name = 'Test organization') {
      const { organization, apiKey } = await createOrganization(db.prisma, name);
      return { organizationId: organization.id, apiKey };
    },
    async graphql(apiKey, query, variables) {
      // In process: the whole Fastify pipeline but the socket (tests of the transport itself use `url`).
      const response = await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          ...(apiKey ? { 'x-api-key': apiKey } : {}),
        },
        payload: JSON.stringify({ query, variables }),
      });
      const cache = response.headers['x-response-cache'];
      return { status: response.statusCode, body: response.json(), cache: typeof cache === 'string' ? cache : null };
    },
    async close() {
      await Promise.all([engine?.stop(), webhooks?.stop()]);
      await app.close();
      await services.close();
      await redis?.quit();
      await replicas?.close();
      if (ownDatabase) await db.close();
      await storage?.dispose();
    },
  };
}
