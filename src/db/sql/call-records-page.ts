import { type CallRecord, Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import { type CallRecordConditions, callRecordWhere } from '../parts/call-record-conditions.ts';
import { selectRows } from '../select-rows.ts';

/**
 * A page of the organization's call records that `conditions` keep (GET
 * /call-records, GraphQL `callRecords`), newest first. Every column but the
 * words themselves (words searched: src/db/sql/searched-call-records-page.ts).
 * Index: see callRecordWhere.
 */
export function callRecordsPage(
  sql: SqlQueryable,
  organizationId: string,
  conditions: CallRecordConditions,
  page: { offset: number; limit: number },
) {
  return selectRows<CallRecord>(
    sql,
    Prisma.sql`
    SELECT ${callRecordColumns}
    FROM "CallRecord" AS c
    ${callRecordWhere(organizationId, conditions)}
    ORDER BY c."createdAt" DESC, c.id DESC
    OFFSET ${page.offset} LIMIT ${page.limit}`,
  );
}
