import type { SqlClient } from '../tx.ts';

/** A run whose attempt reached nobody, with its outcome, when it may be tried again, and (when it fails) its error. */
export interface AttemptedRun {
  runId: string;
  outcome: string;
  retryAt: Date;
  /** It waits for a call-back the callee asked for (counted on the run). */
  callback: boolean;
  error: string;
}

/**
 * Moves runs whose attempt reached nobody to `to`: a waiting status (tried
 * again at its `retryAt`) or a final one (FAILED, CANCELLED); their leases and
 * trunk slots are released.
 * Index: "Run_pkey", one probe per run (the caller holds the rows).
 */
export function settleAttemptedRuns(
  tx: SqlClient,
  organizationId: string,
  runs: AttemptedRun[],
  to: string,
  now: Date,
) {
  const final = to === 'FAILED' || to === 'CANCELLED';
  return tx.$executeRaw`
    UPDATE "Run" AS r SET status = ${to}::"RunStatus", "updatedAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
      "trunkId" = NULL, "nextAttemptAt" = moved.retry_at, "lastOutcome" = moved.outcome::"CallOutcome",
      callbacks = r.callbacks + moved.callback::int,
      "endedAt" = CASE WHEN ${final} THEN ${now}::timestamptz ELSE NULL END,
      error = CASE WHEN ${to === 'FAILED'} THEN moved.error ELSE r.error END
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.outcome)}::text[],
      ${runs.map((run) => run.retryAt)}::timestamptz[], ${runs.map((run) => run.callback)}::boolean[],
      ${runs.map((run) => run.error)}::text[]) AS moved(id, outcome, retry_at, callback, error)
    WHERE r."organizationId" = ${organizationId} AND r.id = moved.id`;
}
