import type { SqlClient } from '../tx.ts';

/** The attempt a call record is reported for, held until the report's transaction ends. */
export interface CallRecordTarget {
  attemptId: string;
  runId: string;
  batchId: string;
  endedAt: Date | null;
  outcome: string | null;
  stepId: string;
  /** The call step's agent in the run's workflow version (empty when the step names none). */
  agentId: string;
  /** The prospect called: its participant's identity in the call's room. */
  prospectId: string;
  roomName: string | null;
  redactPii: boolean;
  transcriptLanguage: string;
}

/**
 * Locks attempt `number` of the organization's run `runId` (reports of one
 * attempt are merged one after the other) and reads what the report needs:
 * the step's agent, the call's room and prospect, the organization's settings. None: not
 * the organization's.
 * Index: "RunAttempt_runId_number_organizationId_key", one probe; the run, version and
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
      coalesce((SELECT step->>'agent_id' FROM jsonb_array_elements(v.definition->'steps') AS step
        WHERE step->>'id' = a."stepId" LIMIT 1), '') AS "agentId",
      r."prospectId", a."roomName", o."redactPii", o."transcriptLanguage"
    FROM "RunAttempt" AS a
    JOIN "Run" AS r ON r.id = a."runId"
    JOIN "WorkflowVersion" AS v ON v.id = r."workflowVersionId"
    JOIN "Organization" AS o ON o.id = a."organizationId"
    WHERE a."runId" = ${runId} AND a.number = ${number} AND a."organizationId" = ${organizationId}
    FOR UPDATE OF a`;
  return target;
}
