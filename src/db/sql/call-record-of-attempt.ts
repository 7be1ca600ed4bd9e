import type { CallRecord } from '../../generated/prisma/client.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import type { SqlClient } from '../tx.ts';

/**
 * The record of attempt `attemptId`, if one was reported: read after the
 * attempt is locked (src/db/sql/call-record-target.ts), in a statement of its
 * own, so that it sees the part a report merged and committed while this one
 * waited for the lock.
 * Index: "CallRecord_attemptId_runId_organizationId_key".
 */
export async function callRecordOfAttempt(
  tx: SqlClient,
  organizationId: string,
  attemptId: string,
): Promise<CallRecord | null> {
  const [record] = await tx.$queryRaw<CallRecord[]>`
    SELECT ${callRecordColumns} FROM "CallRecord" AS c
    WHERE c."organizationId" = ${organizationId} AND c."attemptId" = ${attemptId}`;
  return record ?? null;
}
