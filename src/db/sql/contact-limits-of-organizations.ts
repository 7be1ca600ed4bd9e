import type { SqlClient } from '../tx.ts';

/** An organization that caps the calls to one number (contact_limits). */
export interface ContactLimitsRow {
  id: string;
  contactLimits: unknown;
}

/**
 * The contact_limits of those of the organizations that set some (the others
 * are not returned): read by each claim, so a change applies to the next one.
 * Index: "Organization_pkey", one probe per id.
 */
export function contactLimitsOfOrganizations(tx: SqlClient, organizationIds: string[]) {
  return tx.$queryRaw<ContactLimitsRow[]>`
    SELECT id, "contactLimits" FROM "Organization"
    WHERE id = ANY(${organizationIds}::text[]) AND "contactLimits" <> '[]'::jsonb`;
}
