import type { CallRecord } from '../../generated/prisma/client.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import { type CallRecordConditions, callRecordWhere } from '../parts/call-record-conditions.ts';
import type { SqlClient } from '../tx.ts';

/**
 * A page of the organization's call records that `conditions` keep (GET
 * /call-records, GraphQL `callRecords`), newest first. Every column but the
 * words themselves (words searched: src/db/sql/searched-call-records-page.ts).
 * Index: see callRecordWhere.
 */
export function callRecordsPage(
  tx: SqlClient,
  organizationId: string,
  conditions: CallRecordConditions,
  page: { offset: number; limit: number },
) {
  return tx.$queryRaw<CallRecord[]>`
    SELECT ${callRecordColumns}
    FROM "CallRecord" AS c
    ${callRecordWhere(organizationId, conditions)}
    ORDER BY c."createdAt" DESC, c.id DESC
    OFFSET ${page.offset} LIMIT ${page.limit}`;
}
