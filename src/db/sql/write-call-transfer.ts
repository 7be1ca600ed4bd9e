import type { SqlClient } from '../tx.ts';

/** The attempt a transfer is recorded on, and who took the call. */
export interface CallTransferRow {
  organizationId: string;
  attemptId: string;
  runId: string;
  attemptNumber: number;
  batchId: string;
  agentId: string;
  transfer: { to: string; mode: string; at: string; status: string; reason: string | null };
}

/**
 * Records a transfer on the attempt's call record (made when the worker has
 * reported none yet); its other members stay.
 * Index: "CallRecord_attemptId_runId_organizationId_key", the upsert's conflict target.
 */
export function writeCallTransfer(tx: SqlClient, row: CallTransferRow, now: Date) {
  return tx.$executeRaw`
    INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId", transfer,
      "createdAt", "updatedAt")
    VALUES (${row.organizationId}, ${row.attemptId}, ${row.runId}, ${row.attemptNumber}, ${row.batchId}, ${row.agentId},
      ${JSON.stringify(row.transfer)}::jsonb, ${now}, ${now})
    ON CONFLICT ("attemptId", "runId", "organizationId") DO UPDATE SET transfer = excluded.transfer, "updatedAt" = excluded."updatedAt"`;
}
