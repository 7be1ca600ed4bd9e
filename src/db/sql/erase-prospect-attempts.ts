import { attemptHoldsData, scrubbedAttempt } from '../parts/scrubbed.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Empties the copies of an erased prospect's number and pre-call variables on
 * its runs' attempts (src/db/parts/scrubbed.ts); outcomes, durations and times
 * stay, so the batch's counts and insights still add up. Answers how many
 * attempts were scrubbed.
 * Index: the prospect's runs on "Run_prospectId_startedAt_idx", their attempts
 * on "RunAttempt_runId_number_organizationId_key".
 */
export function eraseProspectAttempts(tx: SqlClient, organizationId: string, prospectId: string) {
  return tx.$executeRaw`
    UPDATE "RunAttempt" AS a SET ${scrubbedAttempt}
    FROM "Run" r
    WHERE r."prospectId" = ${prospectId} AND r."organizationId" = ${organizationId} AND a."runId" = r.id
      AND ${attemptHoldsData('a')}`;
}
