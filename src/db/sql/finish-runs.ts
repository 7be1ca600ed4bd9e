import type { SqlClient } from '../tx.ts';

/** A run ended after its steps: FINISHED, or FAILED with its error. */
export interface RunFinish {
  runId: string;
  organizationId: string;
  status: 'FINISHED' | 'FAILED';
  error: string | null;
}

/**
 * Ends runs after their steps, those still IN_PROGRESS under `owner`'s lease;
 * returns the runs that ended, with their batch.
 * Index: "Run_pkey", one probe per run.
 */
export function finishRuns(tx: SqlClient, finishes: RunFinish[], owner: string, now: Date) {
  return tx.$queryRaw<{ id: string; batchId: string; status: 'FINISHED' | 'FAILED' }[]>`
    UPDATE "Run" AS r SET status = ended.status::"RunStatus", "endedAt" = ${now}, "updatedAt" = ${now}, error = ended.error,
      "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "trunkId" = NULL
    FROM unnest(${finishes.map((run) => run.runId)}::text[], ${finishes.map((run) => run.organizationId)}::text[],
      ${finishes.map((run) => run.status)}::text[], ${finishes.map((run) => run.error)}::text[])
      AS ended(id, "organizationId", status, error)
    WHERE r.id = ended.id AND r."organizationId" = ended."organizationId" AND r.status = 'IN_PROGRESS'
      AND r."leaseOwner" = ${owner}
    RETURNING r.id, r."batchId", r.status::text AS status`;
}
