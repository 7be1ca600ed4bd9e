// Starting and stopping the gateway: storage, migrations, catalog, first
// organization, HTTP. The entry point (src/main.ts) only calls these.
import type { FastifyInstance } from 'fastify';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { openReadReplicas } from './db/read-replicas.ts';
import { createOrganization } from './domain/organizations.ts';
import { prepareDatabase } from './domain/prepare-database.ts';
import { loadSecretBox } from './domain/secrets.ts';
import { AuditRetention } from './engine/audit-retention.ts';
import { simulatedDialer } from './engine/dialer.ts';
import { InsightScheduler } from './engine/insight-scheduler.ts';
import { RetentionJob } from './engine/retention-job.ts';
import { type EngineOptions, RunEngine } from './engine/run-engine.ts';
import { RunPartitions } from './engine/run-partitions.ts';
import { defaultStepHandlers } from './engine/steps.ts';
import { buildApp } from './http/app.ts';
import { startTracing } from './observability/tracing.ts';
import { connectRedis } from './redis/shared-redis.ts';
import { createServices, type Services } from './services.ts';
import { WebhookWorker, type WebhookWorkerOptions } from './webhooks/webhook-worker.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  engine: RunEngine | null;
  url: string;
  close(): Promise<void>;
}

/**
 * A fresh embedded install has no organization; create one so a newcomer can
 * call the API at once. Its key is returned to be printed once, never stored.
 */
async function bootstrapFirstOrganization(db: Database) {
  if (db.storage.kind !== 'embedded' || (await db.prisma.organization.count()) > 0) return null;
  const { organization, apiKey } = await createOrganization(db.prisma, 'My organization');
  return { organizationId: organization.id, apiKey };
}

/** What the tests' servers (test/support/server.ts) set beyond the configuration. */
export type EngineOverrides = Partial<Pick<EngineOptions, 'pollMs' | 'handlers' | 'dialer' | 'clock'>>;

/** The run engine of this instance, as configured; null for an API-only instance (`ENGINE=off`). */
export function createEngine(
  config: Pick<Config, 'engine'>,
  services: Services,
  overrides: EngineOverrides = {},
): RunEngine | null {
  if (!config.engine.enabled) return null;
  const clock = overrides.clock ?? systemClock;
  return new RunEngine(services.db.prisma, services.events, {
    concurrency: config.engine.concurrency,
    leaseMs: config.engine.leaseMs,
    maxRecoveries: config.engine.maxRecoveries,
    pollMs: overrides.pollMs ?? 250,
    drainMs: config.engine.drainMs,
    handlers: overrides.handlers ?? defaultStepHandlers(),
    // DIALER=livekit: real calls (src/livekit/); else the simulated ones.
    dialer: overrides.dialer ?? services.livekit?.dialer(clock) ?? simulatedDialer(config.engine.simulatedCalls),
    secrets: services.secrets,
    outbound: services.webhooks,
    clock,
  });
}

/** The webhook delivery worker of an instance that runs the engine (an API-only one delivers none). */
export function createWebhookWorker(services: Services, options: Partial<WebhookWorkerOptions> = {}): WebhookWorker {
  return new WebhookWorker(services.db.prisma, services.secrets, services.webhooks, {
    concurrency: 16,
    pollMs: 200,
    ...options,
  });
}

export async function startServer(config: Config): Promise<RunningServer> {
  // Before anything that traces: off unless the OTEL_* variables ask (the SDK is loaded only then).
  const traces = await startTracing();
  const db = await prepareDatabase(config.storage);
  // Reads go to streaming replicas when there are some (docs/scaling.md); everything else stays on `db`.
  const replicas =
    config.replicas.urls.length > 0 && config.storage.kind === 'postgres'
      ? await openReadReplicas(
          db,
          config.replicas.urls,
          { ...config.replicas, poolSize: config.storage.poolSize },
          systemClock,
        )
      : undefined;
  // Shared state between instances (rate-limit counters, events) lives in Redis when there is one.
  const redis = config.redis && (await connectRedis(config.redis));
  const services = createServices({
    db,
    replicas,
    secrets: loadSecretBox(config.storage, config.encryptionKey),
    redis,
    livekit: config.livekit,
    webhooks: config.webhooks,
    apiKeyCacheTtlMs: config.apiKeyCacheTtlMs,
    apiKeysPerOrganization: config.apiKeysPerOrganization,
    liveQueryThrottleMs: config.liveQueryThrottleMs,
    responseCache: config.responseCache,
  });
  let app: FastifyInstance | undefined;
  let engine: RunEngine | null = null;
  let webhooks: WebhookWorker | null = null;
  let insights: InsightScheduler | null = null;
  let retention: RetentionJob | null = null;
  let auditRetention: AuditRetention | null = null;
  let partitions: RunPartitions | null = null;
  // Shutdown order: stop accepting and finish the requests in flight (WebSockets
  // are told 1001), then hand this instance's runs and webhook deliveries back, then the connections.
  const release = async () => {
    await app?.close();
    await Promise.all([engine?.stop(), webhooks?.stop(), retention?.stop(), partitions?.stop()]);
    insights?.stop();
    auditRetention?.stop();
    await services.close();
    await redis?.quit().catch(() => redis.disconnect());
    await replicas?.close();
    await db.close();
    await traces.shutdown();
  };
  try {
    const firstOrganization = await bootstrapFirstOrganization(db);
    app = await buildApp({
      services,
      rateLimits: config.rateLimits,
      subscriptionLimits: config.subscriptionLimits,
      graphqlLimits: config.graphqlLimits,
      federation: config.federation,
      sqlSubtrees: config.sqlSubtrees,
      corsOrigins: config.corsOrigins,
      metricsToken: config.metricsToken,
      logLevel: config.logLevel,
    });
    const url = await app.listen({ port: config.port, host: config.host });
    engine = createEngine(config, services);
    if (engine) services.metrics.attachEngine(engine);
    engine?.start();
    webhooks = config.engine.enabled ? createWebhookWorker(services) : null;
    if (webhooks) services.metrics.attachWebhooks(webhooks);
    webhooks?.start();
    insights = config.engine.enabled
      ? new InsightScheduler(db.prisma, config.engine.insightsIntervalMs, app.log)
      : null;
    insights?.start();
    retention = config.engine.enabled
      ? new RetentionJob(db.prisma, { intervalMs: config.engine.retentionIntervalMs, log: app.log })
      : null;
    retention?.start();
    auditRetention = config.engine.enabled
      ? new AuditRetention(db.prisma, config.engine.auditRetentionDays, systemClock, app.log)
      : null;
    auditRetention?.start();
    partitions = config.engine.enabled
      ? new RunPartitions(db.prisma, {
          retentionMonths: config.engine.runRetentionMonths,
          clock: systemClock,
          log: app.log,
        })
      : null;
    partitions?.start();
    if (firstOrganization) {
      // Printed once: the key is stored only as a hash.
      process.stdout.write(
        `\nCreated organization ${firstOrganization.organizationId}.\n` +
          `Its API key (shown once, keep it): ${firstOrganization.apiKey}\n\n`,
      );
    }
    return { app, db, engine, url, close: release };
  } catch (error) {
    await release();
    throw error;
  }
}
