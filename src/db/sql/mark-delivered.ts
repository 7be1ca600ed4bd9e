import type { SqlClient } from '../tx.ts';

/** How an attempt went, as written on the delivery. */
export interface AttemptRecord {
  status: number | null;
  error: string | null;
  latencyMs: number;
}

/**
 * Records a delivery delivered, while it is pending under `owner`'s lease; 1 when it was.
 * Index: "WebhookDelivery_pkey".
 */
export function markDelivered(
  tx: SqlClient,
  organizationId: string,
  deliveryId: string,
  owner: string,
  attempt: AttemptRecord,
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "WebhookDelivery" SET status = 'delivered', attempts = attempts + 1, "deliveredAt" = ${now},
      "lastResponseCode" = ${attempt.status}, "lastError" = NULL, "latencyMs" = ${attempt.latencyMs},
      "leaseOwner" = NULL, "leaseExpiresAt" = NULL
    WHERE id = ${deliveryId} AND "organizationId" = ${organizationId} AND status = 'pending' AND "leaseOwner" = ${owner}`;
}
