import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { selectRows } from '../select-rows.ts';

/**
 * Each batch's attempts counted by outcome (null: in flight).
 * Index: "RunAttempt_batchId_startedAt_idx", each batch's range.
 */
export function attemptOutcomesOfBatches(sql: SqlQueryable, organizationId: string, batchIds: readonly string[]) {
  return selectRows<{ batchId: string; outcome: string | null; count: number }>(
    sql,
    Prisma.sql`
      SELECT a."batchId", a.outcome::text AS outcome, count(*)::int AS count FROM "RunAttempt" AS a
      WHERE a."batchId" = ANY(${[...batchIds]}::text[]) AND a."organizationId" = ${organizationId}
      GROUP BY 1, 2`,
  );
}
