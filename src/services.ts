// What the process provides every request and the run engine: storage, the
// secret box and batch-progress events (through Redis when there is one).
import type { Redis } from 'ioredis';
import type { Database } from './db/database.ts';
import type { SecretBox } from './domain/secrets.ts';
import { BatchProgressHub } from './events/batch-progress.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';

export interface Services {
  db: Database;
  secrets: SecretBox;
  events: BatchProgressHub;
  metrics: Metrics;
  /** Shares rate-limit counters and events between instances; absent on a single instance. */
  redis?: Redis;
  close(): Promise<void>;
}

export function createServices(db: Database, secrets: SecretBox, redis?: Redis): Services {
  // Redis delivers a subscriber's messages only on a connection of its own.
  const subscriber = redis?.duplicate();
  const events = new BatchProgressHub(
    (batchId) => db.prisma.batch.findUnique({ where: { id: batchId } }),
    redis && subscriber ? { publish: redis, subscribe: subscriber } : undefined,
  );
  return {
    db,
    secrets,
    events,
    metrics: createMetrics(db, events),
    redis,
    async close() {
      events.close();
      // quit, not disconnect: the unsubscribe commands queued by events.close() are sent first.
      await subscriber?.quit();
    },
  };
}
