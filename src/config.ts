// The one place environment variables are read. The server and the CLI share
// it, and so do the sizes of bulk inputs (src/domain/limits.ts). A value that
// does not parse stops the process with the variable and the value named,
// never a silent default. It is the bottom layer: it imports nothing of the
// gateway's but the settings' own types and parsers (src/config/).
import path from 'node:path';
import { z } from 'zod';
import {
  defaultGraphQLLimits,
  defaultSubscriptionLimits,
  type GraphQLLimits,
  type RateLimits,
  type SubscriptionLimits,
} from './config/request-limits.ts';
import { parseOutcomeShares, type SimulatedCalls } from './config/simulated-calls.ts';
import {
  defaultWebhookSettings,
  parseDuration,
  parseRetrySchedule,
  type WebhookSettings,
} from './config/webhook-settings.ts';

/** A variable read by `parse`, its error message the variable's problem. */
const parsed = <T>(parse: (text: string) => T) =>
  z.string().transform((text, context) => {
    try {
      return parse(text);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/** REDIS_CLUSTER_NODES: `host:port` of some of the cluster's nodes (ioredis finds the others). */
function parseClusterNodes(text: string): { host: string; port: number }[] {
  return text.split(',').map((entry) => {
    const match = /^\s*([^\s:]+|\[[0-9a-fA-F:]+\]):(\d{1,5})\s*$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) throw new Error(`expected host:port, comma-separated (got "${entry}")`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

/** How long an instance remembers a verified API key (src/auth/api-key-cache.ts); 0: not at all. */
export const API_KEY_CACHE_TTL_MS = 30_000;
// The longest a revoked key may still be accepted when revocations go unheard (a notification lost).
const API_KEY_CACHE_TTL_MAX_MS = 300_000;

/** Keys an organization may hold unrevoked (src/domain/organizations.ts): each is a secret to leak, not more quota. */
export const API_KEYS_PER_ORGANIZATION = 100;
/** How long the response cache keeps an answer at most, and how many it keeps in memory (docs/response-cache.md). */
export const RESPONSE_CACHE_TTL_MS = 10_000;
export const RESPONSE_CACHE_MAX_ENTRIES = 1_000;
/** With Redis, the answers' text an instance keeps copies of, at most (64 MiB). */
export const RESPONSE_CACHE_MEMORY_BYTES = 64 * 1024 * 1024;
/** The least time between two executions of one live query (docs/graphql.md, Live queries). */
export const LIVE_QUERY_THROTTLE_MS = 250;
/** How far behind the primary a read replica may fall and still serve reads, and how often that is checked (docs/scaling.md). */
const REPLICA_MAX_LAG_MS = 10_000;
const REPLICA_CHECK_MS = 1_000;

// Sizes of bulk inputs (DECISIONS.md).
const bulkLimitVariables = z.object({
  BULK_ITEMS_MAX: z.coerce.number().int().min(1).default(10_000),
  BATCH_PROSPECTS_MAX: z.coerce.number().int().min(1).default(100_000),
  PROSPECT_IMPORT_MAX_ROWS: z.coerce.number().int().min(1).default(100_000),
  PROSPECT_IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(32 * 1024 * 1024),
});

const environment = bulkLimitVariables.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  REDIS_URL: z.string().url().optional(),
  REDIS_CLUSTER_NODES: parsed(parseClusterNodes).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .pipe(z.array(z.string().url()))
    .default([]),
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(REPLICA_MAX_LAG_MS),
  DATABASE_REPLICA_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(REPLICA_CHECK_MS),
  ENCRYPTION_KEY: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  AGENT_UPDATE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).default(defaultSubscriptionLimits.perConnection),
  SUBSCRIPTIONS_PER_ORGANIZATION: z.coerce.number().int().min(1).default(defaultSubscriptionLimits.perOrganization),
  API_KEYS_PER_ORGANIZATION: z.coerce.number().int().min(1).default(API_KEYS_PER_ORGANIZATION),
  RESPONSE_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(RESPONSE_CACHE_TTL_MS),
  RESPONSE_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).default(RESPONSE_CACHE_MAX_ENTRIES),
  RESPONSE_CACHE_MEMORY_BYTES: z.coerce.number().int().min(0).default(RESPONSE_CACHE_MEMORY_BYTES),
  LIVE_QUERY_THROTTLE_MS: z.coerce.number().int().min(0).max(60_000).default(LIVE_QUERY_THROTTLE_MS),
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(API_KEY_CACHE_TTL_MAX_MS).default(API_KEY_CACHE_TTL_MS),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(defaultGraphQLLimits.maxDepth),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(defaultGraphQLLimits.maxAliases),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(1).default(defaultGraphQLLimits.maxTokens),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(defaultGraphQLLimits.maxDirectives),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(defaultGraphQLLimits.maxCost),
  GRAPHQL_MAX_VARIABLES_BYTES: z.coerce.number().int().min(1).default(defaultGraphQLLimits.maxVariablesBytes),
  GRAPHQL_INTROSPECTION: z.enum(['on', 'off']).default('on'),
  GRAPHQL_PERSISTED_ONLY: z.enum(['on', 'off']).default('off'),
  FEDERATION: z.enum(['on', 'off']).default('off'),
  GRAPHQL_SQL_SUBTREES: z.enum(['on', 'off']).default('on'),
  PERSISTED_OPERATIONS_FILE: z.string().optional(),
  CORS_ORIGINS: z.string().default(''),
  // Shared with the scraper only: long enough that it cannot be guessed (`openssl rand -hex 32`).
  METRICS_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, { message: 'must be at least 16 characters, none of them a space' })
    .optional(),
  ENGINE: z.enum(['on', 'off']).default('on'),
  ENGINE_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  SIMULATED_CALL_MS: z.coerce.number().int().min(0).max(3_600_000).default(2000),
  SIMULATED_CALL_OUTCOMES: z
    .string()
    .default('answered=0.6,no_answer=0.2,busy=0.1,voicemail=0.05,failed=0.05')
    .pipe(parsed(parseOutcomeShares)),
  RUN_LEASE_MS: z.coerce.number().int().min(1000).default(30_000),
  RUN_MAX_RECOVERIES: z.coerce.number().int().min(1).max(100).default(3),
  ENGINE_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  INSIGHTS_INTERVAL_MS: z.coerce.number().int().min(0).default(3_600_000),
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(0).default(3_600_000),
  RUN_RETENTION_MONTHS: z.coerce.number().int().min(1).max(1200).optional(),
  // At least 30: the audit table's trigger refuses deleting a younger event (prisma/migrations/…_audit_events).
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(30).max(36_500).default(400),
  WEBHOOK_ALLOW_HTTP: z.enum(['on', 'off']).default('off'),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['on', 'off']).default('off'),
  WEBHOOK_RETRY_SCHEDULE_MS: parsed(parseRetrySchedule).optional(),
  WEBHOOK_DISABLE_AFTER: parsed(parseDuration).optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(defaultWebhookSettings.timeoutMs),
  DIALER: z.enum(['simulated', 'livekit']).default('simulated'),
  LIVEKIT_URL: z.string().url().optional(),
  LIVEKIT_API_KEY: z.string().optional(),
  LIVEKIT_API_SECRET: z.string().optional(),
  LIVEKIT_AGENT_NAME: z.string().optional(),
  LIVEKIT_RINGING_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(30),
});

