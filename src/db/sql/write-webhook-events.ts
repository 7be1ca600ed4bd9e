import { type EventRow, type SubjectSource, webhookEventWrites } from '../parts/webhook-event-writes.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Writes the events some enabled endpoint of their organization subscribes to,
 * with one delivery per such endpoint, in one statement; nothing when no
 * endpoint wants them (src/db/parts/webhook-event-writes.ts).
 * Index: see webhookEventWrites.
 */
export function writeWebhookEvents(
  tx: SqlClient,
  events: EventRow[],
  sources: SubjectSource[],
  ids: { allEvents: string; objectPrefixDigits: number },
  at: Date,
) {
  return tx.$executeRaw`WITH ${webhookEventWrites(events, sources, ids, at)} SELECT count(*) FROM deliveries`;
}
