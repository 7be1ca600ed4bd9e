import type { PhoneNumber } from '../../generated/prisma/client.ts';
import type { SqlClient } from '../tx.ts';

/**
 * The organization's phone numbers on the trunks of each pair (a trunk made
 * outside a pair is its own), each with its pair's key, oldest first.
 * Index: the trunks on "SipTrunk_pairId_idx" and "SipTrunk_pkey"; their
 * numbers on "PhoneNumber_sipTrunkId_idx".
 */
export function numbersOfPairs(client: SqlClient, organizationId: string, pairKeys: string[]) {
  return client.$queryRaw<(PhoneNumber & { pairKey: string })[]>`
    SELECT n.*, coalesce(t."pairId", t.id) AS "pairKey"
    FROM "PhoneNumber" AS n JOIN "SipTrunk" AS t ON t.id = n."sipTrunkId"
    WHERE n."organizationId" = ${organizationId} AND t."organizationId" = ${organizationId}
      AND (t."pairId" = ANY(${pairKeys}::text[]) OR (t."pairId" IS NULL AND t.id = ANY(${pairKeys}::text[])))
    ORDER BY n."createdAt", n.number`;
}
