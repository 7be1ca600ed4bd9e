import type { SqlClient } from '../tx.ts';
import type { RetentionMark } from './scrub-expired-runs.ts';

/**
 * Moves the organization's retention mark forward to `mark`, never back (two
 * instances may both have scrubbed the same runs, one after the other). Its
 * own short transaction, after the scrub's: the engine's claims lock the
 * organization's row, and written in the scrub's transaction it was held
 * through that transaction's commit, a thousand runs' worth of WAL.
 * Index: "Organization_pkey".
 */
export async function moveRetentionMark(db: SqlClient, organizationId: string, mark: RetentionMark): Promise<void> {
  await db.$executeRaw`
    UPDATE "Organization" SET "retainedAfterAt" = ${mark.endedAt}, "retainedAfterRunId" = ${mark.runId}
    WHERE id = ${organizationId}
      AND ("retainedAfterAt" IS NULL OR ("retainedAfterAt", "retainedAfterRunId") < (${mark.endedAt}::timestamptz, ${mark.runId}::text))`;
}
