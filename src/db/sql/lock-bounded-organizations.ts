import type { SqlClient } from '../tx.ts';

/** An organization whose calls in progress are bounded (max_concurrent_calls). */
export interface BoundedOrganizationRow {
  id: string;
  maxConcurrentCalls: number;
}

/**
 * Locks the organizations that bound their calls in progress, in id order,
 * for the rest of a claim, and reads their bound again (it may have changed since): instances claiming runs of one such
 * organization at once take turns, and each counts the runs the other claimed
 * (the next statement sees them), so the bound holds over every instance.
 * FOR NO KEY UPDATE: rows referencing the organization are still inserted.
 * One whose bound was cleared meanwhile is not returned (not bounded).
 * Index: "Organization_pkey", one probe per id.
 */
export function lockBoundedOrganizations(tx: SqlClient, organizationIds: string[]) {
  return tx.$queryRaw<BoundedOrganizationRow[]>`
    SELECT id, "maxConcurrentCalls" FROM "Organization"
    WHERE id = ANY(${organizationIds}::text[]) AND "maxConcurrentCalls" IS NOT NULL
    ORDER BY id FOR NO KEY UPDATE`;
}
