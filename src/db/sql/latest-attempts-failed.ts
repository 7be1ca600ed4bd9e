import type { SqlClient } from '../tx.ts';

/**
 * How many of a batch's latest `window` ended attempts failed, of how many.
 * Index: "RunAttempt_batchId_endedAt_idx", partial WHERE "endedAt" IS NOT
 * NULL, walked backward from the newest.
 */
export async function latestAttemptsFailed(tx: SqlClient, organizationId: string, batchId: string, window: number) {
  const [share] = await tx.$queryRaw<{ failed: number; total: number }[]>`
    SELECT count(*) FILTER (WHERE outcome = 'failed')::int AS failed, count(*)::int AS total FROM (
      SELECT outcome FROM "RunAttempt" WHERE "organizationId" = ${organizationId} AND "batchId" = ${batchId}
        AND "endedAt" IS NOT NULL
      ORDER BY "endedAt" DESC LIMIT ${window}) AS latest`;
  return share!;
}
