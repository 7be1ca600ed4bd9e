import type { SqlClient } from '../tx.ts';

/**
 * Deletes up to `limit` audit events older than `before`, any organization's;
 * answers how many. The append-only trigger lets these through only in a
 * transaction that set "gateway.audit_retention" (SET LOCAL, just before),
 * and only past its own 30-day floor (prisma/migrations/…_audit_events).
 * Index: "AuditEvent_at_idx", the oldest first.
 */
export async function deleteExpiredAuditEvents(tx: SqlClient, before: Date, limit: number) {
  await tx.$queryRaw`SELECT set_config('gateway.audit_retention', 'on', true)`;
  return tx.$executeRaw`
    DELETE FROM "AuditEvent" WHERE id IN (
      SELECT id FROM "AuditEvent" WHERE at < ${before} ORDER BY at LIMIT ${limit})`;
}
