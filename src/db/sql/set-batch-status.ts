import { Prisma } from '../../generated/prisma/client.ts';
import { identifier } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';

export interface BatchStatusChange {
  status: string;
  pausedReason: string | null;
  /** Runs moved out of each status counter column (src/domain/batch-state.ts's `counterColumn`). */
  movedFrom: { column: string; count: number }[];
  /** The counter column they all moved to. */
  movedTo: string;
}

/**
 * Sets a batch's status (and paused reason) with its counters moved by the runs moved.
 * Index: "Batch_pkey" (the caller holds the row).
 */
export function setBatchStatus(
  tx: SqlClient,
  organizationId: string,
  batchId: string,
  change: BatchStatusChange,
  now: Date,
) {
  const counters = change.movedFrom.map(
    ({ column, count }) => Prisma.sql`${identifier(column)} = ${identifier(column)} - ${count}`,
  );
  const to = identifier(change.movedTo);
  const moved = change.movedFrom.reduce((sum, { count }) => sum + count, 0);
  return tx.$executeRaw`
    UPDATE "Batch" SET ${Prisma.join(counters)}, ${to} = ${to} + ${moved}, status = ${change.status}::"BatchStatus",
      "pausedReason" = ${change.pausedReason}, "updatedAt" = ${now}
    WHERE id = ${batchId} AND "organizationId" = ${organizationId}`;
}
