import type { SqlClient } from '../tx.ts';

/**
 * Disables a webhook endpoint that has failed since `failingSince`.
 * Index: "WebhookEndpoint_pkey" (the caller holds the row).
 */
export function disableEndpoint(
  tx: SqlClient,
  organizationId: string,
  endpointId: string,
  failingSince: Date,
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "WebhookEndpoint" SET enabled = false, "disabledAt" = ${now}, "failingSince" = ${failingSince}, "updatedAt" = ${now}
    WHERE id = ${endpointId} AND "organizationId" = ${organizationId}`;
}
