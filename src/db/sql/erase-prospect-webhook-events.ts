import { scrubbedEventPayload } from '../parts/scrubbed.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Scrubs the erased prospect's data from the webhook events written about its
 * runs before (`run.*`, `call.*`, `call.record.*`: src/db/parts/scrubbed.ts),
 * delivered or not: what a delivery sends, and a replay sends again, is the
 * event's payload, so neither carries the person from now on. Answers how
 * many events were scrubbed.
 * Index: the prospect's runs on "Run_prospectId_startedAt_idx", their events
 * on "WebhookEvent_objectId_idx" (a run's events are about it).
 */
export function eraseProspectWebhookEvents(tx: SqlClient, organizationId: string, prospectId: string) {
  return tx.$executeRaw`
    UPDATE "WebhookEvent" AS e SET payload = ${scrubbedEventPayload('e.payload')}
    FROM "Run" r
    WHERE r."prospectId" = ${prospectId} AND r."organizationId" = ${organizationId}
      AND e."objectId" = r.id AND e."organizationId" = ${organizationId}`;
}
