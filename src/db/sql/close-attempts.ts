import type { SqlClient } from '../tx.ts';

/** The end of one run's attempt `number`: its outcome. */
export interface AttemptEnd {
  runId: string;
  number: number;
  outcome: string;
  reason: string | null;
  durationSeconds: number | null;
}

/**
 * Closes each run's attempt `number` with its outcome, if still open; returns
 * the runs whose attempt was (one already closed: a retry after a commit whose
 * answer was lost).
 * Index: "RunAttempt_runId_number_key", one probe per attempt.
 */
export function closeAttempts(tx: SqlClient, ends: AttemptEnd[], now: Date) {
  return tx.$queryRaw<{ runId: string }[]>`
    UPDATE "RunAttempt" AS a SET "endedAt" = ${now}, outcome = ended.outcome::"CallOutcome", reason = ended.reason,
      "durationSeconds" = ended.duration
    FROM unnest(${ends.map((end) => end.runId)}::text[], ${ends.map((end) => end.number)}::int[],
      ${ends.map((end) => end.outcome)}::text[], ${ends.map((end) => end.reason)}::text[],
      ${ends.map((end) => end.durationSeconds)}::float8[]) AS ended("runId", number, outcome, reason, duration)
    WHERE a."runId" = ended."runId" AND a.number = ended.number AND a."endedAt" IS NULL
    RETURNING a."runId"`;
}
