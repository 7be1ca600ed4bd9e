import { BatchStatus } from '../../generated/prisma/enums.ts';
import type { SqlQueryable } from '../database.ts';
import { enumValues } from '../parts/identifiers.ts';

const RUNNABLE = enumValues(BatchStatus.PENDING, BatchStatus.IN_PROGRESS).text;

/**
 * PENDING runs of batches that may run (every instance's queue), counted up to `cap`.
 * Index: "Run_batchId_nextAttemptAt_id_idx", partial WHERE status = 'PENDING',
 * holds exactly the runs counted; their batches on "Batch_pkey". The cap bounds the walk.
 */
export async function queueDepth(sql: SqlQueryable, cap: number): Promise<number> {
  const { rows } = await sql.query<{ depth: number }>(
    `SELECT count(*)::int AS depth FROM (
           SELECT 1 FROM "Run" r JOIN "Batch" b ON b.id = r."batchId"
           WHERE r.status = 'PENDING' AND b.status IN (${RUNNABLE}) LIMIT ${cap}) AS queued`,
  );
  return rows[0]?.depth ?? 0;
}
