import type { SqlClient } from '../tx.ts';

/** A call counted against contact_limits. */
export interface ContactAttemptRow {
  number: string;
  runId: string;
  attempt: number;
  at: Date;
}

/**
 * The calls to the organization's numbers counted since `since` (the longest
 * window), oldest first.
 * Index: "ContactAttempt_organizationId_number_at_idx", a range per number
 * (organization, number, at > since): only the calls in the window are read.
 */
export function contactAttemptsOfNumbers(tx: SqlClient, organizationId: string, numbers: string[], since: Date) {
  return tx.$queryRaw<ContactAttemptRow[]>`
    SELECT number, "runId", attempt, at FROM "ContactAttempt"
    WHERE "organizationId" = ${organizationId} AND number = ANY(${numbers}::text[]) AND at > ${since}
    ORDER BY number, at`;
}
