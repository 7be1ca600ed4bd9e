import type { SqlClient } from '../tx.ts';

/**
 * The organization's outbound trunk, with its max_concurrency (no row: not theirs, or inbound).
 * Index: "SipTrunk_pkey".
 */
export function outboundTrunk(tx: SqlClient, trunkId: string, organizationId: string) {
  return tx.$queryRaw<{ maxConcurrency: number }[]>`
    SELECT "maxConcurrency" FROM "SipTrunk"
    WHERE id = ${trunkId} AND "organizationId" = ${organizationId} AND direction = 'outbound'`;
}
