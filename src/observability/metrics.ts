// Prometheus metrics (GET /metrics): request latency by route and GraphQL
// operation, database statements, live subscriptions, whether Redis answers,
// whether each read replica serves reads and how far it lags,
// the run engine's throughput, claim latency and queue depth, and webhook
// deliveries (by outcome, their latency, the outbox's depth), response cache
// hits and misses. One registry per
// process (per app in tests).
import client from 'prom-client';
import type { Database } from '../db/database.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';
import { outboxDepth } from '../db/sql/outbox-depth.ts';
import { queueDepth } from '../db/sql/queue-depth.ts';
import type { BatchProgressHub } from '../events/batch-progress.ts';
import type { RedisHealth } from '../redis/redis-health.ts';

/** What the run engine exposes to the metrics (set once the engine starts). */
export interface EngineGauges {
  readonly activeRuns: number;
  readonly completed: number;
  onClaim(listener: (seconds: number) => void): void;
}

/** What the webhook delivery worker exposes to the metrics. */
export interface WebhookGauges {
  onAttempt(listener: (outcome: string, seconds: number) => void): void;
}

// Queue depths are counted up to this many: beyond it the exact number does not matter.
const QUEUE_DEPTH_CAP = 100_000;

export function createMetrics(
  db: Database,
  events: BatchProgressHub,
  redisHealth?: RedisHealth,
  replicas?: ReadReplicas,
) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  let engine: EngineGauges | null = null;

  const httpDuration = new client.Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route (REST path template or /graphql) and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const operationDuration = new client.Histogram({
    name: 'gateway_graphql_operation_duration_seconds',
    help: 'GraphQL execution latency, by operation name (persisted operations; any other is "other") and type.',
    labelNames: ['operation', 'type'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const statements = new client.Counter({
    name: 'gateway_db_statements_total',
    help: 'SQL statements sent to the database.',
    registers: [registry],
  });
  db.onStatement(() => statements.inc());
  new client.Gauge({
    name: 'gateway_subscriptions_active',
    help: 'Live batchProgress subscribers on this instance.',
    registers: [registry],
    collect() {
      this.set(events.subscriberCount);
    },
  });
  new client.Gauge({
    name: 'gateway_redis_degraded',
    help: '1 while Redis is configured but does not answer: rate limits count per instance, progress events are polled.',
    registers: [registry],
    collect() {
      this.set(redisHealth?.degraded ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'gateway_db_replica_up',
    help: '1 while reads go to this streaming replica (DATABASE_REPLICA_URLS); 0 while it is left out (away or lagging).',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const replica of replicas?.states ?? []) this.set({ replica: replica.name }, replica.up ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'gateway_db_replica_lag_seconds',
    help: "How far behind the primary's WAL this replica was at the last check; -1 while it does not answer.",
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const replica of replicas?.states ?? []) {
        this.set({ replica: replica.name }, replica.lagMs === null ? -1 : replica.lagMs / 1000);
      }
    },
  });
  new client.Gauge({
    name: 'gateway_engine_runs_active',
    help: 'Runs this instance holds now: in a call, waiting for a line (ENGINE_CONCURRENCY), or at another step.',
    registers: [registry],
    collect() {
      this.set(engine?.activeRuns ?? 0);
    },
  });
  new client.Counter({
    name: 'gateway_engine_runs_completed_total',
    help: 'Runs this instance ended (FINISHED or FAILED) since it started.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(engine?.completed ?? 0);
    },
  });
  new client.Gauge({
    name: 'gateway_engine_queue_depth',
    help: `PENDING runs of batches that may run (every instance's queue), counted up to ${QUEUE_DEPTH_CAP}.`,
    registers: [registry],
    async collect() {
      this.set(await queueDepth(db.sql, QUEUE_DEPTH_CAP));
    },
  });

  const claimDuration = new client.Histogram({
    name: 'gateway_engine_claim_duration_seconds',
    help: 'Run engine claim transactions (take due runs, move them to IN_PROGRESS), empty ones included.',
    buckets: [
      0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10,
    ],
    registers: [registry],
  });

  const webhookDeliveries = new client.Counter({
    name: 'gateway_webhook_deliveries_total',
    help: 'Webhook delivery attempts this instance made, by outcome: delivered, retrying (failed, tried again later), failed (given up).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const webhookDuration = new client.Histogram({
    name: 'gateway_webhook_delivery_duration_seconds',
    help: 'Webhook delivery attempts, from the lookup to the answer read (or the failure).',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new client.Gauge({
    name: 'gateway_webhook_outbox_depth',
    help: `Webhook deliveries pending (due, in flight or waiting for a retry) on every instance, counted up to ${QUEUE_DEPTH_CAP}.`,
    registers: [registry],
    async collect() {
      this.set(await outboxDepth(db.sql, QUEUE_DEPTH_CAP));
    },
  });

  const responseCache = new client.Counter({
    name: 'gateway_graphql_response_cache_total',
    help: 'GraphQL queries over HTTP looked up in the response cache, by result: hit (answered from it) or miss (executed).',
    labelNames: ['result'],
    registers: [registry],
  });

  const documentsRead = new client.Counter({
    name: 'gateway_graphql_documents_read_total',
    help: "GraphQL documents read (parsed, or found in yoga's parse cache) for operations over HTTP and graphql-ws; a response cache hit reads none.",
    registers: [registry],
  });

  return {
    registry,
    httpDuration,
    operationDuration,
    responseCache,
    documentsRead,
    attachEngine(gauges: EngineGauges) {
      engine = gauges;
      gauges.onClaim((seconds) => claimDuration.observe(seconds));
    },
    attachWebhooks(worker: WebhookGauges) {
      worker.onAttempt((outcome, seconds) => {
        webhookDeliveries.inc({ outcome });
        webhookDuration.observe(seconds);
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
