import { BatchStatus } from '../../generated/prisma/enums.ts';
import { enumValues, identifier } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';

const ENDED = enumValues(BatchStatus.FINISHED, BatchStatus.FAILED);

/**
 * Counts `count` FAILED runs of a batch retried (moved to the counter column
 * `toColumn`); an ended batch with any is PENDING again.
 * Index: "Batch_pkey" (the caller holds the row).
 */
export function reopenBatch(tx: SqlClient, batchId: string, toColumn: string, count: number) {
  const to = identifier(toColumn);
  return tx.$executeRaw`
    UPDATE "Batch" SET "failedCount" = "failedCount" - ${count}, ${to} = ${to} + ${count}, "updatedAt" = now(),
      status = (CASE WHEN status IN (${ENDED}) AND ${count} > 0 THEN 'PENDING' ELSE status::text END)::"BatchStatus"
    WHERE id = ${batchId}`;
}
