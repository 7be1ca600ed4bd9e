import { BatchStatus } from '../../generated/prisma/enums.ts';
import { enumValues } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';
import type { LockedBatchRow } from './lock-batches.ts';

/** A due batch: what locking it reads (lock-batches.ts), and what a claim's limits need. */
export interface DueBatchRow extends LockedBatchRow {
  maxConcurrency: number | null;
  callsPerSecond: number | null;
  nextCallAt: Date | null;
  inProgressCount: number;
  traceparent: string | null;
  /** Its organization's max_concurrent_calls (null: none). */
  organizationBound: number | null;
  /** Its organization's blackout_dates, as stored. */
  blackoutDates: unknown;
  /** Its require_consent, else its organization's. */
  requireConsent: boolean;
}

const CLAIMABLE = enumValues(BatchStatus.PENDING, BatchStatus.IN_PROGRESS);

/**
 * Locks the organization's batches whose runs may be claimed now (PENDING or IN_PROGRESS,
 * with PENDING runs, scheduled_at passed), in id order (the lock order); a
 * batch another instance holds is skipped, left to it this time. Each
 * reads its organization's bound, blackout dates and require_consent, so a claim for organizations without one
 * needs no other statement to know it.
 * Index: "Batch_status_scheduledAt_idx", a range per status; "Organization_pkey", a probe per batch.
 */
export function lockDueBatches(tx: SqlClient, organizationId: string, now: Date) {
  return tx.$queryRaw<DueBatchRow[]>`
    SELECT id, "organizationId", status::text AS status, "callingWindow", retry, "autoPause", "maxConcurrency", "callsPerSecond",
      "nextCallAt", "inProgressCount", traceparent,
      (SELECT "maxConcurrentCalls" FROM "Organization" o WHERE o.id = "Batch"."organizationId") AS "organizationBound",
      (SELECT "blackoutDates" FROM "Organization" o WHERE o.id = "Batch"."organizationId") AS "blackoutDates",
      COALESCE("requireConsent", (SELECT "requireConsent" FROM "Organization" o WHERE o.id = "Batch"."organizationId")) AS "requireConsent"
    FROM "Batch"
    WHERE "organizationId" = ${organizationId} AND status IN (${CLAIMABLE}) AND "pendingCount" > 0 AND ("scheduledAt" IS NULL OR "scheduledAt" <= ${now})
    ORDER BY id FOR NO KEY UPDATE SKIP LOCKED`;
}
