import { BatchStatus } from '../../generated/prisma/enums.ts';
import { enumValues } from '../parts/identifiers.ts';
import type { TenantKey } from '../tenant-key.ts';
import type { SqlClient } from '../tx.ts';

const LIVE = enumValues(BatchStatus.PENDING, BatchStatus.IN_PROGRESS, BatchStatus.PAUSED);

/**
 * Moves the batches whose every run is final to FINISHED, or FAILED when every
 * run failed (a client's CANCELLED stays); returns those that moved.
 * Index: "Batch_pkey", one probe per id (the caller holds the rows).
 */
export function completeBatches(tx: SqlClient, batches: TenantKey[]) {
  return tx.$queryRaw<{ id: string; organizationId: string; status: string }[]>`
    UPDATE "Batch" SET status = (CASE WHEN "failedCount" = "totalProspects" THEN 'FAILED' ELSE 'FINISHED' END)::"BatchStatus",
      "updatedAt" = now()
    FROM unnest(${batches.map((batch) => batch.id)}::text[], ${batches.map((batch) => batch.organizationId)}::text[])
      AS done(id, "organizationId")
    WHERE "Batch".id = done.id AND "Batch"."organizationId" = done."organizationId" AND status IN (${LIVE})
      AND "pendingCount" + "inProgressCount" + "pausedCount" = 0
    RETURNING "Batch".id, "Batch"."organizationId", status::text AS status`;
}
