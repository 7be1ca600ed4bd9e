import { scrubbedCallRecord } from '../parts/scrubbed.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Empties what an erased prospect's calls' records say of the person
 * (src/db/parts/scrubbed.ts: transcript, summary, extracted data, recording,
 * searched words, the evaluations' reasons); their scores, detection,
 * disposition, sentiment and times stay, so insights still add up. Answers how
 * many records were scrubbed.
 * Index: the prospect's runs on "Run_prospectId_startedAt_idx", their records
 * on "CallRecord_runId_idx".
 */
export function eraseProspectCallRecords(tx: SqlClient, organizationId: string, prospectId: string, now: Date) {
  return tx.$executeRaw`
    UPDATE "CallRecord" AS c SET ${scrubbedCallRecord('c', now)}
    FROM "Run" r
    WHERE r."prospectId" = ${prospectId} AND r."organizationId" = ${organizationId} AND c."runId" = r.id`;
}
