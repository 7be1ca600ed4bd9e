import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { type CallRecordConditions, callRecordWhere } from '../parts/call-record-conditions.ts';
import { selectRows } from '../select-rows.ts';

/**
 * How many of the organization's call records `conditions` keep (the
 * `totalCount` of GraphQL `callRecords`, `pagination.total` of GET /call-records).
 * Index: see callRecordWhere.
 */
export async function countCallRecords(sql: SqlQueryable, organizationId: string, conditions: CallRecordConditions) {
  const [row] = await selectRows<{ count: number }>(
    sql,
    Prisma.sql`
    SELECT count(*)::int AS count FROM "CallRecord" AS c ${callRecordWhere(organizationId, conditions)}`,
  );
  return row?.count ?? 0;
}
