/**
 * A tenant table's row as a database sharded by organization finds it: its id
 * and its organization (every tenant table's primary key is both:
 * docs/scaling.md#ready-for-citus). Statements over many rows take these
 * pairs, so each row is named with its organization.
 */
export interface TenantKey {
  id: string;
  organizationId: string;
}