/** What DIALER=livekit cannot start without. */
const LIVEKIT_REQUIRED = ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET', 'LIVEKIT_AGENT_NAME'] as const;

/** Credentials: named in an error, never shown. */
const SECRET_VARIABLES = new Set([
  'DATABASE_URL',
  'DATABASE_REPLICA_URLS',
  'REDIS_URL',
  'ENCRYPTION_KEY',
  'METRICS_TOKEN',
  'LIVEKIT_API_KEY',
  'LIVEKIT_API_SECRET',
]);

export class ConfigError extends Error {}

/** The variables read by `schema`, or a ConfigError naming each wrong one with its value. */
function parseVariables<Schema extends z.ZodType>(schema: Schema, env: NodeJS.ProcessEnv): z.output<Schema> {
  // Empty strings mean "unset", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0]);
    const given = SECRET_VARIABLES.has(name) ? 'its value not shown' : `given ${JSON.stringify(present[name])}`;
    return `${name}: ${issue.message} (${given})`;
  });
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}

export interface BulkLimits {
  /** numbers, phone_numbers, tag_ids, prospects, a list's prospect_ids */
  bulkItems: number;
  /** a batch's prospect_ids */
  batchProspects: number;
  /** rows of a CSV prospect import (src/domain/prospect-import.ts) */
  importRows: number;
  /** bytes of a CSV prospect import */
  importBytes: number;
}

const bulkLimitsOf = (values: z.output<typeof bulkLimitVariables>): BulkLimits => ({
  bulkItems: values.BULK_ITEMS_MAX,
  batchProspects: values.BATCH_PROSPECTS_MAX,
  importRows: values.PROSPECT_IMPORT_MAX_ROWS,
  importBytes: values.PROSPECT_IMPORT_MAX_BYTES,
});

/** The sizes of bulk inputs alone: read when the domain's schemas are built, before the rest of the configuration. */
export const loadBulkLimits = (env: NodeJS.ProcessEnv = process.env): BulkLimits =>
  bulkLimitsOf(parseVariables(bulkLimitVariables, env));

