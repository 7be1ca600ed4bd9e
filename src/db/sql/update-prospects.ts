import { Prisma } from '../../generated/prisma/client.ts';
import { quoteIdentifier } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';
import { type ProspectColumns, type ProspectMemberships, unnestedProspects, writeProspects } from './prospect-rows.ts';

/** The fields an import may change, as named in `r` (prospect-rows.ts), and their columns. */
const COLUMNS = { first_name: 'firstName', last_name: 'lastName', email: 'email', timezone: 'timezone' } as const;

/**
 * Updates the organization's prospects with the rows' phones (every one with
 * that phone): the `fields` given, attributes merged into theirs; with their
 * list membership and tags; returns how many.
 * Index: the organization's prospects on "Prospect_organizationId_createdAt_idx"
 * (phone has none: an import matches its phones once, against the organization's rows).
 */
export function updateProspects(
  tx: SqlClient,
  organizationId: string,
  columns: ProspectColumns,
  fields: ReadonlySet<string>,
  memberships: ProspectMemberships,
) {
  const set = (field: keyof typeof COLUMNS) => {
    const column = quoteIdentifier(COLUMNS[field]);
    return Prisma.raw(`${column} = ${fields.has(field) ? `r.${field}` : `p.${column}`}`);
  };
  const updated = Prisma.sql`
    UPDATE "Prospect" AS p SET ${set('first_name')}, ${set('last_name')}, ${set('email')},
      ${set('timezone')}, attributes = p.attributes || r.attributes::jsonb, "updatedAt" = now()
    FROM ${unnestedProspects(columns)}
    WHERE p."organizationId" = ${organizationId} AND p.phone = r.phone RETURNING p.id, p."organizationId"`;
  return writeProspects(tx, updated, memberships);
}
