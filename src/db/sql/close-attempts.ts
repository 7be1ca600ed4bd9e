import { type CallOutcomeName, machineOutcomes } from '../../records/campaign-settings.ts';
import type { SqlClient } from '../tx.ts';

/** The end of one run's attempt `number`: its outcome. */
export interface AttemptEnd {
  runId: string;
  organizationId: string;
  number: number;
  outcome: string;
  reason: string | null;
  durationSeconds: number | null;
}

/** An attempt closed: the outcome it ended with, whether its agent worker reported a record of it, and the call-back it asked for. */
export interface ClosedAttempt {
  runId: string;
  outcome: CallOutcomeName;
  hasRecord: boolean;
  callbackAt: Date | null;
}

/**
 * Closes each run's attempt `number` with its outcome, if still open; returns
 * the runs whose attempt was (one already closed: a retry after a commit whose
 * answer was lost). A call the dialer saw answered ends with what its record's
 * detection reported answering, when that was a machine (voicemail, ivr,
 * call_screening: `reportedOutcome`), whatever the dialer.
 * Index: "RunAttempt_runId_number_organizationId_key", one probe per attempt; its record by
 * "CallRecord_runId_idx".
 */
export function closeAttempts(tx: SqlClient, ends: AttemptEnd[], now: Date) {
  return tx.$queryRaw<ClosedAttempt[]>`
    UPDATE "RunAttempt" AS a SET "endedAt" = ${now},
      outcome = CASE WHEN ended.outcome = 'answered' AND a."reportedOutcome"::text = ANY (${[...machineOutcomes]}::text[])
        THEN a."reportedOutcome" ELSE ended.outcome::"CallOutcome" END,
      reason = ended.reason,
      "durationSeconds" = ended.duration
    FROM unnest(${ends.map((end) => end.runId)}::text[], ${ends.map((end) => end.organizationId)}::text[],
      ${ends.map((end) => end.number)}::int[], ${ends.map((end) => end.outcome)}::text[],
      ${ends.map((end) => end.reason)}::text[], ${ends.map((end) => end.durationSeconds)}::float8[])
      AS ended("runId", "organizationId", number, outcome, reason, duration)
    LEFT JOIN "CallRecord" AS c
      ON c."runId" = ended."runId" AND c."organizationId" = ended."organizationId" AND c."attemptNumber" = ended.number
    WHERE a."runId" = ended."runId" AND a."organizationId" = ended."organizationId" AND a.number = ended.number
      AND a."endedAt" IS NULL
    RETURNING a."runId", a.outcome::text AS outcome, c."attemptId" IS NOT NULL AS "hasRecord", c."callbackAt"`;
}
