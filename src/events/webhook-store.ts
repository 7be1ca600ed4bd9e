// The delivery worker's statements. Due deliveries are claimed with FOR
// UPDATE SKIP LOCKED by any number of instances; a claimed one is held under a
// lease (its `nextAttemptAt` moves to the lease's end, so a dead instance's
// deliveries are due again then), and its outcome is written only while the
// lease is still this instance's.
//
// Order: a delivery is not claimed while an older delivery (an earlier event)
// of the same endpoint about the same object is pending, in flight or waiting
// for its retry. A delivery that ends `failed` no longer holds the newer ones.
// The older ones are looked for on the unique key ("endpointId", "eventId"),
// in the range of ids that begin like this one (the object's prefix: see
// src/domain/webhook-events.ts): a few rows, however long the history.
//
// Locks: the endpoint row first, then its deliveries, as a client's change or
// deletion of the endpoint takes them. The engine's writes of new deliveries
// only share the endpoint row's key, which none of these block.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { retryTransient } from '../db/transient.ts';
import { OBJECT_PREFIX_LENGTH, Outbox } from '../domain/webhook-events.ts';

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secretEncrypted: string;
  /** `{type, timestamp, data}`. */
  payload: { type: string; timestamp: string; data: unknown };
}

/** How an attempt went, as written on the delivery. */
export interface AttemptRecord {
  status: number | null;
  error: string | null;
  latencyMs: number;
}

