import { BatchStatus } from '../../generated/prisma/enums.ts';
import { enumValues, identifier } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';

const ENDED = enumValues(BatchStatus.FINISHED, BatchStatus.FAILED);

/**
 * Counts `count` ended runs of a batch that wait again (retried FAILED runs, a
 * FINISHED run's call-back: moved from the counter column `fromColumn` to
 * `toColumn`); an ended batch with any is PENDING again.
 * Index: "Batch_pkey" (the caller holds the row).
 */
export function reopenBatch(
  tx: SqlClient,
  organizationId: string,
  batchId: string,
  fromColumn: string,
  toColumn: string,
  count: number,
) {
  const from = identifier(fromColumn);
  const to = identifier(toColumn);
  return tx.$executeRaw`
    UPDATE "Batch" SET ${from} = ${from} - ${count}, ${to} = ${to} + ${count}, "updatedAt" = now(),
      status = (CASE WHEN status IN (${ENDED}) AND ${count} > 0 THEN 'PENDING' ELSE status::text END)::"BatchStatus"
    WHERE id = ${batchId} AND "organizationId" = ${organizationId}`;
}
