import type { SqlClient } from '../tx.ts';

/**
 * Locks a webhook endpoint's row (before its deliveries: the lock order of
 * src/webhooks/webhook-store.ts) and reads its state; no row when it is gone.
 * Index: "WebhookEndpoint_pkey".
 */
export function lockEndpoint(tx: SqlClient, organizationId: string, endpointId: string) {
  return tx.$queryRaw<{ organizationId: string; enabled: boolean; failingSince: Date | null }[]>`
    SELECT "organizationId", enabled, "failingSince" FROM "WebhookEndpoint" WHERE id = ${endpointId} AND "organizationId" = ${organizationId}
    FOR NO KEY UPDATE`;
}
