import type { PrismaClient } from '../../generated/prisma/client.ts';

export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  eventId: string;
  endpointId: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secretEncrypted: string;
  /** `{type, timestamp, data}`. */
  payload: { type: string; timestamp: string; data: unknown };
  /** The traceparent of the request that created the batch the event is about (itself, or its run's or attempt's). */
  batchTraceparent: string | null;
}

/**
 * Takes up to `limit` due deliveries of the organization (oldest due first) under `owner`'s lease,
 * until `leaseUntil`: their `nextAttemptAt` moves to the lease's end. A
 * delivery is not taken while an older one of its endpoint about its object is
 * pending (src/webhooks/webhook-store.ts).
 *
 * Index: the due deliveries are walked in order on
 * "WebhookDelivery_nextAttemptAt_id_idx" (partial, WHERE status = 'pending'),
 * and for each, an older pending delivery of its endpoint about its object is
 * looked for in the object's range of "WebhookDelivery_endpointId_eventId_organizationId_key"
 * (a few rows: 4 ms for 16 deliveries among 9,000 pending and 900,000
 * delivered). OFFSET 0 keeps that look-up per delivery (not a join over every
 * pending delivery), and the status compared as text keeps the partial index
 * out of it. The planner's guess at its cost is far above the truth, so JIT
 * compilation, which would take longer than the statement, is turned off for it.
 * The batch's traceparent is read by its primary key.
 */
export async function claimDeliveries(
  prisma: PrismaClient,
  organizationId: string,
  owner: string,
  objectPrefixLength: number,
  limit: number,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedDelivery[]> {
  const [, claimed] = await prisma.$transaction([
    prisma.$executeRaw`SET LOCAL jit = off`,
    prisma.$queryRaw<ClaimedDelivery[]>`
      WITH due AS (
        SELECT d.id FROM "WebhookDelivery" d
        WHERE d."organizationId" = ${organizationId} AND d.status = 'pending' AND d."nextAttemptAt" <= ${now}
          AND (SELECT e.enabled FROM "WebhookEndpoint" e WHERE e.id = d."endpointId" AND e."organizationId" = ${organizationId})
          AND NOT EXISTS (
            SELECT 1 FROM "WebhookDelivery" older
            WHERE older."organizationId" = ${organizationId} AND older."endpointId" = d."endpointId" AND older."eventId" >= left(d."eventId", ${objectPrefixLength})
              AND older."eventId" < d."eventId" AND older.status::text = 'pending'
              AND (SELECT oe."objectId" FROM "WebhookEvent" oe WHERE oe.id = older."eventId" AND oe."organizationId" = ${organizationId})
                = (SELECT ev."objectId" FROM "WebhookEvent" ev WHERE ev.id = d."eventId" AND ev."organizationId" = ${organizationId})
            OFFSET 0)
        ORDER BY d."nextAttemptAt", d.id
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE "WebhookDelivery" d SET "leaseOwner" = ${owner}, "leaseExpiresAt" = ${leaseUntil}, "nextAttemptAt" = ${leaseUntil}
      FROM due, "WebhookEvent" ev, "WebhookEndpoint" e
      WHERE d.id = due.id AND d."organizationId" = ${organizationId}
        AND ev.id = d."eventId" AND ev."organizationId" = ${organizationId} AND e.id = d."endpointId" AND e."organizationId" = ${organizationId}
      RETURNING d.id, d."organizationId", d."eventId", d."endpointId", d.attempts, e.url, e."secretEncrypted", ev.payload,
        (SELECT b.traceparent FROM "Batch" b
         WHERE b."organizationId" = ${organizationId} AND b.id = CASE WHEN ev.type LIKE 'batch.%' THEN ev.payload->'data'->>'id' ELSE ev.payload->'data'->>'batch_id' END
        ) AS "batchTraceparent"`,
  ]);
  return claimed;
}
