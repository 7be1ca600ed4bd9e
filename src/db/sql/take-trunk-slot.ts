import type { SqlClient } from '../tx.ts';

/**
 * Gives the run a slot of the trunk, while the run is `owner`'s; 1 when it was.
 * Index: "Run_pkey".
 */
export function takeTrunkSlot(tx: SqlClient, organizationId: string, runId: string, trunkId: string, owner: string) {
  return tx.$executeRaw`
    UPDATE "Run" SET "trunkId" = ${trunkId}
    WHERE id = ${runId} AND "organizationId" = ${organizationId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner}`;
}
