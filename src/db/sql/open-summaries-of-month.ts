import type { RunMonth } from '../parts/run-months.ts';
import type { SqlClient } from '../tx.ts';

/** What still summarises a month of runs, and so keeps it from being dropped. */
export interface OpenSummaries {
  /** Its runs not ended: their batches' counters can still move. */
  openRuns: number;
  /** The days (UTC, "YYYY-MM-DD") its attempts ended in whose insight is not final: none, or generated before the day closed. */
  days: { organizationId: string; day: string }[];
}

/**
 * What of a month's runs is not summarised for good yet: runs not ended, and
 * each (organization, day) its attempts ended in without an insight of that
 * day generated after it closed (src/domain/insights.ts).
 * Index: the month's partitions only (the id ranges prune the others), read
 * whole: it runs once the month is past RUN_RETENTION_MONTHS, until it is
 * dropped; each day's insight by "Insight_organizationId_periodStart_periodEnd_key".
 */
export async function openSummariesOfMonth(tx: SqlClient, month: RunMonth): Promise<OpenSummaries> {
  const [open] = await tx.$queryRaw<{ openRuns: number }[]>`
    SELECT count(*)::int AS "openRuns" FROM "Run"
    WHERE id >= ${month.from} AND id < ${month.to} AND "endedAt" IS NULL`;
  const days = await tx.$queryRaw<{ organizationId: string; day: string }[]>`
    SELECT d."organizationId", to_char(d.day, 'YYYY-MM-DD') AS day
    FROM (SELECT DISTINCT a."organizationId", (a."endedAt" AT TIME ZONE 'UTC')::date AS day FROM "RunAttempt" a
          WHERE a."runId" >= ${month.from} AND a."runId" < ${month.to} AND a."endedAt" IS NOT NULL) d
    WHERE NOT EXISTS (
      SELECT 1 FROM "Insight" i
      WHERE i."organizationId" = d."organizationId" AND i."periodStart" = d.day AND i."periodEnd" = d.day
        AND i."createdAt" >= (d.day + 1)::timestamp AT TIME ZONE 'UTC')
    ORDER BY d.day, d."organizationId"`;
  return { openRuns: open!.openRuns, days };
}
