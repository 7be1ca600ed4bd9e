import type { PrismaClient } from '../../generated/prisma/client.ts';

/**
 * Up to `limit` organizations with due deliveries, the one whose delivery has
 * waited longest first, read without locks: the one statement of a claim that
 * reads every organization's deliveries; each organization's are then claimed
 * by a statement of its own (claim-deliveries.ts), which a sharded database
 * routes to that organization's shard (docs/scaling.md#ready-for-citus).
 * Index: "WebhookDelivery_nextAttemptAt_id_idx" (partial, WHERE status = 'pending'), the due range.
 */
export async function organizationsWithDueDeliveries(prisma: PrismaClient, now: Date, limit: number) {
  const rows = await prisma.$queryRaw<{ organizationId: string }[]>`
    SELECT "organizationId" FROM "WebhookDelivery"
    WHERE status = 'pending' AND "nextAttemptAt" <= ${now}
    GROUP BY "organizationId" ORDER BY min("nextAttemptAt"), "organizationId"
    LIMIT ${limit}`;
  return rows.map((row) => row.organizationId);
}
