import { type CallRecord, Prisma } from '../../generated/prisma/client.ts';
import { type CallRecordConditions, callRecordWhere, searchQuery } from '../parts/call-record-conditions.ts';
import type { SqlClient } from '../tx.ts';

/**
 * A page of the organization's call records that `conditions` keep (GET
 * /call-records, GraphQL `callRecords`): the best matches first when words are
 * searched (ts_rank over the record's words; equal ranks newest first), else
 * newest first. Every column but the words themselves.
 * Index: see callRecordWhere; ranking reads only the rows the GIN index found.
 */
export function callRecordsPage(
  tx: SqlClient,
  organizationId: string,
  conditions: CallRecordConditions,
  page: { offset: number; limit: number },
) {
  const rank =
    conditions.search === undefined
      ? Prisma.empty
      : Prisma.sql`ts_rank(c."searchVector", ${searchQuery(organizationId, conditions.search)}) DESC,`;
  return tx.$queryRaw<CallRecord[]>`
    SELECT c.id, c."organizationId", c."attemptId", c."runId", c."attemptNumber", c."batchId", c."agentId",
      c.transcript, c.detection, c."detectionResult", c.summary, c.disposition, c."dispositionLabel",
      c."dispositionCategory", c.data, c.sentiment, c."endedBy", c."recordingUrl", c.latency, c."callbackAt",
      c.evaluations, c.transfer, c."createdAt", c."updatedAt"
    FROM "CallRecord" AS c
    ${callRecordWhere(organizationId, conditions)}
    ORDER BY ${rank} c."createdAt" DESC, c.id DESC
    OFFSET ${page.offset} LIMIT ${page.limit}`;
}
