import type { SqlClient } from '../tx.ts';

/**
 * Fails every pending delivery of a (disabled) endpoint with `error`.
 * Index: "WebhookDelivery_endpointId_eventId_organizationId_key", the endpoint's range.
 */
export function failPendingDeliveries(tx: SqlClient, organizationId: string, endpointId: string, error: string) {
  return tx.$executeRaw`
    UPDATE "WebhookDelivery" SET status = 'failed', "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
      "lastError" = ${error}
    WHERE "endpointId" = ${endpointId} AND "organizationId" = ${organizationId} AND status = 'pending'`;
}
