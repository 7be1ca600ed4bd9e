import type { SqlClient } from '../tx.ts';

/**
 * Frees the run's trunk slot, while the run is `owner`'s.
 * Index: "Run_pkey".
 */
export function releaseTrunkSlot(client: SqlClient, organizationId: string, runId: string, owner: string) {
  return client.$executeRaw`
    UPDATE "Run" SET "trunkId" = NULL WHERE id = ${runId} AND "organizationId" = ${organizationId} AND "leaseOwner" = ${owner}`;
}
