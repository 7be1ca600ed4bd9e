import type { SqlClient } from '../tx.ts';

/** A call to count: its run's next attempt, to the number, claimed at `at`. */
export interface ContactAttemptInsert {
  runId: string;
  attempt: number;
  number: string;
}

/**
 * Counts the claimed runs' calls against contact_limits. A run handed back
 * and claimed again for the same attempt is counted once (its first claim).
 * Index: "ContactAttempt_pkey" (the conflict), and the inserts' entries in
 * "ContactAttempt_organizationId_number_at_idx".
 */
export function insertContactAttempts(tx: SqlClient, organizationId: string, calls: ContactAttemptInsert[], at: Date) {
  return tx.$executeRaw`
    INSERT INTO "ContactAttempt" ("organizationId", number, "runId", attempt, at)
    SELECT ${organizationId}, c.number, c."runId", c.attempt, ${at}
    FROM unnest(${calls.map((call) => call.number)}::text[], ${calls.map((call) => call.runId)}::text[],
      ${calls.map((call) => call.attempt)}::int[]) AS c(number, "runId", attempt)
    ON CONFLICT ("runId", attempt, "organizationId") DO NOTHING`;
}
