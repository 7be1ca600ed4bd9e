import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlClient } from '../tx.ts';
import { type ProspectColumns, type ProspectMemberships, unnestedProspects, writeProspects } from './prospect-rows.ts';

/**
 * Inserts the rows as the organization's prospects, with their list
 * membership and tags; returns how many.
 * Index: none read but the memberships' keys (prospect-rows.ts).
 */
export function insertProspects(
  tx: SqlClient,
  organizationId: string,
  columns: ProspectColumns,
  memberships: ProspectMemberships,
) {
  const inserted = Prisma.sql`
  INSERT INTO "Prospect" ("organizationId", "firstName", "lastName", email, phone, timezone, attributes, "updatedAt")
  SELECT ${organizationId}, r.first_name, r.last_name, r.email, r.phone, r.timezone, r.attributes::jsonb, now()
  FROM ${unnestedProspects(columns)} RETURNING id, "organizationId"`;
  return writeProspects(tx, inserted, memberships);
}
