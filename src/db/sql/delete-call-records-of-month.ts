import type { RunMonth } from '../parts/run-months.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Deletes up to `limit` call records of a month's runs; answers how many. A
 * month's attempts cannot be dropped while records point at them (their
 * foreign key), and a dropped partition cascades nothing.
 * Index: "CallRecord_runId_idx", the month's range of run ids.
 */
export function deleteCallRecordsOfMonth(tx: SqlClient, month: RunMonth, limit: number): Promise<number> {
  return tx.$executeRaw`
    DELETE FROM "CallRecord" WHERE id IN (
      SELECT id FROM "CallRecord" WHERE "runId" >= ${month.from} AND "runId" < ${month.to} LIMIT ${limit})`;
}
