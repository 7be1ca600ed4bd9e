import type { SqlClient } from '../tx.ts';
import type { AttemptRecord } from './mark-delivered.ts';

/**
 * Records a failed attempt of a delivery, while it is pending under `owner`'s
 * lease: due again at `retryAt`, or `failed` when it is null; 1 when it was.
 * Index: "WebhookDelivery_pkey".
 */
export function recordFailedDelivery(
  tx: SqlClient,
  organizationId: string,
  deliveryId: string,
  owner: string,
  attempt: AttemptRecord,
  retryAt: Date | null,
) {
  return tx.$executeRaw`
    UPDATE "WebhookDelivery" SET attempts = attempts + 1,
      status = (CASE WHEN ${retryAt}::timestamptz IS NULL THEN 'failed' ELSE 'pending' END)::"WebhookDeliveryStatus",
      "nextAttemptAt" = coalesce(${retryAt}::timestamptz, "nextAttemptAt"),
      "lastResponseCode" = ${attempt.status}, "lastError" = ${attempt.error}, "latencyMs" = ${attempt.latencyMs},
      "leaseOwner" = NULL, "leaseExpiresAt" = NULL
    WHERE id = ${deliveryId} AND "organizationId" = ${organizationId} AND status = 'pending' AND "leaseOwner" = ${owner}`;
}
