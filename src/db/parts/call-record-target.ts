import { Prisma } from '../../generated/prisma/client.ts';

/**
 * Attempt `number` of the organization's run `runId`, locked (reports of one
 * attempt are merged one after the other, and after the attempt's end, which
 * holds it too), with what a report needs: the step's agent in the run's
 * workflow version (empty when the step names none), the call's room and
 * prospect, the organization's settings. No row: not the organization's.
 * Index: "RunAttempt_runId_number_organizationId_key", one probe; the run, version and
 * organization by primary key.
 */
export const lockedCallRecordTarget = (organizationId: string, runId: string, number: number) => Prisma.sql`
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
