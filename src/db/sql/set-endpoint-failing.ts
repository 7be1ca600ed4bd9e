import type { SqlClient } from '../tx.ts';

/**
 * Sets since when a webhook endpoint fails (null: it no longer does; nothing
 * written when it already says so).
 * Index: "WebhookEndpoint_pkey".
 */
export function setEndpointFailing(tx: SqlClient, organizationId: string, endpointId: string, since: Date | null) {
  return since
    ? tx.$executeRaw`UPDATE "WebhookEndpoint" SET "failingSince" = ${since} WHERE id = ${endpointId} AND "organizationId" = ${organizationId}`
    : tx.$executeRaw`UPDATE "WebhookEndpoint" SET "failingSince" = NULL WHERE id = ${endpointId} AND "organizationId" = ${organizationId} AND "failingSince" IS NOT NULL`;
}