export class WebhookStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly owner: string,
  ) {}

  /**
   * Takes up to `limit` due deliveries (oldest due first) under this
   * instance's lease, until `leaseUntil`.
   *
   * The plan, one statement: the due deliveries are walked in order on
   * "WebhookDelivery_nextAttemptAt_id_idx" (partial, WHERE status =
   * 'pending'), and for each, an older pending delivery of its endpoint about
   * its object is looked for in the object's range of
   * "WebhookDelivery_endpointId_eventId_key" (a few rows: 4 ms for 16
   * deliveries among 9,000 pending and 900,000 delivered). OFFSET 0 keeps that
   * look-up per delivery (not a join over every pending delivery), and the
   * status compared as text keeps the partial index out of it. The planner's
   * guess at its cost is far above the truth, so JIT compilation, which would
   * take longer than the statement, is turned off for it.
   */
  claim(limit: number, now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    return retryTransient(async () => {
      const [, claimed] = await this.prisma.$transaction([
        this.prisma.$executeRaw`SET LOCAL jit = off`,
        this.prisma.$queryRaw<ClaimedDelivery[]>`
          WITH due AS (
            SELECT d.id FROM "WebhookDelivery" d
            WHERE d.status = 'pending' AND d."nextAttemptAt" <= ${now}
              AND (SELECT e.enabled FROM "WebhookEndpoint" e WHERE e.id = d."endpointId")
              AND NOT EXISTS (
                SELECT 1 FROM "WebhookDelivery" older
                WHERE older."endpointId" = d."endpointId" AND older."eventId" >= left(d."eventId", ${OBJECT_PREFIX_LENGTH})
                  AND older."eventId" < d."eventId" AND older.status::text = 'pending'
                  AND (SELECT oe."objectId" FROM "WebhookEvent" oe WHERE oe.id = older."eventId")
                    = (SELECT ev."objectId" FROM "WebhookEvent" ev WHERE ev.id = d."eventId")
                OFFSET 0)
            ORDER BY d."nextAttemptAt", d.id
            LIMIT ${limit}
            FOR UPDATE OF d SKIP LOCKED
          )
          UPDATE "WebhookDelivery" d SET "leaseOwner" = ${this.owner}, "leaseExpiresAt" = ${leaseUntil}, "nextAttemptAt" = ${leaseUntil}
          FROM due, "WebhookEvent" ev, "WebhookEndpoint" e
          WHERE d.id = due.id AND ev.id = d."eventId" AND e.id = d."endpointId"
          RETURNING d.id, d."eventId", d."endpointId", d.attempts, e.url, e."secretEncrypted", ev.payload`,
      ]);
      return claimed;
    });
  }

  /** A 2xx: the delivery is delivered, its endpoint no longer failing. */
  delivered(delivery: ClaimedDelivery, now: Date, attempt: AttemptRecord): Promise<void> {
    return this.transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "WebhookEndpoint" WHERE id = ${delivery.endpointId} FOR NO KEY UPDATE`;
      const held = await tx.$executeRaw`
        UPDATE "WebhookDelivery" SET status = 'delivered', attempts = attempts + 1, "deliveredAt" = ${now},
          "lastResponseCode" = ${attempt.status}, "lastError" = NULL, "latencyMs" = ${attempt.latencyMs},
          "leaseOwner" = NULL, "leaseExpiresAt" = NULL
        WHERE id = ${delivery.id} AND status = 'pending' AND "leaseOwner" = ${this.owner}`;
      if (held === 0) return;
      await tx.$executeRaw`UPDATE "WebhookEndpoint" SET "failingSince" = NULL WHERE id = ${delivery.endpointId} AND "failingSince" IS NOT NULL`;
    });
  }

  /**
   * A failed attempt: tried again at `retryAt`, or `failed` when it is null.
   * The endpoint is failing since its first failure after a success; once
   * that is `disableAfterMs` ago it is disabled, its pending deliveries fail,
   * and `webhook_endpoint.disabled` goes to the organization's other endpoints.
   */
  failed(delivery: ClaimedDelivery, now: Date, attempt: AttemptRecord, retryAt: Date | null, disableAfterMs: number): Promise<void> {
    return this.transaction(async (tx) => {
      const [endpoint] = await tx.$queryRaw<{ organizationId: string; enabled: boolean; failingSince: Date | null }[]>`
        SELECT "organizationId", enabled, "failingSince" FROM "WebhookEndpoint" WHERE id = ${delivery.endpointId} FOR NO KEY UPDATE`;
      const held = await tx.$executeRaw`
        UPDATE "WebhookDelivery" SET attempts = attempts + 1,
          status = (CASE WHEN ${retryAt}::timestamptz IS NULL THEN 'failed' ELSE 'pending' END)::"WebhookDeliveryStatus",
          "nextAttemptAt" = coalesce(${retryAt}::timestamptz, "nextAttemptAt"),
          "lastResponseCode" = ${attempt.status}, "lastError" = ${attempt.error}, "latencyMs" = ${attempt.latencyMs},
          "leaseOwner" = NULL, "leaseExpiresAt" = NULL
        WHERE id = ${delivery.id} AND status = 'pending' AND "leaseOwner" = ${this.owner}`;
      if (held === 0 || !endpoint) return;
      const failingSince = endpoint.failingSince ?? now;
      if (!endpoint.enabled || now.getTime() - failingSince.getTime() < disableAfterMs) {
        if (!endpoint.failingSince) await tx.$executeRaw`UPDATE "WebhookEndpoint" SET "failingSince" = ${now} WHERE id = ${delivery.endpointId}`;
        return;
      }
      await tx.$executeRaw`
        UPDATE "WebhookEndpoint" SET enabled = false, "disabledAt" = ${now}, "failingSince" = ${failingSince}, "updatedAt" = ${now}
        WHERE id = ${delivery.endpointId}`;
      await tx.$executeRaw`
        UPDATE "WebhookDelivery" SET status = 'failed', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
          "lastError" = ${`the endpoint was disabled: failing since ${failingSince.toISOString()}`}
        WHERE "endpointId" = ${delivery.endpointId} AND status = 'pending'`;
      await new Outbox().add('webhook_endpoint.disabled', endpoint.organizationId, { kind: 'endpoint', id: delivery.endpointId }).write(tx, now);
    });
  }

  /** Hands a delivery back untried (this instance is stopping): due again at once, for any instance. */
  release(delivery: ClaimedDelivery, now: Date) {
    return retryTransient(
      () => this.prisma.$executeRaw`
        UPDATE "WebhookDelivery" SET "nextAttemptAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL
        WHERE id = ${delivery.id} AND status = 'pending' AND "leaseOwner" = ${this.owner}`,
    );
  }

  private transaction<T>(work: (tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0]) => Promise<T>): Promise<T> {
    return retryTransient(() => this.prisma.$transaction(work));
  }
}
