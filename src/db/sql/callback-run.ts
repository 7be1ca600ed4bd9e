import type { SqlClient } from '../tx.ts';

/** A run a call-back is asked for after its call, as the decision needs it. */
export interface CallbackRun {
  id: string;
  batchId: string;
  status: string;
  callbacks: number;
  timezone: string | null;
  phone: string;
  /** Its attempts at the call-back's step. */
  attemptsAtStep: number;
}

/**
 * Locks the organization's run `runId` (after its batch: the engine's lock
 * order) with its prospect's zone and number and its attempts at `stepId`.
 * Index: "Run_pkey"; the prospect by its key; the attempts by
 * "RunAttempt_runId_number_organizationId_key" (runId first).
 */
export async function lockCallbackRun(tx: SqlClient, organizationId: string, runId: string, stepId: string) {
  const [run] = await tx.$queryRaw<CallbackRun[]>`
    SELECT r.id, r."batchId", r.status::text AS status, r.callbacks, p.timezone, p.phone,
      (SELECT count(*)::int FROM "RunAttempt" AS a
        WHERE a."runId" = r.id AND a."organizationId" = r."organizationId" AND a."stepId" = ${stepId}) AS "attemptsAtStep"
    FROM "Run" AS r JOIN "Prospect" AS p ON p.id = r."prospectId" AND p."organizationId" = r."organizationId"
    WHERE r.id = ${runId} AND r."organizationId" = ${organizationId}
    FOR UPDATE OF r`;
  return run;
}

/**
 * The run waits (`to`: PENDING, or PAUSED in a paused batch) for the call-back
 * at `at`, at step `stepId`; one more call-back counted.
 * Index: "Run_pkey" (the caller holds the row).
 */
export function callBackRun(
  tx: SqlClient,
  organizationId: string,
  runId: string,
  to: string,
  stepId: string,
  at: Date,
  now: Date,
) {
  return tx.$executeRaw`
    UPDATE "Run" SET status = ${to}::"RunStatus", "currentStepId" = ${stepId}, "nextAttemptAt" = ${at},
      callbacks = callbacks + 1, "endedAt" = NULL, error = NULL, "updatedAt" = ${now}
    WHERE id = ${runId} AND "organizationId" = ${organizationId}`;
}
