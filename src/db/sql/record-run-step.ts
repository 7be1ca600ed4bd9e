import type { SqlClient } from '../tx.ts';

/**
 * Records the step a run is at, while it is `owner`'s; 1 when it was.
 * Index: "Run_pkey".
 */
export function recordRunStep(client: SqlClient, runId: string, stepId: string, owner: string, now: Date) {
  return client.$executeRaw`
    UPDATE "Run" SET "currentStepId" = ${stepId}, "updatedAt" = ${now}
    WHERE id = ${runId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner}`;
}
