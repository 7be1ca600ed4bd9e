import type { SqlClient } from '../tx.ts';

/**
 * Empties what an erased prospect's calls' records say of the person: the
 * transcript ([]), summary, extracted data, recording and searched words
 * (null), and the evaluations' reasons ('': they may quote the call); their
 * scores, detection, disposition, sentiment and times stay, so insights still
 * add up. Answers how many records were scrubbed.
 * Index: the prospect's runs on "Run_prospectId_startedAt_idx", their records
 * on "CallRecord_runId_idx".
 */
export function eraseProspectCallRecords(tx: SqlClient, organizationId: string, prospectId: string, now: Date) {
  return tx.$executeRaw`
    UPDATE "CallRecord" AS c SET transcript = '[]'::jsonb, summary = NULL, data = NULL, "recordingUrl" = NULL,
      "searchVector" = NULL, "updatedAt" = ${now},
      evaluations = COALESCE((SELECT jsonb_agg(e || jsonb_build_object('reason', '')) FROM jsonb_array_elements(c.evaluations) AS e), '[]'::jsonb)
    FROM "Run" r
    WHERE r."prospectId" = ${prospectId} AND r."organizationId" = ${organizationId} AND c."runId" = r.id`;
}
