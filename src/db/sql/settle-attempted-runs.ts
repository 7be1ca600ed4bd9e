import type { SqlClient } from '../tx.ts';

/** A run whose attempt reached nobody, with its outcome and (when it fails) its error. */
export interface AttemptedRun {
  runId: string;
  outcome: string;
  error: string;
}

/**
 * Moves runs whose attempt reached nobody to `to`: a waiting status (tried
 * again at `retryAt`) or a final one (FAILED, CANCELLED); their leases and
 * trunk slots are released.
 * Index: "Run_pkey", one probe per run (the caller holds the rows).
 */
export function settleAttemptedRuns(tx: SqlClient, runs: AttemptedRun[], to: string, retryAt: Date, now: Date) {
  const final = to === 'FAILED' || to === 'CANCELLED';
  return tx.$executeRaw`
    UPDATE "Run" AS r SET status = ${to}::"RunStatus", "updatedAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
      "trunkId" = NULL, "nextAttemptAt" = ${retryAt}, "lastOutcome" = moved.outcome::"CallOutcome",
      "endedAt" = CASE WHEN ${final} THEN ${now}::timestamptz ELSE NULL END,
      error = CASE WHEN ${to === 'FAILED'} THEN moved.error ELSE r.error END
    FROM unnest(${runs.map((run) => run.runId)}::text[], ${runs.map((run) => run.outcome)}::text[], ${runs.map((run) => run.error)}::text[])
      AS moved(id, outcome, error)
    WHERE r.id = moved.id`;
}
