import type { SqlQueryable } from '../database.ts';

/**
 * Webhook deliveries pending (due, in flight or waiting for a retry), counted up to `cap`.
 * Index: an index-only walk of "WebhookDelivery_nextAttemptAt_id_idx", partial
 * WHERE status = 'pending'. The cap bounds the walk.
 */
export async function outboxDepth(sql: SqlQueryable, cap: number): Promise<number> {
  const { rows } = await sql.query<{ depth: number }>(
    `SELECT count(*)::int AS depth FROM (SELECT 1 FROM "WebhookDelivery" WHERE status = 'pending' LIMIT ${cap}) AS pending`,
  );
  return rows[0]?.depth ?? 0;
}
