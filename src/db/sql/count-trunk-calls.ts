import type { SqlClient } from '../tx.ts';

/**
 * How many runs in progress hold a slot of the trunk.
 * Index: index-only on "Run_trunkId_status_idx", partial WHERE "trunkId" IS
 * NOT NULL (implied by the =).
 */
export async function countTrunkCalls(tx: SqlClient, organizationId: string, trunkId: string): Promise<number> {
  const [busy] = await tx.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM "Run" WHERE "trunkId" = ${trunkId} AND "organizationId" = ${organizationId} AND status = 'IN_PROGRESS'`;
  return busy!.count;
}