export type Storage = { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; url: string; poolSize: number };

/** Where the shared Redis is: one server (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[] };

export interface Config {
  port: number;
  host: string;
  storage: Storage;
  /** Streaming replicas that serve reads (docs/scaling.md); none: the primary serves everything. */
  replicas: ReplicaConfig;
  /** Shares events, counters and cached answers between instances; unset on a single instance. */
  redis: RedisTarget | undefined;
  /** Seals secrets at rest; see src/domain/secrets.ts for the embedded default. */
  encryptionKey: string | undefined;
  rateLimits: RateLimits;
  subscriptionLimits: SubscriptionLimits;
  /** Unrevoked keys an organization may hold (API_KEYS_PER_ORGANIZATION). */
  apiKeysPerOrganization: number;
  /** How long a verified API key is remembered (API_KEY_CACHE_TTL_MS); 0: every request reads it. */
  apiKeyCacheTtlMs: number;
  /** The least time between two executions of one live query. */
  liveQueryThrottleMs: number;
  /** Serve the schema as an Apollo Federation 2 subgraph (docs/federation.md). */
  federation: boolean;
  /** PostgreSQL writes the connection subtrees it can as JSON text (docs/sql-rendering.md). */
  sqlSubtrees: boolean;
  /** The GraphQL response cache: how long an answer is kept (0: off), and how many in memory. */
  responseCache: { ttlMs: number; maxEntries: number; memoryBytes: number };
  graphqlLimits: GraphQLLimits;
  /** Origins browsers may call the API from; `*` for any. */
  corsOrigins: string[];
  /** What a scraper of /metrics sends as its bearer token; unset: /metrics is off. */
  metricsToken: string | undefined;
  engine: EngineConfig;
  /** Webhook endpoints' URLs, and their deliveries (made by instances that run the engine). */
  webhooks: WebhookSettings;
  /** Calls placed through LiveKit (DIALER=livekit); null: the simulated dialer, and nothing of trunks sent anywhere. */
  livekit: LiveKitSettings | null;
  logLevel: z.infer<typeof environment>['LOG_LEVEL'];
  bulkLimits: BulkLimits;
}

interface ReplicaConfig {
  /** DATABASE_REPLICA_URLS. */
  urls: string[];
  /** A replica further behind than this is left out until it catches up. */
  maxLagMs: number;
  /** How often the replicas' positions are read. */
  checkMs: number;
}

interface EngineConfig {
  /** `ENGINE=off` makes an API-only instance. */
  enabled: boolean;
  /** `ENGINE_CONCURRENCY`: calls in flight at once (the instance's lines), not runs held. */
  concurrency: number;
  leaseMs: number;
  /** A run taken back this many times with no call in flight fails instead. */
  maxRecoveries: number;
  /** How long a stopping instance lets its calls in flight end. */
  drainMs: number;
  simulatedCalls: SimulatedCalls;
  /** How often insights are regenerated (0: never, only by the mutation). */
  insightsIntervalMs: number;
  /** How often runs past their organization's `retention_days` are scrubbed (0: never). */
  retentionIntervalMs: number;
  /** How long audit events are kept (AUDIT_RETENTION_DAYS); older ones are deleted hourly. */
  auditRetentionDays: number;
  /** RUN_RETENTION_MONTHS: runs' monthly partitions older than that are dropped (null: kept for ever). */
  runRetentionMonths: number | null;
}

