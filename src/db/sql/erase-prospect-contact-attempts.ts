import type { SqlClient } from '../tx.ts';

/**
 * Deletes the calls counted against contact_limits for an erased prospect's
 * runs: they hold its number. Answers how many were deleted.
 * Index: the prospect's runs on "Run_prospectId_startedAt_idx", their calls
 * on "ContactAttempt_pkey" (its first column, runId).
 */
export function eraseProspectContactAttempts(tx: SqlClient, organizationId: string, prospectId: string) {
  return tx.$executeRaw`
    DELETE FROM "ContactAttempt" AS c USING "Run" r
    WHERE r."prospectId" = ${prospectId} AND r."organizationId" = ${organizationId} AND c."runId" = r.id`;
}
