import type { SqlClient } from '../tx.ts';

/**
 * Of these runs, those IN_PROGRESS under `owner`'s lease (a run missing from
 * the answer was taken back, or is gone).
 * Index: "Run_pkey", one probe per run.
 */
export function runsLeasedBy(tx: SqlClient, runIds: string[], owner: string) {
  return tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Run" WHERE id = ANY(${runIds}::text[]) AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner}`;
}
