import { identifier } from '../parts/identifiers.ts';
import type { TenantKey } from '../tenant-key.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Moves `count` runs of a batch from one status counter column to another
 * (src/domain/batch-state.ts's `counterColumn`).
 * Index: "Batch_pkey" (the caller holds the row).
 */
export function moveBatchCounters(
  tx: SqlClient,
  batch: TenantKey,
  fromColumn: string,
  toColumn: string,
  count: number,
) {
  const from = identifier(fromColumn);
  const to = identifier(toColumn);
  return tx.$executeRaw`
    UPDATE "Batch" SET ${from} = ${from} - ${count}, ${to} = ${to} + ${count}, "updatedAt" = now()
    WHERE id = ${batch.id} AND "organizationId" = ${batch.organizationId}`;
}
