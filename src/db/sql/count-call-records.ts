import { type CallRecordConditions, callRecordWhere } from '../parts/call-record-conditions.ts';
import type { SqlClient } from '../tx.ts';

/**
 * How many of the organization's call records `conditions` keep (the
 * `totalCount` of GraphQL `callRecords`, `pagination.total` of GET /call-records).
 * Index: see callRecordWhere.
 */
export async function countCallRecords(tx: SqlClient, organizationId: string, conditions: CallRecordConditions) {
  const [row] = await tx.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM "CallRecord" AS c ${callRecordWhere(organizationId, conditions)}`;
  return row?.count ?? 0;
}
