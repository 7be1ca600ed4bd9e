import type { SqlClient } from '../tx.ts';

/**
 * Hands a delivery back untried, while it is pending under `owner`'s lease: due again at `now`.
 * Index: "WebhookDelivery_pkey".
 */
export function releaseDelivery(
  client: SqlClient,
  organizationId: string,
  deliveryId: string,
  owner: string,
  now: Date,
) {
  return client.$executeRaw`
    UPDATE "WebhookDelivery" SET "nextAttemptAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL
    WHERE id = ${deliveryId} AND "organizationId" = ${organizationId} AND status = 'pending' AND "leaseOwner" = ${owner}`;
}
