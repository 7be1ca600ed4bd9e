// What the process provides every request and the run engine: storage, the
// secret box and batch-progress events (through Redis when there is one).
import type { Redis } from 'ioredis';
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
import type { SecretBox } from './domain/secrets.ts';
import { BatchProgressHub } from './events/batch-progress.ts';
import { batchIdentifiers, LiveInvalidations } from './events/live-invalidations.ts';
import {
  defaultResponseCacheSettings,
  type ResponseCacheSettings,
  ResponseCacheStore,
} from './events/response-cache-store.ts';
import { LiveKit } from './livekit/livekit.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { RedisHealth } from './redis/redis-health.ts';

export interface Services {
  db: Database;
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
   * Shares rate-limit counters and events between instances; absent on a single instance.
   * Made with `redisClientOptions` (src/redis/redis-health.ts): requests must not wait for it.
   */
  redis?: Redis;
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
  secrets: SecretBox;
  /** Shares counters and events between instances; absent on a single instance. */
  redis?: Redis;
  /** DIALER=livekit's settings; null or absent with the simulated dialer. */
  livekit?: LiveKitSettings | null;
  webhooks?: WebhookSettings;
  apiKeyCacheTtlMs?: number;
  /** The time keys expire by and the key cache counts its TTL on (the system's unless given: tests move their own). */
  apiKeyClock?: Clock;
  apiKeysPerOrganization?: number;
  /** The least time between two executions of one live query (LIVE_QUERY_THROTTLE_MS). */
  liveQueryThrottleMs?: number;
  /** RESPONSE_CACHE_TTL_MS and RESPONSE_CACHE_MAX_ENTRIES. */
  responseCache?: ResponseCacheSettings;
}

export function createServices({
  db,
  secrets,
  redis,
  livekit: livekitSettings = null,
  webhooks = defaultWebhookSettings,
  apiKeyCacheTtlMs = API_KEY_CACHE_TTL_MS,
  apiKeyClock,
  apiKeysPerOrganization = API_KEYS_PER_ORGANIZATION,
  liveQueryThrottleMs = LIVE_QUERY_THROTTLE_MS,
  responseCache: responseCacheSettings = defaultResponseCacheSettings,
}: ServiceOptions): Services {
  // Redis delivers a subscriber's messages only on a connection of its own.
  const subscriber = redis?.duplicate();
  const redisHealth = redis && subscriber ? new RedisHealth([redis, subscriber]) : undefined;
  const channels =
    redis && subscriber && redisHealth ? { publish: redis, subscribe: subscriber, health: redisHealth } : undefined;
  const events = new BatchProgressHub((batchId) => db.prisma.batch.findUnique({ where: { id: batchId } }), channels);
  const live = new LiveInvalidations(liveQueryThrottleMs, channels);
  const responseCache = new ResponseCacheStore(responseCacheSettings, channels);
  // What drives batchProgress drives the live queries that read the batch, and drops the cached answers holding it.
  events.onBatchChanged((batchId) => {
    live.invalidate(batchIdentifiers(batchId));
    responseCache.batchChanged(batchId);
  });
  const liveKit = livekitSettings && new LiveKit(livekitSettings, db.prisma);
  const apiKeys = new ApiKeyCache(db, { ttlMs: apiKeyCacheTtlMs, clock: apiKeyClock });
  return {
    db,
    apiKeys,
    secrets,
    events,
    live,
    responseCache,
    metrics: createMetrics(db, events, redisHealth),
    redis,
    redisHealth,
    livekit: liveKit,
    webhooks,
    apiKeysPerOrganization,
    async close() {
      liveKit?.close();
      await apiKeys.close();
      events.close();
      live.close();
      redisHealth?.stop();
      // quit, not disconnect: the unsubscribe commands events.close() sent are answered first.
      // With Redis away there is nothing to wait for.
      await subscriber?.quit().catch(() => subscriber.disconnect());
    },
  };
}
