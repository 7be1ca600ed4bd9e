import type { SqlClient } from '../tx.ts';

/** The attempt a call record is reported for, held until the report's transaction ends. */
export interface CallRecordTarget {
  attemptId: string;
  runId: string;
  batchId: string;
  endedAt: Date | null;
  outcome: string | null;
  stepId: string;
  definition: unknown;
  redactPii: boolean;
  transcriptLanguage: string;
}

/**
 * Locks attempt `number` of the organization's run `runId` (reports of one
 * attempt are merged one after the other) and reads what the report needs:
 * the step's definition (its agent), the organization's settings. None: not
 * the organization's.
 * Index: "RunAttempt_runId_number_key", one probe; the run, version and
 * organization by primary key.
 */
export async function callRecordTarget(
  tx: SqlClient,
  organizationId: string,
  runId: string,
  number: number,
): Promise<CallRecordTarget | undefined> {
  const [target] = await tx.$queryRaw<CallRecordTarget[]>`
    SELECT a.id AS "attemptId", a."runId", a."batchId", a."endedAt", a.outcome::text AS outcome, a."stepId",
      v.definition, o."redactPii", o."transcriptLanguage"
    FROM "RunAttempt" AS a
    JOIN "Run" AS r ON r.id = a."runId"
    JOIN "WorkflowVersion" AS v ON v.id = r."workflowVersionId"
    JOIN "Organization" AS o ON o.id = a."organizationId"
    WHERE a."runId" = ${runId} AND a.number = ${number} AND a."organizationId" = ${organizationId}
    FOR UPDATE OF a`;
  return target;
}
