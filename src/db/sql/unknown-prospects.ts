import type { SqlClient } from '../tx.ts';

/**
 * Up to 20 of `ids` that are not prospects of the organization.
 * Index: "Prospect_pkey", one probe per id.
 */
export function unknownProspects(client: SqlClient, organizationId: string, ids: string[]) {
  return client.$queryRaw<{ id: string }[]>`
    SELECT given.id FROM unnest(${ids}::text[]) AS given(id)
    WHERE NOT EXISTS (SELECT 1 FROM "Prospect" p WHERE p.id = given.id AND p."organizationId" = ${organizationId})
    LIMIT 20`;
}
