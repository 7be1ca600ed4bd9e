import { Prisma } from '../../generated/prisma/client.ts';
import { CallOutcome } from '../../generated/prisma/enums.ts';
import type { SqlQueryable } from '../database.ts';
import { quoteIdentifier } from '../parts/identifiers.ts';
import { selectRows } from '../select-rows.ts';

/** Equal intervals of time from `from`, `intervalMs` long, up to `to`. */
export interface Intervals {
  from: Date;
  to: Date;
  intervalMs: number;
}

/** One count per outcome, named after it; the names come from the schema's enum, never from input. */
const BY_OUTCOME = Prisma.raw(
  Object.values(CallOutcome)
    .map((outcome) => `count(*) FILTER (WHERE a.outcome = '${outcome}')::int AS ${quoteIdentifier(outcome)}`)
    .join(', '),
);

/**
 * The batches' attempts by the interval they started in (0 the first), counted
 * in all and by outcome; intervals with no attempt are absent.
 * Index: "RunAttempt_batchId_startedAt_idx", each batch's range of the intervals.
 */
export function attemptsTimeline(sql: SqlQueryable, organizationId: string, batchIds: string[], window: Intervals) {
  const from = window.from.toISOString();
  return selectRows<{ batchId: string; interval: number; attempts: number } & Record<CallOutcome, number>>(
    sql,
    Prisma.sql`
      SELECT a."batchId", floor(extract(epoch FROM a."startedAt" - ${from}::timestamptz) * 1000 / ${window.intervalMs})::int AS interval,
        count(*)::int AS attempts, ${BY_OUTCOME}
      FROM "RunAttempt" AS a
      WHERE a."batchId" = ANY(${batchIds}::text[]) AND a."organizationId" = ${organizationId}
        AND a."startedAt" >= ${from}::timestamptz AND a."startedAt" < ${window.to.toISOString()}::timestamptz
      GROUP BY 1, 2`,
  );
}
