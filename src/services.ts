// What the process provides every request and the run engine: storage, the
// secret box and batch-progress events (through Redis when there is one).
import { ApiKeyCache } from './auth/api-key-cache.ts';
import type { Clock } from './clock.ts';
import { defaultWebhookSettings, type WebhookSettings } from './config/webhook-settings.ts';
import {
  API_KEY_CACHE_TTL_MS,
  API_KEYS_PER_ORGANIZATION,
  LIVE_QUERY_THROTTLE_MS,
  type LiveKitSettings,
} from './config.ts';
import type { Database } from './db/database.ts';
import type { ReadReplicas } from './db/read-replicas.ts';
import type { SecretBox } from './domain/secrets.ts';
import { batchOrganizations } from './events/batch-organizations.ts';
import { BatchProgressHub } from './events/batch-progress.ts';
import { batchIdentifiers, LiveInvalidations } from './events/live-invalidations.ts';
import {
  defaultResponseCacheSettings,
  type ResponseCacheSettings,
  ResponseCacheStore,
} from './events/response-cache-store.ts';
import { LiveKit } from './livekit/livekit.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import type { RedisHealth } from './redis/redis-health.ts';
import { type RedisClient, type SharedRedis, sharedRedis } from './redis/shared-redis.ts';

export interface Services {
  db: Database;
  /** The streaming replicas reads go to (DATABASE_REPLICA_URLS); absent: the primary serves every read. */
  replicas?: ReadReplicas;
  /** The API keys this instance verified lately, forgotten as soon as they are revoked (src/auth/api-key-cache.ts). */
  apiKeys: ApiKeyCache;
  secrets: SecretBox;
  events: BatchProgressHub;
  /** Re-executes live queries (`query @live`) on changes, on every instance. */
  live: LiveInvalidations;
  /** The GraphQL response cache's answers (in Redis when there is one). */
  responseCache: ResponseCacheStore;
  metrics: Metrics;
  /**
   * Shares rate-limit counters and events between instances (one Redis server or a cluster); absent on a single instance.
   * Made with `redisClientOptions` (src/redis/redis-health.ts): requests must not wait for it.
   */
  redis?: SharedRedis;
  /** Whether Redis answers (with `redis` only). */
  redisHealth?: RedisHealth;
  /** Calls and trunks through LiveKit (DIALER=livekit); null with the simulated dialer. */
  livekit: LiveKit | null;
  /** Where webhook endpoints may point, and how their deliveries go. */
  webhooks: WebhookSettings;
  /** Unrevoked API keys an organization may hold (API_KEYS_PER_ORGANIZATION). */
  apiKeysPerOrganization: number;
  close(): Promise<void>;
}

/** What the services are made of: storage and the secret box, and the settings that differ from the defaults. */
export interface ServiceOptions {
  db: Database;
  /** Streaming replicas for reads, checked already; the caller closes them. */
  replicas?: ReadReplicas;
  secrets: SecretBox;
  /** Shares counters and events between instances (src/redis/shared-redis.ts connectRedis); absent on a single instance. */
  redis?: RedisClient;
  /** DIALER=livekit's settings; null or absent with the simulated dialer. */
  livekit?: LiveKitSettings | null;
  webhooks?: WebhookSettings;
  apiKeyCacheTtlMs?: number;
  /** The time keys expire by and the key cache counts its TTL on (the system's unless given: tests move their own). */
  apiKeyClock?: Clock;
  apiKeysPerOrganization?: number;
  /** The least time between two executions of one live query (LIVE_QUERY_THROTTLE_MS). */
  liveQueryThrottleMs?: number;
  /** What live queries' throttles wait on (the system's unless given: tests move their own). */
  liveQueryClock?: Clock;
  /** RESPONSE_CACHE_TTL_MS and RESPONSE_CACHE_MAX_ENTRIES. */
  responseCache?: ResponseCacheSettings;
}

export function createServices({
  db,
  replicas,
  secrets,
  redis,
  livekit: livekitSettings = null,
  webhooks = defaultWebhookSettings,
  apiKeyCacheTtlMs = API_KEY_CACHE_TTL_MS,
  apiKeyClock,
  apiKeysPerOrganization = API_KEYS_PER_ORGANIZATION,
  liveQueryThrottleMs = LIVE_QUERY_THROTTLE_MS,
  liveQueryClock,
  responseCache: responseCacheSettings = defaultResponseCacheSettings,
}: ServiceOptions): Services {
  const shared = redis && sharedRedis(redis);
  if (replicas && shared) replicas.shareWrites(shared.client, shared.health);
  const events = new BatchProgressHub((batchId) => db.prisma.batch.findFirst({ where: { id: batchId } }), shared);
  const live = new LiveInvalidations(liveQueryThrottleMs, shared, liveQueryClock);
  const responseCache = new ResponseCacheStore(responseCacheSettings, shared);
  // What drives batchProgress drives the live queries that read the batch, and drops the cached answers holding it.
  const batchChanged = (batchId: string, organizationId: string | null) => {
    live.invalidate(batchIdentifiers(batchId), organizationId);
    responseCache.batchChanged(batchId, organizationId);
  };
  // On a cluster both go to the batch's organization's slot: the engine announces batches by id alone.
  const organizationOf = shared?.sharded ? batchOrganizations(db) : null;
  events.onBatchChanged((batchId) => {
    if (!organizationOf) return batchChanged(batchId, null);
    void organizationOf(batchId).then((organizationId) => organizationId && batchChanged(batchId, organizationId));
  });
  const liveKit = livekitSettings && new LiveKit(livekitSettings, db.prisma);
  const apiKeys = new ApiKeyCache(db, { ttlMs: apiKeyCacheTtlMs, clock: apiKeyClock });
  return {
    db,
    replicas,
    apiKeys,
    secrets,
    events,
    live,
    responseCache,
    metrics: createMetrics(db, events, shared?.health, replicas),
    redis: shared,
    redisHealth: shared?.health,
    livekit: liveKit,
    webhooks,
    apiKeysPerOrganization,
    async close() {
      liveKit?.close();
      await apiKeys.close();
      events.close();
      live.close();
      // After the unsubscribe commands events.close() and live.close() sent.
      await shared?.close();
    },
  };
}