/** The LiveKit project (Cloud or self-hosted) calls go through, and the agent worker dispatched to them. */
export interface LiveKitSettings {
  /** `https://<project>.livekit.cloud` or a self-hosted server's URL. */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** The `agent_name` the agent worker registers with (explicit dispatch). */
  agentName: string;
  /** How long a call may ring before it counts as not answered. */
  ringingTimeoutSeconds: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = parseVariables(environment, env);
  const livekitMissing =
    values.DIALER === 'livekit' ? LIVEKIT_REQUIRED.filter((name) => values[name] === undefined) : [];
  if (livekitMissing.length > 0) {
    throw new ConfigError(`invalid configuration: DIALER=livekit needs ${livekitMissing.join(', ')}`);
  }
  if (values.DATABASE_REPLICA_URLS.length > 0 && !values.DATABASE_URL) {
    throw new ConfigError(
      'invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL (replicas of a PostgreSQL primary)',
    );
  }
  if (values.REDIS_URL && values.REDIS_CLUSTER_NODES) {
    throw new ConfigError(
      'invalid configuration: set REDIS_URL (one server) or REDIS_CLUSTER_NODES (a cluster), not both',
    );
  }
  return {
    port: values.PORT,
    host: values.HOST,
    storage: values.DATABASE_URL
      ? { kind: 'postgres', url: values.DATABASE_URL, poolSize: values.DATABASE_POOL_SIZE }
      : { kind: 'embedded', dataDir: path.resolve(values.DATA_DIR) },
    replicas: {
      urls: values.DATABASE_REPLICA_URLS,
      maxLagMs: values.DATABASE_REPLICA_MAX_LAG_MS,
      checkMs: values.DATABASE_REPLICA_CHECK_MS,
    },
    redis: values.REDIS_CLUSTER_NODES
      ? { kind: 'cluster', nodes: values.REDIS_CLUSTER_NODES }
      : values.REDIS_URL
        ? { kind: 'server', url: values.REDIS_URL }
        : undefined,
    encryptionKey: values.ENCRYPTION_KEY,
    rateLimits: {
      perOrganization: values.RATE_LIMIT_PER_MINUTE,
      agentUpdate: values.AGENT_UPDATE_RATE_LIMIT_PER_MINUTE,
      windowMs: 60_000,
    },
    subscriptionLimits: {
      perConnection: values.SUBSCRIPTIONS_PER_CONNECTION,
      perOrganization: values.SUBSCRIPTIONS_PER_ORGANIZATION,
    },
    apiKeysPerOrganization: values.API_KEYS_PER_ORGANIZATION,
    apiKeyCacheTtlMs: values.API_KEY_CACHE_TTL_MS,
    liveQueryThrottleMs: values.LIVE_QUERY_THROTTLE_MS,
    federation: values.FEDERATION === 'on',
    sqlSubtrees: values.GRAPHQL_SQL_SUBTREES === 'on',
    responseCache: {
      ttlMs: values.RESPONSE_CACHE_TTL_MS,
      maxEntries: values.RESPONSE_CACHE_MAX_ENTRIES,
      memoryBytes: values.RESPONSE_CACHE_MEMORY_BYTES,
    },
    corsOrigins: values.CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    metricsToken: values.METRICS_TOKEN,
    graphqlLimits: {
      maxDepth: values.GRAPHQL_MAX_DEPTH,
      maxAliases: values.GRAPHQL_MAX_ALIASES,
      maxTokens: values.GRAPHQL_MAX_TOKENS,
      maxDirectives: values.GRAPHQL_MAX_DIRECTIVES,
      maxCost: values.GRAPHQL_MAX_COST,
      maxVariablesBytes: values.GRAPHQL_MAX_VARIABLES_BYTES,
      introspection: values.GRAPHQL_INTROSPECTION === 'on',
      persistedOnly: values.GRAPHQL_PERSISTED_ONLY === 'on',
      persistedOperationsFile: values.PERSISTED_OPERATIONS_FILE,
    },
    engine: {
      enabled: values.ENGINE === 'on',
      concurrency: values.ENGINE_CONCURRENCY,
      leaseMs: values.RUN_LEASE_MS,
      maxRecoveries: values.RUN_MAX_RECOVERIES,
      drainMs: values.ENGINE_DRAIN_MS,
      simulatedCalls: { durationMs: values.SIMULATED_CALL_MS, outcomes: values.SIMULATED_CALL_OUTCOMES },
      insightsIntervalMs: values.INSIGHTS_INTERVAL_MS,
      retentionIntervalMs: values.RETENTION_INTERVAL_MS,
      auditRetentionDays: values.AUDIT_RETENTION_DAYS,
      runRetentionMonths: values.RUN_RETENTION_MONTHS ?? null,
    },
    livekit:
      values.DIALER === 'livekit'
        ? {
            url: values.LIVEKIT_URL!,
            apiKey: values.LIVEKIT_API_KEY!,
            apiSecret: values.LIVEKIT_API_SECRET!,
            agentName: values.LIVEKIT_AGENT_NAME!,
            ringingTimeoutSeconds: values.LIVEKIT_RINGING_TIMEOUT_SECONDS,
          }
        : null,
    webhooks: {
      allowHttp: values.WEBHOOK_ALLOW_HTTP === 'on',
      allowPrivate: values.WEBHOOK_ALLOW_PRIVATE === 'on',
      retryScheduleMs: values.WEBHOOK_RETRY_SCHEDULE_MS ?? defaultWebhookSettings.retryScheduleMs,
      disableAfterMs: values.WEBHOOK_DISABLE_AFTER ?? defaultWebhookSettings.disableAfterMs,
      timeoutMs: values.WEBHOOK_TIMEOUT_MS,
    },
    logLevel: values.LOG_LEVEL,
    bulkLimits: bulkLimitsOf(values),
  };
}
