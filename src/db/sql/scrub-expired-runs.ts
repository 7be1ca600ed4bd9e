import { attemptHoldsData, scrubbedAttempt, scrubbedCallRecord, scrubbedEventPayload } from '../parts/scrubbed.ts';
import type { SqlClient } from '../tx.ts';

/** Where the retention job of an organization got to: the last run it scrubbed, by ("endedAt", id). */
export interface RetentionMark {
  endedAt: Date;
  runId: string;
}

export interface ScrubbedRuns {
  runs: number;
  attempts: number;
  records: number;
  events: number;
  /** The last run scrubbed; null when none was left. */
  last: RetentionMark | null;
}

/**
 * Scrubs the personal data of the organization's next `limit` runs that ended
 * before `cutoff`, after `after` in ("endedAt", id) order
 * (src/db/parts/scrubbed.ts, as an erasure does): their attempts' numbers and
 * pre-call variables, their call records' words, their webhook events' copies.
 * The runs, attempts, records and events stay with their statuses, outcomes,
 * durations and counters, so batches and insights add up as before.
 * Index: the runs on "Run_organizationId_endedAt_idx" (partial, WHERE "endedAt"
 * IS NOT NULL: a range from the mark, in order, so each call reads only
 * `limit` runs, never the ones scrubbed before); their attempts on
 * "RunAttempt_runId_number_organizationId_key", records on "CallRecord_runId_idx", events on
 * "WebhookEvent_objectId_idx".
 */
export async function scrubExpiredRuns(
  tx: SqlClient,
  organizationId: string,
  cutoff: Date,
  after: RetentionMark | null,
  limit: number,
  now: Date,
): Promise<ScrubbedRuns> {
  const from = after ?? { endedAt: new Date(0), runId: '' };
  const [row] = await tx.$queryRaw<
    (Omit<ScrubbedRuns, 'last'> & { lastEndedAt: Date | null; lastId: string | null })[]
  >`
    WITH picked AS MATERIALIZED (
      SELECT r.id, r."endedAt" FROM "Run" r
      WHERE r."organizationId" = ${organizationId} AND r."endedAt" IS NOT NULL
        AND r."endedAt" >= ${from.endedAt} AND r."endedAt" < ${cutoff}
        AND (r."endedAt", r.id) > (${from.endedAt}::timestamptz, ${from.runId}::text)
      ORDER BY r."endedAt", r.id LIMIT ${limit}
    ),
    attempts AS (
      UPDATE "RunAttempt" AS a SET ${scrubbedAttempt} FROM picked p
      WHERE a."runId" = p.id AND ${attemptHoldsData('a')} RETURNING 1
    ),
    records AS (
      UPDATE "CallRecord" AS c SET ${scrubbedCallRecord('c', now)} FROM picked p
      WHERE c."runId" = p.id RETURNING 1
    ),
    events AS (
      UPDATE "WebhookEvent" AS e SET payload = ${scrubbedEventPayload('e.payload')} FROM picked p
      WHERE e."objectId" = p.id AND e."organizationId" = ${organizationId} RETURNING 1
    ),
    last AS (SELECT id, "endedAt" FROM picked ORDER BY "endedAt" DESC, id DESC LIMIT 1)
    SELECT (SELECT count(*)::int FROM picked) AS runs, (SELECT count(*)::int FROM attempts) AS attempts,
      (SELECT count(*)::int FROM records) AS records, (SELECT count(*)::int FROM events) AS events,
      (SELECT "endedAt" FROM last) AS "lastEndedAt", (SELECT id FROM last) AS "lastId"`;
  const { lastEndedAt, lastId, ...counts } = row!;
  return { ...counts, last: lastEndedAt && lastId ? { endedAt: lastEndedAt, runId: lastId } : null };
}
